"""A small least-recently-used memo of the seeded simulations a process repeats (the
winner's bias and the maxima of a mixed-noise threshold: :mod:`litaudit.stats.noise`,
:mod:`litaudit.stats.calibrated_max`).

A simulation here is a pure function of its inputs (arrays, sizes and the seed of its
numpy Generator), so its result is kept under the exact bytes of those inputs and handed
back when the same inputs come again: the claim, best and history audits of one population
(`audit report`, `audit summary`, the site) ask for the same winner's bias, and audits of
one collection for the same simulated maxima. The answer is the one a fresh computation
gives, bit for bit; only the repeated CPU goes. Kept results must be immutable (frozen
dataclasses, read-only arrays).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

T = TypeVar("T")

SIZE = 128  # results kept per memo (a few hundred kB: arrays of a few thousand floats)


class Memo(Generic[T]):
    """Results of one pure function by the key of their inputs, the ``size`` most recently
    used kept."""

    def __init__(self, size: int = SIZE) -> None:
        self.size = size
        self._kept: dict[Hashable, T] = {}

    def get(self, key: Hashable, make: Callable[[], T]) -> T:
        """The kept result of ``key``, else ``make()`` kept under it."""
        try:
            out = self._kept.pop(key)  # re-inserted below: the most recently used last
        except KeyError:
            out = make()
        self._kept[key] = out
        if len(self._kept) > self.size:
            del self._kept[next(iter(self._kept))]
        return out

    def kept(self) -> list[T]:
        """The kept results, the least recently used first."""
        return list(self._kept.values())

    def clear(self) -> None:
        self._kept.clear()
