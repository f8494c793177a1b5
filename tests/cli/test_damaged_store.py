"""A damaged or truncated database and a full disk, named as such with what was and
was not written (issue 33), never DuckDB's bare words."""

from __future__ import annotations

import json

import pytest

from tests.conftest import copy_db


@pytest.fixture
def db(cli, reference_db_file):
    copy_db(reference_db_file, cli.db)
    return cli.db


def test_a_truncated_database_is_named_as_such(cli, db):
    data = db.read_bytes()
    db.write_bytes(data[:16384])  # the header and a little more: a copy cut short
    before = db.read_bytes()
    r = cli("results", "list")
    assert r.exit_code == 1
    assert "the database file is damaged or truncated" in r.stderr
    assert "nothing was written" in r.stderr and "Traceback" not in r.stderr
    assert db.read_bytes() == before


def test_a_full_disk_while_adding_a_result_is_named_and_keeps_nothing(cli, db, monkeypatch):
    import duckdb

    from litaudit.store import results_write

    def full(con, records, bibkeys=None):
        raise duckdb.IOException(
            f'IO Error: Could not write file "{db}.wal": No space left on device'
        )

    monkeypatch.setattr(results_write, "insert", full)
    r = cli(
        "results", "add", "-c", "trec7", "-m", "AP", "--value", "0.3", "--system", "s",
        "--role", "official", "--track", "trec7/adhoc", "--who", "ann",
    )  # fmt: skip
    assert r.exit_code == 1, r.output
    assert f"{db}: the disk is full" in r.stderr and "nothing of this command" in r.stderr
    monkeypatch.undo()
    assert json.loads(cli("results", "list", "--json").stdout) == []


def test_describe_error_words():
    from litaudit.store.db import describe_error

    damaged = Exception("TransactionContext Error: Current transaction is aborted (x)")
    assert "damaged or truncated" in describe_error(damaged, "a.duckdb")
    assert describe_error(Exception("Binder Error: x"), None) == "database error: Binder Error: x"
