"""Extreme-value audits of published results on the store (Carterette, SIGIR 2015).

Reads the results of one collection and measure (with filters), runs
``litaudit.stats.extreme`` / ``litaudit.stats.sequential`` and saves each audit with
``litaudit.analyses.audits.run_or_reuse`` under the kinds

* ``best``: Tables 2 and 3 of the paper for the population (:class:`BestReport`);
* ``claim``: a claimed value against the population (:class:`ClaimReport`, in
  :mod:`litaudit.analyses.extreme.claim_audit`);
* ``history``: the record replayed year by year (:mod:`litaudit.analyses.extreme.history`).

`audit summary` (every collection, measure and source at once) is in
:mod:`litaudit.analyses.extreme.summary`.
What they share (the model, storing, the population's se) is in
:mod:`litaudit.analyses.extreme.audit_common`; this module re-exports it and the claim's
names, so that ``from litaudit.analyses.extreme.best import ...`` keeps working.

Every report states the population it used (:class:`PopulationSummary`: sources, roles,
run types, topic sets, N of each) and the standard error its reference model used, with
where it comes from (:mod:`litaudit.analyses.extreme.noise`: the model's sd / sqrt(n), one
measured from stored per-topic scores, or one given); p-values are floored at
``defaults.P_FLOOR``. Every
report carries the rows' provenance (paper citation, bibkey, DOI, URL, or TREC
track; system, value as printed, location) so that a report can cite each candidate.
Retracted results are left out unless ``include_retracted``; results flagged
non-standard (``standard = false``) are left out unless ``include_nonstandard``. The
reference distribution needs one topic count: with mixed counts the collection's default
topic set is used (the others are counted in ``n_other_topics``), or ``topics`` chooses.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from litaudit import defaults
from litaudit.analyses.audits import Audited, run_or_reuse
from litaudit.analyses.extreme.audit_common import (
    DEFAULT_ALPHA,
    DEFAULT_P,
    SOURCE,
    SUMMARY_MIN_N,
    AuditModel,
    filter_params,
    population_fields,
    population_key,
    population_noise,
    population_params,
    se_param,
    shrinkage_of,
    spread_of,
    stored_audit,
    winners_bias_of,
)
from litaudit.analyses.extreme.chance_max import archive_max
from litaudit.analyses.extreme.claim_audit import (
    Claim,
    ClaimReport,
    check_claimed_value,
    run_claim,
)
from litaudit.analyses.extreme.coverage import record_coverage
from litaudit.analyses.extreme.noise import NoiseChoice
from litaudit.analyses.extreme.noise_inputs import NoiseLookups
from litaudit.analyses.extreme.population import (
    Filters,
    Population,
    ResultRow,
    population,
)
from litaudit.analyses.extreme.population_summary import PopulationSummary, summarize
from litaudit.analyses.extreme.ranks import RanksAudit, ranks_section
from litaudit.stats import intervals
from litaudit.stats.calibrated_max import MixedNoiseMax
from litaudit.stats.noise import (
    Shrinkage,
    SpreadCheck,
    WinnersBias,
)
from litaudit.stats.winner import WinnerCorrection, correct_winner

if TYPE_CHECKING:
    import duckdb

# re-exported: the audits before the split into audit_common and claim_audit import them here
__all__ = [
    "AuditModel",
    "BestReport",
    "Candidate",
    "Claim",
    "ClaimReport",
    "DEFAULT_ALPHA",
    "DEFAULT_P",
    "Filters",
    "SOURCE",
    "SUMMARY_MIN_N",
    "check_claimed_value",
    "compute_best",
    "filter_params",
    "population_fields",
    "population_noise",
    "population_params",
    "run_best",
    "run_claim",
    "se_param",
    "spread_of",
    "stored_audit",
]


# ------------------------------------------------------------------------------ best
@dataclass(frozen=True)
class Candidate:
    """A result that could be the best system (>= the interval's lower bound, Table 3).

    ``rank`` 1 = highest value; ``gap`` = best value minus this value.
    """

    rank: int
    gap: float
    result: ResultRow


@dataclass(frozen=True, kw_only=True)
class BestReport:
    """`audit best`: the paper's Tables 2 and 3 for one collection, measure and filter.

    ``stats`` holds every number (``stats.reference``: N, mu, sd, se, min, max;
    ``stats.mxvd``: expected max, sd of the max, Gumbel location/scale, lift;
    ``stats.thresholds``: alpha-thresholds of max and min, counts above/below/within,
    expected false positives; ``stats.interval``: mu0, lower, upper, coverage, drop,
    width; ``stats.values``: the N values sorted). ``best`` is the result whose interval
    is computed (the maximum unless a value was given); ``candidates`` every result at or
    above the lower bound, best first, with provenance. ``n_other_topics`` results were
    left out because they use another topic count. ``population`` states what the audit
    used; ``noise`` the standard error of the reference model and its source;
    ``shrinkage`` the random-effects estimate of the best's true mean (None under the
    model's se, where it would be a function of n alone); ``spread`` whether the null of
    equally good systems is false by inspection (None under the model's se, whose ratio
    is sqrt(n) by construction); ``winners_bias`` the resampling estimate of the best's
    luck beside the shrinkage. ``fingerprint`` identifies the input rows.
    ``resampled_max``: the threshold of the max of N resampled from the stored run
    archive's residuals (:mod:`litaudit.analyses.extreme.chance_max`; None without an
    archive, in `audit summary`, and in audits stored before it).
    """

    collection_id: str
    collection_name: str
    measure: str
    source: str | None
    filters: Filters
    n_topics: int
    n_other_topics: int
    population: PopulationSummary
    stats: intervals.BestAudit
    best: ResultRow
    candidates: tuple[Candidate, ...]
    fingerprint: str
    citation: str
    noise: NoiseChoice | None = None  # (None: stored before issue 19)
    shrinkage: Shrinkage | None = None
    spread: SpreadCheck | None = None  # (None: stored before issue 30, or the model's se)
    winners_bias: WinnersBias | None = None
    ranks: RanksAudit | None = None  # shared topics or datasets in the store (issue 30)
    winner: WinnerCorrection | None = None  # issue 34 (None under the model's se)
    coverage: str | None = None  # what the record covers (issue 32)
    # the threshold of the max resampled from the stored archive's residuals (#30)
    resampled_max: MixedNoiseMax | None = None


def run_best(
    con: duckdb.DuckDBPyConnection,
    collection: str,
    measure: str,
    *,
    filters: Filters = Filters(),
    model: AuditModel = AuditModel(),
    save: bool = True,
) -> Audited[BestReport]:
    """Audit the best result of a collection and measure under ``model``; store it unless
    ``save=False``. The key comes before the audit: an identical call's stored audit is
    found uncomputed (its ranks section alone is 1.1 s of CPU on BEIR-13)."""
    pop = population(con, collection, measure, filters)

    def compute() -> BestReport:
        rep = compute_best(con, pop, filters, model)
        return dataclasses.replace(
            rep, ranks=ranks_section(con, pop.collection_id, pop.measure, filters)
        )

    if not save:
        return Audited(compute(), None)
    params = population_params(pop, filters, **model.params())
    # the fingerprint compute_best gives its report (best_parts): the rows' own
    key = population_key("best", pop, params, model.sampling, pop.fingerprint)
    return run_or_reuse(con, key, compute)


@dataclass(frozen=True, kw_only=True)
class BestParts:
    """What :func:`compute_best` computes of a population before its candidates and its
    coverage: all that `audit summary` prints of it, whether its audit is stored already
    or not (the key's ``fingerprint`` included)."""

    population: PopulationSummary
    stats: intervals.BestAudit
    noise: NoiseChoice
    shrinkage: Shrinkage | None
    spread: SpreadCheck | None
    fingerprint: str

    @property
    def best(self) -> int:
        """The index in the population's rows of the result whose interval is computed."""
        return self.stats.candidates[0]


def best_parts(
    con: duckdb.DuckDBPyConnection,
    pop: Population,
    filters: Filters,
    model: AuditModel,
    *,
    lookups: NoiseLookups | None = None,
) -> BestParts:
    """The statistics of the best audit of ``pop`` under ``model`` (:func:`compute_best`
    adds the rest of its report)."""
    rows = pop.rows
    values = [r.value for r in rows]
    noise = population_noise(con, pop, model.se, model.alpha, lookups)
    st = intervals.audit_best(
        values,
        pop.n_topics,
        alpha=model.alpha,
        p=model.p,
        method=model.sampling.method,
        trials=model.sampling.trials,
        seed=model.sampling.seed,
        se=noise.se,
    )
    return BestParts(
        population=summarize(pop, filters),
        stats=st,
        noise=noise,
        shrinkage=shrinkage_of(noise, st.reference.mu, st.interval.value),
        spread=spread_of(noise, values),
        fingerprint=pop.fingerprint,
    )


def compute_best(
    con: duckdb.DuckDBPyConnection,
    pop: Population,
    filters: Filters,
    model: AuditModel,
    *,
    lookups: NoiseLookups | None = None,
    parts: BestParts | None = None,
) -> BestReport:
    """The best audit of ``pop`` under ``model``, not stored (``lookups``: the store's
    topic sets and archives, when an audit of many populations has read them; ``parts``:
    its :func:`best_parts`, when computed already)."""
    rows = pop.rows
    got = parts if parts is not None else best_parts(con, pop, filters, model, lookups=lookups)
    st, noise, shrunk = got.stats, got.noise, got.shrinkage
    best_value = st.interval.value
    cands = tuple(
        Candidate(k + 1, best_value - rows[i].value, rows[i]) for k, i in enumerate(st.candidates)
    )
    values = [r.value for r in rows]
    return BestReport(
        **population_fields(pop, filters, got.population),
        stats=st,
        best=rows[got.best],
        candidates=cands,
        fingerprint=got.fingerprint,
        citation=SOURCE,
        noise=noise,
        shrinkage=shrunk,
        spread=got.spread,
        winners_bias=winners_bias_of(noise, values, shrunk) if lookups is None else None,
        winner=_winner(noise, values, model) if lookups is None else None,
        coverage=record_coverage(rows).sentence,
        resampled_max=None
        if lookups is not None  # (`audit summary`: the Normal threshold, for speed)
        else archive_max(
            con,
            pop.collection_id,
            pop.measure,
            noise,
            value=best_value,
            mu=st.reference.mu,
            n_draws=st.reference.n_results,
            alpha=model.alpha,
        ),
    )


def _winner(noise: NoiseChoice, values: list[float], model: AuditModel) -> WinnerCorrection | None:
    """The best published result corrected for selection among the N, the N means taken
    as independent with the measured or given se (:mod:`litaudit.stats.winner`; None
    under the model's se, as the shrinkage)."""

    if noise.source == "model" or len(values) < 2:
        return None
    sigma = np.eye(len(values)) * noise.se**2
    seed = model.sampling.seed if model.sampling.seed is not None else defaults.WINNER_SEED
    return correct_winner(values, sigma, alpha=model.alpha, seed=seed)
