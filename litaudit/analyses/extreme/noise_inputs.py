"""What the choice of an extreme-value audit's standard error reads of the store
(:func:`litaudit.analyses.extreme.noise.choose_se`, issue 30): the per-topic scores of the
collection's stored run archive (:func:`stored_per_topic`, evaluated as `runs eval` does
by default and kept with the archive's fingerprint), and, read once for an audit of many
populations, the topic sets with their parts, each collection's default topic set, the
collections with an archive, the reference noise and the bounded measures
(:class:`NoiseLookups`); from them the effective number of queries of an equal-weight
mean over sub-collections, K^2 / sum 1/n_i (:func:`effective_topics`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from litaudit.errors import NotFound, ParameterError
from litaudit.measures import parse_measure
from litaudit.runs.archive_eval import archive_matrix
from litaudit.runs.archive_lookups import archived_collections
from litaudit.stats.noise import (
    effective_n,
)
from litaudit.store.collections import TopicSet, topic_sets
from litaudit.store.measures import bounded as bounded_measures
from litaudit.store.reference_noise import ReferenceNoise, reference_noise

if TYPE_CHECKING:
    import duckdb


@dataclass(frozen=True)
class PerTopic:
    """Per-topic scores an interaction se was measured on: ``what`` says where they came
    from (the stored run archive of a collection, or a score matrix's files)."""

    what: str
    n_runs: int
    n_topics: int


@dataclass(frozen=True)
class NoiseLookups:
    """What :func:`choose_se` reads of the store besides per-topic scores, read once for
    an audit of many populations (`audit summary`): every topic set (its topics and the
    parts an equal-weight mean averages), each collection's default topic set, and the
    collections with a run archive."""

    topic_sets: dict[tuple[str, str], tuple[int, tuple[str, ...]]]
    default_sets: dict[str, tuple[str, int]]
    archived: frozenset[str]
    reference: dict[tuple[str, str, int], ReferenceNoise] = dataclasses.field(default_factory=dict)
    bounded: frozenset[str] = frozenset()  # measures whose values lie in [0, 1]
    # every topic set as :func:`~litaudit.store.collections.topic_sets` lists them (a
    # claim's key reads its collection's parts from them: one query fewer an audit)
    listed: tuple[TopicSet, ...] = ()

    @classmethod
    def load(cls, con: duckdb.DuckDBPyConnection) -> NoiseLookups:
        sets: dict[tuple[str, str], tuple[int, tuple[str, ...]]] = {}
        defaults_: dict[str, tuple[str, int]] = {}
        listed = tuple(topic_sets(con))
        for ts in listed:
            sets[(ts.collection_id, ts.name)] = (ts.n_topics, ts.parts)
            if ts.is_default:
                defaults_[ts.collection_id] = (ts.name, ts.n_topics)

        return cls(
            sets,
            defaults_,
            archived_collections(con),
            reference_noise(con),
            bounded_measures(con),
            listed,
        )


def effective_topics(
    lookups: NoiseLookups, collection_id: str, topic_set: str | None
) -> tuple[float, int] | None:
    """(n_eff, K) when the topic set's results are the equal-weight mean of K other
    collections (``topic_sets.parts``), n_eff = K**2 / sum(1 / n_i) over the parts' default
    topic counts (a part that is itself such a mean counts with its own n_eff)."""
    found = lookups.topic_sets.get((collection_id, topic_set or ""))
    if found is None or not found[1]:
        return None
    counts = []
    for part in found[1]:
        t = lookups.default_sets.get(part)
        if t is None:
            raise ParameterError(f"topic set {topic_set!r} of {collection_id}: no part {part!r}")
        inner = effective_topics(lookups, part, t[0])
        counts.append(t[1] if inner is None else inner[0])
    return effective_n(counts), len(counts)


def stored_per_topic(
    con: duckdb.DuckDBPyConnection, collection_id: str, measure: str, n_topics: int
):
    """(systems x topics scores, PerTopic) of the collection's stored run archive for
    ``measure``, or (None, why not) when there are none to use. The caller has checked
    that the store holds an archive of the collection (:attr:`NoiseLookups.archived`).
    Every run of the archive, evaluated as `runs eval` does by default: read back from the
    store of evaluations, else evaluated here and kept
    (:func:`~litaudit.runs.archive_eval.archive_matrix`), so that the answer is the same
    whatever ran before it."""

    m = str(parse_measure(measure))
    try:
        tm = archive_matrix(con, collection_id, m)
    except NotFound:  # runs without qrels
        return None, (
            f"the stored run archive of {collection_id} has no qrels to evaluate its runs; "
            "`litaudit runs import` them"
        )
    if tm is None:
        return None, f"the store holds no run of {collection_id}"
    runs, topics, x, complete = tm.runs, tm.topics, tm.x, tm.complete
    if len(topics) != n_topics:
        return None, (
            f"the stored archive's per-topic {m} covers {len(topics)} topics, the "
            f"population {n_topics}: another topic set"
        )
    what = (
        f"the stored run archive of {collection_id}: {len(runs)} runs x {len(topics)} topics, "
        f"{m} per topic from `runs eval{' -c' if complete else ''}`"
    )
    return x, PerTopic(what, len(runs), len(topics))
