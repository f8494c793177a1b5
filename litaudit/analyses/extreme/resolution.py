"""`audit resolution`: what a collection can resolve (issue 34, item 3), from per-topic or
per-dataset scores: the smallest difference between systems like its top ones that the
paired t-test detects with 80% power, and the topics (or datasets) a given gap would need
(Sakai, "Topic set size design", IRJ 2016; :mod:`litaudit.stats.resolution`).

The scores, in order of preference: a topic-by-run matrix file (``matrix``); the parts of
an equal-weight mean (BEIR-13's datasets: the systems with a result on every part); the
collection's stored run archive evaluated per topic (topics a run lacks are left out).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from litaudit import defaults
from litaudit.analyses.audits import Audited, AuditKey, fingerprint, run_or_reuse
from litaudit.analyses.extreme.noise_inputs import NoiseLookups
from litaudit.analyses.extreme.population import Filters, load_results
from litaudit.analyses.extreme.record_steps import by_system, pick_from
from litaudit.errors import NotFound, ParameterError
from litaudit.measures import parse_measure
from litaudit.runs.pertopic import read_pertopic_csv
from litaudit.stats.resolution import Resolution, resolution
from litaudit.store.collections import resolve_collection

if TYPE_CHECKING:
    import duckdb

KIND = "resolution"
CITATION = 'Sakai, "Topic set size design", Information Retrieval Journal 19(3), 2016'


@dataclass(frozen=True, kw_only=True)
class ResolutionSettings:
    """``top`` systems, the test's ``alpha`` and ``power``; ``gap``: a difference to size
    the collection for (None: only the minimum detectable difference)."""

    top: int = 10
    alpha: float = defaults.ALPHA
    power: float = 0.8
    gap: float | None = None

    def params(self) -> dict:
        return {"top": self.top, "alpha": self.alpha, "power": self.power, "gap": self.gap}


@dataclass(frozen=True, kw_only=True)
class ResolutionReport:
    """The resolution of ``collection_id``'s ``measure``: ``unit`` 'topics' or 'datasets',
    ``what`` the scores read (``source``: 'matrix', 'datasets' or 'archive'),
    ``top_systems`` the systems compared (best first, with their means), ``n_dropped``
    units left out because a system lacks them, ``resolution`` the statistics."""

    collection_id: str | None
    measure: str
    source: str
    what: str
    unit: str
    top_systems: tuple[tuple[str, float], ...]
    n_dropped: int
    resolution: Resolution
    fingerprint: str
    citation: str = CITATION


@dataclass(frozen=True)
class Scores:
    source: str
    what: str
    unit: str
    systems: tuple[str, ...]
    units: tuple[str, ...]
    x: np.ndarray  # systems x units (NaN: missing)


def _from_matrix(path: Path, measure: str) -> Scores:

    if not path.is_file():
        raise NotFound(f"{path}: no such file")
    m = read_pertopic_csv(path)
    x = np.asarray(m.scores, dtype=np.float64)
    return Scores("matrix", str(path), "topics", tuple(m.runs), tuple(m.topics), x)


def _from_parts(
    con: duckdb.DuckDBPyConnection, cid: str, measure: str, parts: tuple[str, ...]
) -> Scores | None:

    rows = load_results(con, cid, measure, Filters())
    by_part = {p: by_system(load_results(con, p, measure, Filters())) for p in parts}
    systems, table = [], []
    for r in rows:
        vals = [pick_from(by_part[p], r) for p in parts]
        if r.system not in systems and all(v is not None for v in vals):
            systems.append(r.system)
            table.append([v.value for v in vals if v is not None])
    if len(systems) < 2:
        return None
    what = f"the results of {len(systems)} systems on each of the {len(parts)} datasets of {cid}"
    return Scores("datasets", what, "datasets", tuple(systems), parts, np.asarray(table))


def _from_archive(con: duckdb.DuckDBPyConnection, cid: str, measure: str) -> Scores:
    # start-up: duckdb (through litaudit.runs.archive_eval)
    from litaudit.runs.archive_eval import archive_evaluation

    ev = archive_evaluation(con, cid, measure)
    x = np.asarray(ev.matrix(measure), dtype=np.float64)
    what = f"the stored run archive of {cid}: {len(ev.runs)} runs x {len(ev.topics)} topics"
    return Scores("archive", what, "topics", tuple(ev.runs), tuple(ev.topics), x)


def scores_of(
    con: duckdb.DuckDBPyConnection, collection: str | None, measure: str, matrix: Path | None
) -> tuple[str | None, Scores]:
    """(the collection id, its scores) by the module doc's order."""

    cid = resolve_collection(con, collection).id if collection else None
    if matrix is not None:
        return cid, _from_matrix(Path(matrix), measure)
    if cid is None:
        raise NotFound("give --collection (or a score matrix: --matrix FILE)")
    return cid, stored_scores(con, cid, measure)


