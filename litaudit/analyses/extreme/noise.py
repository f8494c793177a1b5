"""Which standard error an extreme-value audit uses for one published mean, and why.

Three sources (``--se model|interaction|VALUE`` of `audit best/claim/history`):

* ``model``: Carterette's (SIGIR 2015, Sec. 3.1) ``sd / sqrt(n)``, sd the spread between
  the N published results and n the topics (for an equal-weight mean of sub-collections,
  their effective number of queries, :func:`effective_topics`). Not a measured standard
  error: it is what makes the published spread exactly sqrt(n) times the model's.
* ``interaction``: measured from per-topic scores of the same collection and measure,
  ``sqrt(MS_interaction / n)`` of a two-way ANOVA (:mod:`litaudit.stats.noise`). A
  population's per-topic scores are those of the collection's stored run archive,
  evaluated per topic by `runs eval` for the same measure (rel_level 1, trec_eval's
  default, as official scores are computed), read back only while the archive is
  unchanged (the evaluation store's fingerprint) and only when they cover as many topics
  as the population's topic count. The runs need not be the published ones: the
  interaction is a property of the collection, the measure and systems of the kind
  evaluated on it.
* a value the user gives (e.g. one measured elsewhere: ``--se 0.0155`` from `audit
  matrix` on TREC-7's per-topic AP).

Default: ``interaction`` when the population's per-topic scores are stored, else ``model``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from litaudit import defaults
from litaudit.errors import ParameterError
from litaudit.stats.claim import RecordCheck
from litaudit.stats.noise import TopicInteraction, effective_n, robust_spread, topic_interaction

SE_MODES = ("model", "interaction")


def parse_se(text: str | None) -> str | float | None:
    """``--se``: None (the default rule), 'model', 'interaction', or a standard error > 0."""
    if text is None or not str(text).strip():
        return None
    t = str(text).strip().lower()
    if t in SE_MODES:
        return t
    try:
        v = float(t)
    except ValueError:
        raise ParameterError(
            f"--se: {text!r} is not one of {', '.join(SE_MODES)} or a standard error "
            "(a number such as 0.0059)"
        ) from None
    if not (math.isfinite(v) and v > 0):
        raise ParameterError(f"--se: a standard error must be a finite number > 0, got {text!r}")
    return v


@dataclass(frozen=True)
class PerTopic:
    """Per-topic scores an interaction se was measured on: ``what`` says where they came
    from (the stored run archive of a collection, or a score matrix's files)."""

    what: str
    n_runs: int
    n_topics: int


@dataclass(frozen=True)
class NoiseChoice:
    """The standard error an audit used (``se``) and where it comes from.

    ``source``: 'model', 'interaction' or 'given'; ``asked``: 'default' (the rule of the
    module doc), 'model', 'interaction' or 'value'. ``sd``: the N published results'
    spread; ``n_topics``: the population's topic count; ``n_effective``/``n_parts``: the
    effective queries of an equal-weight mean of ``n_parts`` sub-collections (None when
    the results are not such a mean); ``model_se`` = sd / sqrt(n_effective or n_topics);
    ``robust_sd``: 1.4826 * MAD of the N results. ``interaction``/``per_topic``: the ANOVA
    and its scores when measured. ``unavailable``: why no per-topic scores were used
    (None when they were, or when the store holds no run archive of the collection).
    """

    source: str
    asked: str
    se: float
    sd: float
    n_topics: int
    n_effective: float | None
    n_parts: int | None
    model_se: float
    robust_sd: float
    interaction: TopicInteraction | None = None
    per_topic: PerTopic | None = None
    unavailable: str | None = None

    @property
    def n_model(self) -> float:
        """The n of the model's sd / sqrt(n)."""
        return self.n_topics if self.n_effective is None else self.n_effective


@dataclass(frozen=True)
class RobustCheck:
    """The record check under the model again, with the robust spread 1.4826 * MAD of the
    N results in place of their sd: ``se`` = robust_sd / sqrt(n); ``record`` the check
    (:class:`litaudit.stats.claim.RecordCheck`) with that se; ``changes``: the standing
    (or whether the claim lies in the record's band) differs from the audit's."""

    robust_sd: float
    se: float
    record: RecordCheck
    changes: bool


@dataclass(frozen=True)
class NoiseLookups:
    """What :func:`choose_se` reads of the store besides per-topic scores, read once for
    an audit of many populations (`audit summary`): every topic set (its topics and the
    parts an equal-weight mean averages), each collection's default topic set, and the
    collections with a run archive."""

    topic_sets: dict[tuple[str, str], tuple[int, tuple[str, ...]]]
    default_sets: dict[str, tuple[str, int]]
    archived: frozenset[str]

    @classmethod
    def load(cls, con) -> NoiseLookups:
        sets: dict[tuple[str, str], tuple[int, tuple[str, ...]]] = {}
        defaults_: dict[str, tuple[str, int]] = {}
        for cid, name, n, is_default, parts in con.execute(
            "SELECT collection_id, name, n_topics, is_default, parts FROM topic_sets"
        ).fetchall():
            sets[(cid, name)] = (n, tuple(parts or ()))
            if is_default:
                defaults_[cid] = (name, n)
        archived = con.execute("SELECT list(DISTINCT collection_id) FROM runs").fetchone()[0]
        return cls(sets, defaults_, frozenset(archived or ()))


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


def stored_per_topic(con, collection_id: str, measure: str, n_topics: int):
    """(systems x topics scores, PerTopic) of the collection's stored run archive for
    ``measure``, or (None, why not) when there are none to use. The caller has checked
    that the store holds an archive of the collection (:attr:`NoiseLookups.archived`)."""
    from litaudit.measures import parse_measure
    from litaudit.runs import evalcache

    m = str(parse_measure(measure))
    fp = evalcache.fingerprint(con, collection_id)
    rows = con.execute(
        "SELECT complete, run, topic, value FROM run_eval_topics WHERE collection_id = ? "
        "AND fingerprint = ? AND measure = ? AND rel_level = 1 ORDER BY complete DESC",
        [collection_id, fp, m],
    ).fetchall()
    if not rows:
        return None, (
            f"the collection's stored run archive has no per-topic {m}; "
            f"`litaudit runs eval -c {collection_id} -m {m}` stores it"
        )
    complete = rows[0][0]
    runs = sorted({r[1] for r in rows if r[0] == complete})
    topics = sorted({r[2] for r in rows if r[0] == complete})
    ri = {r: i for i, r in enumerate(runs)}
    ti = {t: i for i, t in enumerate(topics)}
    x = np.full((len(runs), len(topics)), np.nan)
    for c, run, topic, value in rows:
        if c == complete:
            x[ri[run], ti[topic]] = value
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


def choose_se(
    con,
    collection_id: str,
    measure: str,
    topic_set: str | None,
    n_topics: int,
    values,
    se: str | float | None,
    *,
    alpha: float = defaults.ALPHA,
    lookups: NoiseLookups | None = None,
) -> NoiseChoice:
    """The standard error of an audit of ``values`` (see the module doc for the rule);
    ``lookups``: the store's topic sets and archives, read here when not given."""
    if lookups is None:
        lookups = NoiseLookups.load(con)
    v = np.asarray(values, dtype=np.float64)
    sd = float(np.std(np.sort(v), ddof=1))
    eff = effective_topics(lookups, collection_id, topic_set)
    n_eff, parts = (None, None) if eff is None else eff
    model_se = sd / math.sqrt(n_topics if n_eff is None else n_eff)
    base: dict[str, Any] = dict(
        sd=sd,
        n_topics=n_topics,
        n_effective=n_eff,
        n_parts=parts,
        model_se=model_se,
        robust_sd=robust_spread(v),
    )
    asked = "default" if se is None else ("value" if isinstance(se, float) else se)
    if isinstance(se, float):
        return NoiseChoice("given", asked, se, **base)
    if se == "model":
        return NoiseChoice("model", asked, model_se, **base)
    scores, found = (
        stored_per_topic(con, collection_id, measure, n_topics)
        if collection_id in lookups.archived
        else (None, None)
    )
    if scores is None:
        if se == "interaction":
            raise ParameterError(
                f"--se interaction: no per-topic {measure} of this population in the store"
                + (f" ({found})" if found else " (no run archive of the collection)")
                + "; give a standard error instead, e.g. --se 0.0059"
            )
        return NoiseChoice("model", asked, model_se, **base, unavailable=found)
    inter = topic_interaction(scores, alpha=alpha, p_floor=defaults.P_FLOOR)
    return NoiseChoice("interaction", asked, inter.se, **base, interaction=inter, per_topic=found)
