"""A population's page: the record, the group tied with it and its band first (the first
screen), then the leaderboard (sortable, filtered by role, source, years, zero-shot and
tied, searchable), the record over time and what the audit rests on. The sentences are
the audits' own (:mod:`litaudit.analyses.extreme.wording`); each number names its audit.
"""

from __future__ import annotations

from dataclasses import dataclass

from litaudit.analyses.extreme.best import BestReport
from litaudit.analyses.extreme.population import ResultRow
from litaudit.analyses.extreme.wording import cited, population_sentence, who
from litaudit.analyses.extreme.wording_best import best_chance_sentence
from litaudit.analyses.extreme.wording_noise import luck_sentence, reference_sentence
from litaudit.render.report.figures import Figure
from litaudit.render.site import html
from litaudit.render.site.ranks import Standing

TIED_SHOWN = 12  # tied results named on the first screen (the table marks them all)
SOURCE_WORDS = {"paper": "papers", "official": "official runs and leaderboards"}


@dataclass(frozen=True, kw_only=True)
class PopulationPage:
    """What a population's page shows (read from stored audits by :mod:`.build`)."""

    path: str  # 'pop/<slug>.html'
    collection_id: str
    collection_name: str
    measure: str
    source: str
    best: BestReport
    best_audit: int
    standing: Standing
    rows: tuple[ResultRow, ...]
    zero_shot: frozenset[int]  # result ids declared not trained on the collection
    figure: Figure | None
    history_audit: int | None
    history_error: str | None
    papers: dict[str, str]  # bibkey -> the paper's page (from the site's top)
    records: tuple[Record, ...] = ()  # the steps of the history audit that set a record
    history_alpha: float | None = None
    history_left_out: int = 0  # reproductions the history leaves out (published only)


@dataclass(frozen=True, kw_only=True)
class Record:
    """A step of the history audit that set a new record, as `audit history` lists it:
    when, N so far, the record's holder, the expected max and alpha threshold of the max
    of N, the p-value and whether the record lies above the threshold."""

    when: str
    n: int
    row: ResultRow
    expected_max: float | None
    threshold: float | None
    p: str
    beyond: bool | None


def title(p: PopulationPage) -> str:
    return f"{p.collection_name} · {p.measure} · {SOURCE_WORDS.get(p.source, p.source)}"


def row_source(r: ResultRow) -> str:
    """The source a row is filtered by: 'papers' or its track or leaderboard."""
    return "papers" if r.source == "paper" else cited(r)


def paper_url(r: ResultRow) -> str | None:
    """The paper (or the submission's description) of a result."""
    if r.link:
        return r.link
    if r.url:
        return r.url
    return f"https://doi.org/{r.doi}" if r.doi else None


def _cite(r: ResultRow, papers: dict[str, str], root: str) -> str:
    """The result's source, linked to its paper's page on the site when it has one."""
    if r.source == "paper" and r.bibkey and r.bibkey in papers:
        return f'<a href="{root}{papers[r.bibkey]}">{html.esc(cited(r))}</a>'
    return html.esc(cited(r))


def _links(r: ResultRow) -> str:
    parts = []
    u = paper_url(r)
    if u:  # a paper, or for an official run or leaderboard entry its description
        parts.append(html.link("paper" if r.source == "paper" else "description", u))
    if r.code_url:
        parts.append(html.link("code", r.code_url))
    return " · ".join(p for p in parts if "<a " in p) or "-"


def _record(p: PopulationPage) -> list[str]:
    """The first screen: the record, how many results cannot be told apart from it, the
    record's band, the tied group by name."""
    b, st = p.best, p.standing
    iv = b.stats.interval
    cov = f"{round(100 * iv.coverage)}%"
    rec = b.best
    out = [
        '<section class="record" id="record" aria-labelledby="record-h">',
        '<h2 id="record-h">The record</h2>',
        f'<p><span class="value">{html.esc(rec.value_text)}</span> by '
        f"<strong>{html.esc(rec.system)}</strong> ({_cite(rec, p.papers, '../')}"
        f"{', ' + html.esc(rec.date[:10]) if rec.date else ''}). {html.esc(st.sentence)}</p>",
        f"<p>Record band ({cov} interval under the reference model, p = {iv.p:g}): "
        f"[{iv.lower:.4f}, {iv.value:.4f}], mu0 = {iv.mu0:.4f} "
        f'<span class="note">(best audit #{p.best_audit})</span>.</p>',
    ]
    tied = [r for r in p.rows if r.id in st.tied and r.id != rec.id]
    if tied:
        out.append(
            f'<p id="tied-h">Tied with the top ({len(st.tied)} results, marked ★ in the table):</p>'
        )
        out.append('<ol class="tied" id="tied" aria-labelledby="tied-h">')
        for r in tied[:TIED_SHOWN]:
            out.append(f"<li>{html.esc(r.value_text)} {html.esc(who(r))}</li>")
        out.append("</ol>")
        if len(tied) > TIED_SHOWN:
            out.append(
                f'<p class="note">and {len(tied) - TIED_SHOWN} more: tick “tied with the '
                "top” above the table.</p>"
            )
    else:
        out.append('<p id="tied">No other result is tied with the top.</p>')
    out.append(f"<p>{html.inline(chance_line(b))}</p>")
    out.append("</section>")
    return out


