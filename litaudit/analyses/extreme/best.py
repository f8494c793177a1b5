"""Extreme-value audits of published results on the store (Carterette, SIGIR 2015).

Reads the results of one collection and measure (with filters), runs
``litaudit.stats.extreme`` / ``litaudit.stats.sequential`` and saves each audit with
``litaudit.analyses.audits.save_audit`` under the kinds

* ``best``: Tables 2 and 3 of the paper for the population (:class:`BestReport`);
* ``claim``: a claimed value against the population (:class:`ClaimReport`);
* ``history``: the record replayed year by year (:mod:`litaudit.analyses.extreme.history`).

`audit summary` (every collection, measure and source at once) is in
:mod:`litaudit.analyses.extreme.summary`.

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
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from litaudit import defaults
from litaudit.analyses.audits import Audited, AuditKey, fingerprint, store_or_reuse
from litaudit.analyses.extreme import claim_evidence, wording
from litaudit.analyses.extreme.claim_evidence import Asked, ClaimEvidence
from litaudit.analyses.extreme.coverage import record_coverage
from litaudit.analyses.extreme.noise import (
    NoiseChoice,
    NoiseLookups,
    RecordGap,
    RobustCheck,
    choose_se,
    record_gap,
)
from litaudit.analyses.extreme.per_dataset import PerDatasetComparison, compare_per_dataset
from litaudit.analyses.extreme.population import (
    Filters,
    Population,
    PopulationSummary,
    ResultRow,
    population,
    results_fingerprint,
    summarize,
)
from litaudit.analyses.extreme.ranks import RanksAudit, ranks_section
from litaudit.analyses.extreme.resolution import ClaimResolution, claim_resolution
from litaudit.analyses.extreme.verdict import VerdictLine, claim_verdict
from litaudit.errors import NotFound, ParameterError
from litaudit.stats import claim as claim_stats
from litaudit.stats import intervals
from litaudit.stats.calibrated import MixedNoiseMax, mixed_noise_max
from litaudit.stats.extreme import Sampling
from litaudit.stats.noise import (
    Shrinkage,
    SpreadCheck,
    WinnersBias,
    shrink,
    spread_check,
    winners_bias,
)
from litaudit.stats.winner import WinnerCorrection, correct_winner

if TYPE_CHECKING:
    import duckdb

# the defaults and where they come from: litaudit/defaults.py
DEFAULT_ALPHA = defaults.ALPHA
DEFAULT_P = defaults.P_INTERVAL
SUMMARY_MIN_N = defaults.MIN_N
SOURCE = "Carterette, SIGIR 2015"
R = TypeVar("R")


@dataclass(frozen=True, kw_only=True)
class AuditModel:
    """The reference model of an extreme-value audit: thresholds of the max and min at
    level ``alpha``; mu0 and the interval at probability ``p``; the standard error of one
    mean by ``se`` ('model', 'interaction', a value, or None: the default rule of
    :mod:`litaudit.analyses.extreme.noise`); the max distribution computed by ``sampling``
    (which fills in the Monte Carlo trials and seed)."""

    alpha: float = DEFAULT_ALPHA
    p: float = DEFAULT_P
    se: str | float | None = None
    sampling: Sampling = Sampling()

    def params(self) -> dict:
        """The model as an audit stores it among its parameters (the Monte Carlo trials
        and seed are stored beside them)."""
        return {
            "alpha": self.alpha,
            "p": self.p,
            "method": self.sampling.method,
            "se": se_param(self.se),
        }


def stored_audit(
    con: duckdb.DuckDBPyConnection,
    kind: str,
    pop: Population,
    rep: R,
    fp: str,
    params: dict,
    sampling: Sampling,
) -> Audited[R]:
    """Save ``rep`` as an audit of ``kind`` (or find the identical stored one)."""
    key = AuditKey(
        kind=kind,
        collection_id=pop.collection_id,
        measure=pop.measure,
        params=params,
        method=sampling.method,
        input_fingerprint=fp,
        seed=sampling.seed,
        trials=sampling.trials,
    )
    return store_or_reuse(con, key, rep)


def filter_params(filters: Filters) -> dict:
    """The filters as stored with an audit (the collection and measure are stored beside)."""
    return {
        k: v
        for k, v in dataclasses.asdict(filters).items()
        if k not in ("collection_id", "measure")
    }


def population_params(pop: Population, filters: Filters, **kw) -> dict:
    return {
        "collection": pop.collection_id,
        "measure": pop.measure,
        "filters": filter_params(filters),
        **kw,
    }


def population_fields(pop: Population, filters: Filters) -> dict[str, Any]:
    """The fields every extreme-value report opens with: the population audited and the
    filters that made it (BestReport, ClaimReport, history.HistoryReport)."""
    return dict(
        collection_id=pop.collection_id,
        collection_name=pop.collection_name,
        measure=pop.measure,
        source=filters.source,
        filters=filters,
        n_topics=pop.n_topics,
        n_other_topics=pop.n_other_topics,
        population=summarize(pop, filters),
    )


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
    ``save=False``."""
    pop = population(con, collection, measure, filters)
    rep = compute_best(con, pop, filters, model)
    rep = dataclasses.replace(
        rep, ranks=ranks_section(con, pop.collection_id, pop.measure, filters)
    )
    if not save:
        return Audited(rep, None)
    params = population_params(pop, filters, **model.params())
    return stored_audit(con, "best", pop, rep, rep.fingerprint, params, model.sampling)


