"""Where each result of a population stands: its rank, the group tied with the top and
its rank interval, read from stored audits (no statistic is computed here).

:func:`standing` is the one place the site takes these from, by one of two methods, which
the page names:

* where the store has shared scores of the population's systems (a benchmark's datasets,
  a run archive's per-topic scores), the `ranks` audit
  (:mod:`litaudit.analyses.extreme.ranks`: the confidence set of the best, Hsu 1996, and
  simultaneous rank intervals, Mogstad, Romano, Shaikh and Wilhelm 2024): the results of
  the systems in the set are tied with the top, and each ranked system's interval is its
  own; results of systems the audit could not rank (no score on every unit, or a name
  two groups share) get none;
* elsewhere, the `best` audit's candidate best set (Carterette, SIGIR 2015, Table 3):
  every result at or above the lower end of the record's 1 - 2p interval could be the
  best, so those k results are tied with the top and each one's rank interval is 1 to k;
  that audit says nothing about the order of the other results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from litaudit.analyses.extreme.best import BestReport
from litaudit.analyses.extreme.population import ResultRow
from litaudit.analyses.extreme.ranks import RanksAudit
from litaudit.analyses.site_audits import SitePopulation


@dataclass(frozen=True, kw_only=True)
class Standing:
    """``rank``: by value, 1 = best, equal values share the better rank (1, 2, 2, 4);
    ``tied``: the ids of the results that cannot be told apart from the top;
    ``interval``: a result's rank interval (lowest and highest rank it may hold), absent
    where the method gives none; ``sentence``: the finding in the audit's words;
    ``method``: the procedure, as the page cites it; ``audit``: the stored audit it was
    read from, of kind ``kind``."""

    rank: dict[int, int]
    tied: frozenset[int]
    interval: dict[int, tuple[int, int]]
    sentence: str
    method: str
    audit: int
    kind: str


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
    audits: its `ranks` audit where there is one, else its `best` audit's candidates."""
    if sp.ranks is not None:
        return _from_ranks(sp, sp.ranks.result, sp.ranks.id)
    return _from_candidates(sp)


def _from_ranks(sp: SitePopulation, ra: RanksAudit, audit_id: int) -> Standing:
    res = ra.resolution
    index = {name: i for i, name in enumerate(ra.systems)}
    best = {ra.systems[i] for i in res.best_set}
    ranked = [r for r in sp.rows if r.system in index]
    level = f"{100 * (1 - res.alpha):g}%"
    return Standing(
        rank=observed_ranks(sp.rows),
        tied=frozenset(r.id for r in ranked if r.system in best),
        interval={
            r.id: (res.rank_low[index[r.system]], res.rank_high[index[r.system]]) for r in ranked
        },
        sentence=f"Ranks: {ra.answer}.",
        method=(
            f"the {level} confidence set of the best and simultaneous {level} rank intervals "
            f"of the {len(ra.systems)} systems with shared scores ({ra.what}; {res.method}); "
            f"{len(sp.rows) - len(ranked)} of the {len(sp.rows)} results are not ranked by it"
        ),
        audit=audit_id,
        kind="ranks",
    )


def _from_candidates(sp: SitePopulation) -> Standing:
    b: BestReport = sp.best.result
    tied = frozenset(c.result.id for c in b.candidates)
    k, rest = len(tied), b.stats.reference.n_results - 1
    iv = b.stats.interval
    cov = f"{round(100 * iv.coverage)}%"
    band = f"{iv.lower:.4f}, the lower end of its {cov} interval"
    others = len(tied - {b.best.id})
    sentence = (
        f"None of the other {rest} published results lies at or above {band}."
        if others < 1
        else f"{others} of the other {rest} published results "
        f"{'lies' if others == 1 else 'lie'} at or above {band}, and cannot be told apart "
        "from it."
    )
    return Standing(
        rank=observed_ranks(sp.rows),
        tied=tied,
        interval={i: (1, k) for i in tied},
        sentence=sentence,
        method=(
            f"candidate best set (Carterette, SIGIR 2015, Table 3): the results at or above "
            f"the lower end of the record's {cov} interval could be the best, so each holds "
            f"a rank from 1 to {k}; the other results' rank intervals are not computed by "
            "this method (no shared scores of these systems in the store)"
        ),
        audit=sp.best.id,
        kind="best",
    )
