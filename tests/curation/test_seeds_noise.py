"""seeds/reference_noise.json: derived from ../shared/data/pertopic by seeds/noise.py and
loaded by `litaudit init` (schema 012)."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest

from tests.typed import some

SEEDS = Path(__file__).resolve().parents[2] / "seeds"


def _script():
    spec = some(importlib.util.spec_from_file_location("seeds_noise", SEEDS / "noise.py"))
    mod = importlib.util.module_from_spec(spec)
    some(spec.loader).exec_module(mod)
    return mod


def test_reference_noise_is_what_the_matrices_give(shared_data):
    mod = _script()
    assert (SEEDS / "reference_noise.json").read_text(encoding="utf-8") == mod.render(
        mod.derive(shared_data)
    )
    assert mod.main(["--data", str(shared_data), "--check"]) == 0


def test_reference_noise_rows_are_consistent():
    rows = json.loads((SEEDS / "reference_noise.json").read_text(encoding="utf-8"))["noise"]
    assert len(rows) == 20 and len({(r["collection_id"], r["measure"]) for r in rows}) == 20
    for r in rows:
        assert len(r["residual_sds"]) == r["n_runs"]
        # se = sqrt(MS_interaction / n), and the runs' squared sds pool to MS_interaction
        assert r["se"] == pytest.approx(math.sqrt(r["ms_interaction"] / r["n_topics"]), rel=1e-5)
        pooled = sum(s * s for s in r["residual_sds"]) / r["n_runs"]
        assert pooled == pytest.approx(r["ms_interaction"], rel=1e-4)
    by = {(r["collection_id"], r["measure"]): r for r in rows}
    # issue 30's figures: TREC-6 AP 0.0201, TREC-7 AP 0.0155 (Urbano's matrices)
    assert round(by[("trec6-adhoc", "AP")]["se"], 4) == 0.0201
    assert round(by[("disks45/nocr/trec7", "AP")]["se"], 4) == 0.0155
    assert by[("disks45/nocr/trec-robust-2004", "P@10")]["n_topics"] == 249


def test_init_loads_the_reference_noise(seeded_store):
    from litaudit.store.reference_noise import reference_noise

    ref = reference_noise(seeded_store.con)
    assert len(ref) == 20
    t7 = ref[("disks45/nocr/trec7", "AP", 50)]
    assert t7.n_runs == 103 and len(t7.residual_sds) == 103 and "adhoc7_ap.csv" in t7.source
    # every id that names a collection of collections.json is one the store holds
    ids = {r[0] for r in seeded_store.con.execute("SELECT id FROM collections").fetchall()}
    held = {k[0] for k in ref} & ids
    assert held == {
        "trec6-adhoc",
        "disks45/nocr/trec7",
        "disks45/nocr/trec8",
        "disks45/nocr/trec-robust-2004",
    }
