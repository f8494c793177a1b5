"""Which systems a collection can tell apart: the confidence set of the best, simultaneous
rank intervals and P(first) (:mod:`litaudit.stats.ranks`: Hsu 1996; Mogstad, Romano,
Shaikh and Wilhelm 2024), wherever systems share topics or datasets
(:mod:`litaudit.analyses.extreme.ranks_input`): a score matrix's files, a stored run
archive's per-topic scores, or every system's published values on a benchmark's datasets.

Carterette (SIGIR 2015) asks whether the best published result is better than the best of
N equally good systems; this asks the question a leaderboard needs next: which systems
cannot be told apart from the top, and where each one's rank may lie. Stored as kind
``ranks``; `audit best` and `audit claim` carry the same section (:func:`ranks_section`)
when the store has shared scores for their collection.
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from litaudit import defaults
from litaudit.analyses.audits import Audited, AuditKey, fingerprint, run_or_reuse
from litaudit.analyses.extreme.ranks_input import (
    Preread,
    RankInput,
    bound_note,
    existing_files,
    from_archive,
    from_datasets,
    from_files,
)
from litaudit.curation.filters import Filters
from litaudit.errors import NotFound, ParameterError
from litaudit.measures import parse_measure
from litaudit.stats.ranks import RankResolution, resolve_ranks
from litaudit.store.collections import resolve_collection

if TYPE_CHECKING:
    import duckdb

KIND = "ranks"


@dataclass(frozen=True, kw_only=True)
class RankSettings:
    """``alpha`` of the set and intervals; ``resamples`` and ``seed`` of the bootstrap;
    ``noise``: 'bound' adds each dataset's bound se to per-dataset values, 'none' not."""

    alpha: float = defaults.ALPHA
    resamples: int = defaults.RANKS_RESAMPLES
    seed: int = defaults.RANKS_SEED
    noise: str = "bound"

    def params(self) -> dict:
        return {"alpha": self.alpha, "noise": self.noise}


@dataclass(frozen=True, kw_only=True)
class RanksAudit:
    """The rank resolution of ``systems`` (input order) on ``units`` (topics or
    datasets) of ``source`` ('matrix', 'archive', 'datasets'), described by ``what``;
    ``left_out`` systems or units without a complete row (see ranks_input); ``noise``: the
    added per-dataset noise in words (None: none); ``answer``: the finding in one
    sentence."""

    collection_id: str | None
    measure: str
    source: str
    what: str
    systems: tuple[str, ...]
    units: tuple[str, ...]
    left_out: int
    noise: str | None
    resolution: RankResolution
    answer: str
    fingerprint: str


def _names(res: RankResolution, systems: tuple[str, ...], idx) -> str:
    shown = [systems[i] for i in idx][:5]
    more = len(idx) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def answer(res: RankResolution, systems: tuple[str, ...]) -> str:
    """The finding in words: a clear best, or the systems tied with the top."""
    level = f"{100 * (1 - res.alpha):g}%"
    top = res.order[0]
    k = len(res.best_set)
    first = (
        f"{systems[top]} is first in {100 * res.p_first[top]:.1f}% of resamples, rank "
        f"interval {res.rank_low[top]}-{res.rank_high[top]}"
    )
    if k == 1:
        return (
            f"{systems[top]} is the best of {res.n_systems}: the {level} confidence set of "
            f"the best holds it alone; {first}"
        )
    return (
        f"{k} of {res.n_systems} systems cannot be told apart from the best (the {level} "
        f"confidence set of the best: {_names(res, systems, res.best_set)}); {first}"
    )


_RESOLVED: dict[str, RankResolution] = {}  # this process's resolutions, by their inputs
_RESOLVED_KEPT = 16


def resolution_key(inp: RankInput, settings: RankSettings) -> str:
    """The digest of what :func:`resolve_ranks` reads of ``inp`` and ``settings``: the
    scores and unit se as it reads them (float64) and the settings."""
    h = hashlib.sha256()
    for a in (inp.scores, inp.unit_se):
        x = None if a is None else np.ascontiguousarray(a, dtype=np.float64)
        h.update(b"none" if x is None else repr(x.shape).encode() + x.tobytes())
    h.update(repr((inp.unit_kind, settings.alpha, settings.resamples, settings.seed)).encode())
    return h.hexdigest()


def resolved(inp: RankInput, settings: RankSettings) -> RankResolution:
    """:func:`resolve_ranks` of ``inp`` under ``settings``, computed once per process for
    the same numbers: `audit best` and `audit claim` of a collection rank the same shared
    scores with the same seed (a report computes both; `report --claims` one claim after
    another). A pure function of its key (:func:`resolution_key`) with an immutable
    result, so a kept resolution is the one a computation gives."""
    key = resolution_key(inp, settings)
    if key not in _RESOLVED:
        if len(_RESOLVED) >= _RESOLVED_KEPT:
            _RESOLVED.pop(next(iter(_RESOLVED)))
        _RESOLVED[key] = resolve_ranks(
            inp.scores,
            alpha=settings.alpha,
            resamples=settings.resamples,
            seed=settings.seed,
            unit_se=inp.unit_se,
            units=inp.unit_kind,
        )
    return _RESOLVED[key]


