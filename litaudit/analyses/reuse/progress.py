"""The reusability verdict's progress units (:mod:`litaudit.analyses.reuse.verdict`): each pass
over the archive counts :data:`PASS_STEPS` units, spread over its topic ranges as they are
done, so that a bar moves with every range whatever their number; then one unit per
random hold-out assignment and per sub-collection split."""

from __future__ import annotations

from collections.abc import Callable

from litaudit.analyses.reuse.archive_ranges import RangedArchive

PASS_STEPS = 100  # progress units of one pass over the archive
PASSES = 4  # reading the ranges, RAO, LOU at every depth, the pool tables at every depth


class Pass:
    """One pass over an archive's ``n_parts`` ranges as :data:`PASS_STEPS` units of
    ``tick``: call it after each range (as the ranged analyses' ``progress``), then
    :meth:`finish` (which ticks what is left: all of it when the pass read no range, e.g.
    an audit found stored, or a whole archive in memory)."""

    def __init__(self, tick: Callable[[int], None], n_parts: int):
        self._tick = tick
        self._n = max(n_parts, 1)
        self._done = 0
        self._sent = 0

    def __call__(self, n: int = 1) -> None:
        self._done = min(self._done + n, self._n)
        now = self._done * PASS_STEPS // self._n
        if now > self._sent:
            self._tick(now - self._sent)
            self._sent = now

    def finish(self) -> None:
        if self._sent < PASS_STEPS:
            self._tick(PASS_STEPS - self._sent)
            self._sent = PASS_STEPS


def n_parts(coded) -> int:
    """The ranges a pass over ``coded`` goes through (1 for an archive in memory)."""

    return len(coded.ranges) if isinstance(coded, RangedArchive) else 1


def read_ranges(coded, tick: Callable[[int], None]) -> None:
    """The first reading of a ranged archive's ranges (from DuckDB: the costly pass), as
    one pass of units; nothing for a coded archive (loaded already, its units counted by
    the load)."""

    if not isinstance(coded, RangedArchive):
        return
    p = Pass(tick, len(coded.ranges))
    coded.read(p)
    p.finish()
