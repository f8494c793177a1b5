"""A claim's per-topic scores against runs of the archive, topic by topic (issue 21, item 2).

:func:`same_topic` pairs the claim's per-topic scores (its run, evaluated in
:mod:`litaudit.analyses.extreme.claim_run`, or the archive's run of the published result
audited: :func:`archive_scores`) with other runs of the archive on the topics both were
evaluated on: wins, ties, losses, the mean difference with its 95% t interval, the paired
t-test (:mod:`litaudit.stats.paired`) and the paired randomization test
(:mod:`litaudit.stats.randomization`; Smucker, Allan, Carterette, CIKM 2007), Holm (1979)
across the comparisons made (:mod:`litaudit.stats.holm`), and the topics where the claim
loses most. By default against the record holder's run when the archive holds it and the
archive's best run (by mean) other than the claim's. :func:`run_se` is the interaction
standard error of the archive plus the claim's run
(:func:`litaudit.stats.noise.topic_interaction`), which the chance check of a claim with a
run uses instead of the published population's se; :func:`identical_runs` finds an archived
run the claim's copies.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from litaudit import defaults
from litaudit.analyses.extreme.claim_run import Scored
from litaudit.errors import NotFound, ParameterError
from litaudit.measures import did_you_mean
from litaudit.runs.archive_lookups import has_qrels, run_tags
from litaudit.runs.model import sort_topics
from litaudit.stats.holm import holm
from litaudit.stats.noise import TopicInteraction, topic_interaction
from litaudit.stats.paired import PairedT, paired_t
from litaudit.stats.randomization import Randomization, randomization_test

if TYPE_CHECKING:
    import duckdb


@dataclass(frozen=True)
class TopicGap:
    """One topic: the claim's score, the other run's, and claim - other."""

    topic: str
    claim: float
    other: float
    difference: float


@dataclass(frozen=True, kw_only=True)
class Comparison:
    """The claim against one archive run on the ``paired.n`` topics both were evaluated on.

    ``why``: ``record`` (the run of the record holder), ``best run`` (the archive's best
    by mean) or ``against`` (named with --against). ``claim_mean`` / ``other_mean``: the
    means over those topics. ``holm_t`` / ``holm_randomization``: the p-values adjusted by
    Holm across the comparisons made (each test on its own); ``worst``: the topics where
    the claim loses most, largest loss first.
    """

    tag: str
    why: str
    claim_mean: float
    other_mean: float
    paired: PairedT
    randomization: Randomization
    holm_t: float | None
    holm_randomization: float
    worst: tuple[TopicGap, ...]


@dataclass(frozen=True, kw_only=True)
class PairedSettings:
    """How the claim is compared with each run topic by topic: the paired t interval at
    ``level``; randomization tests of ``permutations`` random sign assignments from
    ``seed`` (exact when few enough); a Holm-adjusted p called significant below
    ``alpha``; the ``n_worst`` topics where the claim loses most."""

    level: float = defaults.PAIRED_LEVEL
    alpha: float = defaults.ALPHA
    permutations: int = defaults.RANDOMIZATION_PERMUTATIONS
    seed: int = defaults.RANDOMIZATION_SEED
    n_worst: int = defaults.PAIRED_WORST_TOPICS


@dataclass(frozen=True, kw_only=True)
class SameTopic:
    """The claim's per-topic scores against runs of the archive (``claim_from``: the run
    file or the archive run that gave them). ``comparisons`` in the order made;
    ``permutations`` and ``seed`` of the randomization tests that were not exact;
    ``alpha`` the level at which a Holm-adjusted p is called significant. ``se``: the
    interaction se of the archive's runs plus the claim's (None when the claim's scores
    are one of the archive's runs)."""

    collection_id: str
    measure: str
    claim_from: str
    n_archive_runs: int
    comparisons: tuple[Comparison, ...]
    alpha: float
    level: float
    permutations: int
    seed: int
    correction: str
    se: TopicInteraction | None = None


def _archive(con: duckdb.DuckDBPyConnection, collection_id: str, measure: str):
    """The archive's per-topic scores (computed, or read back from the evaluation store;
    once a process for the archive as it stands)."""
    # start-up: duckdb (through litaudit.runs.archive_eval)
    from litaudit.runs.archive_eval import archive_evaluation

    return archive_evaluation(con, collection_id, measure)


def archive_tag(
    con: duckdb.DuckDBPyConnection, collection_id: str, system: str | None
) -> str | None:
    """The tag of the archive's run named ``system`` (exactly, else ignoring case), or None."""
    if not system:
        return None

    rows = run_tags(con, collection_id)
    if system in rows:
        return system
    low = [t for t in rows if t.lower() == system.lower()]
    return low[0] if len(low) == 1 else None


def _pair(claim: dict[str, float], other: dict[str, float]) -> list[str]:

    return list(sort_topics(set(claim) & set(other)))


def same_topic(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    measure: str,
    *,
    claim: Scored,
    claim_from: str,
    record_tag: str | None = None,
    against: tuple[str, ...] = (),
    with_se: bool = False,
    tests: PairedSettings = PairedSettings(),
) -> SameTopic:
    """The claim's scores against the runs ``against`` (default: ``record_tag`` when the
    archive holds it, and the archive's best run other than the claim's), compared as
    ``tests`` say."""
    level, permutations, seed = tests.level, tests.permutations, tests.seed
    ev = _archive(con, collection_id, measure)
    m = ev.matrix(measure)
    by_tag = {
        t: {ev.topics[j]: float(m[i, j]) for j in range(len(ev.topics)) if not math.isnan(m[i, j])}
        for i, t in enumerate(ev.runs)
    }
    todo = _targets(con, collection_id, by_tag, claim.tag, record_tag, against)
    done = [
        (tag, why, *_compare(claim, tag, by_tag[tag], level, permutations, seed, tests.n_worst))
        for tag, why in todo
    ]
    t_ps = [x[4].p_value for x in done]
    holm_t = holm([p for p in t_ps if p is not None])
    it = iter(holm_t)
    holm_t_all = [None if p is None else next(it) for p in t_ps]
    holm_r = holm([x[5].p_value for x in done])
    comps = tuple(
        Comparison(
            tag=tag,
            why=why,
            claim_mean=cm,
            other_mean=om,
            paired=pt,
            randomization=rt,
            holm_t=ht,
            holm_randomization=hr,
            worst=worst,
        )
        for (tag, why, cm, om, pt, rt, worst), ht, hr in zip(done, holm_t_all, holm_r, strict=True)
    )
    se = None
    if with_se:
        se = run_se(ev, measure, claim)
    return SameTopic(
        collection_id=collection_id,
        measure=measure,
        claim_from=claim_from,
        n_archive_runs=len(ev.runs),
        comparisons=comps,
        alpha=tests.alpha,
        level=level,
        permutations=permutations,
        seed=seed,
        correction="holm",
        se=se,
    )


def _targets(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    by_tag: dict,
    claim_tag: str,
    record_tag: str | None,
    against,
) -> list[tuple[str, str]]:
    """The runs to compare with and why: those named, else the record's run (when stored)
    and the archive's best run by mean other than the claim's."""
    todo: list[tuple[str, str]] = []
    if against:
        for t in against:
            tag = archive_tag(con, collection_id, t)
            if tag is None:
                hint = did_you_mean(t, list(by_tag)) or (
                    f"; `litaudit runs list -c {collection_id}` lists the {len(by_tag)} stored"
                )
                raise NotFound(f"--against: run {t!r} is not stored for {collection_id}{hint}")
            todo.append((tag, "against"))
        return todo
    if record_tag is not None and record_tag != claim_tag:
        todo.append((record_tag, "record"))
    means = {t: float(np.mean(list(s.values()))) for t, s in by_tag.items() if s}
    others = sorted((t for t in means if t != claim_tag), key=lambda t: (-means[t], t))
    if others and all(others[0] != t for t, _ in todo):
        todo.append((others[0], "best run"))
    if not todo:
        raise NotFound(f"no run of {collection_id} to compare the claim with")
    return todo


def _compare(claim: Scored, tag: str, other: dict[str, float], level, permutations, seed, n_worst):
    """(claim mean, other mean, paired t, randomization, largest losses) on the topics
    both were evaluated on."""
    topics = _pair(claim.scores, other)
    if len(topics) < 2:
        raise ParameterError(
            f"the claim and run {tag!r} share {len(topics)} evaluated topic(s); "
            "a paired comparison needs at least 2"
        )
    a = np.array([claim.scores[t] for t in topics])
    b = np.array([other[t] for t in topics])
    d = a - b
    pt = paired_t(a, b, level=level)
    rt = randomization_test(d, permutations=permutations, seed=seed)
    order = sorted((i for i in range(len(topics)) if d[i] < 0), key=lambda i: (d[i], topics[i]))
    worst = tuple(
        TopicGap(topics[i], float(a[i]), float(b[i]), float(d[i])) for i in order[:n_worst]
    )
    return float(a.mean()), float(b.mean()), pt, rt, worst


def run_se(ev, measure: str, claim: Scored) -> TopicInteraction | None:
    """The interaction se of the archive's runs (but one of the claim's tag) plus the
    claim's run, on the topics every one of them was evaluated on (None with fewer than 2
    such topics)."""
    m = ev.matrix(measure)
    keep = [i for i, t in enumerate(ev.runs) if t != claim.tag]
    cols = [
        j for j, t in enumerate(ev.topics) if t in claim.scores and not np.isnan(m[keep, j]).any()
    ]
    if len(cols) < 2 or not keep:
        return None
    x = np.vstack([m[np.ix_(keep, cols)], [[claim.scores[ev.topics[j]] for j in cols]]])
    return topic_interaction(x)


def identical_runs(
    con: duckdb.DuckDBPyConnection, collection_id: str, measure: str, claim: Scored
) -> tuple[str, ...]:
    """The archive's runs (other than one of the claim's tag) whose per-topic scores equal
    the claim's on every topic the claim was evaluated on: a copy of an archived run, or
    one with topics renamed or dropped (issue 32, item 4)."""

    if not has_qrels(con, collection_id):
        return ()
    ev = _archive(con, collection_id, measure)
    m = ev.matrix(measure)
    cols = [j for j, t in enumerate(ev.topics) if t in claim.scores]
    if len(cols) < 2:
        return ()
    mine = np.array([claim.scores[ev.topics[j]] for j in cols])
    same = np.all(np.abs(m[:, cols] - mine) <= 1e-12, axis=1)
    return tuple(sorted(t for t, hit in zip(ev.runs, same, strict=True) if hit))


def archive_scores(
    con: duckdb.DuckDBPyConnection, collection_id: str, measure: str, tag: str
) -> Scored:
    """The per-topic scores of the archive's run ``tag``."""
    ev = _archive(con, collection_id, measure)
    row = ev.matrix(measure)[ev.runs.index(tag)]
    return Scored(
        tag, {t: float(v) for t, v in zip(ev.topics, row, strict=True) if not math.isnan(v)}
    )
