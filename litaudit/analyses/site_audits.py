"""The audits a static site of the store is built from (`litaudit site`), run and stored
before it is rendered.

Every population of `audit summary` (each collection, measure and source with at least
``defaults.MIN_N`` results: Carterette, SIGIR 2015, Tables 2-3) gets its `best` audit
(stored by :func:`litaudit.analyses.extreme.summary.run_summary`) and its `history` audit
(:func:`litaudit.analyses.extreme.history.run_history`, Sec. 2 and Fig. 2), with the
default parameters, so that a second build on the same store runs nothing and reuses the
stored audits (same input fingerprint, parameters and code). :func:`prepare_site` returns
their ids with the curated rows each page lists; :mod:`litaudit.render.site` then reads
only stored audits and these rows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from litaudit import defaults
from litaudit.analyses.extreme.population import (
    Filters,
    Loaded,
    ResultRow,
    load_population,
    select_population,
)
from litaudit.errors import LitauditError


@dataclass(frozen=True, kw_only=True)
class SitePopulation:
    """One population of the site: its stored `best` audit, its `history` audit (or why
    there is none) and the rows the audits read, best first."""

    collection_id: str
    collection_name: str
    measure: str
    source: str  # paper | official
    best_audit: int
    history_audit: int | None
    history_error: str | None
    rows: tuple[ResultRow, ...]


@dataclass(frozen=True, kw_only=True)
class SiteAudits:
    """What :func:`prepare_site` ran or found: the populations (in `audit summary` order),
    the groups too small to audit (collection, measure, source, N, why), every result of a
    paper (retracted and non-standard ones too: a paper's page lists them all) and the
    (system, collection id) pairs whose model is declared not trained on the collection."""

    populations: tuple[SitePopulation, ...]
    skipped: tuple[tuple[str, str, str, int, str], ...]
    paper_results: tuple[Loaded, ...]
    zero_shot: frozenset[tuple[str, str]]
    alpha: float
    p: float
    min_n: int


def _groups(con) -> tuple[dict[str, tuple[str, int | None]], dict[tuple, list[ResultRow]]]:
    """The collections (name, default topic count) and the audited rows by (collection,
    measure, source), as `audit summary` groups them."""
    colls = {
        r[0]: (r[1], r[2])
        for r in con.execute(
            "SELECT c.id, c.name, t.n_topics FROM collections c LEFT JOIN topic_sets t "
            "ON t.collection_id = c.id AND t.is_default"
        ).fetchall()
    }
    groups: dict[tuple, list[ResultRow]] = {}
    for x in load_population(con, None, None, Filters()):
        groups.setdefault((x.collection_id, x.measure, x.row.source), []).append(x.row)
    return colls, groups


def _zero_shot(con) -> frozenset[tuple[str, str]]:
    rows = con.execute(
        "SELECT system, collection_id FROM zero_shot WHERE zero_shot ORDER BY 1, 2"
    ).fetchall()
    return frozenset((str(s), str(c)) for s, c in rows)


def prepare_site(con, *, progress: Callable[..., None] | None = None) -> SiteAudits:
    """Run (or find) the `best` and `history` audits of every population and store them;
    ``progress(total=n)`` is told the number of steps, then ``progress(1)`` per step."""
    from litaudit.analyses.extreme.history import run_history
    from litaudit.analyses.extreme.summary import run_summary

    tick = progress or (lambda *a, **k: None)
    summary = run_summary(con)
    tick(total=2 * len(summary.rows))
    tick(len(summary.rows))
    colls, groups = _groups(con)
    out = []
    for s in summary.rows:
        tick(1)
        cid, meas, src = s.collection_id, s.measure, s.source
        f = dataclasses.replace(Filters(), source=src)
        pop = select_population(
            cid, colls[cid][0], colls[cid][1], meas, groups[(cid, meas, src)], f, summary.min_n
        )
        try:
            h: int | None = run_history(con, cid, meas, filters=f).audit_id
            err = None
        except LitauditError as exc:
            h, err = None, str(exc)
        if s.audit_id is None:  # run_summary stores every audit it reports
            raise LitauditError(f"{s.collection_name} {meas}: the best audit was not stored")
        out.append(
            SitePopulation(
                collection_id=cid,
                collection_name=s.collection_name,
                measure=meas,
                source=src,
                best_audit=s.audit_id,
                history_audit=h,
                history_error=err,
                rows=tuple(pop.rows),
            )
        )
    every = Filters(include_retracted=True, include_nonstandard=True, source="paper")
    return SiteAudits(
        populations=tuple(out),
        skipped=summary.skipped,
        paper_results=tuple(load_population(con, None, None, every)),
        zero_shot=_zero_shot(con),
        alpha=summary.alpha,
        p=summary.p,
        min_n=defaults.MIN_N if summary.min_n is None else summary.min_n,
    )
