"""What the hold-out agreement test of :mod:`litaudit.analyses.reuse.holdout_agreement`
returns (Carterette, Kanoulas, Pavlu and Fang, SIGIR 2010, Sections 3.2.1 and 4.3): per
analysis the mean difference of the paper's X^2 between assignments and its sign-flip
p-value (:class:`AgreementPart`), the held-out runs' score shift (:class:`ShiftPart`),
the settings (:class:`AgreementSettings`) and the whole (:class:`AgreementTest`), as
stored in a ``reuse-verdict`` audit.
"""

from __future__ import annotations

from dataclasses import dataclass

from litaudit import defaults
from litaudit.analyses.reuse.holdout_design import HoldoutDesign


@dataclass(frozen=True)
class Quantiles:
    minimum: float
    median: float
    maximum: float


@dataclass(kw_only=True, frozen=True)
class AgreementPart:
    """One analysis of the agreement test over B assignments."""

    analysis: str
    status: str  # "tested" | "not enough data"
    reason: str
    pairs_min: int  # pairs tested per assignment (min, max)
    pairs_max: int
    disagreement_real: float | None  # mean share of pairs whose two tests disagree
    disagreement_null: float | None  # ... with the random assignments A'_b
    expected_disagreement: float | None  # the paper's expectation (powers), real A_b
    x2_real: float | None  # mean X^2 with A_b and with A'_b
    x2_null: float | None
    p_value: float | None  # sign-flip test of mean(X^2(A_b) - X^2(A'_b)) > 0
    paper_p: Quantiles | None  # the paper's chi-square(3) p over the B real assignments
    paper_rejections: int | None  # assignments where that p < alpha (descriptive)


@dataclass(kw_only=True, frozen=True)
class ShiftPart:
    """Score agreement (Section 3.2.3): how far each run's mean over the topics its site
    was held out of falls from its mean over the other topics, against random hold-outs."""

    status: str  # "tested" | "not enough data"
    reason: str
    runs: int  # runs with both kinds of topics
    shift_real: float | None  # mean over runs and assignments of reuse - baseline mean
    shift_null: float | None  # ... with the random assignments A'_b
    effect: float | None  # shift_real - shift_null (score points)
    effect_pct: float | None  # effect as a % of the mean score
    rmse_real: float | None  # the paper's RMSE between baseline and reuse means
    rmse_null: float | None
    p_value: float | None  # two-sided sign-flip test of mean(shift(A_b) - shift(A'_b))


@dataclass(frozen=True, kw_only=True)
class AgreementSettings:
    """The agreement test as asked: ``k`` sites held out per topic (``baseline`` topics
    hold out none), ``assignments`` random hold-out assignments from ``seed``, ``flips``
    random sign flips from ``flip_seed``, the level ``alpha`` of each pair's t-tests, and
    a pair set tested only with ``min_pairs`` pairs per assignment on average that have
    ``min_topics`` baseline and reuse topics each (Carterette et al. 2010, Section 4.3)."""

    k: int = defaults.AGREEMENT_K
    baseline: int = 0
    assignments: int = defaults.AGREEMENT_ASSIGNMENTS
    seed: int = defaults.AGREEMENT_SEED
    flips: int = defaults.AGREEMENT_FLIPS
    flip_seed: int = defaults.AGREEMENT_FLIP_SEED
    alpha: float = defaults.REUSE_ALPHA
    min_topics: int = defaults.AGREEMENT_MIN_TOPICS
    min_pairs: int = defaults.AGREEMENT_MIN_PAIRS


@dataclass(frozen=True)
class AgreementTest:
    """The agreement test of one collection (or score matrix)."""

    source: str  # e.g. "pooling simulation, depth 100"
    measure: str
    alpha: float
    k: int
    depth: int | None
    assignments: int  # B
    flips: int
    seed: int  # of the hold-out assignments
    flip_seed: int  # of the sign flips
    min_topics: int
    min_pairs: int
    design: HoldoutDesign
    parts: tuple[AgreementPart, ...]
    shift: ShiftPart
    held_out_bias: float | None  # simulation only: mean (reduced - full) AP of held-out