def chance_line(b: BestReport) -> str:
    """The record against chance, as `audit best` says it: the null false by inspection
    where it is (its sentence), else its thresholds table in words (the one place the
    site words the chance part)."""
    th, ref = b.stats.thresholds, b.stats.reference
    inspected = best_chance_sentence(b.spread, th.max_threshold, th.n_above, ref.n_results)
    if inspected:
        return inspected
    return (
        f"Against chance: {th.n_above} of the {ref.n_results} published results lie above "
        f"{th.max_threshold:.4f}, the value the best of {ref.n_results} equally good "
        f"systems exceeds with probability {th.alpha:g} (expected above it under the "
        f"model: {th.expected_above_under_null:.3f})."
    )


def _controls(p: PopulationPage) -> str:
    roles = sorted({r.role for r in p.rows})
    sources = sorted({row_source(r) for r in p.rows})
    fields = [html.search_field("system, team, paper"), html.select("role", "Role", roles)]
    if len(sources) > 1:
        fields.append(html.select("source", "Source", sources))
    fields += html.year_fields()
    if p.zero_shot:
        fields.append(html.check_field("zs", "zero-shot only"))
    fields.append(html.check_field("tied", "tied with the top"))
    return html.filter_form("board", fields)


def _row(p: PopulationPage, r: ResultRow) -> str:
    st = p.standing
    tied = r.id in st.tied
    iv = st.interval.get(r.id)
    text = " ".join(x for x in (r.system, r.participant or "", cited(r), r.role) if x).lower()
    attrs = (
        f'data-role="{html.esc(r.role)}" data-source="{html.esc(row_source(r))}" '
        f'data-year="{r.year}" data-zs="{1 if r.id in p.zero_shot else 0}" '
        f'data-tied="{1 if tied else 0}" data-text="{html.esc(text)}"'
    )
    cls = ' class="top"' if tied else ""
    cells = [
        html.cell(str(st.rank[r.id]), v=st.rank[r.id], num=True),
        html.cell(f"{iv[0]}–{iv[1]}" if iv else "-", v=iv[0] if iv else 10**9, num=True),
        html.cell(
            '<span aria-label="tied with the top" title="tied with the top">★</span>'
            if tied
            else "",
            v=0 if tied else 1,
            raw=True,
        ),
        html.cell(r.value_text, v=repr(r.value), num=True),
        html.cell(r.system + (f" ({r.participant})" if r.participant else "")),
        html.cell(r.role + (", zero-shot" if r.id in p.zero_shot else ""), v=r.role),
        html.cell(_cite(r, p.papers, "../"), v=cited(r), raw=True),
        html.cell(r.date[:10] if r.date else str(r.year), v=r.date[:10] if r.date else str(r.year)),
        html.cell(_links(r), raw=True),
        html.location(r.location),
    ]
    return f'<tr id="r{r.id}"{cls} {attrs}>' + "".join(cells) + "</tr>"


def _board(p: PopulationPage) -> list[str]:
    heads = [
        html.sort_head("rank", "num"),
        html.sort_head("rank interval", "num"),
        html.sort_head("tied", "num"),
        html.sort_head(p.measure, "num"),
        html.sort_head("system"),
        html.sort_head("role"),
        html.sort_head("source"),
        html.sort_head("date"),
        html.sort_head("links", sortable=False),
        html.sort_head("source line", sortable=False),
    ]
    return [
        '<section aria-labelledby="board-h">',
        f'<h2 id="board-h">Leaderboard ({len(p.rows)} results)</h2>',
        f'<p class="note">Rank intervals and the tied group: {html.esc(p.standing.method)} '
        f"({p.standing.kind} audit #{p.standing.audit}).</p>",
        _controls(p),
        '<div class="scroll"><table class="sortable" id="board">',
        f"<caption>{html.esc(title(p))}: every published result the audit read, best first</caption>",
        "<thead><tr>" + "".join(heads) + "</tr></thead>",
        "<tbody>",
        *(_row(p, r) for r in p.rows),
        "</tbody></table></div>",
        "</section>",
    ]


