"""What the reusability verdict of a stored run archive is asked with
(:func:`litaudit.analyses.reuse.verdict.run_verdict`): its settings
(:class:`VerdictSettings`), the pool depth it decides at and where that depth comes from
(:func:`collection_depth`: given, else the collection's recorded pool depth), the depths
the shift is computed at beside it (:func:`verdict_depths`), and its progress units
(:func:`verdict_steps`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from litaudit import defaults
from litaudit.analyses.reuse.progress import PASS_STEPS, PASSES
from litaudit.analyses.reuse.subcollection_tau import (
    DEFAULT_SEED as SUBCOLLECTION_SEED,
)
from litaudit.analyses.reuse.subcollection_tau import SubcollectionTest
from litaudit.store.pool_depths import pool_depth

if TYPE_CHECKING:
    import duckdb


def verdict_steps(depths, assignments: int, permutations: int, subcollections: bool) -> int:
    """Progress units of :func:`run_verdict` (for a progress bar)."""
    return PASSES * PASS_STEPS + assignments + (permutations if subcollections else 0)


def verdict_depths(depth: int | None) -> tuple[int, ...]:
    """The depths at which the shift is computed: the deciding one and
    ``defaults.LOU_DEPTHS`` beside it (all of them when the depth is unknown)."""
    return tuple(sorted(set(defaults.LOU_DEPTHS) | ({depth} if depth else set())))


def collection_depth(
    con: duckdb.DuckDBPyConnection, cid: str, depth: int | None = None
) -> tuple[int | None, str | None]:
    """The depth to decide at and its source: the one given, else the collection's
    recorded pool depth, else (None, None)."""
    if depth is not None:
        return depth, "given with --depth"

    found = pool_depth(con, cid)
    return (None, None) if found is None else found


@dataclass(frozen=True, kw_only=True)
class VerdictSettings:
    """What the verdict of a stored run archive is asked with: the pool ``depth`` it
    decides at (None: the collection's recorded one; no decision when unknown), the
    equivalence margin ``margin_pct`` and the level ``alpha`` of each one-sided test; the
    agreement analysis's ``assignments`` random hold-out assignments from ``seed``; and
    with ``subcollections`` the sub-collection test as ``splits`` asks it (its own seed)."""

    depth: int | None = None
    margin_pct: float = defaults.REUSE_MARGIN_PCT
    alpha: float = defaults.REUSE_ALPHA
    assignments: int = defaults.AGREEMENT_ASSIGNMENTS
    seed: int = defaults.AGREEMENT_SEED
    subcollections: bool = False
    splits: SubcollectionTest = SubcollectionTest(seed=SUBCOLLECTION_SEED)
    topics: str | None = None  # decide on these topics only ("601-650"; None: all)
    resamples: int = defaults.REUSE_BOOTSTRAP  # the interval's bootstrap over topics
    boot_seed: int = defaults.REUSE_BOOTSTRAP_SEED
