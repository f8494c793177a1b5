"""`results export`'s JSON writer (issue 15 item 5): the curation export is written by
the standard library's C encoder one flat object at a time, byte for byte what
``json.dump(..., indent=1, ensure_ascii=False)`` writes, and counts its rows as it goes."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litaudit.curation.export import PROGRESS_ROWS, export_steps, json_chunks, write_export
from tests.conftest import examples

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
keys = st.text() | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False)
documents = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=4).map(tuple)
        | st.dictionaries(keys, inner, max_size=4)
        | st.dictionaries(st.text(), inner, max_size=4)
    ),
    max_leaves=30,
)


@pytest.fixture(scope="module")
def small_seeded(small_seeded_db_file):
    """The small seeded database (tests/conftest.py), open read-only for the module: these
    tests read it (no private copy to write and open for each)."""
    from litaudit.store.db import open_store

    with open_store(small_seeded_db_file, read_only=True) as store:
        yield store


@pytest.mark.slow
@settings(max_examples=examples(400))
@given(documents, st.integers(0, 4))
def test_json_chunks_write_what_json_dump_writes(doc, indent):
    expected = json.dumps(doc, indent=indent, ensure_ascii=False)
    assert "".join(json_chunks(doc, indent)) == expected


def test_the_whole_seeded_export_is_what_json_dump_writes(small_seeded, tmp_path):
    """The export of a seeded store (the small seed set: every seed row of three
    collections, their papers and history; the writer's bytes depend on the rows' shapes,
    which these hold, not on their number) is json.dump's, counted in steps."""
    from litaudit.curation.bundle import export_bundle
    from litaudit.curation.filters import CURATION

    bundle = export_bundle(small_seeded.con, CURATION)
    assert len(bundle["results"]) > 1_000 and bundle["history"]
    out = tmp_path / "all.json"
    seen: list[int] = []
    write_export(bundle["results"], out, "json", bundle=bundle, progress=seen.append)
    expected = json.dumps(bundle, indent=1, ensure_ascii=False) + "\n"
    assert out.read_bytes() == expected.encode("utf-8")
    steps = export_steps(bundle["results"], "json", bundle)
    assert steps == len(bundle["papers"]) + len(bundle["results"]) + len(bundle["history"])
    assert sum(seen) == steps and len(seen) == -(-steps // PROGRESS_ROWS)
    assert all(s == PROGRESS_ROWS for s in seen[:-1])


def test_csv_and_a_bare_json_list_count_their_rows(small_seeded, tmp_path, monkeypatch):
    """Rows written in steps of PROGRESS_ROWS, 100 here: two whole steps and a part take
    203 of the small seed set's rows (the steps count the same at the 1,000 of a step
    outside this test, where 2,003 rows written three ways cost ~0.1 s of CPU more)."""
    from litaudit.curation import export
    from litaudit.curation.export import export_rows
    from litaudit.curation.filters import CURATION

    monkeypatch.setattr(export, "PROGRESS_ROWS", 100)
    step = export.PROGRESS_ROWS
    rows = export_rows(small_seeded.con, CURATION)
    assert len(rows) > 2 * step + 3
    rows = rows[: 2 * step + 3]  # two whole steps and a part
    for fmt in ("csv", "json"):
        seen: list[int] = []
        write_export(rows, tmp_path / f"x.{fmt}", fmt, progress=seen.append)
        assert seen == [step, step, 3]
        assert sum(seen) == export_steps(rows, fmt) == len(rows)
    assert (tmp_path / "x.json").read_text(encoding="utf-8") == json.dumps(
        rows, indent=1, ensure_ascii=False
    ) + "\n"
    seen = []
    write_export(rows, tmp_path / "x.parquet", "parquet", progress=seen.append)
    assert seen == [export_steps(rows, "parquet")] == [1]
