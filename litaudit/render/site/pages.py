"""The site's index of collections and measures, its list of papers and a paper's page.

The index has one row per population (collection, measure, source): N, the record and
its holder, how many results cannot be told apart from it, the standard error the
reference model used and its kind, the dates the results span. A paper's page lists its
results (with their status), the populations they take part in (rank, tied with the top)
and the curation history of its results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from litaudit.analyses.extreme.population import ResultRow
from litaudit.analyses.extreme.wording import who
from litaudit.analyses.extreme.wording_noise import summary_null_sentence
from litaudit.render.site import html
from litaudit.render.site.population import PopulationPage, paper_url, title
from litaudit.store.history import Entry
from litaudit.store.papers import PaperListed

NOISE_WORDS = {  # the kind of standard error the audit used (analyses.extreme.noise)
    "measured": "measured",
    "bound": "bound sqrt(m (1 - m) / n)",
    "model": "model sd / sqrt(n)",
    "given": "given",
}
SOURCE_SHORT = {"paper": "papers", "official": "official"}


def _dates(p: PopulationPage) -> tuple[str, str]:
    ps = p.best.population
    if ps.first_date:
        return ps.first_date, ps.last_date or ps.first_date
    years = sorted(r.year for r in p.rows)
    return str(years[0]), str(years[-1])


def _index_row(p: PopulationPage) -> str:
    b = p.best
    rec = b.best
    k = len(p.standing.tied - {rec.id})
    se = b.noise.se if b.noise is not None else b.stats.reference.se
    kind = b.noise.kind if b.noise is not None else "model"
    first, last = _dates(p)
    text = f"{p.collection_name} {p.collection_id} {p.measure} {rec.system} {who(rec)}".lower()
    src = SOURCE_SHORT.get(p.source, p.source)
    cells = [
        html.cell(
            f'<a href="{p.path}">{html.esc(p.collection_name)}</a>', v=p.collection_name, raw=True
        ),
        html.cell(p.measure),
        html.cell(src),
        html.cell(str(b.stats.reference.n_results), v=b.stats.reference.n_results, num=True),
        html.cell(rec.value_text, v=repr(rec.value), num=True),
        html.cell(who(rec)),
        html.cell(str(k), v=k, num=True),
        html.cell(f"{se:.4f}", v=se, num=True),
        html.cell(NOISE_WORDS.get(kind, kind)),
        html.cell(f"{first} to {last}" if first != last else first, v=first, cls="nowrap"),
    ]
    return (
        f'<tr data-source="{html.esc(src)}" data-year="{html.esc(last[:4])}" '
        f'data-text="{html.esc(text)}">' + "".join(cells) + "</tr>"
    )


@dataclass(frozen=True)
class Skipped:
    collection: str
    measure: str
    source: str
    n: int
    why: str


def index(
    pops: Sequence[PopulationPage], skipped: Sequence[Skipped], alpha: float, p: float
) -> str:
    n_false = sum(
        1 for x in pops if x.best.spread is not None and x.best.spread.false_by_inspection
    )
    kinds: dict[str, int] = {}
    for x in pops:
        k = x.best.noise.kind if x.best.noise is not None else "model"
        kinds[k] = kinds.get(k, 0) + 1
    heads = [
        html.sort_head("collection"),
        html.sort_head("measure"),
        html.sort_head("source"),
        html.sort_head("N", "num"),
        html.sort_head("record", "num"),
        html.sort_head("held by"),
        html.sort_head("cannot be told apart", "num"),
        html.sort_head("se", "num"),
        html.sort_head("noise"),
        html.sort_head("dates"),
    ]
    n_results = sum(x.best.stats.reference.n_results for x in pops)
    body = [
        "<h1>Audited leaderboards</h1>",
        f"<p>{len(pops)} populations of published results ({n_results} results): each "
        "collection, measure and source with its record, the results that cannot be told "
        "apart from the record (the candidate best set, Carterette, SIGIR 2015, Table 3, "
        f"at p = {p:g}) and the noise the audit used.</p>",
        f"<p>{html.inline(summary_null_sentence(len(pops), n_false, alpha, kinds))}</p>",
        '<section aria-labelledby="pops-h">',
        '<h2 id="pops-h">Collections and measures</h2>',
        html.filter_form(
            "pops",
            [
                html.search_field("collection, measure, system"),
                html.select(
                    "source", "Source", sorted({SOURCE_SHORT.get(x.source, x.source) for x in pops})
                ),
                *html.year_fields(),
            ],
        ),
        '<div class="scroll"><table class="sortable" id="pops">',
        "<caption>One row per population; the collection links to its leaderboard</caption>",
        "<thead><tr>" + "".join(heads) + "</tr></thead>",
        "<tbody>",
        *(_index_row(x) for x in pops),
        "</tbody></table></div>",
        "</section>",
    ]
    if skipped:
        body += [
            '<section aria-labelledby="skipped-h">',
            '<h2 id="skipped-h">Too few results to audit</h2>',
            "<ul>",
            *(
                f"<li>{html.esc(s.collection)} {html.esc(s.measure)} ({html.esc(s.source)}, N = {s.n}): "
                f"{html.esc(s.why)}</li>"
                for s in skipped
            ),
            "</ul>",
            "</section>",
        ]
    return html.page(
        "Audited leaderboards",
        body,
        root="",
        description="Published IR results with their records audited against chance.",
    )


def papers_index(papers: Sequence[PaperListed], pages: dict[str, str]) -> str:
    heads = [
        html.sort_head("paper"),
        html.sort_head("venue"),
        html.sort_head("year", "num"),
        html.sort_head("results", "num"),
        html.sort_head("link", sortable=False),
    ]
    rows = []
    for x in papers:
        u = x.url or (f"https://doi.org/{x.doi}" if x.doi else None)
        rows.append(
            f'<tr data-year="{x.year or ""}" data-text="{html.esc((x.citation + " " + x.bibkey).lower())}">'
            + html.cell(
                f'<a href="{pages[x.bibkey]}">{html.esc(x.citation)}</a>', v=x.citation, raw=True
            )
            + html.cell(x.venue or "-")
            + html.cell(str(x.year or "-"), v=x.year or 0, num=True)
            + html.cell(str(x.results), v=x.results, num=True)
            + html.cell(html.link("paper", u) if u else "-", raw=True)
            + "</tr>"
        )
    body = [
        "<h1>Papers</h1>",
        f"<p>{len(papers)} papers whose published results are in the store.</p>",
        html.filter_form("papers", [html.search_field("author, venue"), *html.year_fields()]),
        '<div class="scroll"><table class="sortable" id="papers">',
        "<caption>Every paper; its page lists its results and their audits</caption>",
        "<thead><tr>" + "".join(heads) + "</tr></thead>",
        "<tbody>",
        *rows,
        "</tbody></table></div>",
    ]
    return html.page("Papers", body, root="", description="Papers and their audited results.")


@dataclass(frozen=True, kw_only=True)
class PaperResult:
    """A paper's result with where it stands in its population (None: in none)."""

    collection_id: str
    measure: str
    row: ResultRow
    population: PopulationPage | None


