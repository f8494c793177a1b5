"""Every text a results import accepts, an export writes so that it imports again (issue 22):
a property test over arbitrary text in every format, the lone carriage return among them;
CSV cells a spreadsheet would run as a formula are neutralised, and import undoes it."""

from __future__ import annotations

import csv
import io

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from litaudit.curation import fields as F
from litaudit.curation.export import export_rows, write_export
from litaudit.curation.importer import import_file
from litaudit.curation.rows import COLUMNS, may_escape
from tests.conftest import examples, rolled_back
from tests.curation.test_curation import GOOD, HEADER, write_csv

TEXT_FIELDS = ("system", "location", "notes", "participant")


def _stored(store, fields):
    cols = ", ".join(fields)
    return store.con.execute(f"SELECT {cols} FROM results ORDER BY system").fetchall()


accepted = st.text(min_size=1, max_size=40).filter(
    lambda s: F.check_text(s) is None and not F.blank(s)
)


@pytest.mark.slow
@example(texts=["a\rb", "=1+1", "-x", "'@y"], fmt="csv")  # the cases
@settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    texts=st.lists(accepted, min_size=4, max_size=4),
    fmt=st.sampled_from(["csv", "json", "parquet"]),
)
def test_any_accepted_text_round_trips_through_every_export(
    shared_stores, tmp_path_factory, texts, fmt
):
    d = tmp_path_factory.mktemp("rt")
    header = HEADER + ["participant", "notes"]
    row = list(GOOD[0]) + [texts[3], texts[2]]
    row[header.index("system")] = texts[0]
    row[header.index("location")] = texts[1]
    src = d / "in.csv"
    with src.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\r\n")  # quotes CR and LF both
        w.writerow(header)
        w.writerow(row)
    a, b = shared_stores
    with rolled_back(a, b):
        assert _stored(a, ["id"]) == _stored(b, ["id"]) == []  # fresh: earlier undone
        import_file(a, src, who="t")
        out = d / f"out.{fmt}"
        write_export(export_rows(a.con), out, fmt)
        import_file(b, out, who="t")
        assert _stored(b, TEXT_FIELDS) == _stored(a, TEXT_FIELDS)


def test_a_lone_carriage_return_is_quoted_in_csv(undone_store, tmp_path):
    row = list(GOOD[0])
    row[HEADER.index("location")] = "Table\r3"
    import_file(undone_store, write_csv(tmp_path / "r.csv", [row]), who="t")
    out = tmp_path / "out.csv"
    write_export(export_rows(undone_store.con), out, "csv")
    assert b'"Table\r3"' in out.read_bytes()


@pytest.mark.parametrize("text", ['=HYPERLINK("http://x")', "+1", "-x", "@SUM(A1)"])
def test_formulas_are_neutralised_in_csv_and_import_undoes_it(shared_stores, tmp_path, text):
    row = list(GOOD[0])
    row[HEADER.index("system")] = text
    a, b = shared_stores  # two databases of the reference data only
    with rolled_back(a, b):
        import_file(a, write_csv(tmp_path / "r.csv", [row]), who="t")
        out = tmp_path / "out.csv"
        write_export(export_rows(a.con), out, "csv")
        (got,) = list(csv.DictReader(io.StringIO(out.read_text(), newline="")))
        assert got["system"] == "'" + text and got["value"] == "0.3574"
        assert list(got) == list(COLUMNS)
        assert _stored(b, ["system"]) == []
        import_file(b, out, who="t")
        assert _stored(b, ["system"]) == [(text,)]


def test_numbers_stay_numbers_in_csv():
    from litaudit.curation.export import csv_line

    row = dict.fromkeys(COLUMNS, "")
    row.update(value="-0.5", n_topics="50", year="2005", notes="-0.5")
    cells = next(csv.reader([csv_line(row)]))
    got = dict(zip(COLUMNS, cells, strict=True))
    assert (got["value"], got["notes"]) == ("-0.5", "'-0.5")


@given(st.text())
def test_neutralising_is_undone_exactly(text):
    from litaudit.curation.rows import spreadsheet_safe, spreadsheet_text

    safe = spreadsheet_safe(text)
    assert spreadsheet_text(safe) == text
    assert safe[:1] not in ("=", "+", "-", "@", "\t", "\r")


@settings(max_examples=examples(100))
@given(st.text(alphabet="a,;'\n\r\"\t", max_size=12), st.sampled_from([",", "\t", ";"]))
def test_a_file_may_hold_an_escaped_cell_when_an_apostrophe_starts_one(text, delimiter):
    # the CSV reader unescapes cells only when one can start with an apostrophe: at the
    # start of the text, after a delimiter, a line end or an opening quote
    starts = text.startswith("'") or any(s + "'" in text for s in (delimiter, "\n", "\r", '"'))
    assert may_escape(text, delimiter) == starts
