"""Which standard error an extreme-value audit uses for one published mean, and why.

Every answer names its se, its kind and its source (issue 30). The kinds, in the order
the default rule tries them:

* ``measured`` from the collection's stored run archive (source ``interaction``): all its
  runs evaluated per topic for the same measure as `runs eval` does by default (rel_level
  1, trec_eval's default), read back while the archive is unchanged (the evaluation
  store's fingerprint), else evaluated by the audit and kept, so that the answer does not
  depend on what ran before it; used when they cover as many topics as the population;
  ``sqrt(MS_interaction / n)`` of a two-way ANOVA (:mod:`litaudit.stats.noise`);
* ``measured`` from the store's reference noise of the collection and measure (source
  ``reference``, schema 012: seeded from the per-topic matrices of Urbano's archives by
  seeds/noise.py), for the same topic count. The runs need not be the published ones:
  the interaction is a property of the collection, the measure and systems of the kind
  evaluated on it;
* ``bound`` for a measure bounded in [0, 1] (every registered measure but those with
  another range): ``sqrt(m (1 - m) / n)`` at the population mean m
  (:func:`litaudit.stats.noise.bounded_se`), an upper bound on the se of a mean over n
  topics, labelled as a bound: the chance answers it gives are conservative;
* ``model`` (only with ``--se model``, or for a measure with no [0, 1] bound):
  Carterette's (SIGIR 2015, Sec. 3.1) ``sd / sqrt(n)``, sd the spread between the N
  published results and n the topics (for an equal-weight mean of sub-collections, their
  effective number of queries, :func:`effective_topics`). Not a measured standard error:
  it is what makes the published spread exactly sqrt(n) times the model's;
* ``given``: a value the user gives (``--se 0.0155``).

``--se measured`` (or its older name ``interaction``) insists on a measured se; ``--se
bound`` on the bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from litaudit import defaults
from litaudit.analyses.extreme.noise_inputs import (
    NoiseLookups,
    PerTopic,
    effective_topics,
    stored_per_topic,
)
from litaudit.errors import ParameterError
from litaudit.stats.claim import RecordCheck
from litaudit.stats.noise import (
    TopicInteraction,
    bounded_se,
    residual_sds,
    robust_spread,
    topic_interaction,
)

if TYPE_CHECKING:
    import duckdb

SE_MODES = ("model", "interaction", "measured", "bound")
# the kind of each source of a standard error (NoiseChoice.source -> NoiseChoice.kind)
KIND_OF = {
    "interaction": "measured",
    "reference": "measured",
    "bound": "bound",
    "model": "model",
    "given": "given",
}


def parse_se(text: str | None) -> str | float | None:
    """``--se``: None (the default rule), 'model', 'interaction', or a standard error > 0."""
    if text is None or not str(text).strip():
        return None
    t = str(text).strip().lower()
    if t in SE_MODES:
        return "interaction" if t == "measured" else t
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
class NoiseChoice:
    """The standard error an audit used (``se``) and where it comes from.

    ``source``: 'interaction' (the stored run archive), 'reference' (the store's reference
    noise), 'bound', 'model' or 'given'; ``kind`` its kind ('measured', 'bound', 'model',
    'given': :data:`KIND_OF`); ``origin`` the source in words; ``asked``: 'default' (the
    rule of the module doc), 'model', 'interaction', 'bound' or 'value'. ``sd``: the N published results'
    spread; ``n_topics``: the population's topic count; ``n_effective``/``n_parts``: the
    effective queries of an equal-weight mean of ``n_parts`` sub-collections (None when
    the results are not such a mean); ``model_se`` = sd / sqrt(n_effective or n_topics);
    ``robust_sd``: 1.4826 * MAD of the N results. ``interaction``/``per_topic``: the ANOVA
    and its scores when measured. ``unavailable``: why no per-topic scores were used
    (None when they were, or when the store holds no run archive of the collection).
    ``se_max``: the largest se one mean can have under this noise (measured: the noisiest
    run's; bound: the bound at the m in [min, max] of the results nearest 0.5; given and
    model: the se); ``run_ses``: each reference run's own se (residual sd / sqrt(n)) when
    measured; ``se_diff``: the se of a difference of two means (measured: sqrt(2) se, the
    interaction being the paired noise; bound: of the record and the mean, unpaired,
    computed where used; model, given: sqrt(2) se).
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
    kind: str = "model"  # (defaults: audits stored before issue 30 have none of these)
    origin: str = ""
    se_max: float | None = None
    run_ses: tuple[float, ...] = ()

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


