"""Python's cycle collector held off while a whole store is read or written at once."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector held off for the block: loading the seeds, or reading,
    checking, syncing or writing a store folder keeps some 2 million objects alive (35,000
    results, their lines, values and history) until it ends, and each full collection
    walks them all. Those passes cost a quarter of the seeds' load and a tenth of `check`
    and `export-tree` of the seeded store's folder (3.73-3.98 -> 3.34-3.59 s and
    1.78-1.85 -> 1.61-1.64 s of CPU); none of them makes cycles to collect. Reference
    counting frees everything as usual; the collector is back (if it was on) after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