def stored_scores(
    con: duckdb.DuckDBPyConnection,
    cid: str,
    measure: str,
    lookups: NoiseLookups | None = None,
) -> Scores:
    """The stored scores of the collection ``cid`` (its id) by the module doc's order;
    ``lookups``: the store's topic sets and archives when the caller has read them."""
    if lookups is None:
        lookups = NoiseLookups.load(con)
    default = lookups.default_sets.get(cid)
    found = lookups.topic_sets.get((cid, default[0])) if default else None
    if found and found[1]:
        got = _from_parts(con, cid, measure, found[1])
        if got is not None:
            return got
    if cid in lookups.archived:
        return _from_archive(con, cid, measure)
    raise NotFound(
        f"{cid} {measure}: no per-topic or per-dataset scores in the store (import its run "
        "archive with `litaudit runs import`, or give a topic-by-run matrix: --matrix FILE)"
    )


def resolution_of(
    s: Scores, measure: str, cid: str | None, settings: ResolutionSettings
) -> ResolutionReport:
    complete = np.isfinite(s.x).all(axis=0)
    x = s.x[:, complete]
    res = resolution(
        x, top=settings.top, alpha=settings.alpha, power=settings.power, gap=settings.gap
    )
    means = x.mean(axis=1)
    order = np.argsort(-means, kind="stable")[: res.top]
    return ResolutionReport(
        collection_id=cid,
        measure=measure,
        source=s.source,
        what=s.what,
        unit=s.unit,
        top_systems=tuple((s.systems[i], float(means[i])) for i in order),
        n_dropped=int((~complete).sum()),
        resolution=res,
        fingerprint=fingerprint([list(s.systems), list(s.units), np.round(s.x, 12).tolist()]),
    )


def run_resolution(
    con: duckdb.DuckDBPyConnection,
    collection: str | None,
    measure: str,
    *,
    matrix: Path | None = None,
    settings: ResolutionSettings = ResolutionSettings(),
    save: bool = True,
) -> Audited[ResolutionReport]:
    """The resolution of a collection's measure (see the module doc); stored as an audit
    of kind ``resolution`` unless ``save=False`` (a matrix without a collection is not
    stored)."""

    m = str(parse_measure(measure))
    cid, s = scores_of(con, collection, m, matrix)
    rep = resolution_of(s, m, cid, settings)
    if not save or cid is None:
        return Audited(rep, None)
    key = AuditKey(
        kind=KIND,
        collection_id=cid,
        measure=m,
        params={"source": s.source, **settings.params()},
        method="exact",
        input_fingerprint=rep.fingerprint,
    )
    return run_or_reuse(con, key, lambda: rep, save=save)


@dataclass(frozen=True, kw_only=True)
class ClaimResolution:
    """A claim's margin over the best other published result (``gain``, signed) set
    against what the collection resolves (``resolution`` sized for |gain|, from
    ``source``'s ``unit``), and the verdict's sentence."""

    gain: float
    unit: str
    source: str
    resolution: Resolution
    sentence: str


def claim_resolution(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    measure: str,
    value: float,
    record: float,
    lookups: NoiseLookups | None = None,
) -> ClaimResolution | None:
    """The resolution line of a claim of ``value`` against the ``record`` (None where the
    store has no per-topic or per-dataset scores of the collection, or no margin);
    ``collection_id``: the collection's id; ``lookups``: as :func:`stored_scores`'s."""
    gain = float(value) - float(record)
    if not abs(gain) > 0:
        return None
    try:
        s = stored_scores(con, collection_id, measure, lookups)
        rep = resolution_of(s, measure, collection_id, ResolutionSettings(gap=abs(gain)))
    except (NotFound, ParameterError):
        return None
    r = rep.resolution
    if r.units_needed is None:
        return None
    what = "gain over" if gain > 0 else "loss against"
    verb = "can" if r.units_needed <= r.n_units else "cannot"
    sentence = (
        f"This collection {verb} resolve a {abs(gain):.4f} {what} the record between systems "
        f"like its top {r.top}: that needs about {r.units_needed:,} {rep.unit} (it has "
        f"{r.n_units}; with them a paired t-test at {r.alpha:g} detects {r.mdd:.4f} with "
        f"{r.power:.0%} power; Sakai's topic set size design)."
    )
    return ClaimResolution(
        gain=gain, unit=rep.unit, source=s.source, resolution=r, sentence=sentence
    )
