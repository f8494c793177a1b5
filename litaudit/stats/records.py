"""The record audit: each new record tested against the record it replaced, conditional on
the record event, the steps corrected for multiplicity, and online certification.

A record step is selected *because* the new result scored higher than the holder: a plain
one-sided test of "new > old" at level alpha, applied only to steps that were selected on
the sign of the observed difference, rejects a true null about twice as often as alpha.
Conditioning on the selection event (Fithian, Sun and Taylor, "Optimal inference after
model selection", arXiv:1410.2597, 2014; Lee, Sun, Sun and Taylor, Annals of Statistics
44(3), 2016) restores the level:

* :func:`selective_signflip`: paired differences ``d_t`` (new minus old) on the topics or
  datasets both were evaluated on; under H0 (no difference, exchangeable signs: the paired
  randomization test of Smucker, Allan and Carterette, CIKM 2007) each ``d_t`` keeps or
  flips its sign with probability 1/2. With ``S = sum d_t`` the record event is ``S > 0``
  and the selective p-value is ``P(S* >= s | S* > 0)`` (the one-sided tail divided by
  the probability of the event), exact by enumerating the
  2^n sign patterns for n <= ``EXACT_MAX``, else by Monte Carlo with its standard error.
  It is super-uniform given the record event for a fixed holder; a holder that is itself
  a running maximum makes it conservative (honestboard 0.6.1, ``chain.py``, states the
  same).
* :func:`normal_selective_p`: only published means: the step ``z = margin / se_diff`` in
  units of the standard error of a difference; under N(0, 1) and the event Z > 0,
  ``P(Z >= z | Z > 0) = 2 (1 - Phi(z))``. Valid only as far as the se is: an interaction se
  gives the se of a paired difference as sqrt(2) se (the average pair); the model's
  sd / sqrt(n) is no measured se at all.
* Same-step ties: a step (a date, or a year) may bring several results; under the
  best-first reading (:func:`record_chain`) the new record is the best of its step, a
  second selection the record event does not cover. :func:`step_adjusted` multiplies the
  p-value by the number of results of the step (Bonferroni over them), as honestboard's
  ``date_correction`` does.
* :func:`holm` over the steps of one history (Holm, Scand. J. Statist. 6, 1979).
* :func:`online_levels`: online certification of a record chain as it grows, the level of
  the i-th record fixed by the earlier ones: ``spending`` (alpha 6 / (pi^2 i^2), family-wise
  error at most alpha for any number of records, by the union bound) or ``lord`` (LORD++,
  Ramdas, Yang, Wainwright and Jordan, NeurIPS 2017, after Javanmard and Montanari,
  Annals of Statistics 46(2), 2018: each certified record earns back budget; online
  false discovery rate control, proved for independent p-values).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from litaudit.errors import ParameterError

EXACT_MAX = 16  # sign patterns enumerated up to 2^16 = 65,536
DRAWS = 200_000  # Monte Carlo sign patterns beyond EXACT_MAX (honestboard's default)
CHUNK = 20_000
TOL = 1e-12
CERTIFY_RULES = ("spending", "lord")


@dataclass(frozen=True, kw_only=True)
class SignFlip:
    """The paired sign-flip test of one record step on ``n`` shared units (topics or
    datasets): ``wins``/``losses``/``ties`` of the new record; ``mean_difference`` (new
    minus old); ``p_one_sided`` = P(S* >= s), ``p_two_sided`` = P(|S*| >= |s|),
    ``p_selective`` = P(S* >= s | S* > 0) (1 when s <= 0). ``exact``: every sign pattern
    enumerated, else ``draws`` random ones (``mc_error``: the binomial standard error of
    ``p_selective`` over the patterns with S* > 0)."""

    n: int
    wins: int
    losses: int
    ties: int
    mean_difference: float
    p_one_sided: float
    p_two_sided: float
    p_selective: float
    exact: bool
    draws: int | None = None
    mc_error: float | None = None


def _differences(d) -> np.ndarray:
    x = np.asarray(d, dtype=np.float64).ravel()
    if x.size < 2:
        raise ParameterError("a paired test of a record step needs at least 2 shared units")
    if not np.all(np.isfinite(x)):
        raise ParameterError("paired differences must be finite")
    return x


def _patterns(n: int) -> np.ndarray:
    """All 2^n sign patterns, one per row."""
    return ((np.arange(2**n)[:, None] >> np.arange(n)) & 1) * 2.0 - 1.0


def selective_signflip(
    d,
    *,
    rng: np.random.Generator | None = None,
    draws: int = DRAWS,
    exact_max: int = EXACT_MAX,
) -> SignFlip:
    """The selective paired sign-flip test of the differences ``d`` (new - old; see the
    module doc). Exact for ``len(d) <= exact_max``; else ``draws`` patterns from ``rng``
    (needed then), drawn in chunks of 20,000 as ``rng.choice([-1, 1], (m, n))`` (the
    patterns honestboard draws from the same generator), the observed pattern counted as
    one draw."""
    x = _differences(d)
    obs = float(x.sum())
    n = x.size
    base: dict[str, Any] = dict(
        n=n,
        wins=int((x > 0).sum()),
        losses=int((x < 0).sum()),
        ties=int((x == 0).sum()),
        mean_difference=float(x.mean()),
    )
    if n <= exact_max:
        null = _patterns(n) @ x
        hit = int((null >= obs - TOL).sum())
        hit2 = int((np.abs(null) >= abs(obs) - TOL).sum())
        pos = int((null > TOL).sum())
        ps = 1.0 if (obs <= TOL or pos == 0) else min(1.0, hit / pos)
        return SignFlip(
            **base,
            p_one_sided=hit / null.size,
            p_two_sided=hit2 / null.size,
            p_selective=ps,
            exact=True,
        )
    if rng is None:
        raise ParameterError(f"{n} shared units: the Monte Carlo sign-flip test needs a seed")
    if int(draws) < 1000:
        raise ParameterError(f"at least 1000 sign patterns, got {draws}")
    hit = hit2 = pos = done = 0
    while done < draws:
        m = min(CHUNK, draws - done)
        null = rng.choice([-1.0, 1.0], size=(m, n)) @ x
        hit += int((null >= obs - TOL).sum())
        hit2 += int((np.abs(null) >= abs(obs) - TOL).sum())
        pos += int((null > TOL).sum())
        done += m
    ps = 1.0 if (obs <= TOL or pos == 0) else min(1.0, (1 + hit) / (1 + pos))
    err = math.sqrt(ps * (1 - ps) / max(pos, 1))
    return SignFlip(
        **base,
        p_one_sided=(1 + hit) / (1 + draws),
        p_two_sided=(1 + hit2) / (1 + draws),
        p_selective=ps,
        exact=False,
        draws=int(draws),
        mc_error=err,
    )


def normal_selective_p(margin: float, se_difference: float) -> tuple[float, float]:
    """(z, P(Z >= z | Z > 0)) of a record step of ``margin`` when only means are known:
    z = margin / se_difference, and the selective p-value 2 (1 - Phi(z)) (1 when z <= 0)."""
    # start-up: scipy
    from scipy.special import ndtr

    if not (math.isfinite(se_difference) and se_difference > 0):
        raise ParameterError(f"the se of a difference must be > 0, got {se_difference!r}")
    z = float(margin) / float(se_difference)
    return z, (1.0 if z <= 0 else float(min(1.0, 2.0 * ndtr(-z))))


def step_adjusted(p: float, group: int) -> float:
    """The p-value of a record that is the best of ``group`` results of its step:
    min(1, group p) (Bonferroni over the step's results)."""
    if group < 1:
        raise ParameterError(f"a step holds at least one result, got {group}")
    return float(min(1.0, group * p))


def record_chain(values, times) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(the indices of the successive record holders, the number of results at each one's
    step): results in the order of ``times`` (sortable; equal times are one step), each
    step's results best first, a result a new record when it is above the record so far
    (by more than 1e-12: an equal score does not take the record). The first holder is the
    best of the first step."""
    v = np.asarray(values, dtype=np.float64).ravel()
    t = list(times)
    if len(t) != v.size:
        raise ParameterError(f"values and times differ in length ({v.size} vs {len(t)})")
    if v.size == 0:
        return (), ()
    order = sorted(range(v.size), key=lambda k: (t[k], -v[k], k))
    size: dict = {}
    for k in range(v.size):
        size[t[k]] = size.get(t[k], 0) + 1
    chain: list[int] = []
    for k in order:
        if not chain or v[k] > v[chain[-1]] + TOL:
            chain.append(k)
    return tuple(chain), tuple(size[t[k]] for k in chain)


def online_levels(p_values, alpha: float, rule: str) -> tuple[tuple[float, ...], tuple[bool, ...]]:
    """(the level of each record step, whether it is certified) with the steps tested in
    order as they arrive: ``spending`` gives the i-th step alpha 6 / (pi^2 i^2); ``lord``
    (LORD++ with gamma_j = 6 / (pi^2 j^2) and w0 = alpha / 2) gives
    gamma_t w0 + (alpha - w0) gamma_{t - tau_1} + alpha sum_{j > 1} gamma_{t - tau_j},
    tau_j the earlier certified steps (Ramdas et al. 2017, Algorithm LORD++)."""
    if rule not in CERTIFY_RULES:
        raise ParameterError(f"--certify: {rule!r} is not one of {', '.join(CERTIFY_RULES)}")
    if not (0.0 < alpha < 1.0):
        raise ParameterError(f"alpha must be in (0, 1), got {alpha}")

    def gamma(j: int) -> float:
        return 6.0 / (math.pi**2 * j**2) if j >= 1 else 0.0

    w0 = alpha / 2
    levels: list[float] = []
    certified: list[bool] = []
    rejections: list[int] = []
    for t, p in enumerate(p_values, start=1):
        if rule == "spending":
            level = alpha * gamma(t)
        else:
            level = gamma(t) * w0
            if rejections:
                level += (alpha - w0) * gamma(t - rejections[0])
                level += sum(alpha * gamma(t - tau) for tau in rejections[1:])
        ok = p is not None and p <= level
        if ok:
            rejections.append(t)
        levels.append(float(level))
        certified.append(bool(ok))
    return tuple(levels), tuple(certified)