def population_noise(
    con: duckdb.DuckDBPyConnection,
    pop: Population,
    se,
    alpha: float,
    lookups: NoiseLookups | None = None,
) -> NoiseChoice:
    """The standard error of ``pop``'s reference model (:func:`noise.choose_se`)."""
    sets: dict[str | None, int] = {}
    for r in pop.rows:
        sets[r.topic_set] = sets.get(r.topic_set, 0) + 1
    topic_set = max(sets, key=lambda k: sets[k])
    return choose_se(
        con,
        pop.collection_id,
        pop.measure,
        topic_set,
        pop.n_topics,
        [r.value for r in pop.rows],
        se,
        alpha=alpha,
        lookups=lookups,
    )


def _shrinkage(noise: NoiseChoice, mu: float, value: float) -> Shrinkage | None:
    """The random-effects estimate of ``value`` where the se is not the model's."""
    if noise.source == "model":
        return None
    return shrink(value, mu, noise.sd, noise.se)


def spread_of(noise: NoiseChoice, values) -> SpreadCheck | None:
    """The spread check (not under the model's se: its ratio is sqrt(n) by construction)."""
    if noise.kind == "model" or noise.se_max is None:
        return None
    return spread_check(values, noise.se_max, min_ratio=defaults.BY_INSPECTION_RATIO)


def _winners_bias(noise: NoiseChoice, values, shrunk: Shrinkage | None) -> WinnersBias | None:
    """The resampling estimate of the best's luck, beside the shrinkage."""
    if shrunk is None:
        return None
    return winners_bias(
        values,
        noise.se,
        weight=shrunk.weight,
        run_ses=noise.run_ses,
        trials=defaults.WINNERS_BIAS_TRIALS,
        seed=defaults.WINNERS_BIAS_SEED,
    )


def se_param(se) -> str | float:
    """The standard error option as stored with an audit."""
    return "default" if se is None else se