def paper_page(
    paper: PaperListed, results: Sequence[PaperResult], history: dict[int, list[Entry]]
) -> str:
    u = paper.url or (f"https://doi.org/{paper.doi}" if paper.doi else None)
    body = [
        f"<h1>{html.esc(paper.citation)}</h1>",
        f"<p>{html.esc(paper.venue or '')}{' ' + str(paper.year) if paper.year else ''}"
        + (f" · {html.link('the paper', u)}" if u else "")
        + f" · bibkey <code>{html.esc(paper.bibkey)}</code></p>",
    ]
    heads = [
        html.sort_head("collection"),
        html.sort_head("measure"),
        html.sort_head("system"),
        html.sort_head("role"),
        html.sort_head("value", "num"),
        html.sort_head("status"),
        html.sort_head("rank", "num"),
        html.sort_head("tied", "num"),
        html.sort_head("source line", sortable=False),
    ]
    rows = []
    for x in results:
        r, pop = x.row, x.population
        if pop is not None and r.id in pop.standing.rank:
            rank = (
                f'<a href="../{pop.path}#r{r.id}">{pop.standing.rank[r.id]} of {len(pop.rows)}</a>'
            )
            rv: object = pop.standing.rank[r.id]
            tied = r.id in pop.standing.tied
        else:
            rank, rv, tied = "not audited", 10**9, False
        rows.append(
            f'<tr data-text="{html.esc((r.system + " " + x.collection_id + " " + x.measure).lower())}">'
            + html.cell(x.collection_id)
            + html.cell(x.measure)
            + html.cell(r.system)
            + html.cell(r.role)
            + html.cell(r.value_text, v=repr(r.value), num=True)
            + html.cell(r.status + ("" if r.standard else ", non-standard"))
            + html.cell(rank, v=rv, num=True, raw=True)
            + html.cell("★" if tied else "", v=0 if tied else 1)
            + html.location(r.location)
            + "</tr>"
        )
    body += [
        '<section aria-labelledby="results-h">',
        f'<h2 id="results-h">Its results ({len(results)})</h2>',
    ]
    if results:
        body += [
            html.filter_form("results", [html.search_field("system, collection, measure")]),
            '<div class="scroll"><table class="sortable" id="results">',
            "<caption>Each result with its rank in the population it was audited in</caption>",
            "<thead><tr>" + "".join(heads) + "</tr></thead>",
            "<tbody>",
            *rows,
            "</tbody></table></div>",
        ]
    else:
        body.append("<p>The store holds no result of this paper.</p>")
    body.append("</section>")
    pops = sorted({x.population.path: x.population for x in results if x.population}.items())
    body += ['<section aria-labelledby="pops-h">', '<h2 id="pops-h">Populations</h2>']
    if pops:
        body.append("<ul>")
        body += [f'<li><a href="../{path}">{html.esc(title(p))}</a></li>' for path, p in pops]
        body.append("</ul>")
    else:
        body.append("<p>None of its results is in an audited population.</p>")
    body.append("</section>")
    body += _records(results)
    body += _history(results, history)
    return html.page(
        paper.citation, body, root="../", description=f"Results of {paper.citation}, audited."
    )


