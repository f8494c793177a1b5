"""The store: migrations, schema/model agreement, constraints, locking, version checks."""

from __future__ import annotations

import subprocess
import sys

import duckdb
import pytest

from litaudit.errors import SchemaOutdated, SchemaTooNew, StoreError, StoreLocked
from litaudit.store import migrations
from litaudit.store.db import open_store
from tests.conftest import copy_db


def test_migrations_are_numbered_in_order():
    ms = migrations.available()
    versions = [m.version for m in ms]
    assert versions == sorted(set(versions)) and versions[0] == 1
    assert ms[0].name == "core"


def test_a_migration_merged_with_a_lower_number_is_still_applied(tmp_path, monkeypatch):
    schema = tmp_path / "schema"
    schema.mkdir()
    (schema / "001_core.sql").write_text("CREATE TABLE a (x INTEGER);")
    (schema / "004_cache.sql").write_text("CREATE TABLE d (x INTEGER);")
    monkeypatch.setattr(migrations, "SCHEMA_DIR", schema)
    con = duckdb.connect(str(tmp_path / "m.duckdb"))
    assert [m.version for m in migrations.migrate(con, "m")] == [1, 4]
    (schema / "003_dates.sql").write_text("CREATE TABLE c (x INTEGER);")
    assert [m.version for m in migrations.pending(con)] == [3]
    assert [m.version for m in migrations.migrate(con, "m")] == [3]
    assert migrations.pending(con) == [] and migrations.db_version(con) == 4
    con.execute("SELECT * FROM c").fetchall()
    (schema / "004_other.sql").write_text("CREATE TABLE e (x INTEGER);")
    with pytest.raises(StoreError, match="distinct"):
        migrations.available()


def test_migrate_records_every_file_and_is_idempotent(tmp_path):
    path = tmp_path / "a.duckdb"
    with open_store(path) as s:
        applied = [v for v, _, _ in migrations.applied(s.con)]
        assert applied == [m.version for m in migrations.available()]
    with open_store(path) as s:  # second open applies nothing new
        assert [v for v, _, _ in migrations.applied(s.con)] == applied


def _catalog(con) -> dict[str, list[tuple]]:
    """A database's schema, for comparing two: every object's DDL, column, constraint and
    sequence (with its state), and the recorded migrations."""
    db = "WHERE database_name = current_database()"
    return {
        what: con.execute(query).fetchall()
        for what, query in {
            "tables": f"SELECT table_name, sql FROM duckdb_tables() {db} ORDER BY 1",
            "views": f"SELECT view_name, sql FROM duckdb_views() {db} AND NOT internal ORDER BY 1",
            "indexes": f"SELECT index_name, sql FROM duckdb_indexes() {db} ORDER BY 1",
            "columns": "SELECT table_name, column_index, column_name, data_type, "
            f"column_default, is_nullable FROM duckdb_columns() {db} ORDER BY ALL",
            "constraints": "SELECT table_name, constraint_type, constraint_text, "
            f"constraint_column_names FROM duckdb_constraints() {db} ORDER BY ALL",
            "sequences": "SELECT sequence_name, sql, start_value, last_value "
            f"FROM duckdb_sequences() {db} ORDER BY ALL",
            "migrations": "SELECT version, name FROM _migrations ORDER BY ALL",
        }.items()
    }


def test_the_schema_snapshot_is_current_and_builds_what_the_files_build():
    from litaudit.store import schema_snapshot

    ms = migrations.available()
    by_files, by_snapshot = duckdb.connect(), duckdb.connect()
    migrations.ensure_table(by_files)
    migrations.apply_files(by_files, ms)
    path = migrations.SCHEMA_DIR / migrations.SNAPSHOT
    assert path.read_text(encoding="utf-8") == schema_snapshot.written(by_files, ms), (
        f"{path} is not the snapshot of schema/: run `python -m litaudit.store.schema_snapshot`"
    )
    assert migrations.snapshot(ms) is not None  # what a new database runs
    assert migrations.migrate(by_snapshot, ":memory:") == ms
    assert _catalog(by_snapshot) == _catalog(by_files)
    assert len(_catalog(by_files)["tables"]) == 22


