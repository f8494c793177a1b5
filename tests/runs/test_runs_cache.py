"""Run archives at scale: imports in bounded groups, evaluations kept with the archive's
fingerprint (and dropped by any edit), and the progress plumbing."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from litaudit.errors import ValidationFailed
from litaudit.runs import archive_eval, evalcache
from litaudit.runs.archive import delete_runs, load_archive
from litaudit.runs.ingest import Grouping, file_groups, import_archive
from litaudit.runs.stored_eval import evaluate_stored
from tests.cli.test_progress import Recorder

CID = "trec-robust-2003"


def _write_archive(root, n_runs=5, n_topics=6, depth=30, seed=3):
    """Runs with tied scores and docnos shared across runs (some only in later runs)."""
    rng = np.random.default_rng(seed)
    pool = [f"D{i:04d}" for i in range(depth * 3)] + ["FT-1", "LA-9", "ZZ"]
    q = root / "qrels.txt"
    q.write_text(
        "".join(
            f"{t} 0 {pool[d]} {int(rng.integers(-1, 3))}\n"
            for t in range(1, n_topics + 1)
            for d in rng.choice(depth * 2, size=depth, replace=False)
        )
    )
    paths = []
    for r in range(n_runs):
        lines = []
        for t in range(1, n_topics + 1 - (r % 2)):  # odd runs have a topic less...
            if r == 2 and t == 3:
                continue  # ...and run 2 skips topic 3
            docs = rng.choice(len(pool) if r >= 3 else depth * 2, size=depth, replace=False)
            scores = np.round(rng.random(depth), 1)  # many ties
            lines += [
                f"{t} Q0 {pool[d]} {i} {s} run{r}\n"
                for i, (d, s) in enumerate(zip(docs, scores, strict=True))
            ]
        p = root / f"run{r}.gz" if r % 2 else root / f"run{r}.txt"
        if r % 2:
            with gzip.open(p, "wt") as fh:
                fh.writelines(lines)
        else:
            p.write_text("".join(lines))
        paths.append(p)
    return q, paths


def _same_evaluation(a, b):
    assert a.measures == b.measures and a.runs == b.runs and a.topics == b.topics
    np.testing.assert_array_equal(np.isnan(a.scores), np.isnan(b.scores))
    np.testing.assert_array_equal(np.nan_to_num(a.scores), np.nan_to_num(b.scores))


def test_file_groups_bound_the_text_of_each_group(tmp_path):
    q, paths = _write_archive(tmp_path)
    sizes = [
        len(gzip.decompress(p.read_bytes())) if p.suffix == ".gz" else p.stat().st_size
        for p in paths
    ]
    budget = sizes[0] + sizes[1]
    groups = file_groups(paths, budget)
    assert [p for g in groups for p in g] == paths
    for g in groups:
        text = sum(sizes[paths.index(p)] for p in g)
        assert text <= budget or len(g) == 1
    assert [len(g) for g in file_groups(paths, 1)] == [1] * len(paths)


_MEASURES = ["AP", "P@10", "Rprec", "nDCG@10", "Bpref", "RR"]
_N_DOCS = "SELECT count(*), count(DISTINCT docno) FROM run_docs"


@pytest.fixture(scope="module")
def one_group(tmp_path_factory, reference_db_file):
    """The archive of :func:`_write_archive` imported in one group, and what that stores
    (evaluations, complete or not; the runs; the docno counts), computed once for both
    group sizes of test_grouped_import_stores_what_one_group_does."""
    from litaudit.store.db import open_store
    from tests.conftest import copy_db

    root = tmp_path_factory.mktemp("one_group")
    q, paths = _write_archive(root)
    with open_store(copy_db(reference_db_file, root / "store.duckdb")) as store:
        import_archive(store, CID, paths, qrels_path=q)
        evaluations = {
            c: evaluate_stored(store.con, CID, _MEASURES, complete=c) for c in (False, True)
        }
        runs = [(r.tag, list(r.docno)) for r in load_archive(store.con, CID).runs]
        n_docs = store.con.execute(_N_DOCS).fetchall()
    return q, paths, evaluations, runs, n_docs


@pytest.mark.slow
@pytest.mark.parametrize("group_bytes", [1, 6000])
def test_grouped_import_stores_what_one_group_does(one_group, group_bytes):
    from litaudit.store.db import open_store
    from litaudit.store.refdata import load_reference_data

    q, paths, evaluations, runs, n_docs = one_group
    with open_store(":memory:") as other:
        load_reference_data(other.con)
        rec = Recorder()
        rep = import_archive(
            other,
            CID,
            paths,
            qrels_path=q,
            grouping=Grouping(group_bytes=group_bytes),
            progress=rec,
        )
        seen = [(n, c.get("lines", 0)) for n, _, c in rec.calls]
        assert len(file_groups(paths, group_bytes)) > 1
        # (files larger than a group come in pieces: one call each, for its share)
        assert rep.lines == sum(x[1] for x in seen)
        assert sum(x[0] for x in seen) == pytest.approx(len(paths))
        for complete in (False, True):
            _same_evaluation(
                evaluate_stored(other.con, CID, _MEASURES, complete=complete),
                evaluations[complete],
            )
        a = load_archive(other.con, CID)
        assert len(a.runs) == len(runs)
        for ra, (tag, docno) in zip(a.runs, runs, strict=True):
            assert ra.tag == tag and list(ra.docno) == docno
        assert other.con.execute(_N_DOCS).fetchall() == n_docs


def test_a_problem_in_a_later_group_writes_nothing_and_every_problem_is_listed(tmp_path, mem_store):
    q, paths = _write_archive(tmp_path)
    bad_first = tmp_path / "bad0.txt"
    bad_first.write_text("1 Q0 D0001 1 x bad\n")
    bad_last = tmp_path / "zbad.txt"
    bad_last.write_text("1 Q0 D0001 1 1.0\n")
    with pytest.raises(ValidationFailed) as exc:
        import_archive(
            mem_store,
            CID,
            [bad_first, *paths, bad_last],
            qrels_path=q,
            grouping=Grouping(group_bytes=1),
        )
    assert {p.file for p in exc.value.problems} == {str(bad_first), str(bad_last)}
    for t in ("runs", "run_rankings", "run_qrels", "run_docs", "run_topics", "run_qrels_files"):
        assert mem_store.con.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0] == 0
    # a tag clash between groups is found too
    clash = tmp_path / "clash.txt"
    clash.write_text(paths[0].read_text().replace("1.0", "1.00", 1))
    with pytest.raises(ValidationFailed, match="also the tag of"):
        import_archive(
            mem_store, CID, [paths[0], clash], qrels_path=q, grouping=Grouping(group_bytes=1)
        )
    assert mem_store.con.execute("SELECT count(*) FROM runs").fetchall()[0][0] == 0


def test_cached_evaluation_equals_a_fresh_one_and_is_not_recomputed(archive_store, monkeypatch):
    con = archive_store.con
    cases = [
        (["AP", "P@10"], None, 1, False),
        (["map", "Rprec"], ["run2", "run0"], 1, True),
        (["nDCG@10"], ["run1"], 2, False),
    ]
    for measures, tags, rel, complete in cases:
        want = evaluate_stored(con, CID, measures, tags=tags, rel_level=rel, complete=complete)
        ev, pending = archive_eval.evaluate_cached(
            con, CID, measures, tags=tags, rel_level=rel, complete=complete
        )
        _same_evaluation(ev, want)
        assert pending is not None and evalcache.save(con, pending)
    import litaudit.runs.stored_eval as archive

    def no_eval(*a, **k):
        raise AssertionError("evaluated again")

    monkeypatch.setattr(archive, "evaluate_stored", no_eval)
    for measures, tags, rel, complete in cases:
        ev, pending = archive_eval.evaluate_cached(
            con, CID, measures, tags=tags, rel_level=rel, complete=complete
        )
        assert pending is None
        monkeypatch.undo()
        _same_evaluation(
            ev, evaluate_stored(con, CID, measures, tags=tags, rel_level=rel, complete=complete)
        )
        monkeypatch.setattr(archive, "evaluate_stored", no_eval)
    # a subset of the runs evaluated on all of them, from the store
    monkeypatch.undo()
    want = evaluate_stored(con, CID, ["AP"], tags=["run3"])
    monkeypatch.setattr(archive, "evaluate_stored", no_eval)
    ev, pending = archive_eval.evaluate_cached(con, CID, ["AP"], tags=["run3"])
    assert pending is None
    _same_evaluation(ev, want)
    # one measure stored, one not: only the missing one is computed
    monkeypatch.undo()
    ev, pending = archive_eval.evaluate_cached(con, CID, ["P@10", "RR"])
    assert pending.evaluation.measures == ("RR",)
    _same_evaluation(ev, evaluate_stored(con, CID, ["P@10", "RR"]))


def _stored_rows(con):
    return con.execute("SELECT count(*) FROM run_eval_runs").fetchall()[0][0]


def test_any_edit_of_the_archive_invalidates_stored_evaluations(tmp_path, mem_store):
    q, paths = _write_archive(tmp_path)
    con = mem_store.con
    import_archive(mem_store, CID, paths[:3], qrels_path=q)

    def eval_and_save():
        ev, pending = archive_eval.evaluate_cached(con, CID, ["AP"])
        if pending is not None:
            evalcache.save(con, pending)
        return ev, pending

    fp0 = evalcache.fingerprint(con, CID)
    ev, pending = eval_and_save()
    assert pending is not None and _stored_rows(con) == 3
    assert eval_and_save()[1] is None  # read back
    import_archive(mem_store, CID, paths[:3])  # nothing new: nothing changes
    assert evalcache.fingerprint(con, CID) == fp0 and _stored_rows(con) == 3
    import_archive(mem_store, CID, paths[3:])  # import: dropped
    fp1 = evalcache.fingerprint(con, CID)
    assert fp1 != fp0 and _stored_rows(con) == 0
    ev, pending = eval_and_save()
    assert pending is not None and ev.runs == tuple(f"run{i}" for i in range(5))
    delete_runs(mem_store, CID, ["run4"])  # delete: dropped
    assert _stored_rows(con) == 0 and evalcache.fingerprint(con, CID) != fp1
    ev, pending = eval_and_save()
    assert pending is not None and "run4" not in ev.runs
    import_archive(mem_store, CID, [paths[4]])  # the same file again: dropped
    assert _stored_rows(con) == 0 and evalcache.fingerprint(con, CID) != fp1
    ev, pending = eval_and_save()
    assert pending is not None and "run4" in ev.runs
    # values computed before an edit are not kept after it
    ev, pending = archive_eval.evaluate_cached(con, CID, ["P@10"])
    delete_runs(mem_store, CID, ["run0"])
    assert not evalcache.save(con, pending) and _stored_rows(con) == 0


@pytest.fixture(scope="module")
def archive_db(tmp_path_factory) -> tuple[Path, int]:
    """`init --no-seeds` (the collections: no seeds needed) and `runs import` of the
    synthetic archive through the CLI, once for the module: the database file (copy it
    to use it) and the number of runs."""
    from tests.conftest import Cli

    work = tmp_path_factory.mktemp("archive")
    q, paths = _write_archive(work)
    cli = Cli(work / "archive.duckdb")
    assert cli("init", "--no-seeds").exit_code == 0
    r = cli("runs", "import", "-c", "robust03", "--qrels", q, *paths)
    assert r.exit_code == 0, r.output
    # no bar (stderr is not a terminal); the 6 synthetic topics are said to cover few of
    # robust03's 100 (issue 32)
    assert [x[:32] for x in r.stderr.splitlines()] == ["warning: the qrels judge 6 topic"]
    return cli.db, len(paths)


@pytest.mark.slow
def test_cli_eval_keeps_values_and_no_cache_neither_reads_nor_writes(cli, archive_db):
    import shutil

    import duckdb

    shutil.copy(archive_db[0], cli.db)
    paths = range(archive_db[1])
    db = cli.db
    r1 = cli("runs", "eval", "-c", "robust03", "-m", "AP", "-m", "P@10", "--json", "--no-cache")
    assert r1.exit_code == 0 and r1.stderr == ""
    if db is not None:
        con = duckdb.connect(str(db), read_only=True)
        assert _stored_rows(con) == 0
        con.close()
    r2 = cli("runs", "eval", "-c", "robust03", "-m", "AP", "-m", "P@10", "--json")
    r3 = cli("runs", "eval", "-c", "robust03", "-m", "AP", "-m", "P@10", "--json")
    assert json.loads(r1.stdout) == json.loads(r2.stdout) == json.loads(r3.stdout)
    if db is not None:
        con = duckdb.connect(str(db), read_only=True)
        assert _stored_rows(con) == 2 * len(paths)
        con.close()
    r = cli("runs", "delete", "-c", "robust03", "run0")
    assert r.exit_code == 0
    r4 = cli("runs", "eval", "-c", "robust03", "-m", "AP", "-m", "P@10", "--json")
    assert [x["run"] for x in json.loads(r4.stdout)["runs"]] == [f"run{i}" for i in range(1, 5)]


def test_progress_bar_is_silent_when_quiet_or_not_a_terminal():
    from litaudit.render.progress import progress_bar, shows

    assert not shows(quiet=True)
    with progress_bar("x", 3, counts=("lines",), quiet=True) as bar:
        bar.advance(1, lines=10)
        assert not bar.shown


def test_progress_bar_counts_on_a_terminal(monkeypatch):
    import io

    from rich.console import Console

    import litaudit.render.console as console
    from litaudit.render.progress import progress_bar

    buf = io.StringIO()
    monkeypatch.setattr(console, "err", Console(file=buf, force_terminal=True, width=120))
    with progress_bar("importing runs", 2, unit="files", counts=("lines",)) as bar:
        assert bar.shown
        bar.advance(1, lines=1000)
        bar.advance(1, lines=234)
        bar._prog.refresh()
        assert "1,234 lines" in buf.getvalue() and "2/2" in buf.getvalue()


def test_evaluation_in_groups_of_runs_equals_one_pass(archive_store):
    measures = ["AP", "P@10", "Rprec", "nDCG", "Bpref"]
    for complete in (False, True):
        for tags in (None, ["run4", "run1", "run2"]):
            record = Recorder()

            grouped = evaluate_stored(
                archive_store.con,
                CID,
                measures,
                tags=tags,
                complete=complete,
                group_lines=150,
                progress=record,
            )
            seen = [(n, c["lines"]) for n, _, c in record.calls]
            assert len(seen) > 1 and sum(r for r, _ in seen) == len(grouped.runs)
            _same_evaluation(
                grouped,
                evaluate_stored(archive_store.con, CID, measures, tags=tags, complete=complete),
            )


@pytest.mark.slow
def test_a_run_larger_than_a_group_is_evaluated_by_topic_ranges(tmp_path, mem_store):
    # each run (150-180 lines) is larger than a group of 20 lines: it is evaluated in
    # ranges of topic ids (one topic each here), its qrels cut to the same range; the
    # values are those of one pass, whatever topics a run or the qrels lack
    from litaudit.runs.archive import run_rows
    from litaudit.runs.stored_eval import _eval_jobs

    q, paths = _write_archive(tmp_path)
    import_archive(mem_store, CID, paths, qrels_path=q)
    con = mem_store.con
    sizes = dict(con.execute("SELECT id, n_lines FROM runs").fetchall())
    jobs = _eval_jobs(con, CID, run_rows(con, CID, None), sizes, 20)
    assert all(len(g) == 1 and ids is not None for g, ids, _, _ in jobs)
    assert sum(done for *_, done, _ in jobs) == 5 and sum(n for *_, n in jobs) == sum(
        sizes.values()
    )
    measures = ["AP", "P@10", "Rprec", "nDCG", "Bpref", "RR"]
    for complete in (False, True):
        record = Recorder()

        ranged = evaluate_stored(
            con,
            CID,
            measures,
            complete=complete,
            group_lines=20,
            progress=record,
        )
        seen = [(n, c["lines"]) for n, _, c in record.calls]
        assert sum(r for r, _ in seen) == 5 and sum(n for _, n in seen) == sum(sizes.values())
        _same_evaluation(ranged, evaluate_stored(con, CID, measures, complete=complete))


def test_load_archive_reads_each_run_in_trec_eval_order(tmp_path, mem_store):
    """load_archive (integer columns, names shared) gives what a string join ordered by
    topic, score as float descending and docno descending gives, after two imports (the
    second numbers its docnos out of byte order)."""
    q, paths = _write_archive(tmp_path)
    import_archive(mem_store, CID, paths[:2], qrels_path=q)
    import_archive(mem_store, CID, paths[2:])
    arch = load_archive(mem_store.con, CID)
    cid = f"'{CID}'"
    for run in arch.runs:
        want = mem_store.con.execute(
            "SELECT t.topic, d.docno, r.score FROM run_rankings r "
            f"JOIN runs u ON u.id = r.run_id AND u.tag = '{run.tag}' "
            f"JOIN run_docs d ON d.collection_id = {cid} AND d.doc_id = r.doc_id "
            f"JOIN run_topics t ON t.collection_id = {cid} AND t.topic_id = r.topic_id "
            "ORDER BY t.topic, r.score::FLOAT DESC, d.docno DESC"
        ).fetchall()
        assert list(zip(run.topic, run.docno, run.score, strict=True)) == want


@pytest.mark.slow
def test_cli_eval_beside_a_reader_evaluates_read_only_and_keeps_nothing(cli, archive_db):
    """`runs eval` opens the database for writing to keep its values on the same
    connection; when another process has it open (read-only), the command falls back to a
    read-only open: the same values, nothing stored, the file unchanged."""
    import hashlib
    import shutil
    import subprocess
    import sys

    shutil.copy(archive_db[0], cli.db)
    db = cli.db
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    reader = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time\n"
            f"c = duckdb.connect({str(db)!r}, read_only=True)\n"
            "print('open', flush=True)\nsys.stdin.read()\n",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert reader.stdout is not None
    try:
        assert reader.stdout.readline().strip() == "open"
        r = cli("runs", "eval", "-c", "robust03", "-m", "AP", "--json")
        assert r.exit_code == 0, r.output
    finally:
        reader.communicate("", timeout=60)  # closes its stdin: the reader exits
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    assert _stored_rows(con) == 0
    con.close()
    again = cli("runs", "eval", "-c", "robust03", "-m", "AP", "--json")  # now kept
    assert json.loads(again.stdout) == json.loads(r.stdout)
    con = duckdb.connect(str(db), read_only=True)
    assert _stored_rows(con) == archive_db[1]  # a row a run
    con.close()
