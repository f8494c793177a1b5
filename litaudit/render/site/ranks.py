"""Where each result of a population stands: its rank, the group tied with the top and
its rank interval, read from a stored audit (no statistic is computed here).

:func:`standing` is the one place the site takes these from. Today it reads the `best`
audit's candidate best set (Carterette, SIGIR 2015, Table 3): every result at or above the
lower end of the record's 1 - 2p interval could be the best, so those k results are the
group tied with the top and each one's rank interval is 1 to k; the audit says nothing
about the order of the other results, whose interval is left out (None) and the page says
so. A confidence set of the best with rank intervals of every result (a `ranks` audit)
replaces this function's body: :func:`litaudit.analyses.site_audits.prepare_site` runs it
for each population beside the `best` and `history` audits and hands it over on the
:class:`~litaudit.analyses.site_audits.SitePopulation`, and ``method`` names the new
procedure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from litaudit.analyses.extreme.best import BestReport
from litaudit.analyses.extreme.population import ResultRow
from litaudit.analyses.site_audits import SitePopulation


@dataclass(frozen=True, kw_only=True)
class Standing:
    """``rank``: by value, 1 = best, equal values share the better rank (1, 2, 2, 4);
    ``tied``: the ids of the results that cannot be told apart from the top;
    ``interval``: a result's rank interval (lowest and highest rank it may hold), absent
    where the method gives none; ``method``: the procedure, as the page cites it;
    ``audit``: the stored audit it was read from."""

    rank: dict[int, int]
    tied: frozenset[int]
    interval: dict[int, tuple[int, int]]
    method: str
    audit: int


def observed_ranks(rows: Sequence[ResultRow]) -> dict[int, int]:
    """Rank by value, equal values sharing the better rank (rows best first)."""
    out: dict[int, int] = {}
    prev: float | None = None
    rank = 0
    for i, r in enumerate(rows, start=1):
        if prev is None or r.value != prev:
            rank, prev = i, r.value
        out[r.id] = rank
    return out


def standing(sp: SitePopulation) -> Standing:
    """The standing of the results of ``sp`` (its rows, best first) from its stored
    audits: the candidate best set of its `best` audit."""
    best: BestReport = sp.best.result
    tied = frozenset(c.result.id for c in best.candidates)
    k = len(tied)
    cov = f"{round(100 * best.stats.interval.coverage)}%"
    return Standing(
        rank=observed_ranks(sp.rows),
        tied=tied,
        interval={i: (1, k) for i in tied},
        method=(
            f"candidate best set (Carterette, SIGIR 2015, Table 3): the results at or above "
            f"the lower end of the record's {cov} interval could be the best, so each holds "
            f"a rank from 1 to {k}; the other results' rank intervals are not computed by "
            "this method"
        ),
        audit=sp.best.id,
    )
