"""The column-wise check of a results file (curation/row_columns.py) gives each row what the
row-by-row one (row_fields.parse_row) gives it, or leaves the file to it: on the seed
files themselves, and on seed rows with one field changed."""

from __future__ import annotations

import dataclasses
import functools

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from litaudit.curation.import_context import Context
from litaudit.curation.row_columns import row_values
from litaudit.curation.row_fields import parse_row
from litaudit.curation.rows import Row, read_table
from litaudit.curation.seed import seed_files
from litaudit.errors import Problem
from tests.conftest import examples

ROWS_PER_FILE = 1500  # of each seed file: its first rows (trec_official's: 10 tracks)


def _by_rows(con, rows: list[Row]) -> list[tuple[list, str | None, list[Problem]]]:
    """parse_row of each row: (its values as items, in order; its bibkey; its problems)."""
    ctx = Context(con, rows)
    out = []
    for row in rows:
        problems: list[Problem] = []

        def bad(msg, fld=None, _line=row.line, _p=problems):
            _p.append(Problem("f.csv", _line, msg, fld))

        v, bibkey, missing = parse_row(ctx, set(), row, "f.csv", problems, bad, set(), set(), {})
        out.append((list(v.items()), bibkey, problems + [Problem("f.csv", 0, m) for m in missing]))
    return out


def _by_columns(con, rows: list[Row]) -> list[tuple[list, str | None]] | None:
    got = row_values(Context(con, rows), set(), rows)
    return None if got is None else [(list(v.items()), b) for v, b in got]


@functools.cache
def _trec_rows() -> tuple[Row, ...]:
    """The first 20 rows of seeds/results/trec_official.csv (as read, never changed)."""
    (path,) = (p for p in seed_files() if p.name == "trec_official.csv")
    return tuple(read_table(path).rows[:20])


@pytest.fixture(scope="module")
def seed_rows() -> dict[str, list[Row]]:
    return {p.name: read_table(p).rows[:ROWS_PER_FILE] for p in seed_files()}


@pytest.mark.slow
def test_every_seed_file_gets_the_values_row_by_row_gives(seeded_db_file, seed_rows):
    from litaudit.store.db import open_store

    with open_store(seeded_db_file, read_only=True) as store:
        for name, rows in seed_rows.items():
            by_rows = _by_rows(store.con, rows)
            assert all(not p for _, _, p in by_rows), name
            assert _by_columns(store.con, rows) == [(v, b) for v, b, _ in by_rows], name


# fields of a trec_official row, and texts to put in one: blanks, spaces, other case,
# names of nothing, out-of-range values, a control character
FIELDS = "source collection measure value system role year track topic_set n_topics date"
FIELDS += " url status paper transcribed_at"
TEXTS = ["", " ", "official", "PAPER", "trec7", "robust04", "nope", "AP", "P@15", "ndcg@10"]
TEXTS += ["0.25", "1.5", "-0", "x", "2004", "1900", "trec7/adhoc", "a//b", "50", "0"]
TEXTS += ["2020-02-30", "2021-05-01", "ftp://x", "verified", "retracted", "voorhees2004"]
TEXTS += ["a\x00b", "\u202eabc", " 0.3 "]


# ... and texts a valid row may hold in its free fields
FREE = ("system", "participant", "location", "notes", "value", "date", "url", "run_type")
free_text = st.one_of(
    st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")), max_size=8),
    st.floats(0, 1).map(lambda x: f"{x:.4f}"),
    st.dates().map(lambda d: d.isoformat()),
    st.sampled_from(["https://trec.nist.gov/x", "manual", "AUTO", ""]),
)


@pytest.mark.slow
@settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    changes=st.lists(
        st.one_of(
            st.tuples(st.integers(0, 19), st.sampled_from(FIELDS.split()), st.sampled_from(TEXTS)),
            st.tuples(st.integers(0, 19), st.sampled_from(FREE), free_text),
            st.tuples(st.integers(0, 19), st.sampled_from(FREE[:4]), free_text),
        ),
        min_size=1,
        max_size=3,
    )
)
@example(changes=[(0, "track", "")])  # an official result without its track
@example(changes=[(1, "collection", "nope")])
@example(changes=[(2, "measure", "x")])
@example(changes=[(3, "value", "1.5")])  # outside AP's range
@example(changes=[(4, "system", "a\x00b")])
@example(changes=[(5, "topic_set", "nope")])
@example(changes=[(6, "n_topics", "0")])
@example(changes=[(7, "date", "2020-02-30")])
@example(changes=[(8, "source", "paper")])  # a paper result without a paper
@example(changes=[(9, "status", "verified"), (9, "run_type", "AUTO")])  # valid
def test_a_changed_row_gets_the_same_values_or_is_left_to_the_row_check(mem_store, changes):
    """Whenever the column-wise check answers, every row is valid row by row and gets
    the same values; a row the row-by-row check finds a problem in is never answered."""
    rows = [dataclasses.replace(r, data=dict(r.data)) for r in _trec_rows()]
    for i, name, text in changes:
        rows[i].data[name] = text
    by_rows = _by_rows(mem_store.con, rows)
    got = _by_columns(mem_store.con, rows)
    if any(p for _, _, p in by_rows):
        assert got is None
    else:
        assert got == [(v, b) for v, b, _ in by_rows]


def test_rows_that_are_not_all_texts_or_not_of_one_shape_are_left_to_the_row_check(
    mem_store, seed_rows
):
    rows = seed_rows["trec_official.csv"][:3]
    assert _by_columns(mem_store.con, rows) is not None
    as_json = [dataclasses.replace(rows[0], data={**rows[0].data, "n_topics": 50}), *rows[1:]]
    assert _by_columns(mem_store.con, as_json) is None
    shorter = {k: v for k, v in rows[1].data.items() if k != "notes"}
    assert _by_columns(mem_store.con, [rows[0], dataclasses.replace(rows[1], data=shorter)]) is None
    assert _by_columns(mem_store.con, []) is None


def test_a_paper_the_database_lacks_is_left_to_the_row_check(mem_store, seed_rows):
    """robust04_literature's rows describe their papers: new to a database without them
    (the row check prepares them), known to the seeded one."""
    rows = seed_rows["robust04_literature.csv"][:5]
    assert _by_columns(mem_store.con, rows) is None
