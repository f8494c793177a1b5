"""Run diversity and pool completeness from a run archive: RAO, uniques, leave-out-uniques.

Voorhees, Lin, Efron, "On Run Diversity in Evaluation as a Service", SIGIR 2014:
- Section 3, Run Average Overlap (RAO) of a run O at depth K against a run set:
  RAO(O) = (1/T) * sum_t (1/n_t) * sum_{d in top K of O for t} 1/P_d,
  P_d the number of distinct participants (O's own included) with d in a top K for t.
  Its range is [1/P, 1], P the number of participants in the run set.
- Section 4, uniquely retrieved relevant documents: relevant documents in the top K of
  one participant's runs only. Table 2 rows 1-2: their share of all relevant documents
  and the largest share of the unique relevant documents contributed by one participant.
- Section 4, the leave-out-uniques (LOU) test (Zobel, SIGIR 1998; Buckley et al. 2007):
  each participant's runs re-evaluated without its unique relevant documents. Table 2
  rows 3-5: over automatic runs with original MAP >= 0.1, the mean and maximum percentage
  difference in MAP and the number of runs whose difference exceeds 1%.

Inputs are integer-coded arrays (the caller maps run tags, participants, topics and
docnos to 0..n-1); the functions do no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from litaudit import defaults
from litaudit.errors import ParameterError

# Table 2 of Voorhees et al. (2014): only automatic runs with an original MAP of at least
# 0.1 are summarised ("percentage differences are artificially magnified for ineffective
# runs"), and a difference above 1% is counted as beyond evaluation noise.
LOU_MIN_MAP = defaults.LOU_MIN_MAP
LOU_NOISE_PCT = defaults.LOU_NOISE_PCT
# a difference equal to the threshold up to floating-point rounding is not above it
_ROUNDING = 1e-9


def _as_int(name: str, a) -> np.ndarray:
    arr = np.asarray(a)
    if arr.ndim != 1:
        raise ParameterError(f"{name} must be a 1-d array, got shape {arr.shape}")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise ParameterError(f"{name} must hold integer codes, got dtype {arr.dtype}")
    if arr.size and arr.min() < 0:
        raise ParameterError(f"{name} holds a negative code")
    return arr.astype(np.int64, copy=False)


def _distinct(a: np.ndarray, counts: bool = False, inplace: bool = False):
    """Sorted distinct values (and their counts) by one sort: numpy 2's hash-based
    ``np.unique`` is several times slower on millions of int64 keys. ``inplace``: ``a``
    is the caller's own scratch array, sorted in place (no copy)."""
    if inplace:
        s = a
        s.sort(kind="stable")
    else:
        s = np.sort(a, kind="stable")
    first = np.r_[True, s[1:] != s[:-1]] if s.size else np.zeros(0, dtype=bool)
    if not counts:
        return s if first.all() else s[first]
    starts = np.flatnonzero(first)
    return s[first], np.diff(np.r_[starts, s.size])


def _entries(run, topic, doc, participant_of_run, extra_topic=None, extra_doc=None):
    """The distinct (run, topic, doc) entries as sorted int64 keys (run * n_t + topic)
    * n_d + doc, with the participant of each run and n_t, n_d (which also bound
    ``extra_topic``, ``extra_doc`` when given). Built in place: a few arrays of the
    entries' length are alive at once, not one per step."""
    run, topic, doc = _as_int("run", run), _as_int("topic", topic), _as_int("doc", doc)
    part_of_run = _as_int("participant_of_run", participant_of_run)
    if not (run.size == topic.size == doc.size):
        raise ParameterError(
            f"run, topic and doc must have the same length ({run.size}, {topic.size}, {doc.size})"
        )
    if part_of_run.size == 0:
        raise ParameterError("the run set is empty")
    if run.size and run.max() >= part_of_run.size:
        raise ParameterError(
            f"run code {run.max()} has no participant (participant_of_run has "
            f"{part_of_run.size} entries)"
        )
    # one entry per (run, topic, doc): a document listed twice in a top K counts once
    n_t = int(topic.max()) + 1 if topic.size else 1
    n_d = int(doc.max()) + 1 if doc.size else 1
    if extra_topic is not None and extra_topic.size:
        n_t = max(n_t, int(extra_topic.max()) + 1)
    if extra_doc is not None and extra_doc.size:
        n_d = max(n_d, int(extra_doc.max()) + 1)
    key = run * n_t
    key += topic
    key *= n_d
    key += doc
    return _distinct(key, inplace=True), part_of_run, n_t, n_d


