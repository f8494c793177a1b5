"""The evidence a claim brings besides its value (issue 21): its own run, the same-topic
comparison with the archive's runs, and its baseline's strength.

:func:`read_claim_run` evaluates ``audit claim --run FILE`` before the claim is audited
(a claim given only as a run takes its value from it); :func:`gather` then checks the
run against the claimed value (:mod:`litaudit.analyses.extreme.claim_run`), pairs the claim's
per-topic scores with the archive's runs, judges ``--baseline`` against the references
(:mod:`litaudit.analyses.extreme.baselines`), and, with the claim's run, redoes the chance check
with the interaction se of the archive plus the run. Everything lands in one
:class:`ClaimEvidence` on the claim's report.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from litaudit import defaults
from litaudit.analyses.audits import fingerprint
from litaudit.analyses.extreme.baselines import BaselineStanding, baseline_standing
from litaudit.analyses.extreme.claim_evidence_wording import evidence_sentences
from litaudit.analyses.extreme.claim_run import (
    RunEvaluation,
    Scored,
    check_reproduction,
    evaluate_claim_run,
)
from litaudit.analyses.extreme.population import Population
from litaudit.analyses.extreme.printed import printed
from litaudit.analyses.extreme.same_topic import (
    PairedSettings,
    SameTopic,
    archive_scores,
    archive_tag,
    identical_runs,
    same_topic,
)
from litaudit.errors import ParameterError
from litaudit.runs.archive_lookups import has_qrels
from litaudit.runs.evalcache import fingerprint as archive_fingerprint
from litaudit.stats import claim as claim_stats
from litaudit.stats.extreme import Sampling

if TYPE_CHECKING:
    import duckdb


@dataclass(frozen=True)
class ClaimRun:
    """A claim's run read and evaluated (before the claim's value is known)."""

    evaluation: RunEvaluation
    scores: Scored


@dataclass(frozen=True)
class Asked:
    """The evidence asked for: the claim's run file, runs to compare with, the paper's
    baseline (as printed) and its model, and the randomization tests' settings."""

    run: str | None = None
    against: tuple[str, ...] = ()
    baseline: float | str | None = None
    baseline_system: str | None = None
    permutations: int = defaults.RANDOMIZATION_PERMUTATIONS
    seed: int = defaults.RANDOMIZATION_SEED

    def given(self) -> bool:
        return self.run is not None or bool(self.against) or self.baseline is not None


def claim_value(
    con: duckdb.DuckDBPyConnection, collection_id: str, measure: str, value, named: bool, run
) -> tuple[ClaimRun | None, float | None, str | None]:
    """The claim's run (read and evaluated when given), the claim's value (the run's
    when nothing else names it; a printed value parsed) and the claim as printed (None
    when it is the run's or when none is given)."""

    claim_run = None
    if run is not None:
        ev, scores = evaluate_claim_run(con, collection_id, measure, run)
        claim_run = ClaimRun(ev, scores)
        if value is None and not named:
            return claim_run, ev.compared_value, None
    value, claimed = printed(value, "--value")
    return claim_run, value, claimed


def attach(
    con: duckdb.DuckDBPyConnection, pop, audit, asked: Asked, claim_run, claimed, subject, holder
):
    """(evidence or None, audit): :func:`gather` when evidence was asked for, or when the
    published result audited has its run in the archive (a same-topic comparison)."""
    if not asked.given() and subject is None:
        return None, audit
    ev, audit2 = gather(
        con,
        pop,
        audit,
        claimed=claimed,
        subject_system=None if subject is None else subject.system,
        record_system=holder.system,
        claim_run=claim_run,
        asked=asked,
    )
    if not asked.given() and ev.same_topic is None:
        return None, audit
    return ev, audit2


@dataclass(frozen=True)
class ClaimEvidence:
    """What the claim's run, the archive and the baseline say.

    ``run``: the claim's run evaluated and checked against the claimed value
    (``value_from_run``: the claim had no other value); ``same_topic``: the paired
    comparisons (None with ``same_topic_note`` saying why); ``baseline``: the baseline's
    standing (None unless ``--baseline``); ``chance_se``: the se the chance check used
    when it is not the published population's (with ``chance_se_source``)."""

    run: RunEvaluation | None
    value_from_run: bool
    same_topic: SameTopic | None
    same_topic_note: str | None
    baseline: BaselineStanding | None
    chance_se: float | None
    population_se: float
    chance_se_source: str | None
    fingerprint: str
    sentences: tuple[str, ...] = ()


