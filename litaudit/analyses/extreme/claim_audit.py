"""`audit claim`: a claimed value against the population of published results
(Carterette, SIGIR 2015), the claim's evidence, its gap to the record, per-dataset values
and the verdict (:class:`ClaimReport`, :func:`run_claim`). Split out of ``best.py``
(issue 37, item 6); ``best`` re-exports :class:`Claim`, :class:`ClaimReport`,
:func:`run_claim` and :func:`check_claimed_value`.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from litaudit import defaults
from litaudit.analyses.audits import Audited, fingerprint, run_or_reuse
from litaudit.analyses.extreme import claim_evidence, claim_key, wording
from litaudit.analyses.extreme.audit_common import (
    SOURCE,
    AuditModel,
    population_fields,
    population_noise,
    population_params,
    shrinkage_of,
    spread_of,
    stored_audit,
    winners_bias_of,
)
from litaudit.analyses.extreme.chance_max import claim_max
from litaudit.analyses.extreme.claim_evidence import Asked, ClaimEvidence
from litaudit.analyses.extreme.coverage import record_coverage
from litaudit.analyses.extreme.noise import (
    NoiseChoice,
    RecordGap,
    RobustCheck,
    record_gap,
)
from litaudit.analyses.extreme.noise_inputs import NoiseLookups
from litaudit.analyses.extreme.per_dataset import PerDatasetComparison, compare_per_dataset
from litaudit.analyses.extreme.population import Filters, ResultRow, population
from litaudit.analyses.extreme.population_summary import PopulationSummary
from litaudit.analyses.extreme.printed import check_range, printed
from litaudit.analyses.extreme.ranks import RanksAudit, ranks_section
from litaudit.analyses.extreme.resolution import ClaimResolution, claim_resolution
from litaudit.analyses.extreme.verdict import VerdictLine, claim_verdict
from litaudit.analyses.extreme.wording_claim import Found, claim_answers
from litaudit.errors import NotFound, ParameterError
from litaudit.stats import claim as claim_stats
from litaudit.stats.calibrated_max import MixedNoiseMax
from litaudit.stats.noise import (
    Shrinkage,
    SpreadCheck,
    WinnersBias,
)

if TYPE_CHECKING:
    import duckdb


# ----------------------------------------------------------------------------- claim
def _robust_check(values, pop, noise: NoiseChoice, ca, kw: dict[str, Any]) -> RobustCheck | None:
    """The record check with the robust spread (only where the se is the model's)."""
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
    (:mod:`litaudit.analyses.extreme.wording_claim`). ``stats`` holds every number
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
    index = None
    if value is not None:
        value = check_claimed_value(con, pop.measure, value)
    else:
        where = f"{pop.collection_name} {pop.measure}"
        index = _subject_index(pop.rows, where, claim.result_id, claim.system)
    subject_system = None if index is None else pop.rows[index].system
    claim_evidence.check_against(con, pop.collection_id, claim_run, subject_system, evidence)
    asked = _Asked(claim, value, index, claimed, claim_run, evidence)
    if save and not evidence.given() and claim.per_dataset is None:
        # the key before the audit: an identical call's stored audit is found uncomputed
        subject = None if index is None else pop.rows[index]
        text = subject.value_text if subject else claimed
        params = _claim_params(pop, filters, claim, value, subject, model, text)
        lookups = NoiseLookups.load(con)  # for the key and the audit (nothing writes between)
        fp = claim_key.early_fingerprint(con, pop, filters, lookups)
        key = claim_key.claim_key(pop, params, model.sampling, fp)
        return run_or_reuse(con, key, lambda: _report(con, pop, asked, filters, model, lookups)[0])
    rep, fp = _report(con, pop, asked, filters, model)
    if not save:
        return Audited(rep, None)
    params = _claim_params(pop, filters, claim, value, rep.subject, model, rep.value_text)
    if rep.per_dataset is not None:
        params["per_dataset"] = Path(rep.per_dataset.file).name
    params.update(claim_evidence.evidence_params(evidence, claim_run))
    return stored_audit(con, "claim", pop, rep, fp, params, model.sampling)


@dataclass(frozen=True)
class _Asked:
    """A claim as :func:`run_claim` read it: its value (None for a published one), the
    published result's index in the population, the claim as printed, its run, the
    evidence asked for."""

    claim: Claim
    value: float | None
    index: int | None
    claimed: str | None
    claim_run: claim_evidence.ClaimRun | None
    evidence: Asked


def _report(
    con: duckdb.DuckDBPyConnection,
    pop,
    asked: _Asked,
    filters: Filters,
    model: AuditModel,
    lookups: NoiseLookups | None = None,
) -> tuple[ClaimReport, str]:
    """The claim audit of ``asked`` against ``pop`` and the fingerprint of its input (the
    key of a claim with evidence files: :func:`run_claim`); ``lookups``: the store's noise
    lookups when the key has read them."""
    claim, value, index, claimed = asked.claim, asked.value, asked.index, asked.claimed
    claim_run, evidence = asked.claim_run, asked.evidence
    rows = pop.rows
    if lookups is None:  # once for the noise and the resolution line
        lookups = NoiseLookups.load(con)
    noise = population_noise(con, pop, model.se, model.alpha, lookups)
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
    fp = pop.fingerprint
    shrunk = shrinkage_of(noise, ca.reference.mu, ca.record.record)
    claimed = subject.value_text if subject else claimed
    ev, ca = claim_evidence.attach(con, pop, ca, evidence, claim_run, claimed, subject, holder)
    fp = fp if ev is None else fingerprint([fp, ev.fingerprint])
    spread = spread_of(noise, values)
    gap = record_gap(noise, ca.value, holder.value)
    bias = winners_bias_of(noise, values, shrunk)
    mixed = claim_max(
        con,
        pop.collection_id,
        pop.measure,
        noise,
        value=ca.value,
        mu=ca.chance.mu,
        n_draws=ca.chance.n_draws,
        alpha=model.alpha,
    )
    found = Found(
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
        answers=claim_answers(ca, holder, subject, found),
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
        resolution=claim_resolution(
            con, pop.collection_id, pop.measure, ca.value, holder.value, lookups
        ),
        mixed=mixed,
        value_text=_value_text(claimed, ev),
        coverage=record_coverage(rows).sentence,
    )
    return dataclasses.replace(rep, verdict=claim_verdict(rep)), fp