def choose_se(
    con: duckdb.DuckDBPyConnection,
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
    ``lookups``: the store's topic sets, archives and reference noise, read here when not
    given."""
    if lookups is None:
        lookups = NoiseLookups.load(con)
    v = np.asarray(values, dtype=np.float64)
    sd = float(np.std(np.sort(v), ddof=1))
    eff = effective_topics(lookups, collection_id, topic_set)
    n_eff, parts = (None, None) if eff is None else eff
    n_model = n_topics if n_eff is None else n_eff
    model_se = sd / math.sqrt(n_model)
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
        return NoiseChoice(
            "given", asked, se, **base, kind="given", origin="given with --se", se_max=se
        )
    if se == "model":
        return _model(asked, model_se, n_model, base)
    if se in (None, "interaction"):
        found = _measured(con, lookups, collection_id, measure, n_topics, alpha, asked, base)
        if isinstance(found, NoiseChoice):
            return found
        if se == "interaction":
            raise ParameterError(
                f"--se measured: no per-topic {measure} of this population in the store"
                + (
                    f" ({found})"
                    if found
                    else " (no run archive of the collection, no reference noise)"
                )
                + "; give a standard error instead, e.g. --se 0.0059"
            )
        base["unavailable"] = found
    if measure in lookups.bounded and 0.0 <= float(v.min()) and float(v.max()) <= 1.0:
        return _bound(asked, v, n_model, base)
    if se == "bound":
        raise ParameterError(f"--se bound: {measure} is not a measure bounded in [0, 1]")
    return _model(asked, model_se, n_model, base)


def _model(asked: str, model_se: float, n_model: float, base: dict[str, Any]) -> NoiseChoice:
    return NoiseChoice(
        "model",
        asked,
        model_se,
        **base,
        kind="model",
        origin=f"the model sd / sqrt(n) of Carterette (SIGIR 2015, Sec. 3.1), n = {n_model:,.0f}",
        se_max=model_se,
    )


def _bound(asked: str, v: np.ndarray, n_model: float, base: dict[str, Any]) -> NoiseChoice:
    """The bound sqrt(m (1 - m) / n) at the population mean; its largest value over the
    range of the results (the m nearest 0.5) is ``se_max``."""
    m = float(v.mean())
    lo, hi = float(v.min()), float(v.max())
    m_max = min(max(0.5, lo), hi)
    return NoiseChoice(
        "bound",
        asked,
        bounded_se(m, n_model),
        **base,
        kind="bound",
        origin=f"the bound sqrt(m (1 - m) / n) of a score in [0, 1] at the mean m = {m:.4f}, "
        f"n = {n_model:,.0f} (no per-topic scores of this collection and measure are stored)",
        se_max=bounded_se(m_max, n_model),
    )


def _measured(
    con: duckdb.DuckDBPyConnection,
    lookups: NoiseLookups,
    collection_id: str,
    measure: str,
    n_topics: int,
    alpha: float,
    asked: str,
    base: dict[str, Any],
) -> NoiseChoice | str | None:
    """The measured se: from the stored run archive, else the reference noise; else why
    not (or None)."""
    scores, found = (
        stored_per_topic(con, collection_id, measure, n_topics)
        if collection_id in lookups.archived
        else (None, None)
    )
    if scores is not None and isinstance(found, PerTopic):
        inter = topic_interaction(scores, alpha=alpha, p_floor=defaults.P_FLOOR)
        run_ses = tuple(float(s) / math.sqrt(inter.n_topics) for s in residual_sds(scores))
        return NoiseChoice(
            "interaction",
            asked,
            inter.se,
            **base,
            interaction=inter,
            per_topic=found,
            kind="measured",
            origin=found.what,
            se_max=max(run_ses),
            run_ses=run_ses,
        )
    ref = lookups.reference.get((collection_id, measure, n_topics))
    if ref is None:
        return found
    run_ses = tuple(s / math.sqrt(ref.n_topics) for s in ref.residual_sds)
    return NoiseChoice(
        "reference",
        asked,
        ref.se,
        **base,
        unavailable=found,
        kind="measured",
        origin=ref.source,
        se_max=max(run_ses),
        run_ses=run_ses,
    )


@dataclass(frozen=True)
class RecordGap:
    """A claim's distance from the record in standard errors of a difference of two means.

    ``gap`` = value - record; ``se_diff``: measured or model or given, ``sqrt(2) se`` (the
    interaction is the noise left after pairing by topic: ``paired`` True); bound, the
    unpaired ``sqrt(b(value) + b(record))`` with b the [0, 1] bound's variance at each
    mean (an upper bound: the gap is at least ``z`` se); ``z`` = |gap| / se_diff."""

    value: float
    record: float
    gap: float
    se_diff: float
    z: float
    paired: bool
    kind: str


def record_gap(nc: NoiseChoice, value: float, record: float) -> RecordGap:
    """The claim-record gap of :class:`RecordGap` under the audit's noise ``nc``."""
    if nc.kind == "bound":
        n = nc.n_model
        se_d = math.hypot(
            bounded_se(min(max(value, 0.0), 1.0), n), bounded_se(min(max(record, 0.0), 1.0), n)
        )
        if not se_d > 0:
            se_d = math.sqrt(2.0) * nc.se
        paired = False
    else:
        se_d = math.sqrt(2.0) * nc.se
        paired = nc.kind == "measured"
    gap = float(value) - float(record)
    return RecordGap(float(value), float(record), gap, se_d, abs(gap) / se_d, paired, nc.kind)
