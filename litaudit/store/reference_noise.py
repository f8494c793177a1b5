"""The ``reference_noise`` table (schema 012): the seeded reference noise of each
collection, measure and topic count (docs/DEVELOPING.md, "Who owns which table")."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

    pass


def load_seeded(con: duckdb.DuckDBPyConnection, seeds_dir: Path) -> None:
    """The reference noise of seeds/reference_noise.json (schema 012; derived by
    seeds/noise.py): the file's rows replace the seeded ones (derived figures, which
    nobody edits)."""
    path = seeds_dir / "reference_noise.json"
    if not path.exists():
        return
    rows = json.loads(path.read_text(encoding="utf-8"))["noise"]
    con.execute("DELETE FROM reference_noise")
    if not rows:
        return
    cols = ("collection_id", "measure", "n_topics", "n_runs", "se", "ms_interaction", "mean")
    types = ("VARCHAR", "VARCHAR", "INTEGER", "INTEGER", "DOUBLE", "DOUBLE", "DOUBLE")
    sel = ", ".join(f"unnest(?::{t}[])" for t in (*types, "DOUBLE[]", "VARCHAR"))
    con.execute(
        f"INSERT INTO reference_noise ({', '.join(cols)}, residual_sds, source) SELECT {sel}",
        [[r[c] for r in rows] for c in (*cols, "residual_sds", "source")],
    )


@dataclass(frozen=True)
class ReferenceNoise:
    """A seeded reference noise (schema 012): the interaction se of one run's mean over
    ``n_topics`` topics, each run's residual sd, and where they were measured."""

    collection_id: str
    measure: str
    n_topics: int
    n_runs: int
    se: float
    ms_interaction: float
    mean: float
    residual_sds: tuple[float, ...]
    source: str


def reference_noise(con: duckdb.DuckDBPyConnection) -> dict[tuple[str, str, int], ReferenceNoise]:
    """Every stored reference noise by (collection id, measure, topics), read at once."""
    out = {}
    for row in con.execute(
        "SELECT collection_id, measure, n_topics, n_runs, se, ms_interaction, mean, "
        "residual_sds, source FROM reference_noise"
    ).fetchall():
        cid, measure, n, k, se, ms, mean, sds, source = row
        rn = ReferenceNoise(
            collection_id=cid,
            measure=measure,
            n_topics=n,
            n_runs=k,
            se=se,
            ms_interaction=ms,
            mean=mean,
            residual_sds=tuple(sds),  # DOUBLE[]: Python floats already
            source=source,
        )
        out[(rn.collection_id, rn.measure, rn.n_topics)] = rn
    return out
