"""Messages for the last silent or raw failures (issue 22): a FIFO or device as the
database, a full disk during `runs import`, an out-of-range measure cut-off, BibTeX
parser log lines."""

from __future__ import annotations

import os

import pytest

from tests.conftest import copy_db
from tests.curation.test_curation import GOOD, HEADER, write_csv


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_as_the_database_is_refused_at_once(cli, tmp_path, monkeypatch):
    fifo = tmp_path / "db.fifo"
    os.mkfifo(fifo)
    for args in (("results", "list"), ("init",)):
        r = cli(*args, db=fifo)
        assert r.exit_code == 1
        assert r.stderr.strip() == (
            f"Error: {fifo}: is a FIFO (named pipe), not a database file; give --db a file path"
        )


def test_a_device_or_folder_as_the_database_is_refused(cli, tmp_path):
    if os.path.exists("/dev/null"):
        r = cli("db", "info", db="/dev/null")
        assert r.exit_code == 1 and "/dev/null: is a device, not a database file" in r.stderr
    r = cli("db", "info", db=tmp_path)
    assert r.exit_code == 1 and f"{tmp_path}: is a directory, not a database file" in r.stderr


def test_a_full_disk_during_runs_import_names_the_disk_and_writes_nothing(
    mem_store, tmp_path, monkeypatch
):
    import duckdb

    from litaudit.errors import LitauditError
    from litaudit.runs import ingest
    from litaudit.runs.archive import list_runs
    from tests.runs.test_runs_chunks import CHUNK, CID, GROUP, _qrels, _run_lines

    q = _qrels(tmp_path / "q.txt")
    big = tmp_path / "big.txt"
    big.write_text("".join(_run_lines(range(1, 9), seed=3)))
    real = ingest.commit_group
    calls: list[object] = []

    def full_on_second(*a, **kw):
        if calls:
            raise duckdb.IOException(
                'IO Error: Could not write file "x.duckdb.wal": No space left on device'
            )
        calls.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(ingest, "commit_group", full_on_second)
    with pytest.raises(LitauditError) as e:
        ingest.import_archive(
            mem_store,
            CID,
            [big],
            qrels_path=q,
            grouping=ingest.Grouping(group_bytes=GROUP, chunk_bytes=CHUNK),
        )
    folder = tmp_path.resolve()
    assert str(e.value).startswith(f"the disk holding {folder} is full (")
    assert "nothing was written" in str(e.value)
    assert list_runs(mem_store.con, CID) == []
    assert mem_store.con.execute("SELECT count(*) FROM run_qrels").fetchone()[0] == 0


def test_an_out_of_range_cutoff_is_named_with_file_and_line(cli, reference_db_file, tmp_path):
    copy_db(reference_db_file, cli.db)
    row = list(GOOD[0])
    row[HEADER.index("measure")] = "P@99999999999999999999"
    f = write_csv(tmp_path / "r.csv", [GOOD[1], row])
    r = cli("results", "import", str(f))
    assert r.exit_code == 1
    assert (
        f"{f}:3: measure: measure 'P@99999999999999999999': the cutoff is too large "
        "(at most 2147483647)"
    ) in r.stderr
    assert "Conversion Error" not in r.stderr


@pytest.mark.slow  # ~0.4 s of CPU (--cpu-durations): a litaudit subprocess
def test_bibtex_parse_errors_print_no_parser_log_lines(cli, reference_db_file, tmp_path):
    copy_db(reference_db_file, cli.db)
    bib = tmp_path / "bad.bib"
    bib.write_text(
        "@article{x,\n title = {A {Title},\n author = {Doe}\n}\n"
        "@inproceedings{y, title={B}, author={E}, year={2020}, booktitle={SIGIR}}\n"
    )
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "litaudit", "--db", str(cli.db), "papers", "import", str(bib)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        f"  {bib}:1: cannot parse BibTeX: Unexpected block start: `@inproceedings`. "
        "Was still looking for field-value closing `,` or `}`",
        "Error: 1 problem(s); nothing was written",
    ]


# ------------------------------------------------------------------ curation help


def test_results_import_help_documents_every_column():
    from typer.testing import CliRunner

    from litaudit.cli.main import app
    from litaudit.curation.rows import COLUMNS

    r = CliRunner().invoke(app, ["results", "import", "--help"], env={"COLUMNS": "120"})
    assert r.exit_code == 0
    lines = [ln.strip() for ln in r.stdout.splitlines()]
    for c in COLUMNS:
        assert any(ln.startswith(c + " ") for ln in lines), c
    assert "litaudit results template FILE" in r.stdout


def test_the_template_imports_into_a_new_store_with_who_and_today(cli, reference_db_file, tmp_path):
    import csv
    import datetime as dt
    import json

    from litaudit.curation.rows import COLUMNS

    copy_db(reference_db_file, cli.db)
    t = tmp_path / "t.csv"
    r = cli("results", "template", str(t))
    assert r.exit_code == 0 and f"wrote 2 example rows to {t}" in r.stdout
    rows = list(csv.DictReader(t.open(newline="")))
    assert list(rows[0]) == list(COLUMNS) and [x["source"] for x in rows] == ["paper", "official"]
    assert all(x["transcribed_by"] == x["transcribed_at"] == "" for x in rows)
    r = cli("results", "import", str(t), "--who", "zoe")
    assert r.exit_code == 0, r.output
    got = json.loads(cli("results", "list", "--json").stdout)
    today = dt.datetime.now(dt.UTC).date().isoformat()
    assert {(x["transcribed_by"], x["transcribed_at"], x["status"]) for x in got} == {
        ("zoe", today, "draft")
    }
    assert sorted(x["value_text"] for x in got) == ["0.2625", "0.3773"]  # as seeded


@pytest.mark.parametrize(
    "name, meant",
    [
        ("dataset", "collection"),
        ("metric", "measure"),
        ("score", "value"),
        ("model", "system"),
        ("Dataset", "collection"),
        ("colection", "collection"),
    ],
)
def test_column_names_curators_use_get_a_suggestion(undone_store, tmp_path, name, meant):
    from litaudit.curation.importer import import_file
    from litaudit.errors import ValidationFailed

    header = [(name if h == meant else h) for h in HEADER]
    with pytest.raises(ValidationFailed) as e:
        import_file(undone_store, write_csv(tmp_path / "c.csv", GOOD, header), who="t")
    assert f"unknown column {name!r}; did you mean {meant!r}?" in str(e.value)
