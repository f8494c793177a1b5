"""Claim audits: a value set against the record, against chance, and its own interval.

Carterette, "The Best Published Result is Random", SIGIR 2015, Sec. 3.1 and Sec. 5. A
claimed value V is audited in three parts, in this order:

(a) against the record: the best published result R (of the others, when V is one of the
    published results), whether V lies in R's intrinsic-effectiveness interval (R as the
    max of the N published results, Table 3) and R in V's; how many published results
    are at or above V;
(b) against chance: the alpha threshold of the max of M draws from the reference
    Normal(mu, se) (M = N + 1 for a new value judged as one more draw, M = N for a
    published result judged as one of the N), whether V passes it, the expected number of
    the M draws above it under the model (``M * P(one draw > threshold)``), the
    descriptive p-value P(max of M >= V) (the paper proposes no test: Sec. 3.1, "we are
    not actually going to propose a significance test") and N*, the number of draws at
    which V stops passing (the published N is only a lower bound on the experiments run);
(c) V's own mu0 and 1 - 2p interval as the max of M draws (Sec. 3.1, Fig. 3).

Pure: arrays in, frozen dataclasses out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import log_ndtr

from litaudit.errors import ParameterError
from litaudit.stats.extreme import Reference, Sampling, StdExtremes, reference
from litaudit.stats.extreme_checks import check_interval_p, check_mu, check_prob, check_se, floor_p
from litaudit.stats.intervals import IntrinsicInterval, gap_in_sd, interval_from_extremes

# (a) where the claim stands against the record; each is one plain sentence in the output
STANDINGS = (
    "above-apart",  # above the record, and the record lies below the claim's interval
    "above-within",  # above the record, and the record lies in the claim's interval
    "equal",  # equal to the record
    "below-within",  # below the record, in the record's interval
    "below-apart",  # below the record's interval
)


@dataclass(frozen=True)
class RecordCheck:
    """(a) The claim against the record.

    ``record``: the best published result other than the claim; ``record_interval``: its
    interval as the max of the N published results (Table 3, as `audit best` computes it);
    ``claim_lower``: the lower bound of the claim's own interval (part c).
    ``claim_in_record_interval``: record_interval.lower <= value <= record;
    ``record_in_claim_interval``: claim_lower <= record <= value. ``standing``: one of
    STANDINGS. ``holds_record``: the claim is a published result at or above every other.
    ``n_at_or_above``: published results other than the claim with a value >= the claim.
    """

    value: float
    record: float
    record_interval: IntrinsicInterval
    claim_lower: float
    claim_in_record_interval: bool
    record_in_claim_interval: bool
    standing: str
    holds_record: bool
    n_at_or_above: int


@dataclass(frozen=True)
class ChanceCheck:
    """(b) The claim against chance: the max of ``n_draws`` draws from Normal(mu, se).

    ``n_draws`` = round(``hidden_multiplier`` * ``n_other``) + 1: the claim and the
    experiments besides it. ``threshold``: the value that max exceeds with probability
    ``alpha``; ``passes``: value > threshold. ``expected_above_under_null``:
    ``n_draws * P(one draw > threshold)`` (about 0.051 at alpha 0.05 for any N).
    ``n_published_above``: published results above the threshold (a count, not a
    number of true improvements). ``p_value``: P(max >= value), descriptive; below
    ``p_floor`` it is the floor with ``p_below_floor`` (with Monte Carlo the floor is at
    least 1 / (trials + 1), the +1 rule's smallest p). ``n_star``: the least number of
    draws with P(max >= value) >= alpha, capped at ``n_star_cap`` (``n_star_capped``; inf
    stands for "no feasible number"); ``n_star_ratio`` = n_star / n_draws. ``gap_sd``:
    (threshold - mu) / ``sd`` (the between-system sd), descriptive; nan without ``sd``.
    """

    value: float
    mu: float
    se: float
    n_other: int
    hidden_multiplier: float
    n_draws: int
    alpha: float
    threshold: float
    threshold_se: float
    passes: bool
    expected_above_under_null: float
    n_published_above: int
    p_value: float
    p_value_se: float
    p_floor: float | None
    p_below_floor: bool
    n_star: float
    n_star_cap: float | None
    n_star_capped: bool
    n_star_ratio: float
    sd: float | None = None  # (defaults: audits stored before issue 19 have none of these)
    gap_sd: float = math.nan


@dataclass(frozen=True, kw_only=True)
class ChanceModel:
    """How (b), the claim against chance, is computed: the level ``alpha`` of its
    threshold; ``hidden_multiplier`` experiments run per experiment published (>= 1:
    published N is a lower bound); the ``sampling`` of the max distribution; and the
    reporting limits: p-values below ``p_floor`` and N* above ``n_star_cap`` are given as
    the floor and the cap (None: none)."""

    alpha: float = 0.05
    hidden_multiplier: float = 1.0
    sampling: Sampling = Sampling()
    p_floor: float | None = None
    n_star_cap: float | None = None


@dataclass(frozen=True, kw_only=True)
class ClaimAudit:
    """A claim audited against N published results: (a) ``record``, (b) ``chance``,
    (c) ``interval`` (the claim's mu0 and 1 - 2p interval as the max of
    ``chance.n_draws``).

    ``index`` is the claim's position in the input values when it is one of them (None
    for a new value); ``reference`` the population's N, mu, sd and the se used.
    """

    value: float
    index: int | None
    reference: Reference
    record: RecordCheck
    chance: ChanceCheck
    interval: IntrinsicInterval
    p: float
    method: str
    trials: int | None
    seed: int | None


def n_star(value: float, mu: float, se: float, alpha: float = 0.05) -> float:
    """Least number of draws M with P(max of M >= value) >= alpha (exact), as a float.

    ``M = ceil(log(1 - alpha) / log Phi(z))``, computed with log_ndtr so that values many
    standard errors above mu stay exact; ``inf`` when Phi(z) rounds to 1 (z above ~38).
    Nondecreasing in ``value``.
    """
    value, mu, se = check_mu(value), check_mu(mu), check_se(se)
    alpha = check_prob("alpha", alpha)
    lp = float(log_ndtr((value - mu) / se))
    if lp == 0.0:
        return math.inf
    m = math.log1p(-alpha) / lp
    if not math.isfinite(m):
        return math.inf
    k = max(1, math.ceil(m))
    if k < 2**40:  # guard the ceiling against rounding in the last bit (where it can matter)
        while k > 1 and -math.expm1((k - 1) * lp) >= alpha:
            k -= 1
        while -math.expm1(k * lp) < alpha:
            k += 1
    return float(k)


def _check_count(name: str, n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ParameterError(f"{name} must be an integer >= 1, got {n!r}")
    return int(n)


def chance_check(
    value: float,
    mu: float,
    se: float,
    n_other: int,
    *,
    sd: float | None = None,
    values=None,
    model: ChanceModel = ChanceModel(),
) -> tuple[ChanceCheck, StdExtremes]:
    """(b) for ``value`` as the max of round(hidden_multiplier * n_other) + 1 draws
    (:class:`ChanceModel`).

    ``values``: the published results, to count those above the threshold (0 if None).
    Returns the check and the draws' extremes (for the claim's interval).
    """
    value, mu, se = check_mu(value), check_mu(mu), check_se(se)
    alpha = check_prob("alpha", model.alpha)
    n_other = _check_count("number of experiments besides the claim", n_other)
    k = float(model.hidden_multiplier)
    if not (math.isfinite(k) and k >= 1.0):
        raise ParameterError(
            f"hidden multiplier must be >= 1 (published N is a lower bound "
            f"on experiments run), got {model.hidden_multiplier!r}"
        )
    draws = int(round(k * n_other)) + 1
    s = model.sampling
    ext = StdExtremes.make(draws, s.method, s.trials, s.seed)
    zq, zq_se = ext.max_q(1.0 - alpha)
    threshold = mu + se * zq
    pv_raw, pv_se = ext.max_sf((value - mu) / se)
    floor, n_star_cap = model.p_floor, model.n_star_cap
    if ext.trials:  # a simulated p is at least 1 / (trials + 1): that is its resolution
        res = 1.0 / (ext.trials + 1)
        floor = res if floor is None else max(floor, res)
    pv, low = floor_p(pv_raw, floor)
    low = low or (ext.trials is not None and floor is not None and pv_raw <= floor)
    ns = n_star(value, mu, se, alpha)
    capped = False
    if n_star_cap is not None and ns > n_star_cap:
        ns, capped = float(n_star_cap), True
    above = 0 if values is None else int(np.sum(np.asarray(values, dtype=np.float64) > threshold))
    gap = math.nan if sd is None else gap_in_sd(threshold, mu, sd)
    return ChanceCheck(
        value=value,
        mu=mu,
        se=se,
        n_other=n_other,
        hidden_multiplier=k,
        n_draws=draws,
        alpha=alpha,
        threshold=threshold,
        threshold_se=se * zq_se,
        passes=value > threshold,
        expected_above_under_null=draws * float(np.exp(log_ndtr(-zq))),
        n_published_above=above,
        p_value=pv,
        p_value_se=pv_se,
        p_floor=floor,
        p_below_floor=low,
        n_star=ns,
        n_star_cap=n_star_cap,
        n_star_capped=capped,
        n_star_ratio=ns / draws,
        sd=sd,
        gap_sd=gap,
    ), ext


def _standing(value: float, record: float, rec_lower: float, claim_lower: float) -> str:
    if value > record:
        return "above-within" if record >= claim_lower else "above-apart"
    if value == record:
        return "equal"
    return "below-within" if value >= rec_lower else "below-apart"


def _subject(v: np.ndarray, value, index) -> tuple[float, int | None, np.ndarray, int]:
    """(the claimed value, its index or None, the other published values, the default
    number of experiments besides the claim) of a new ``value`` or a published ``index``."""
    if (value is None) == (index is None):
        raise ParameterError("give either a claimed value or the index of a published result")
    if index is None:
        return check_mu(value), None, v, v.size
    if (
        isinstance(index, bool)
        or not isinstance(index, (int, np.integer))
        or not 0 <= index < v.size
    ):
        raise ParameterError(f"index must be an integer in [0, {v.size}), got {index!r}")
    return float(v[int(index)]), int(index), np.delete(v, int(index)), v.size - 1


def audit_claim(
    values,
    n_topics: int,
    *,
    value: float | None = None,
    index: int | None = None,
    n_other: int | None = None,
    p: float = 0.2,
    se: float | None = None,
    model: ChanceModel = ChanceModel(),
) -> ClaimAudit:
    """Audit a claim against the N published ``values`` over ``n_topics`` topics.

    Give either ``value`` (a new result: one more draw, N + 1 in all) or ``index`` (the
    published result ``values[index]``: one of the N). ``n_other`` overrides the number
    of experiments besides the claim (default N for a new value, N - 1 for a published
    one); ``model.hidden_multiplier`` scales it (published N is a lower bound); ``model``
    says how (b) is computed, its ``sampling`` serves (c) and the record too. The reference
    Normal(mu, se) is always that of the N published values; ``se`` is the standard
    error of one mean when it is known otherwise (default the model's sd / sqrt(n)).
    """
    v = np.asarray(values, dtype=np.float64).ravel()
    ref = reference(v, n_topics, se)
    check_prob("alpha", model.alpha)
    p = check_interval_p(p)
    value, index, others, default_other = _subject(v, value, index)
    ch, ext = chance_check(
        value,
        ref.mu,
        ref.se,
        default_other if n_other is None else n_other,
        sd=ref.sd,
        values=v,
        model=model,
    )
    iv = interval_from_extremes(value, ref.se, ext, p)
    s = model.sampling
    ext_n = (
        ext
        if ext.N == ref.n_results
        else StdExtremes.make(ref.n_results, s.method, s.trials, s.seed)
    )
    record = float(others.max())
    riv = interval_from_extremes(record, ref.se, ext_n, p)
    rc = RecordCheck(
        value=value,
        record=record,
        record_interval=riv,
        claim_lower=iv.lower,
        claim_in_record_interval=bool(riv.lower <= value <= record),
        record_in_claim_interval=bool(iv.lower <= record <= value),
        standing=_standing(value, record, riv.lower, iv.lower),
        holds_record=index is not None and value >= record,
        n_at_or_above=int(np.sum(others >= value)),
    )
    return ClaimAudit(
        value=value,
        index=index,
        reference=ref,
        record=rc,
        chance=ch,
        interval=iv,
        p=p,
        method=ext.method,
        trials=ext.trials,
        seed=s.seed if ext.trials else None,
    )
