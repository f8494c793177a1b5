"""One DuckDB instance per process, each open store's file ATTACHed to it
(litaudit.store.instance): stores of several files side by side, a file opened twice,
locks released on close, threads and forks."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading
import typing

import pytest

from litaudit.errors import StoreError
from litaudit.store import instance
from litaudit.store.db import cursor, open_store
from litaudit.store.info import db_info
from tests.conftest import copy_db


@pytest.fixture
def new_db(reference_db_file, tmp_path):
    """``name`` -> a path in tmp_path holding what ``open_store`` writes into a new file
    (the schema, here with the reference data: a copy of the session's reference_db_file,
    ~2 ms where the migrations take ~50 ms): these tests are of attaching files, not of
    making them (tests/store/test_store.py makes them)."""

    def make(name: str):
        path = tmp_path / name
        copy_db(reference_db_file, path)
        return path

    return make


def _attached() -> set[str]:
    root = instance._root()
    with root.cursor() as cur:
        return {
            r[0] for r in cur.execute("SELECT database_name FROM duckdb_databases()").fetchall()
        }


_OTHER = """
import sys, duckdb
for line in sys.stdin:
    try:
        c = duckdb.connect(line.rstrip("\\n"))
        c.execute("CREATE TABLE IF NOT EXISTS other (x INTEGER)")
        c.close()
        print("opened", flush=True)
    except Exception as e:
        print(f"{type(e).__name__}: {e}".splitlines()[0], flush=True)