def test_a_snapshot_of_other_files_is_not_used(tmp_path, monkeypatch):
    schema = tmp_path / "schema"
    (schema / "current").mkdir(parents=True)
    (schema / "001_core.sql").write_text("CREATE TABLE a (x INTEGER);")
    monkeypatch.setattr(migrations, "SCHEMA_DIR", schema)
    ms = migrations.available()
    (schema / migrations.SNAPSHOT).write_text(
        f"-- digest: {migrations.digest(ms)}\nCREATE TABLE b (x INTEGER);\n"
    )
    con = duckdb.connect()
    assert migrations.migrate(con, "m") == ms
    con.execute("SELECT * FROM b").fetchall()  # the snapshot of these files: used
    (schema / "001_core.sql").write_text("CREATE TABLE c (x INTEGER);")  # the files changed
    con = duckdb.connect()
    assert migrations.migrate(con, "m") == migrations.available()
    con.execute("SELECT * FROM c").fetchall()
    with pytest.raises(duckdb.CatalogException):
        con.execute("SELECT * FROM b")


def test_newer_database_is_refused(reference_db_file, tmp_path):
    path = tmp_path / "new.duckdb"
    copy_db(reference_db_file, path)  # a current database (the migrations: ~50 ms)
    with open_store(path) as s:
        s.con.execute("INSERT INTO _migrations (version, name) VALUES (999, 'future')")
    with pytest.raises(SchemaTooNew, match="newer than this litaudit knows"):
        open_store(path)
    with pytest.raises(SchemaTooNew):
        open_store(path, read_only=True)


def test_read_only_never_creates_a_database(tmp_path):
    path = tmp_path / "missing.duckdb"
    with pytest.raises(StoreError, match="no database here"):
        open_store(path, read_only=True)
    assert not path.exists()


def test_read_only_on_outdated_schema_asks_for_migrate(tmp_path):
    path = tmp_path / "old.duckdb"
    duckdb.connect(str(path)).close()  # an empty DuckDB file, schema version 0
    with pytest.raises(SchemaOutdated, match="litaudit db migrate"):
        open_store(path, read_only=True)


def test_database_held_by_another_process_is_a_clear_error(reference_db_file, tmp_path):
    path = tmp_path / "held.duckdb"
    copy_db(reference_db_file, path)  # a current database
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import duckdb, sys, time; c = duckdb.connect({str(path)!r}); "
            "print('ready', flush=True); sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    try:
        assert holder.stdout.readline().strip() == "ready"
        with pytest.raises(StoreLocked, match=r"in use by another process \(PID \d+\)"):
            open_store(path)
    finally:
        holder.communicate("")


def _db_columns(con, table):
    return {
        r[0]: r[1]
        for r in con.execute(
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_name = ? AND table_catalog = current_database()",
            [table],
        ).fetchall()
    }


_TYPES = {int: {"INTEGER", "BIGINT"}, str: {"VARCHAR"}, bool: {"BOOLEAN"}, float: {"DOUBLE"}}


@pytest.mark.slow  # ~0.4 s of CPU (--cpu-durations): sqlmodel's import
def test_models_and_tables_agree(mem_store):
    import datetime as dt
    import typing

    from sqlmodel import SQLModel

    # here, not at the module's top: sqlmodel with pydantic and SQLAlchemy takes ~0.7 s
    # to import, which every xdist worker paid to collect this file (the product loads
    # it only to add papers)
    from litaudit.store.models import ALL_MODELS

    for model in typing.cast("list[type[SQLModel]]", ALL_MODELS):
        table = str(model.__tablename__)
        cols = _db_columns(mem_store.con, table)
        hints = typing.get_type_hints(model)
        fields = set(model.model_fields)
        assert fields == set(cols), f"{table}: model {sorted(fields ^ set(cols))} differ"
        for name in fields:
            hint = hints[name]
            base = [a for a in typing.get_args(hint) if a is not type(None)] or [hint]
            t = base[0]
            if t is dt.datetime:
                assert cols[name].startswith("TIMESTAMP"), (table, name, cols[name])
            elif t is dt.date:
                assert cols[name] == "DATE", (table, name)
            elif typing.get_origin(t) is list:  # a list of strings (topic_sets.parts)
                assert cols[name] == "VARCHAR[]", (table, name, cols[name])
            else:
                assert cols[name] in _TYPES[t], (table, name, cols[name])


def test_values_are_stored_as_double_not_float32(undone_store):
    from litaudit.store.measures import value_range

    found = value_range(undone_store.con, "AP")
    assert found is not None
    lo, hi = found
    assert isinstance(lo, float) and isinstance(hi, float) and (lo, hi) == (0.0, 1.0)
    undone_store.con.execute("CREATE TEMP TABLE probe AS SELECT CAST('0.2531' AS DOUBLE) v")
    (v,) = undone_store.con.execute("SELECT v FROM probe").fetchone()
    assert repr(v) == "0.2531"