def _history(p: PopulationPage) -> list[str]:
    out = ['<section aria-labelledby="history-h">', '<h2 id="history-h">The record over time</h2>']
    f = p.figure
    if f is None:
        why = p.history_error or "no step of the history holds a record"
        out.append(f"<p>No history plot: {html.esc(why)}.</p>")
    else:
        out += [
            "<figure>",
            f.svg.rstrip("\n"),
            f"<figcaption>{html.esc(f.caption)} (history audit #{f.audit})</figcaption>",
            "</figure>",
        ]
    if p.history_left_out:
        k = p.history_left_out
        out.append(
            f"<p>Published results only: the {k} reproduction{'s' if k != 1 else ''} of "
            "this population (re-runs of models published earlier, dated by when they were "
            "re-run) are left out of the record over time; the leaderboard lists them "
            "(<code>litaudit audit history --with-reproductions</code> replays them).</p>"
        )
    if p.records:
        alpha = f" ({p.history_alpha:g})" if p.history_alpha is not None else ""
        heads = ["step", "N", "record", "expected max", f"threshold{alpha}", "p", "above"]
        out += [
            '<div class="scroll"><table id="records">',
            f"<caption>Records ({len(p.records)} step{'s' if len(p.records) != 1 else ''} "
            "that set a new record, as "
            "<code>litaudit audit history</code> lists them)</caption>",
            "<thead><tr>"
            + "".join(html.sort_head(h, sortable=False) for h in heads)
            + "</tr></thead>",
            "<tbody>",
        ]
        for rec in p.records:
            above = {True: "yes", False: "no", None: "-"}[rec.beyond]
            out.append(
                "<tr>"
                + html.cell(rec.when, cls="nowrap")
                + html.cell(str(rec.n), num=True)
                + html.cell(
                    f'<a href="#r{rec.row.id}">{html.esc(rec.row.value_text)}</a> '
                    f"{html.esc(who(rec.row))}",
                    raw=True,
                )
                + html.cell(html.f4(rec.expected_max), num=True)
                + html.cell(html.f4(rec.threshold), num=True)
                + html.cell(rec.p, num=True)
                + html.cell(above)
                + "</tr>"
            )
        out.append("</tbody></table></div>")
    out.append("</section>")
    return out


def _audit(p: PopulationPage) -> list[str]:
    b = p.best
    ref = b.stats.reference
    src = "papers" if p.source == "paper" else "official"
    out = [
        '<section aria-labelledby="audit-h">',
        '<h2 id="audit-h">What the audit rests on</h2>',
        f"<p>{html.inline(population_sentence(b.population))}</p>",
    ]
    if b.noise is not None:
        out.append(f"<p>{html.inline(reference_sentence(b.noise, ref.n_results))}</p>")
    if b.shrinkage is not None:
        out.append(f"<p>{html.inline(luck_sentence(b.shrinkage, 'the best', b.winners_bias))}</p>")
    out.append(
        f"<p>Table 2: N = {ref.n_results}, mean {ref.mu:.4f}, sd {ref.sd:.4f}, "
        f"se {ref.se:.4f}, min {ref.minimum:.4f}, max {ref.maximum:.4f} "
        f"(best audit #{p.best_audit}, {html.esc(b.citation)}).</p>"
    )
    out.append(
        "<p>Reproduce: <code>litaudit audit best -c "
        f"{html.esc(p.collection_id)} -m {html.esc(p.measure)} --source {src}</code>; "
        f"<code>litaudit audit show {p.best_audit}</code>"
        + (f"; <code>litaudit audit show {p.history_audit}</code>" if p.history_audit else "")
        + ".</p>"
    )
    out.append("</section>")
    return out


def render(p: PopulationPage) -> str:
    t = title(p)
    body = [f"<h1>{html.esc(t)}</h1>", *_record(p), *_board(p), *_history(p), *_audit(p)]
    desc = f"Audited leaderboard of {t}: the record, the results tied with it, every result."
    return html.page(f"{t} — audited leaderboard", body, root="../", description=desc)
