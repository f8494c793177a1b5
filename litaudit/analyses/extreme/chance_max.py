"""Which threshold of the max an audit of published results uses (issue 30, item 3).

Carterette's threshold (SIGIR 2015, Sec. 3.1) is the (1 - alpha) quantile of the max of
N Normal draws with one se. Where the collection's run archive is stored and evaluated
per topic (the se's source 'interaction', :mod:`litaudit.analyses.extreme.noise`), the
threshold is resampled from the archive's residuals instead
(:func:`litaudit.stats.calibrated_max.resampled_max`: each draw a run of the archive with its
own noise, topics resampled), with its Monte Carlo se; `audit claim` falls back to Normal
draws with the reference runs' own ses (:func:`~litaudit.stats.calibrated_max.mixed_noise_max`)
where only the seeded reference noise is measured. Elsewhere the Normal threshold on the
audit's se stands alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from litaudit import defaults
from litaudit.analyses.extreme.noise import NoiseChoice
from litaudit.analyses.extreme.noise_inputs import stored_per_topic
from litaudit.stats.calibrated_max import MixedNoiseMax, mixed_noise_max, resampled_max

if TYPE_CHECKING:
    import duckdb


def archive_max(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    measure: str,
    noise: NoiseChoice,
    *,
    value: float,
    mu: float,
    n_draws: int,
    alpha: float,
) -> MixedNoiseMax | None:
    """The threshold of the max of ``n_draws`` resampled from the stored archive's
    residuals when the audit's se was measured on it (None otherwise)."""
    if noise.source != "interaction" or noise.per_topic is None:
        return None
    scores, _ = stored_per_topic(con, collection_id, measure, noise.n_topics)
    if scores is None:
        return None
    return resampled_max(
        value,
        mu,
        n_draws,
        scores,
        alpha=alpha,
        trials=defaults.RESAMPLED_NULL_TRIALS,
        seed=defaults.RESAMPLED_NULL_SEED,
    )


def claim_max(
    con: duckdb.DuckDBPyConnection,
    collection_id: str,
    measure: str,
    noise: NoiseChoice,
    *,
    value: float,
    mu: float,
    n_draws: int,
    alpha: float,
) -> MixedNoiseMax | None:
    """`audit claim`: the archive's resampled threshold, else Normal draws with each
    reference run's se where measured, else None (the Normal threshold on the se)."""
    found = archive_max(
        con, collection_id, measure, noise, value=value, mu=mu, n_draws=n_draws, alpha=alpha
    )
    if found is not None or not noise.run_ses:
        return found
    return mixed_noise_max(
        value,
        mu,
        n_draws,
        noise.run_ses,
        alpha=alpha,
        trials=defaults.RESAMPLED_NULL_TRIALS,
        seed=defaults.RESAMPLED_NULL_SEED,
    )
