"""The site's pages from stored audits and curated rows, as {relative path: text}.

:func:`build_site` reads the audits :func:`litaudit.analyses.site_audits.prepare_site` ran
or found (never computing a statistic): each population's `best` audit (the record, its
band, the candidate best set, the noise) and `history` audit (the plot of
:func:`litaudit.render.report.figures.history_figure`, the report's own), the papers and
the results' history. Nothing depends on the time or on the order of the store's rows, so
an unchanged store gives the same bytes; a page depends only on what it shows, so a
changed result changes only the pages it appears on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from litaudit import defaults
from litaudit.analyses.audits import StoredAudit
from litaudit.analyses.extreme.history import HistoryReport
from litaudit.analyses.site_audits import SiteAudits, SitePopulation
from litaudit.analyses.wording import p_text
from litaudit.render.report.figures import Figure, history_figure
from litaudit.render.report.literature import history_points
from litaudit.render.report.model import LiteratureSection
from litaudit.render.site import pages, population
from litaudit.render.site.html import slug
from litaudit.render.site.population import PopulationPage, Record
from litaudit.render.site.ranks import standing
from litaudit.store import history as HS
from litaudit.store import papers as PS

if TYPE_CHECKING:
    import duckdb


def _unique(stems: list[str]) -> list[str]:
    """``stems`` made unique (a repeated stem gets -2, -3 ... in order)."""
    seen: dict[str, int] = {}
    out = []
    for s in stems:
        seen[s] = seen.get(s, 0) + 1
        out.append(s if seen[s] == 1 else f"{s}-{seen[s]}")
    return out


def _figure(measure: str, h: StoredAudit) -> Figure | None:
    """The report's plot of the record over time (render.report.figures), of audit ``h``."""
    empty: dict[str, Any] = dict.fromkeys(
        "best_audit error n n_topics mean sd se maximum expected_max alpha max_threshold "
        "min_threshold n_above n_below expected_above_under_null p value mu0 lower "
        "coverage history_error".split()
    )
    lit = LiteratureSection(
        measure=measure,
        candidates=(),
        history_audit=h.id,
        history=history_points(h.result),
        **empty,
    )
    return history_figure(lit)


def _population(sp: SitePopulation, path: str, zero_shot, papers: dict[str, str]) -> PopulationPage:
    best = sp.best.result
    return PopulationPage(
        path=path,
        collection_id=sp.collection_id,
        collection_name=sp.collection_name,
        measure=sp.measure,
        source=sp.source,
        best=best,
        best_audit=sp.best.id,
        standing=standing(sp),
        rows=sp.rows,
        zero_shot=frozenset(r.id for r in sp.rows if (r.system, sp.collection_id) in zero_shot),
        figure=_figure(sp.measure, sp.history) if sp.history is not None else None,
        history_audit=sp.history.id if sp.history is not None else None,
        history_error=sp.history_error,
        papers=papers,
        records=_records(sp.history.result) if sp.history is not None else (),
        history_alpha=sp.history.result.history.alpha if sp.history is not None else None,
        history_left_out=sp.history_left_out,
    )


def _records(r: HistoryReport) -> tuple[Record, ...]:
    """The steps of a history audit that set a new record."""
    return tuple(
        Record(
            when=p.when or str(p.year),
            n=p.N,
            row=rec,
            expected_max=p.expected_max,
            threshold=p.threshold,
            p=p_text(p.p_value, p.p_below_floor, defaults.P_FLOOR),
            beyond=p.beyond_chance,
        )
        for p, rec in zip(r.history.points, r.records, strict=True)
        if p.new_record
    )


def build_site(
    con: duckdb.DuckDBPyConnection,
    audits: SiteAudits,
    *,
    progress: Callable[..., None] | None = None,
) -> dict[str, str]:
    """Every page of the site by its path relative to the site's folder."""

    tick = progress or (lambda *a, **k: None)
    listed = PS.listing(con, [], [])
    tick(total=len(audits.populations) + len(listed) + 2)
    paper_paths = dict(
        zip(
            [p.bibkey for p in listed],
            [f"paper/{s}.html" for s in _unique([slug(p.bibkey) for p in listed])],
            strict=True,
        )
    )
    stems = _unique([slug(p.collection_name, p.measure, p.source) for p in audits.populations])
    files: dict[str, str] = {}
    pops: list[PopulationPage] = []
    for sp, stem in zip(audits.populations, stems, strict=True):
        page = _population(sp, f"pop/{stem}.html", audits.zero_shot, paper_paths)
        pops.append(page)
        files[page.path] = population.render(page)
        tick(1)
    skipped = [pages.Skipped(*s) for s in audits.skipped]
    files["index.html"] = pages.index(pops, skipped, audits.alpha, audits.p)
    files["papers.html"] = pages.papers_index(listed, paper_paths)
    tick(2)
    where = {(p.collection_id, p.measure, r.id): p for p in pops for r in p.rows}
    by_paper: dict[str, list[pages.PaperResult]] = {}
    for x in audits.paper_results:
        if x.row.bibkey:
            by_paper.setdefault(x.row.bibkey, []).append(
                pages.PaperResult(
                    collection_id=x.collection_id,
                    measure=x.measure,
                    row=x.row,
                    population=where.get((x.collection_id, x.measure, x.row.id)),
                )
            )
    ids = {x.row.id for xs in by_paper.values() for x in xs}
    history: dict[int, list[HS.Entry]] = {}
    for e in HS.every(con):
        if e[1] == "result" and e[2] in ids:
            history.setdefault(e[2], []).append(HS.Entry(e[0], *e[3:]))
    for p in listed:
        results = sorted(
            by_paper.get(p.bibkey, []), key=lambda x: (x.collection_id, x.measure, x.row.id)
        )
        files[paper_paths[p.bibkey]] = pages.paper_page(p, results, history)
        tick(1)
    return files
