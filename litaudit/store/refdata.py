"""Reference data: what ``litaudit init`` seeds besides the results.

:func:`load_reference_data` inserts the collections (with aliases, topic sets and pool
depths) of ``seeds/collections.json``, the measures of the measure registry and the
reference noise of ``seeds/reference_noise.json`` through their tables' owners
(:mod:`~litaudit.store.collections`, :mod:`~litaudit.store.measures`,
:mod:`~litaudit.store.pool_depths`, :mod:`~litaudit.store.reference_noise`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from litaudit.measures import DEFAULT_MEASURES
from litaudit.store import collections, measures, pool_depths, reference_noise
from litaudit.store.collections import SEEDS_DIR

if TYPE_CHECKING:
    import duckdb

__all__ = ["SEEDS_DIR", "load_reference_data"]


def load_reference_data(
    con: duckdb.DuckDBPyConnection, seeds_dir: Path = SEEDS_DIR
) -> dict[str, int]:
    """Insert collections, aliases, topic sets and measures that are not there yet."""
    data = json.loads((seeds_dir / "collections.json").read_text(encoding="utf-8"))
    added = {"collections": collections.insert_seeded(con, data["collections"])}
    pool_depths.insert_seeded(con, data["collections"])
    added["measures"] = measures.ensure_measures(con, DEFAULT_MEASURES)
    reference_noise.load_seeded(con, seeds_dir)
    return added