def gather(
    con: duckdb.DuckDBPyConnection,
    pop: Population,
    audit: claim_stats.ClaimAudit,
    *,
    claimed: str | None,
    subject_system: str | None,
    record_system: str | None,
    claim_run: ClaimRun | None,
    asked: Asked,
) -> tuple[ClaimEvidence, claim_stats.ClaimAudit]:
    """The evidence of a claim against ``pop``, and its audit with the chance check redone
    on the interaction se when the claim has a run. ``claimed``: the claim as printed
    (None when its value came from the run)."""
    collection_id, measure = pop.collection_id, pop.measure
    values = [r.value for r in pop.rows]
    run = None
    if claim_run is not None:
        run = claim_run.evaluation
        if claimed is not None:
            run = check_reproduction(run, claimed)
        same = identical_runs(con, collection_id, measure, claim_run.scores)
        own = archive_tag(con, collection_id, subject_system)  # the result audited: its own
        run = dataclasses.replace(run, identical=tuple(t for t in same if t != own))
    st, note = _same_topic(
        con, collection_id, measure, claim_run, subject_system, record_system, asked
    )
    chance_se = source = None
    if st is not None and st.se is not None:
        chance_se = st.se.se
        source = (
            f"interaction se of the archive's {st.se.n_systems - 1} runs plus the claim's run "
            f"on {st.se.n_topics} topics (two-way ANOVA without replication)"
        )
        audit = _with_chance_se(audit, values, chance_se)
    standing = None
    if asked.baseline is not None:
        standing = baseline_standing(
            con,
            collection_id,
            measure,
            value=asked.baseline,
            model=asked.baseline_system,
            claim=audit.value,
        )
    fp = fingerprint(
        [
            None if run is None else run.sha256,
            None if st is None else _archive_fp(con, collection_id),
            None if standing is None else standing.fingerprint,
        ]
    )
    ev = ClaimEvidence(
        run=run,
        value_from_run=claim_run is not None and claimed is None,
        same_topic=st,
        same_topic_note=note,
        baseline=standing,
        chance_se=chance_se,
        population_se=audit.reference.se,
        chance_se_source=source,
        fingerprint=fp,
    )
    return dataclasses.replace(ev, sentences=evidence_sentences(ev)), audit


_AGAINST_NEEDS_SCORES = (
    "--against needs the claim's per-topic scores: give its run (--run FILE), "
    "or name a published result whose run the archive holds (--system)"
)


def check_against(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    claim_run: ClaimRun | None,
    subject_system: str | None,
    asked: Asked,
) -> None:
    """Refuse ``--against`` before the audit is computed when the claim has no per-topic
    scores: no run of its own and no archive run of the published result audited (the
    error :func:`_same_topic` would raise after the population's noise was measured,
    ~0.5 s on robust03)."""
    if (
        asked.against
        and claim_run is None
        and archive_tag(con, collection_id, subject_system) is None
    ):
        raise ParameterError(_AGAINST_NEEDS_SCORES)


def _same_topic(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    measure: str,
    claim_run: ClaimRun | None,
    subject_system: str | None,
    record_system: str | None,
    asked: Asked,
) -> tuple[SameTopic | None, str | None]:
    """The same-topic comparison, or None and why not. The claim's per-topic scores come
    from its run, else from the archive's run of the published result audited."""
    scores, origin = None, ""
    if claim_run is not None:
        scores, origin = claim_run.scores, f"run file {claim_run.evaluation.file}"
    else:
        tag = archive_tag(con, collection_id, subject_system)
        if tag is not None:
            scores, origin = archive_scores(con, collection_id, measure, tag), f"archive run {tag}"
    if scores is None:
        if asked.against:
            raise ParameterError(_AGAINST_NEEDS_SCORES)
        return None, "no per-topic scores of the claim (give its run with --run FILE)"

    if not has_qrels(con, collection_id):
        return None, f"no run archive stored for {collection_id}"
    st = same_topic(
        con,
        collection_id,
        measure,
        claim=scores,
        claim_from=origin,
        record_tag=archive_tag(con, collection_id, record_system),
        against=asked.against,
        with_se=claim_run is not None,
        tests=PairedSettings(permutations=asked.permutations, seed=asked.seed),
    )
    return st, None


def _archive_fp(con: duckdb.DuckDBPyConnection, collection_id: str) -> str:

    return archive_fingerprint(con, collection_id)


def _with_chance_se(audit: claim_stats.ClaimAudit, values, se: float) -> claim_stats.ClaimAudit:
    """The audit with (b) redone on the standard error ``se``."""
    c = audit.chance
    ch, _ = claim_stats.chance_check(
        audit.value,
        c.mu,
        se,
        c.n_other,
        values=values,
        model=claim_stats.ChanceModel(
            alpha=c.alpha,
            hidden_multiplier=c.hidden_multiplier,
            sampling=Sampling(method=audit.method, trials=audit.trials, seed=audit.seed),
            p_floor=defaults.P_FLOOR,
            n_star_cap=c.n_star_cap,
        ),
    )
    return dataclasses.replace(audit, chance=ch)


def evidence_params(asked: Asked, claim_run: ClaimRun | None) -> dict:
    """The stored parameters the evidence adds to a claim audit (none when none was asked)."""
    if not asked.given():
        return {}
    return {
        "run": None if claim_run is None else claim_run.evaluation.sha256,
        "against": list(asked.against),
        "baseline": None if asked.baseline is None else str(asked.baseline),
        "baseline_system": asked.baseline_system,
        "permutations": asked.permutations,
        "permutation_seed": asked.seed,
    }
