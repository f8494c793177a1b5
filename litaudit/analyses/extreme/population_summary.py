"""What an extreme-value audit used (Carterette, SIGIR 2015): the population it read
(:mod:`litaudit.analyses.extreme.population`) summed up for its header, its sources, roles,
run types, topic sets, reporters and dates counted (:class:`PopulationSummary`), with the
filters that narrowed it and two warnings: the values are far from Normal (the reference
model's shape, :mod:`litaudit.stats.shape`), or they mix kinds of results.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from litaudit.analyses.extreme.population import Population, ResultRow, track_label
from litaudit.curation.filters import Filters
from litaudit.defaults import NORMAL_FIT_ALPHA, NORMAL_FIT_MAX_KURTOSIS, NORMAL_FIT_MAX_SKEW
from litaudit.stats.shape import Shape, far_from_normal, normal_shape

if TYPE_CHECKING:
    pass


@dataclass(frozen=True)
class Tally:
    """A label and how many results of the population carry it."""

    label: str
    n: int


@dataclass(frozen=True)
class PopulationSummary:
    """The population an audit used, stated in its output.

    ``n`` results on ``n_topics`` topics; ``sources``: 'papers' and each track or
    leaderboard ('TREC trec7/adhoc', 'msmarco-passage/leaderboard/full-ranking');
    ``n_papers`` distinct papers; ``roles``, ``run_types`` ('-' when not recorded) and
    ``topic_sets`` with their counts, largest first; ``n_other_topics`` results left out
    for another topic count; ``filters`` the filters as given; ``reporters``: who reported
    the values ('' = not recorded); ``first_date``/``last_date``/``n_undated``: the dates
    the results span; ``shape``: skewness, excess kurtosis and Shapiro-Wilk of the
    values; ``warning``: set when they are far from a Normal distribution
    (:func:`shape_warning`); ``mix_warning``: set when the population mixes the results of
    several tracks or tasks (:func:`mix_warning`), naming the filter that splits it.
    """

    n: int
    n_topics: int
    sources: tuple[Tally, ...]
    n_papers: int
    roles: tuple[Tally, ...]
    run_types: tuple[Tally, ...]
    topic_sets: tuple[Tally, ...]
    n_other_topics: int
    filters: Filters
    reporters: tuple[Tally, ...] = ()
    first_date: str | None = None
    last_date: str | None = None
    n_undated: int = 0
    shape: Shape | None = None
    warning: str | None = None
    mix_warning: str | None = None


def _tally(labels) -> tuple[Tally, ...]:
    counts = Counter(labels)
    return tuple(Tally(k, n) for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def shape_warning(shape: Shape) -> str | None:
    """Skewness or excess kurtosis beyond litaudit.defaults NORMAL_FIT_* with Shapiro-Wilk
    rejecting normality at NORMAL_FIT_ALPHA (at most 5% of Normal samples at any N >= 5:
    bench/bench_shape.py), else None."""

    if not far_from_normal(shape, NORMAL_FIT_MAX_SKEW, NORMAL_FIT_MAX_KURTOSIS, NORMAL_FIT_ALPHA):
        return None
    far = []
    if shape.skewness is not None and abs(shape.skewness) > NORMAL_FIT_MAX_SKEW:
        far.append(f"skewness {shape.skewness:.2f}")
    if shape.excess_kurtosis is not None and abs(shape.excess_kurtosis) > NORMAL_FIT_MAX_KURTOSIS:
        far.append(f"excess kurtosis {shape.excess_kurtosis:.2f}")
    return (
        f"the {shape.n} values are far from the Normal distribution the audit assumes "
        f"({', '.join(far)}; Normal: 0; Shapiro-Wilk p = {shape.shapiro_p:.2g}); a mixed "
        "population? narrow it with --since/--until, --reporter or --track"
    )


def mix_warning(rows: list[ResultRow]) -> str | None:
    """The population mixes official results of several tracks or tasks of one collection
    (MS MARCO's leaderboards: full ranking and reranking, different tasks with different
    ceilings), else None. Names the --track filter that keeps each."""
    tracks = _tally(r.track for r in rows if r.source == "official" and r.track)
    if len(tracks) < 2:
        return None
    listed = ", ".join(f"{t.label} {t.n}" for t in tracks)
    return (
        f"the population mixes {len(tracks)} tracks or tasks ({listed}), whose systems "
        f"do different things; audit one with --track {tracks[0].label}"
        + "".join(f" or --track {t.label}" for t in tracks[1:])
    )


def summarize(pop: Population, filters: Filters) -> PopulationSummary:
    """What ``pop`` is made of (sources, roles, run types, topic sets, reporters, dates,
    N of each) and how far its values are from the Normal model."""

    rows = pop.rows
    dates = sorted(r.date[:10] for r in rows if r.date)
    shape = normal_shape([r.value for r in rows])
    return PopulationSummary(
        n=len(rows),
        n_topics=pop.n_topics,
        sources=_tally(
            "papers" if r.source == "paper" else (track_label(r.track) or r.source) for r in rows
        ),
        n_papers=len({r.bibkey for r in rows if r.source == "paper"}),
        roles=_tally(r.role for r in rows),
        run_types=_tally(r.run_type or "-" for r in rows),
        topic_sets=_tally(r.topic_set or "-" for r in rows),
        n_other_topics=pop.n_other_topics,
        filters=filters,
        reporters=_tally(r.reporter or "" for r in rows),
        first_date=dates[0] if dates else None,
        last_date=dates[-1] if dates else None,
        n_undated=len(rows) - len(dates),
        shape=shape,
        warning=shape_warning(shape),
        mix_warning=mix_warning(rows),
    )
