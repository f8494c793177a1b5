"""Sequential testing: the published record replayed over time (Carterette, SIGIR 2015).

Carterette, "The Best Published Result is Random: Sequential Testing and its Effect on
Reported Effectiveness", SIGIR 2015, Sec. 2 and Figure 2: as experiments accumulate on a
collection, the expected maximum grows (logarithmically in N) even when no system is
better than the baseline. Replaying results in year order, each year's record (the best
value so far) is set against the expected max of the N results so far and the
alpha-threshold of that max (``extreme_exact.max_quantile(1 - alpha)``), both under the
reference Normal(mu, sd / sqrt(n)).

The steps are years, or dates for a dated population (a leaderboard: every submission
day is a step), given as sortable integers (``times``: a year, or a date's ordinal) with
their labels (``labels``: '2019', '2020-09-18').

The reference is either ``running`` (mu and sd of the results published so far: what a
reader knew that year; undefined while N < 2) or ``final`` (mu and sd of all results,
later ones included: the collection's baseline as known today, the paper's choice for its
Tables 2-3; a look-ahead when the record of an early year is judged). ``se`` replaces the
model's ``sd / sqrt(n)`` by a standard error known otherwise (measured from per-topic
scores, or given) at every step.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from litaudit.errors import ParameterError
from litaudit.stats import extreme, extreme_checks, extreme_exact

REFERENCES = ("final", "running")


@dataclass(frozen=True, kw_only=True)
class YearPoint:
    """One year of the replay.

    ``n_new`` results appeared this year, ``N`` results so far; ``record`` is the best so
    far (``record_index`` its index in the input, ``new_record`` whether this year set
    it). ``mu``/``sd``/``se`` describe the reference used for the year; ``expected_max``
    and ``threshold`` are the mean and the (1 - alpha)-quantile of the max of N draws;
    ``p_value`` = P(max of N >= record), descriptive, at most ``p_floor`` of ``replay``
    (``p_below_floor`` then); ``beyond_chance`` = record > threshold (the record is above
    the alpha threshold of the max of N: nothing more). Reference quantities are None for
    a running reference while N < 2 or sd = 0. ``when`` labels the step (the year, or the
    date of a dated population); ``year`` is its year.
    """

    year: int
    n_new: int
    N: int
    record: float
    record_index: int
    new_record: bool
    mu: float | None
    sd: float | None
    se: float | None
    expected_max: float | None
    threshold: float | None
    p_value: float | None
    p_below_floor: bool
    beyond_chance: bool | None
    when: str | None = None


@dataclass(frozen=True, kw_only=True)
class History:
    """The whole replay: one YearPoint per year with results, oldest first.

    ``reference`` is 'final' or 'running'; ``alpha`` the threshold level; ``n_topics``
    the topics per mean; ``mu``/``sd`` the final reference (all results);
    ``n_records`` the number of years that set a new record; ``n_beyond`` the number of
    years whose record was beyond chance.
    """

    points: tuple[YearPoint, ...]
    reference: str
    alpha: float
    n_topics: int
    N: int
    mu: float
    sd: float
    n_records: int
    n_beyond: int


def _replay_inputs(values, years, times, labels, reference: str, alpha: float):
    """The values, years and step keys (``times`` or else the years) of :func:`replay`,
    as arrays, checked."""
    v = np.asarray(values, dtype=np.float64).ravel()
    yr = np.asarray(years).ravel()
    if v.size != yr.size:
        raise ParameterError(f"values and years differ in length ({v.size} vs {yr.size})")
    y = yr if times is None else np.asarray(times).ravel()
    if y.size != v.size or (labels is not None and len(labels) != v.size):
        raise ParameterError("values, times and labels differ in length")
    if reference not in REFERENCES:
        raise ParameterError(
            f"unknown reference {reference!r}: choose one of {', '.join(REFERENCES)}"
        )
    if not (0.0 < float(alpha) < 1.0):
        raise ParameterError(f"alpha must be strictly between 0 and 1, got {alpha!r}")
    return v, yr, y


def _step_reference(
    v: np.ndarray, seen: list[int], reference: str, final, n_model: float, se_given=None
) -> tuple[float | None, float | None, float | None]:
    """Mean, sd and standard error of the distribution a step of :func:`replay` is
    judged against: the final one, or that of the results published so far (None when
    they cannot give one)."""
    N = len(seen)
    mu: float | None
    sd: float | None
    se: float | None
    if reference == "final":
        mu, sd, se = final.mu, final.sd, final.se
    else:
        cur = np.sort(v[seen])  # sorted: the sums do not depend on the input order
        sd = float(np.std(cur, ddof=1)) if N >= 2 else 0.0
        if N >= 2 and sd > 0 and cur.min() != cur.max():
            mu, se = float(np.mean(np.sort(cur))), sd / math.sqrt(n_model)
        else:
            mu = sd = se = None
    if se_given is not None and se is not None:
        se = float(se_given)
    return mu, sd, se


def _step_chance(
    record: float, mu, sd, se, N: int, alpha: float, p_floor
) -> tuple[float | None, float | None, float | None, bool, bool | None]:
    """(expected max, threshold, p, p below the floor, beyond) of one step; Nones where
    the step has no reference."""
    if se is None or mu is None:
        return None, None, None, False, None
    thr = extreme_exact.max_quantile(1.0 - alpha, mu, se, N)
    pv, low = extreme_checks.floor_p(float(extreme_exact.max_sf(record, mu, se, N)), p_floor)
    return extreme_exact.expected_max(mu, se, N), thr, pv, low, bool(record > thr)


def replay(
    values,
    years,
    n_topics: int,
    *,
    alpha: float = 0.05,
    reference: str = "running",
    steps: tuple[list[int], list[str]] | None = None,
    p_floor: float | None = None,
    se: float | None = None,
    n_model: float | None = None,
) -> History:
    """Replay ``values`` published in ``years`` (same length) in year order, or by
    ``steps`` when given: (times, labels), the times sortable integers (e.g. date
    ordinals) and their labels.

    p-values below ``p_floor`` are reported as the floor (see ``extreme_checks.floor_p``).
    ``n_model``: the n of the model's sd / sqrt(n) when it is not ``n_topics`` (the
    effective queries of an equal-weight mean); ignored when ``se`` is given.

    Ties within a step keep the input order; the result does not depend on the order of
    steps in the input.
    """
    times, labels = (None, None) if steps is None else steps
    v, yr, y = _replay_inputs(values, years, times, labels, reference, alpha)
    n_m = float(n_topics if n_model is None else n_model)
    if not (math.isfinite(n_m) and n_m > 0):
        raise ParameterError(f"n_model must be a number > 0, got {n_model!r}")
    final = extreme.reference(v, n_topics, se if se is not None else None)
    if se is None and n_model is not None:
        final = dataclasses.replace(final, se=final.sd / math.sqrt(n_m))
    y = y.astype(np.int64)
    order = np.lexsort((np.arange(v.size), y))
    points: list[YearPoint] = []
    record, rec_i = -math.inf, -1
    seen: list[int] = []
    steps_of = y[order]  # each step's results are contiguous in replay order
    cuts = np.flatnonzero(steps_of[1:] != steps_of[:-1]) + 1
    for run in np.split(order, cuts) if v.size else []:
        idx = run.tolist()
        seen.extend(idx)
        best_new = max(idx, key=lambda i: (v[i], -i))
        new_record = bool(v[best_new] > record)
        if new_record:
            record, rec_i = float(v[best_new]), best_new
        N = len(seen)
        mu, sd, s_e = _step_reference(v, seen, reference, final, n_m, se)
        e_max, thr, pv, low, beyond = _step_chance(record, mu, sd, s_e, N, alpha, p_floor)
        first = idx[0]
        points.append(
            YearPoint(
                year=int(yr[first]),
                n_new=len(idx),
                N=N,
                record=record,
                record_index=rec_i,
                new_record=new_record,
                mu=mu,
                sd=sd,
                se=s_e,
                expected_max=e_max,
                threshold=thr,
                p_value=pv,
                p_below_floor=low,
                beyond_chance=beyond,
                when=str(labels[first]) if labels is not None else str(int(yr[first])),
            )
        )
    return History(
        points=tuple(points),
        reference=reference,
        alpha=float(alpha),
        n_topics=int(n_topics),
        N=final.n_results,
        mu=final.mu,
        sd=final.sd,
        n_records=sum(p.new_record for p in points),
        n_beyond=sum(bool(p.beyond_chance) for p in points),
    )