def compute_best(
    con: duckdb.DuckDBPyConnection,
    pop: Population,
    filters: Filters,
    model: AuditModel,
    *,
    lookups: NoiseLookups | None = None,
) -> BestReport:
    """The best audit of ``pop`` under ``model``, not stored (``lookups``: the store's
    topic sets and archives, when an audit of many populations has read them)."""
    rows = pop.rows
    noise = population_noise(con, pop, model.se, model.alpha, lookups)
    st = intervals.audit_best(
        [r.value for r in rows],
        pop.n_topics,
        alpha=model.alpha,
        p=model.p,
        method=model.sampling.method,
        trials=model.sampling.trials,
        seed=model.sampling.seed,
        se=noise.se,
    )
    best_value = st.interval.value
    cands = tuple(
        Candidate(k + 1, best_value - rows[i].value, rows[i]) for k, i in enumerate(st.candidates)
    )
    fp = results_fingerprint(rows)
    values = [r.value for r in rows]
    shrunk = _shrinkage(noise, st.reference.mu, best_value)
    return BestReport(
        **population_fields(pop, filters),
        stats=st,
        best=rows[st.candidates[0]],
        candidates=cands,
        fingerprint=fp,
        citation=SOURCE,
        noise=noise,
        shrinkage=shrunk,
        spread=spread_of(noise, values),
        winners_bias=_winners_bias(noise, values, shrunk) if lookups is None else None,
        winner=_winner(noise, values, model) if lookups is None else None,
        coverage=record_coverage(rows).sentence,
    )


def _winner(noise: NoiseChoice, values: list[float], model: AuditModel) -> WinnerCorrection | None:
    """The best published result corrected for selection among the N, the N means taken
    as independent with the measured or given se (:mod:`litaudit.stats.winner`; None
    under the model's se, as the shrinkage)."""
    import numpy as np

    if noise.source == "model" or len(values) < 2:
        return None
    sigma = np.eye(len(values)) * noise.se**2
    seed = model.sampling.seed if model.sampling.seed is not None else defaults.WINNER_SEED
    return correct_winner(values, sigma, alpha=model.alpha, seed=seed)


# ----------------------------------------------------------------------------- claim
def _robust_check(values, pop, noise: NoiseChoice, ca, kw: dict[str, Any]) -> RobustCheck | None:
    """The record check with the robust spread (only where the se is the model's)."""
    import math

    if noise.source != "model" or not noise.robust_sd > 0:
        return None
    se = noise.robust_sd / math.sqrt(noise.n_model)
    rob = claim_stats.audit_claim(values, pop.n_topics, se=se, **kw).record
    old = ca.record
    changes = (rob.standing, rob.claim_in_record_interval, rob.record_in_claim_interval) != (
        old.standing,
        old.claim_in_record_interval,
        old.record_in_claim_interval,
    )
    return RobustCheck(noise.robust_sd, se, rob, changes)


@dataclass(frozen=True, kw_only=True)
class ClaimReport:
    """`audit claim`: a claim against the record, against chance, and its own interval.

    ``answers``: the audit in plain words, in this order: (a) against the record (with
    the robust-spread sensitivity line when it changes the standing), (b) against chance
    (or "false by inspection", with no p), the gap to the record in se of a difference,
    (c) the claim's own interval, how much of the record is luck (random-effects
    reliability and a resampling estimate), then the reference model with its se, kind and
    source
    (:mod:`litaudit.analyses.extreme.wording`). ``stats`` holds every number
    (:class:`litaudit.stats.claim.ClaimAudit`: ``record``, ``chance``, ``interval``,
    ``reference``). ``subject``: the published result audited as one of the N (None for a
    new value, judged as one more draw); ``record_holder``: the best published result
    other than the claim. ``population`` states what the audit used; ``noise`` the se and
    its source; ``robust`` the record check again with the robust spread (model se only);
    ``shrinkage`` the record's random-effects estimate (measured or given se only).
    """

    collection_id: str
    collection_name: str
    measure: str
    source: str | None
    filters: Filters
    n_topics: int
    n_other_topics: int
    population: PopulationSummary
    value: float
    subject: ResultRow | None
    answers: tuple[str, ...]
    record_holder: ResultRow
    stats: claim_stats.ClaimAudit
    fingerprint: str
    citation: str
    noise: NoiseChoice | None = None  # (None: stored before issue 19)
    robust: RobustCheck | None = None
    shrinkage: Shrinkage | None = None
    evidence: ClaimEvidence | None = None
    spread: SpreadCheck | None = None  # (None: stored before issue 30, or the model's se)
    mixed: MixedNoiseMax | None = None  # (b) with the measured runs' own noise
    record_gap: RecordGap | None = None
    winners_bias: WinnersBias | None = None
    per_dataset: PerDatasetComparison | None = None  # --per-dataset FILE (issue 30)
    ranks: RanksAudit | None = None  # shared topics or datasets in the store (issue 30)
    resolution: ClaimResolution | None = None  # issue 34: None without per-topic scores
    value_text: str | None = None  # the claim as printed (None: stored before issue 32)
    coverage: str | None = None  # what the record covers (issue 32)
    verdict: tuple[VerdictLine, ...] = ()  # one line per question (issue 32)