@pytest.mark.parametrize(
    "column,bad", [("role", "winner"), ("status", "done"), ("run_type", "semi"), ("source", "blog")]
)
def test_check_constraints_reject_bad_values(undone_store, column, bad):
    row = {
        "source": "official",
        "track": "trec7/adhoc",
        "collection_id": "disks45/nocr/trec7",
        "n_topics": 50,
        "measure": "AP",
        "value": 0.3,
        "value_text": "0.3",
        "system": "x",
        "role": "official",
        "year": 1998,
        "transcribed_by": "t",
        "transcribed_at": "2026-11-22",
    }
    row[column] = bad
    cols = ", ".join(row)
    with pytest.raises(duckdb.ConstraintException):
        undone_store.con.execute(
            f"INSERT INTO results ({cols}) VALUES ({', '.join('?' * len(row))})", list(row.values())
        )


def test_natural_key_is_unique(undone_store):
    sql = (
        "INSERT INTO results (source, track, collection_id, n_topics, measure, value, "
        "value_text, system, role, year, transcribed_by, transcribed_at) VALUES "
        "('official', 'trec7/adhoc', 'disks45/nocr/trec7', 50, 'AP', 0.3, '0.3', 'x', "
        "'official', 1998, 't', DATE '2026-11-22')"
    )
    undone_store.con.execute(sql)
    with pytest.raises(duckdb.ConstraintException):
        undone_store.con.execute(sql)


def test_any_alias_resolves(undone_store):
    from litaudit.errors import NotFound
    from litaudit.store.collections import resolve_collection
    from litaudit.store.measures import resolve_measure

    for alias in ("robust04", "Robust04", "disks45/nocr/trec-robust-2004", "ROBUST2004"):
        c = resolve_collection(undone_store.con, alias)
        assert c.id == "disks45/nocr/trec-robust-2004" and c.default_topics == 249
    assert resolve_collection(undone_store.con, "trec7").default_topics == 50
    with pytest.raises(NotFound, match="did you mean 'robust04'"):
        resolve_collection(undone_store.con, "robust4")
    assert resolve_measure(undone_store.con, "MAP") == "AP"
    assert resolve_measure(undone_store.con, "map") == "AP"
    assert resolve_measure(undone_store.con, "P_10") == "P@10"
    assert resolve_measure(undone_store.con, "ndcg_cut_20") == "nDCG@20"


def test_an_unregistered_cutoff_names_the_registered_ones(undone_store):
    """MAP@1000 is a common spelling of trec_eval's map: the error says what the family
    is registered as instead of suggesting the nearest string (AP@100)."""
    from litaudit.errors import NotFound
    from litaudit.store.measures import resolve_measure

    with pytest.raises(NotFound) as e:
        resolve_measure(undone_store.con, "map@1000")
    assert str(e.value) == (
        "measure 'AP@1000' is not registered, so no result is stored under it; the registered "
        "AP measures: AP, AP@10, AP@100 (trec_eval's map is AP without a cutoff, over the "
        "whole ranking)"
    )
    with pytest.raises(NotFound, match=r"registered P\(rel=2\) measures: P\(rel=2\)@10$"):
        resolve_measure(undone_store.con, "P(rel=2)@20")
    with pytest.raises(NotFound, match="registered P measures: P@5, P@10, P@20, P@30, P@100$"):
        resolve_measure(undone_store.con, "P@7")


def test_a_store_never_draws_duckdbs_progress_bar(tmp_path):
    """DuckDB draws a progress bar on stdout for a query over 2 s where it thinks it is
    interactive, as under `python -c` (there its default is on): it landed in `results
    list --json` output. Asked of a store opened under `python -c`, both ways, and of a
    new connection of its file (`cursor`): the setting is made once, on the process's
    instance, not on each connection."""
    code = (
        "import sys; from litaudit.store.db import cursor, open_store\n"
        "q = \"SELECT current_setting('enable_progress_bar')\"\n"
        "for ro in (False, True):\n"
        "    with open_store(sys.argv[1], read_only=ro) as s:\n"
        "        print(s.con.execute(q).fetchone()[0])\n"
        "        with cursor(s.con) as c:\n"
        "            print(c.execute(q).fetchone()[0])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "s.duckdb")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.split() == ["False"] * 4
