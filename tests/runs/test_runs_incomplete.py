"""A run whose import did not finish (issue 22): a process killed between two groups of an
import leaves the pieces of a large file written so far, with an empty sha256. Such a run
is listed as incomplete, refused by eval, the eval store and the archive loaders with the
command that fixes it, and importing the same file again completes it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from litaudit.errors import IncompleteRun
from litaudit.runs import ingest
from litaudit.runs.archive import list_runs, load_archive, load_tables
from litaudit.runs.archive_eval import evaluate_cached
from litaudit.runs.ingest import Grouping, import_archive
from litaudit.runs.ingest_write import Undo
from litaudit.runs.stored_eval import evaluate_stored
from tests.conftest import copy_db
from tests.runs.test_runs_chunks import CHUNK, CID, GROUP, _qrels, _run_lines


class _Killed(BaseException):
    """Stands for SIGKILL: nothing after it runs (the undo of the import is switched off)."""


def _killed_after_first_group(monkeypatch, store, paths, q):
    real = ingest.commit_group
    calls: list[object] = []

    def commit_then_die(*a, **kw):
        if calls:
            raise _Killed
        calls.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(ingest, "commit_group", commit_then_die)
    monkeypatch.setattr(Undo, "apply", lambda self, store: None)  # a kill undoes nothing
    with pytest.raises(_Killed):
        import_archive(
            store, CID, paths, qrels_path=q, grouping=Grouping(group_bytes=GROUP, chunk_bytes=CHUNK)
        )
    monkeypatch.undo()


@pytest.fixture(scope="module")
def half_imported_file(reference_db_file, tmp_path_factory) -> tuple[Path, Path, Path]:
    """(database, run file, qrels): the database file an import killed after its first
    group leaves, closed as the killed process left it; built once for the module (treat
    as read-only: :func:`half_read` opens it read-only, :func:`half_imported` copies it)."""
    from litaudit.store.db import open_store

    d = tmp_path_factory.mktemp("half_imported")
    q = _qrels(d / "q.txt")
    big = d / "big.txt"  # several groups of pieces
    big.write_text("".join(_run_lines(range(1, 9), seed=3)))
    db = copy_db(reference_db_file, d / "half.duckdb")
    with pytest.MonkeyPatch.context() as mp, open_store(db) as store:
        _killed_after_first_group(mp, store, [big], q)
    return db, big, q


@pytest.fixture(scope="module")
def half_read(half_imported_file):
    """(store, run file, qrels): :func:`half_imported_file` open read-only for the module's
    tests that only read it (each a refusal or a listing: no copy and open each)."""
    from litaudit.store.db import open_store

    db, big, q = half_imported_file
    with open_store(db, read_only=True) as store:
        yield store, big, q


@pytest.fixture
def half_imported(half_imported_file, tmp_path):
    """(store, run file, qrels): a writable copy of :func:`half_imported_file`, open."""
    from litaudit.store.db import open_store

    db, big, q = half_imported_file
    store = open_store(copy_db(db, tmp_path / "half.duckdb"))
    yield store, big, q
    store.close()


def test_a_run_killed_between_groups_is_marked_incomplete(half_read):
    store, big, _ = half_read
    (run,) = list_runs(store.con, CID)
    assert run.tag == "tagA" and not run.complete and run.sha256 == ""
    assert 0 < run.n_topics < 8  # the first group's topics only


@pytest.mark.parametrize(
    "use",
    [
        lambda con: evaluate_stored(con, CID, ["AP"]),
        lambda con: load_archive(con, CID),
        lambda con: load_tables(con, CID),
        lambda con: evaluate_cached(con, CID, ["AP"]),
    ],
    ids=["eval", "archive", "tables", "eval-store"],
)
def test_an_incomplete_run_is_refused_with_the_command_that_fixes_it(half_read, use):
    store, big, _ = half_read
    with pytest.raises(IncompleteRun) as e:
        use(store.con)
    msg = str(e.value)
    assert "'tagA'" in msg and "incomplete" in msg
    assert f"litaudit runs import --collection {CID} {big}" in msg
    assert f"litaudit runs delete --collection {CID} tagA" in msg


@pytest.mark.slow
def test_importing_the_same_file_again_completes_it(half_imported, tmp_path):
    store, big, q = half_imported
    rep = import_archive(store, CID, [big], grouping=Grouping(group_bytes=GROUP, chunk_bytes=CHUNK))
    assert rep.imported == ("tagA",)
    (run,) = list_runs(store.con, CID)
    assert run.complete and run.n_topics == 8
    # the same as a clean import of the file
    from litaudit.store.db import open_store
    from litaudit.store.refdata import load_reference_data

    clean = open_store(":memory:")
    load_reference_data(clean.con)
    import_archive(clean, CID, [big], qrels_path=q)
    a = evaluate_stored(store.con, CID, ["AP", "P@10"])
    b = evaluate_stored(clean.con, CID, ["AP", "P@10"])
    np.testing.assert_array_equal(np.nan_to_num(a.scores, nan=-1), np.nan_to_num(b.scores, nan=-1))
    n = "SELECT count(*) FROM run_rankings"
    assert store.con.execute(n).fetchall() == clean.con.execute(n).fetchall()


def test_runs_list_and_show_mark_it(half_imported, cli):
    store, big, _ = half_imported
    store.close()
    r = cli("runs", "list", db=store.path)
    assert r.exit_code == 0 and "INCOMPLETE" in r.output
    assert f"litaudit runs import --collection {CID}" in r.output
    r = cli("runs", "show", "tagA", db=store.path)
    assert "INCOMPLETE" in r.output
    r = cli("runs", "list", "--json", db=store.path)
    assert '"complete": false' in r.output
    r = cli("runs", "eval", "-c", CID, "-m", "AP", db=store.path)
    assert r.exit_code == 1 and "incomplete" in r.output