def check_claimed_value(con: duckdb.DuckDBPyConnection, measure: str, value: float | str) -> float:
    """A claimed value within the measure's range (a percentage gets a suggestion); a
    text is read as printed."""
    from litaudit.analyses.extreme.printed import check_range, printed

    v, _ = printed(value, f"claimed {measure}")
    return check_range(con, measure, v if v is not None else float("nan"), f"claimed {measure}")


def _subject_index(
    rows: list[ResultRow], where: str, result_id: int | None, system: str | None
) -> int:
    """The position in ``rows`` of the published result named by id or by system."""
    if result_id is not None:
        hit = [i for i, r in enumerate(rows) if r.id == result_id]
        if not hit:
            raise NotFound(
                f"result #{result_id} is not in the population of {where} (another "
                "collection or measure, retracted, non-standard, filtered out, or "
                "on another topic count)"
            )
        return hit[0]
    want = (system or "").strip().lower()
    hit = [i for i, r in enumerate(rows) if r.system.lower() == want]
    if not hit:
        raise NotFound(f"no result of system {system!r} in the population of {where}")
    if len(hit) > 1:
        ex = ", ".join(
            f"#{rows[i].id} {rows[i].value_text} ({wording.who(rows[i])})" for i in hit[:3]
        )
        raise ParameterError(
            f"system {system!r} names {len(hit)} results in the population "
            f"of {where}; choose one with --result ID (e.g. {ex})"
        )
    return hit[0]


@dataclass(frozen=True, kw_only=True)
class Claim:
    """What `audit claim` audits: a new ``value`` (one more draw; a str keeps its printed
    digits) or a published result named by ``result_id`` or ``system`` (one of the N),
    exactly one (or none with a run: :mod:`litaudit.analyses.extreme.claim_evidence`). ``n``
    overrides the number of experiments besides the claim (default: N for a new value,
    N - 1 for a published one); ``hidden_multiplier`` experiments run per experiment
    published."""

    value: float | str | None = None
    result_id: int | None = None
    system: str | None = None
    n: int | None = None
    hidden_multiplier: float = 1.0
    per_dataset: str | None = None  # a file of the claim's per-dataset values


def _check_one_subject(value, result_id, system) -> None:
    given = [x is not None for x in (value, result_id, system)]
    if sum(given) != 1:
        raise ParameterError(
            "give exactly one of a claimed value (--value), a result id "
            "(--result) or a system name (--system)"
        )


def _claim_params(
    pop, filters, claim: Claim, value, subject, model: AuditModel, value_text: str | None
) -> dict:
    """The stored parameters of a claim audit (the value as printed too, where its digits
    are not the float's own: 0.3100 and 0.31 are two claims to a run that gives 0.3101)."""
    printed = (
        {}
        if value_text is None or value is None or value_text == repr(value)
        else {"value_text": value_text}
    )
    return population_params(
        pop,
        filters,
        value=value,
        **printed,
        result_id=None if subject is None else subject.id,
        n=claim.n,
        hidden_multiplier=claim.hidden_multiplier,
        **model.params(),
    )


def _value_text(claimed: str | None, ev: ClaimEvidence | None) -> str | None:
    """The claim as printed, or its run's value as trec_eval prints it."""
    if claimed is not None:
        return claimed
    if ev is not None and ev.run is not None and ev.value_from_run:
        return ev.run.compared_text
    return None


