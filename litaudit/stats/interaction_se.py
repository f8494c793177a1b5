"""The standard error of a system's mean from the system x topic interaction.

Two-way analysis of variance without replication of a matrix of scores (systems x topics):
score_ij = mu + system_i + topic_j + e_ij. The interaction (residual) mean square
MS = sum_ij (x_ij - xbar_i. - xbar_.j + xbar..)^2 / ((s - 1)(t - 1)) estimates the
variance of a score once the topic's difficulty is taken out, so sqrt(MS / t) is the
standard error of a system's mean over the t topics with the topics' difficulty removed
(the ANOVA of TREC scores: Banks, Over, Zhang, "Blind Men and Elephants: Six Approaches
to TREC Data", Information Retrieval 1, 1999).

Pure: arrays in, frozen dataclasses out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from litaudit.errors import ParameterError


@dataclass(frozen=True)
class InteractionSE:
    """``se`` = sqrt(``ms_interaction`` / ``n_topics``) of ``n_systems`` x ``n_topics``
    scores; ``df`` = (s - 1)(t - 1)."""

    n_systems: int
    n_topics: int
    ms_interaction: float
    df: int
    se: float


def interaction_se(scores) -> InteractionSE:
    """The interaction se of a complete (systems, topics) matrix of scores."""
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        raise ParameterError(
            f"the interaction se needs at least 2 systems x 2 topics, got shape {x.shape}"
        )
    if not np.all(np.isfinite(x)):
        raise ParameterError("the interaction se needs every system scored on every topic")
    s, t = x.shape
    resid = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    df = (s - 1) * (t - 1)
    ms = float(np.sum(resid * resid) / df)
    return InteractionSE(s, t, ms, df, math.sqrt(ms / t))
