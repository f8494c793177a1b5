"""Ordering and score agreement between baseline and reuse evaluations
(Carterette, Kanoulas, Pavlu and Fang, SIGIR 2010, Sections 3.2.2, 3.2.3 and 5.1).

- Kendall's tau between the rankings of runs by their baseline and by their reuse scores:
  (pairs in the same order - pairs swapped) / pairs (Section 3.2.2; Table 6 per site).
- The participant-comparison tau-like statistic (Section 5.1): for one site, each of its
  runs scored on the topics it was held out from is compared with every other site's run
  scored on the topics it contributed to; a comparison is concordant when the order
  agrees with the order of the two baseline scores. "Every comparison involves exactly one
  run for that site"; the value is computed as Kendall's tau is.
- RMSE = sqrt(1/n sum_i (MAP_i - MAP'_i)^2) between baseline and reuse scores
  (Section 3.2.3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from litaudit.errors import ParameterError


@dataclass(frozen=True)
class Tau:
    """A tau-like count: tau = (concordant - discordant) / pairs; ties count in pairs only."""

    tau: float
    concordant: int
    discordant: int
    ties: int
    pairs: int


def _vectors(a, b, what: str) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if x.ndim != 1 or x.shape != y.shape:
        raise ParameterError(f"{what}: two score vectors of the same length are needed")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ParameterError(f"{what}: scores must be finite")
    return x, y


def _tau(sx: np.ndarray, sy: np.ndarray) -> Tau:
    prod = sx * sy
    c = int(np.sum(prod > 0))
    d = int(np.sum(prod < 0))
    n = int(prod.size)
    return Tau((c - d) / n if n else float("nan"), c, d, n - c - d, n)


def kendall_tau(baseline, reuse) -> Tau:
    """Kendall's tau-a between two scorings of the same runs (Section 3.2.2).

    Without ties this equals tau-b (scipy.stats.kendalltau).
    """
    x, y = _vectors(baseline, reuse, "Kendall's tau")
    if x.size < 2:
        raise ParameterError("Kendall's tau needs at least 2 runs")
    i, j = np.triu_indices(x.size, k=1)
    return _tau(np.sign(x[i] - x[j]), np.sign(y[i] - y[j]))


def participant_tau(new_baseline, new_reuse, others_baseline) -> Tau:
    """The participant-comparison tau-like statistic of one site (Section 5.1, Table 6).

    ``new_baseline``/``new_reuse``: the site's runs scored over the topics they contributed
    to / were held out from; ``others_baseline``: every other site's runs over the topics
    they contributed to. Each (site run, other run) comparison is concordant when
    sign(new_reuse - other) equals sign(new_baseline - other).
    """
    nb, nr = _vectors(new_baseline, new_reuse, "participant tau")
    ob = np.asarray(others_baseline, dtype=float)
    if ob.ndim != 1 or not np.all(np.isfinite(ob)):
        raise ParameterError("participant tau: other runs' scores must be a finite vector")
    if nb.size == 0 or ob.size == 0:
        raise ParameterError("participant tau needs at least one run on each side")
    return _tau(
        np.sign(nb[:, None] - ob[None, :]).ravel(), np.sign(nr[:, None] - ob[None, :]).ravel()
    )


def rmse(baseline, reuse) -> float:
    """Root mean square error between baseline and reuse scores (Section 3.2.3)."""
    x, y = _vectors(baseline, reuse, "RMSE")
    if x.size == 0:
        raise ParameterError("RMSE needs at least one run")
    return float(np.sqrt(np.mean((x - y) ** 2)))