"""


@pytest.fixture(scope="module")
def other_process():
    """Another process that opens a file for writing when asked, and closes it: one for
    the module's tests (each start, Python with DuckDB, costs ~0.15 s of CPU)."""
    child = subprocess.Popen(
        [sys.executable, "-c", _OTHER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    ask, answer = (
        typing.cast(typing.IO[str], child.stdin),
        typing.cast(typing.IO[str], child.stdout),
    )

    def opens(path) -> str:
        ask.write(f"{path}\n")
        ask.flush()
        return answer.readline().strip() or f"the other process ended ({child.poll()})"

    yield opens
    ask.close()
    child.wait(timeout=60)


def test_each_store_reads_and_writes_its_own_file(tmp_path, new_db):
    with open_store(new_db("a.duckdb")) as a, open_store(new_db("b.duckdb")) as b:
        assert a.alias != b.alias
        a.con.execute("CREATE TABLE only_a (x INTEGER)")
        with a.transaction():
            a.con.execute("INSERT INTO only_a VALUES (1), (2)")
        assert a.con.execute("SELECT count(*) FROM only_a").fetchall() == [(2,)]
        with pytest.raises(Exception, match="only_a"):
            b.con.execute("SELECT * FROM only_a").fetchall()
    with open_store(tmp_path / "a.duckdb", read_only=True) as a:
        assert a.con.execute("SELECT sum(x) FROM only_a").fetchall() == [(3,)]
        # the catalog as `db info` reads it: this file's tables, not every attached one's
        assert "only_a" not in db_info(tmp_path / "b.duckdb")["tables"]
        assert db_info(tmp_path / "a.duckdb")["tables"]["only_a"] == 2


def test_a_rolled_back_transaction_leaves_nothing(new_db):
    with open_store(new_db("t.duckdb")) as s:
        s.con.execute("CREATE TABLE t (x INTEGER)")
        with pytest.raises(RuntimeError), s.transaction():
            s.con.execute("INSERT INTO t VALUES (1)")
            raise RuntimeError("undo")
        assert s.con.execute("SELECT count(*) FROM t").fetchall() == [(0,)]


def test_a_file_open_twice_is_attached_once_and_detached_with_its_last_store(new_db, other_process):
    path = new_db("twice.duckdb")
    before = _attached()
    first = open_store(path)
    second = open_store(path)
    assert first.alias == second.alias and len(_attached() - before) == 1
    first.con.execute("CREATE TABLE seen (x INTEGER)")
    first.close()
    assert second.con.execute("SELECT count(*) FROM seen").fetchall() == [(0,)]
    second.close()
    assert _attached() == before
    # closed, the file is unlocked: another process opens it for writing at once
    assert other_process(path) == "opened"


def test_read_only_and_writing_opens_of_one_file_at_once_are_refused(new_db):
    path = new_db("both.duckdb")
    open_store(path).close()
    with open_store(path, read_only=True):
        with pytest.raises(
            StoreError,
            match="cannot open the database for writing: this process has it open read-only",
        ):
            open_store(path)
    with open_store(path):
        with pytest.raises(StoreError, match="read-only: this process has it open for writing"):
            open_store(path, read_only=True)
    open_store(path, read_only=True).close()  # neither refusal left anything attached


def test_memory_stores_are_separate_databases():
    with open_store(":memory:") as a, open_store(":memory:") as b:
        a.con.execute("CREATE TABLE mine (x INTEGER)")
        assert a.alias != b.alias
        assert b.con.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
            "AND table_name = 'mine'"
        ).fetchall() == [(0,)]


def test_a_store_dropped_unclosed_releases_its_file(new_db, other_process):
    path = new_db("dropped.duckdb")
    before = _attached()
    store = open_store(path)
    store.con.execute("CREATE TABLE kept (x INTEGER)")
    del store
    gc.collect()
    assert _attached() == before
    assert other_process(path) == "opened"


def test_cursor_uses_the_stores_database_in_a_transaction_of_its_own(new_db):
    with open_store(new_db("c.duckdb")) as s:
        s.con.execute("CREATE TABLE t (x INTEGER)")
        with s.transaction():
            s.con.execute("INSERT INTO t VALUES (1)")
            cur = cursor(s.con)
            try:
                cur.execute("INSERT INTO t VALUES (2)")  # its own transaction: committed
                assert cur.execute("SELECT current_database()").fetchall() == [(s.alias,)]
            finally:
                cur.close()
        assert s.con.execute("SELECT list_sort(list(x)) FROM t").fetchall() == [([1, 2],)]


def test_a_store_opened_in_one_thread_is_used_in_another(new_db):
    got: list[object] = []
    with open_store(new_db("th.duckdb")) as s:
        s.con.execute("CREATE TABLE t AS SELECT 7 AS x")

        def read() -> None:
            got.append(s.con.execute("SELECT x FROM t").fetchall())

        worker = threading.Thread(target=read)
        worker.start()
        worker.join(timeout=60)
    assert got == [[(7,)]]


def test_python_objects_are_scanned_by_name(tmp_path, new_db):
    pyarrow = pytest.importorskip("pyarrow")
    arrow_rows = pyarrow.table({"x": [1, 2, 3]})
    with open_store(new_db("py.duckdb")) as s:
        s.con.register("registered", arrow_rows)
        assert s.con.execute("SELECT sum(x) FROM registered").fetchall() == [(6,)]
        s.con.execute("CREATE TABLE copied AS SELECT * FROM arrow_rows")  # a replacement scan
        assert s.con.execute("SELECT count(*) FROM copied").fetchall() == [(3,)]
        out = tmp_path / "copied.csv"
        s.con.execute(f"COPY copied TO '{out}' (HEADER)")
        assert out.read_text().split() == ["x", "1", "2", "3"]
        assert s.con.execute(f"SELECT sum(x) FROM read_csv('{out}')").fetchall() == [(6,)]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_opens_stores_on_an_instance_of_its_own(tmp_path, new_db):
    with open_store(new_db("parent.duckdb")):
        pid = os.fork()
        if pid == 0:  # the child: the parent's instance is not its to use
            code = 1
            try:
                with open_store(tmp_path / "child.duckdb") as c:
                    c.con.execute("CREATE TABLE t AS SELECT 1 AS x")
                    code = 0 if c.con.execute("SELECT x FROM t").fetchall() == [(1,)] else 1
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    with open_store(tmp_path / "child.duckdb", read_only=True) as c:
        assert c.con.execute("SELECT x FROM t").fetchall() == [(1,)]


def test_a_store_spills_beside_its_file_as_before(new_db):
    path = new_db("spill.duckdb")
    with open_store(path) as s:
        got = s.con.execute("SELECT current_setting('temp_directory')").fetchall()
    assert got == [(f"{path}.tmp",)]


def test_the_spill_folder_follows_the_file_last_attached(new_db):
    """The setting is the instance's, made when it changes: after another file's store,
    a file opened again spills beside itself once more."""
    first, second = new_db("first.duckdb"), new_db("second.duckdb")
    q = "SELECT current_setting('temp_directory')"
    for path in (first, second, first, first):
        with open_store(path, read_only=True) as s:
            assert s.con.execute(q).fetchall() == [(f"{path}.tmp",)]