def _participants_per_doc(key, part_of_run, n_t, n_d):
    """Per entry its (topic, doc) key; the distinct retrieved keys with P_d; and the
    participant of each distinct (participant, topic, doc), sorted by (topic, doc) then
    participant. One sort of (topic, doc) * n_p + participant gives the last two."""
    n_td = n_t * n_d
    n_p = int(part_of_run.max()) + 1
    td = key % n_td
    ptd = key // n_td  # run
    ptd = part_of_run[ptd]
    ptd += td * n_p
    ptd = _distinct(ptd, inplace=True)  # distinct (topic, doc, participant)
    ptd_td = ptd // n_p  # sorted
    ptd %= n_p  # participant
    first = np.r_[True, ptd_td[1:] != ptd_td[:-1]] if ptd_td.size else np.zeros(0, bool)
    starts = np.flatnonzero(first)
    return td, ptd_td[first], np.diff(np.r_[starts, ptd_td.size]), ptd_td, ptd


@dataclass(frozen=True)
class RunAverageOverlap:
    """Run Average Overlap per run (Voorhees et al. 2014, Section 3)."""

    rao: np.ndarray  # (n_runs,) RAO; NaN for a run with no retrieved document
    n_topics: np.ndarray  # (n_runs,) topics with >= 1 retrieved document (the T averaged)
    n_participants: int  # P: participants with runs in the run set
    lower_bound: float  # 1/P, the RAO of a run retrieving only what all retrieve


def run_average_overlap(run, topic, doc, participant_of_run) -> RunAverageOverlap:
    """RAO of every run against the whole run set (Voorhees et al. 2014, Section 3).

    ``run``, ``topic``, ``doc``: one entry per document in a run's top K for a topic.
    ``participant_of_run[r]``: participant code of run r (runs of one participant share
    it). A run's RAO averages over the topics for which it retrieved something.
    """
    rt_run, rt_topic, per_topic = overlap_per_topic(run, topic, doc, participant_of_run)
    return average_overlap(rt_run, per_topic, participant_of_run)


def overlap_per_topic(run, topic, doc, participant_of_run):
    """(run, topic, mean 1/P_d) of every (run, topic) with an entry, sorted by run then
    topic: the per-topic part of :func:`run_average_overlap` (the topics of a run set can
    be taken a range at a time and the parts joined in that order)."""
    key, part_of_run, n_t, n_d = _entries(run, topic, doc, participant_of_run)
    if not key.size:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
    td, keys, counts, _, _ = _participants_per_doc(key, part_of_run, n_t, n_d)
    inv_p = 1.0 / counts[np.searchsorted(keys, td)]
    del td
    rt = key // n_d  # run * n_t + topic
    rt_keys, rt_idx, rt_n = np.unique(rt, return_inverse=True, return_counts=True)
    per_topic = np.bincount(rt_idx, weights=inv_p) / rt_n  # mean 1/P_d per (run, topic)
    return rt_keys // n_t, rt_keys % n_t, per_topic


def average_overlap(rt_run, per_topic, participant_of_run) -> RunAverageOverlap:
    """RAO from :func:`overlap_per_topic`'s (run, topic) values, sorted by run then topic."""
    part_of_run = _as_int("participant_of_run", participant_of_run)
    if part_of_run.size == 0:
        raise ParameterError("the run set is empty")
    n_runs = part_of_run.size
    n_p = np.unique(part_of_run).size
    rao = np.full(n_runs, np.nan)
    n_topics = np.zeros(n_runs, dtype=np.int64)
    if len(rt_run):
        n_topics = np.bincount(rt_run, minlength=n_runs)
        total = np.bincount(rt_run, weights=per_topic, minlength=n_runs)
        has = n_topics > 0
        rao[has] = total[has] / n_topics[has]
    return RunAverageOverlap(
        rao=rao, n_topics=n_topics, n_participants=int(n_p), lower_bound=1.0 / n_p
    )


@dataclass(frozen=True)
class UniqueRelevant:
    """Uniquely retrieved relevant documents per participant (Voorhees et al. 2014, Table 2)."""

    n_unique: np.ndarray  # (n_participants,) unique relevant documents of each
    share_of_relevant: np.ndarray  # n_unique / n_relevant
    share_of_uniques: np.ndarray  # n_unique / n_unique_total (NaN when there are none)
    n_relevant: int  # relevant (topic, doc) pairs in the qrels
    n_retrieved_relevant: int  # ... of which in some participant's top K
    n_unique_total: int  # ... of which in exactly one participant's top K
    unique_fraction: float  # Table 2 row 1: n_unique_total / n_relevant
    largest_share: float  # Table 2 row 2: max share_of_uniques
    largest_participant: int  # its participant code (-1 when there are no uniques)
    owner: np.ndarray  # (n_relevant,) participant owning each relevant pair, or -1


