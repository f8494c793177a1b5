"""The results insert's two paths (a few rows as one VALUES list, more as a scanned NumPy
table) store the same rows, field for field."""

from __future__ import annotations

import datetime as dt

from litaudit.store import results_write
from tests.conftest import rolled_back


def _records() -> list[dict]:
    base: dict = dict.fromkeys(results_write.COLUMNS)
    base.update(
        source="official",
        track="trec13/robust",
        collection_id="disks45/nocr/trec-robust-2004",
        n_topics=249,
        measure="AP",
        role="official",
        year=2004,
        transcribed_by="ann",
    )
    at = dt.datetime(2026, 11, 25, 22, 41, 31, 123456)
    return [
        {**base, "id": 900001, "system": "a", "value": 0.1 + 0.2, "value_text": "0.3",
         "standard": True, "transcribed_at": "2026-11-20", "status": "draft",
         "created_at": at, "updated_at": at},
        {**base, "id": 900002, "system": "b", "value": 1e-300, "value_text": "1e-300",
         "standard": False, "transcribed_at": dt.date(2026, 11, 21), "status": "verified",
         "notes": "n", "date": "2004-11-16", "location": "Table 1",
         "created_at": "2026-11-25 22:41:31.5", "updated_at": at},
    ]  # fmt: skip


def test_the_values_list_and_the_scan_store_the_same_rows(shared_stores, monkeypatch):
    few, many = shared_stores
    with rolled_back(few, many):
        results_write.insert(few.con, _records(), bibkeys={})  # 2 rows: one VALUES list
        monkeypatch.setattr(results_write, "_FEW", 0)
        results_write.insert(many.con, _records(), bibkeys={})  # the scan
        query = "SELECT * FROM results WHERE id > 900000 ORDER BY id"
        stored = few.con.execute(query).fetchall()
        assert stored == many.con.execute(query).fetchall()
        assert [r[:2] for r in stored] == [(900001, "official"), (900002, "official")]
        assert stored[0][8] == 0.1 + 0.2 and stored[1][8] == 1e-300
