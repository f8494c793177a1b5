"""What the extreme-value audits of published results share (:mod:`.best`, :mod:`.claim_audit`,
:mod:`.history`, :mod:`.summary`): the reference model's parameters (:class:`AuditModel`),
how an audit is stored with its population and filters, the population's standard error
(:func:`population_noise`) and what follows from it (the random-effects shrinkage, the
spread check, the winner's bias by resampling). Split out of ``best.py`` (issue 37, item
6); ``best`` re-exports every name here.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from litaudit import defaults
from litaudit.analyses.audits import Audited, AuditKey, run_or_reuse
from litaudit.analyses.extreme.noise import NoiseChoice, choose_se
from litaudit.analyses.extreme.noise_inputs import NoiseLookups
from litaudit.analyses.extreme.population import Filters, Population
from litaudit.analyses.extreme.population_summary import PopulationSummary, summarize
from litaudit.stats.extreme import Sampling
from litaudit.stats.noise import (
    Shrinkage,
    SpreadCheck,
    WinnersBias,
    shrink,
    spread_check,
    winners_bias,
)

if TYPE_CHECKING:
    import duckdb

# the defaults and where they come from: litaudit/defaults.py
DEFAULT_ALPHA = defaults.ALPHA
DEFAULT_P = defaults.P_INTERVAL
SUMMARY_MIN_N = defaults.MIN_N
SOURCE = "Carterette, SIGIR 2015"
R = TypeVar("R")


@dataclass(frozen=True, kw_only=True)
class AuditModel:
    """The reference model of an extreme-value audit: thresholds of the max and min at
    level ``alpha``; mu0 and the interval at probability ``p``; the standard error of one
    mean by ``se`` ('model', 'interaction', a value, or None: the default rule of
    :mod:`litaudit.analyses.extreme.noise`); the max distribution computed by ``sampling``
    (which fills in the Monte Carlo trials and seed)."""

    alpha: float = DEFAULT_ALPHA
    p: float = DEFAULT_P
    se: str | float | None = None
    sampling: Sampling = Sampling()

    def params(self) -> dict:
        """The model as an audit stores it among its parameters (the Monte Carlo trials
        and seed are stored beside them)."""
        return {
            "alpha": self.alpha,
            "p": self.p,
            "method": self.sampling.method,
            "se": se_param(self.se),
        }


def stored_audit(
    con: duckdb.DuckDBPyConnection,
    kind: str,
    pop: Population,
    rep: R,
    fp: str,
    params: dict,
    sampling: Sampling,
) -> Audited[R]:
    """Save ``rep`` as an audit of ``kind`` (or find the identical stored one)."""
    return run_or_reuse(con, population_key(kind, pop, params, sampling, fp), lambda: rep)


def population_key(
    kind: str, pop: Population, params: dict, sampling: Sampling, fp: str
) -> AuditKey:
    """The key of an audit of ``kind`` over the population ``pop``: its collection and
    measure, ``params``, the sampling's method, seed and trials, input fingerprint ``fp``."""
    return AuditKey(
        kind=kind,
        collection_id=pop.collection_id,
        measure=pop.measure,
        params=params,
        method=sampling.method,
        input_fingerprint=fp,
        seed=sampling.seed,
        trials=sampling.trials,
    )


def filter_params(filters: Filters) -> dict:
    """The filters as stored with an audit (the collection and measure are stored beside)."""
    return {
        k: v
        for k, v in dataclasses.asdict(filters).items()
        if k not in ("collection_id", "measure")
    }


def population_params(pop: Population, filters: Filters, **kw) -> dict:
    return {
        "collection": pop.collection_id,
        "measure": pop.measure,
        "filters": filter_params(filters),
        **kw,
    }


def population_fields(
    pop: Population, filters: Filters, summary: PopulationSummary | None = None
) -> dict[str, Any]:
    """The fields every extreme-value report opens with: the population audited and the
    filters that made it (BestReport, ClaimReport, history.HistoryReport); ``summary``:
    :func:`summarize` of them, when computed already."""
    return dict(
        collection_id=pop.collection_id,
        collection_name=pop.collection_name,
        measure=pop.measure,
        source=filters.source,
        filters=filters,
        n_topics=pop.n_topics,
        n_other_topics=pop.n_other_topics,
        population=summarize(pop, filters) if summary is None else summary,
    )


def population_noise(
    con: duckdb.DuckDBPyConnection,
    pop: Population,
    se,
    alpha: float,
    lookups: NoiseLookups | None = None,
) -> NoiseChoice:
    """The standard error of ``pop``'s reference model (:func:`noise.choose_se`)."""
    sets: dict[str | None, int] = {}
    for r in pop.rows:
        sets[r.topic_set] = sets.get(r.topic_set, 0) + 1
    topic_set = max(sets, key=lambda k: sets[k])
    return choose_se(
        con,
        pop.collection_id,
        pop.measure,
        topic_set,
        pop.n_topics,
        [r.value for r in pop.rows],
        se,
        alpha=alpha,
        lookups=lookups,
    )


def shrinkage_of(noise: NoiseChoice, mu: float, value: float) -> Shrinkage | None:
    """The random-effects estimate of ``value`` where the se is not the model's."""
    if noise.source == "model":
        return None
    return shrink(value, mu, noise.sd, noise.se)


def spread_of(noise: NoiseChoice, values) -> SpreadCheck | None:
    """The spread check (not under the model's se: its ratio is sqrt(n) by construction)."""
    if noise.kind == "model" or noise.se_max is None:
        return None
    return spread_check(values, noise.se_max, min_ratio=defaults.BY_INSPECTION_RATIO)


def winners_bias_of(noise: NoiseChoice, values, shrunk: Shrinkage | None) -> WinnersBias | None:
    """The resampling estimate of the best's luck, beside the shrinkage."""
    if shrunk is None:
        return None
    return winners_bias(
        values,
        noise.se,
        weight=shrunk.weight,
        run_ses=noise.run_ses,
        trials=defaults.WINNERS_BIAS_TRIALS,
        seed=defaults.WINNERS_BIAS_SEED,
    )


def se_param(se) -> str | float:
    """The standard error option as stored with an audit."""
    return "default" if se is None else se