def _records(results: Sequence[PaperResult]) -> list[str]:
    """The records its results set, from each population's history audit (its id is on
    the population's page only: a change to another result of the population gives the
    population new audits, and must not rewrite this page)."""
    items = []
    for x in results:
        pop = x.population
        if pop is None:
            continue
        for rec in pop.records:
            if rec.row.id == x.row.id:
                above = {True: "above", False: "not above", None: "no"}[rec.beyond]
                items.append(
                    f"<li>{html.esc(rec.when)}: {html.esc(x.row.value_text)} {html.esc(x.row.system)} "
                    f'set the record of <a href="../{pop.path}#r{x.row.id}">{html.esc(title(pop))}'
                    f"</a> (N = {rec.n} so far; {above} the alpha threshold of their max: "
                    "its page cites the history audit)</li>"
                )
    out = ['<section aria-labelledby="records-h">', '<h2 id="records-h">Records it set</h2>']
    out += ["<ul>", *items, "</ul>"] if items else ["<p>None of its results set a record.</p>"]
    return [*out, "</section>"]


def _history(results: Sequence[PaperResult], history: dict[int, list[Entry]]) -> list[str]:
    out = ['<section aria-labelledby="hist-h">', '<h2 id="hist-h">History of its results</h2>']
    items = []
    for x in results:
        for e in history.get(x.row.id, []):
            change = f"{e.field}: {e.old_value} → {e.new_value}" if e.field else (e.new_value or "")
            items.append(
                f"<li>{html.esc(e.changed_at[:19])} · result #{x.row.id} {html.esc(x.row.system)} "
                f"({html.esc(x.measure)}): {html.esc(e.action)} {html.esc(change)}"
                f"{' (' + html.esc(e.reason) + ')' if e.reason else ''} · {html.esc(e.who)}</li>"
            )
    if items:
        out += ["<ul>", *items, "</ul>"]
    else:
        out.append("<p>No change recorded.</p>")
    out.append("</section>")
    return out


__all__ = ["PaperResult", "Skipped", "index", "paper_page", "papers_index", "paper_url"]