def unique_relevant(run, topic, doc, participant_of_run, rel_topic, rel_doc) -> UniqueRelevant:
    """Relevant documents retrieved in the top K by exactly one participant.

    ``rel_topic``, ``rel_doc``: the relevant (topic, doc) pairs of the qrels, in the same
    integer codes as the run entries; ``owner`` is aligned with them, so that a caller can
    drop a participant's unique relevant documents from its qrels (the LOU test).
    """
    rel_topic, rel_doc = _as_int("rel_topic", rel_topic), _as_int("rel_doc", rel_doc)
    if rel_topic.size != rel_doc.size:
        raise ParameterError("rel_topic and rel_doc must have the same length")
    key, part_of_run, n_t, n_d = _entries(
        run, topic, doc, participant_of_run, extra_topic=rel_topic, extra_doc=rel_doc
    )
    n_p = int(part_of_run.max()) + 1
    n_rel = int(rel_topic.size)
    owner = np.full(n_rel, -1, dtype=np.int64)
    n_retrieved = 0
    if key.size and n_rel:
        _, keys, counts, ptd_td, ptd_part = _participants_per_doc(key, part_of_run, n_t, n_d)
        del key
        rel_td = rel_topic * n_d + rel_doc
        pos = np.minimum(np.searchsorted(keys, rel_td), keys.size - 1)
        found = keys[pos] == rel_td
        n_retrieved = int(found.sum())
        single = found & (counts[pos] == 1)
        # the one participant of a singly retrieved pair
        at = np.searchsorted(ptd_td, rel_td[single])
        owner[single] = ptd_part[at]
    return summarize_uniques(np.bincount(owner[owner >= 0], minlength=n_p), n_retrieved, owner)


def summarize_uniques(n_unique, n_retrieved: int, owner) -> UniqueRelevant:
    """The shares of :func:`unique_relevant` from its counts (``n_unique`` per participant,
    relevant pairs retrieved, ``owner`` of each relevant pair): counts of ranges of topics
    can be summed first."""
    n_unique = np.asarray(n_unique)
    n_p = n_unique.size
    n_rel = int(owner.size)
    total_unique = int(n_unique.sum())
    share_rel = n_unique / n_rel if n_rel else np.full(n_p, np.nan)
    share_uni = n_unique / total_unique if total_unique else np.full(n_p, np.nan)
    largest = int(np.argmax(n_unique)) if total_unique else -1
    return UniqueRelevant(
        n_unique=n_unique,
        share_of_relevant=share_rel,
        share_of_uniques=share_uni,
        n_relevant=n_rel,
        n_retrieved_relevant=int(n_retrieved),
        n_unique_total=total_unique,
        unique_fraction=total_unique / n_rel if n_rel else float("nan"),
        largest_share=float(share_uni[largest]) if total_unique else 0.0,
        largest_participant=largest,
        owner=owner,
    )


@dataclass(frozen=True)
class LeaveOutUniques:
    """Leave-out-uniques statistics (Voorhees et al. 2014, Section 4 and Table 2)."""

    before: np.ndarray  # (n_runs,) MAP with the full qrels
    after: np.ndarray  # (n_runs,) MAP without the run's participant's unique relevants
    pct_change: np.ndarray  # 100 * (after - before) / before (negative: the run loses)
    considered: np.ndarray  # (n_runs,) bool: automatic and before >= min_map
    min_map: float
    noise_pct: float
    n_considered: int
    mean_abs_pct: float  # Table 2 row 3: mean |% difference| over the considered runs
    max_abs_pct: float  # Table 2 row 4: maximum |% difference|
    n_above: int  # Table 2 row 5: runs with |% difference| > noise_pct


def leave_out_uniques(
    before, after, automatic, *, min_map: float = LOU_MIN_MAP, noise_pct: float = LOU_NOISE_PCT
) -> LeaveOutUniques:
    """Table 2 statistics of the LOU test from MAP before and after (Voorhees et al. 2014).

    The percentage difference is taken in absolute value: a run that gains when its
    participant's unique relevant documents are removed is as unfairly scored as one that
    loses. Runs with MAP 0 get NaN change and are never considered.
    """
    before = np.asarray(before, dtype=np.float64)
    after = np.asarray(after, dtype=np.float64)
    automatic = np.asarray(automatic, dtype=bool)
    if not (before.shape == after.shape == automatic.shape) or before.ndim != 1:
        raise ParameterError("before, after and automatic must be 1-d arrays of one length")
    if not (0.0 <= min_map <= 1.0):
        raise ParameterError(f"min_map must be in [0, 1], got {min_map}")
    if noise_pct < 0:
        raise ParameterError(f"noise_pct must be >= 0, got {noise_pct}")
    with np.errstate(divide="ignore", invalid="ignore"):
        pct = np.where(before > 0, 100.0 * (after - before) / before, np.nan)
    considered = automatic & (before >= min_map) & np.isfinite(pct)
    absd = np.abs(pct[considered])
    return LeaveOutUniques(
        before=before,
        after=after,
        pct_change=pct,
        considered=considered,
        min_map=min_map,
        noise_pct=noise_pct,
        n_considered=int(considered.sum()),
        mean_abs_pct=float(absd.mean()) if absd.size else float("nan"),
        max_abs_pct=float(absd.max()) if absd.size else float("nan"),
        n_above=int((absd > noise_pct + _ROUNDING).sum()),
    )