def compute(inp: RankInput, settings: RankSettings, cid: str | None, measure: str) -> RanksAudit:
    """The ranks audit of ``inp`` (not stored)."""
    res = resolved(inp, settings)
    return RanksAudit(
        collection_id=cid,
        measure=measure,
        source=inp.source,
        what=inp.what,
        systems=inp.systems,
        units=inp.units,
        left_out=inp.left_out,
        noise=bound_note(inp),
        resolution=res,
        answer=answer(res, inp.systems),
        fingerprint=inp.fingerprint,
    )


def store_input(  # noqa: PLR0913 - ``preread``: what the site reads once
    con: duckdb.DuckDBPyConnection,
    cid: str,
    measure: str,
    filters: Filters,
    noise: str,
    preread: Preread | None = None,
) -> RankInput:
    """The store's shared scores of a collection: its datasets' published values when it
    is a mean of datasets, else its run archive's per-topic scores."""

    inp = from_datasets(con, cid, measure, filters, noise, preread)
    if inp is None:
        inp = from_archive(con, cid, measure)
    if inp is None:
        raise NotFound(
            f"{cid} {measure}: no shared scores in the store (no per-dataset values of a "
            f"benchmark and no run archive with qrels: `litaudit runs import -c {cid}` "
            f"stores one); or give a score matrix: `audit ranks FILE`"
        )
    return inp


def _checked(settings: RankSettings) -> None:
    if settings.resamples < 100 or settings.resamples > defaults.MAX_TRIALS:
        raise ParameterError(
            f"--resamples: between 100 and {defaults.MAX_TRIALS}, got {settings.resamples}"
        )


def run_ranks(
    con: duckdb.DuckDBPyConnection,
    *,
    measure: str,
    collection: str | None = None,
    files: list[Path] | None = None,
    fmt: str = "csv",
    filters: Filters = Filters(),
    settings: RankSettings = RankSettings(),
    save: bool = True,
    preread: Preread | None = None,
) -> Audited[RanksAudit]:
    """Rank resolution of a score matrix's runs (``files``) or of the store's shared
    scores of ``collection`` (see :func:`store_input`); stored (kind ``ranks``) unless
    ``save=False``, or the stored audit of the identical call reused; ``preread``: what
    the ranks audits of many populations read once (`litaudit site`)."""

    _checked(settings)
    m = str(parse_measure(measure))
    params = settings.params()
    if files:
        paths, digest = existing_files(files)
        cid = None if collection is None else resolve_collection(con, collection).id
        if save and cid is None:
            raise ParameterError("--collection is needed to store the audit (or use --no-save)")
        inp = from_files(paths, fmt, m, digest)
        params.update(files=[p.name for p in paths], format=fmt)
    else:
        if collection is None:
            raise ParameterError("give score matrix files or --collection")
        cid = resolve_collection(con, collection).id
        inp = store_input(con, cid, m, filters, settings.noise, preread)
        kept = {k: v for k, v in dataclasses.asdict(filters).items() if k != "measure"}
        params.update(kept, input=inp.source)
    key = AuditKey(
        kind=KIND,
        collection_id=cid or "",
        measure=m,
        params=params,
        method="bootstrap",
        input_fingerprint=inp.fingerprint,
        seed=settings.seed,
        trials=settings.resamples,
    )
    return run_or_reuse(con, key, lambda: compute(inp, settings, cid, m), save=save)


CLAIM = "(the claim)"


def with_claim(inp: RankInput, given: tuple[tuple[str, str], ...], measure: str) -> RankInput:
    """``inp`` with the claim's per-dataset values as one more system, when they give every
    dataset (its own bound se added as the others' are)."""

    values = dict(given)
    if inp.source != "datasets" or any(u not in values for u in inp.units):
        return inp
    row = np.array([[float(values[u]) for u in inp.units]])
    unit_se = inp.unit_se
    if unit_se is not None:  # the claim's se: the bound of each dataset's query count
        n = (inp.scores * (1.0 - inp.scores) / np.maximum(unit_se**2, 1e-30)).mean(axis=0)
        own = np.sqrt(np.clip(row * (1.0 - row), 0.0, None) / np.maximum(n, 1.0))
        unit_se = np.vstack([unit_se, own])
    return dataclasses.replace(
        inp,
        systems=(*inp.systems, CLAIM),
        scores=np.vstack([inp.scores, row]),
        unit_se=unit_se,
        what=inp.what + f"; the claim's {measure} on each dataset added as {CLAIM}",
        fingerprint=fingerprint([inp.fingerprint, list(given)]),
    )


def ranks_section(
    con: duckdb.DuckDBPyConnection,
    cid: str,
    measure: str,
    filters: Filters,
    claim: tuple[tuple[str, str], ...] = (),
) -> RanksAudit | None:
    """The ranks audit (default settings, not stored on its own) of a collection's shared
    scores for `audit best`/`audit claim`, or None when the store has none. The
    population filters apply to the datasets' rows, except the topic set and track (a
    benchmark's mean is derived on another track than its datasets' values); ``claim``: a
    claim's (dataset, value) pairs, ranked with the others when they give every dataset."""

    wanted = dataclasses.replace(filters, track=None)
    settings = RankSettings()
    try:
        inp = from_datasets(con, cid, measure, wanted, settings.noise)
    except NotFound:
        return None
    if inp is None:
        inp = from_archive(con, cid, measure)
    if inp is None or len(inp.systems) < 2 or len(inp.units) < 2:
        return None
    if claim:
        inp = with_claim(inp, claim, measure)
    return compute(inp, settings, cid, measure)