def run_claim(
    con: duckdb.DuckDBPyConnection,
    collection: str,
    measure: str,
    claim: Claim = Claim(),
    *,
    filters: Filters = Filters(),
    model: AuditModel = AuditModel(),
    save: bool = True,
    evidence: Asked = Asked(),
) -> Audited[ClaimReport]:
    """Audit ``claim`` (:class:`Claim`) against the population under ``model``.
    ``evidence``: its run, runs to compare with, its baseline
    (:mod:`litaudit.analyses.extreme.claim_evidence`)."""
    pop = population(con, collection, measure, filters)
    named = claim.result_id is not None or claim.system is not None
    claim_run, value, claimed = claim_evidence.claim_value(
        con, pop.collection_id, pop.measure, claim.value, named, evidence.run
    )
    _check_one_subject(value, claim.result_id, claim.system)
    rows = pop.rows
    index = None
    if value is not None:
        value = check_claimed_value(con, pop.measure, value)
    else:
        where = f"{pop.collection_name} {pop.measure}"
        index = _subject_index(rows, where, claim.result_id, claim.system)
    noise = population_noise(con, pop, model.se, model.alpha)
    chance = claim_stats.ChanceModel(
        alpha=model.alpha,
        hidden_multiplier=claim.hidden_multiplier,
        sampling=model.sampling,
        p_floor=defaults.P_FLOOR,
        n_star_cap=defaults.N_STAR_CAP,
    )
    kw: dict[str, Any] = dict(value=value, index=index, n_other=claim.n, p=model.p, model=chance)
    values = [r.value for r in rows]
    ca = claim_stats.audit_claim(values, pop.n_topics, se=noise.se, **kw)
    robust = _robust_check(values, pop, noise, ca, kw)
    holder = next(r for i, r in enumerate(rows) if i != index)
    subject = None if index is None else rows[index]
    fp = results_fingerprint(rows)
    shrunk = _shrinkage(noise, ca.reference.mu, ca.record.record)
    claimed = subject.value_text if subject else claimed
    ev, ca = claim_evidence.attach(con, pop, ca, evidence, claim_run, claimed, subject, holder)
    fp = fp if ev is None else fingerprint([fp, ev.fingerprint])
    spread = spread_of(noise, values)
    gap = record_gap(noise, ca.value, holder.value)
    bias = _winners_bias(noise, values, shrunk)
    mixed = (
        mixed_noise_max(
            ca.value,
            ca.chance.mu,
            ca.chance.n_draws,
            noise.run_ses,
            alpha=model.alpha,
            trials=defaults.RESAMPLED_NULL_TRIALS,
            seed=defaults.RESAMPLED_NULL_SEED,
        )
        if noise.run_ses
        else None
    )
    found = wording.Found(
        mixed=mixed, noise=noise, robust=robust, shrinkage=shrunk, spread=spread, gap=gap, bias=bias
    )
    per = None
    if claim.per_dataset is not None:
        per = compare_per_dataset(
            con, pop.collection_id, pop.measure, holder, claim.per_dataset, filters
        )
        fp = fingerprint([fp, per.file_sha256])
    rep = ClaimReport(
        **population_fields(pop, filters),
        value=ca.value,
        subject=subject,
        answers=wording.claim_answers(ca, holder, subject, found),
        record_holder=holder,
        stats=ca,
        fingerprint=fp,
        citation=SOURCE,
        noise=noise,
        robust=robust,
        shrinkage=shrunk,
        evidence=ev,
        spread=spread,
        record_gap=gap,
        winners_bias=bias,
        per_dataset=per,
        ranks=ranks_section(
            con, pop.collection_id, pop.measure, filters, () if per is None else per.given
        ),
        resolution=claim_resolution(con, pop.collection_id, pop.measure, ca.value, holder.value),
        mixed=mixed,
        value_text=_value_text(claimed, ev),
        coverage=record_coverage(rows).sentence,
    )
    rep = dataclasses.replace(rep, verdict=claim_verdict(rep))
    if not save:
        return Audited(rep, None)
    params = _claim_params(pop, filters, claim, value, subject, model, rep.value_text)
    if per is not None:
        params["per_dataset"] = Path(per.file).name
    params.update(claim_evidence.evidence_params(evidence, claim_run))
    return stored_audit(con, "claim", pop, rep, fp, params, model.sampling)
