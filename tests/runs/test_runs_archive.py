"""Run archives in the store, the `litaudit runs` commands, and robust03 against trec_eval."""

from __future__ import annotations

import inspect
import json
from importlib.metadata import version

import numpy as np
import pytest

from litaudit.errors import LitauditError, ValidationFailed
from litaudit.runs.archive import delete_runs, load_archive
from litaudit.runs.evaluate import evaluate
from litaudit.runs.ingest import import_archive
from litaudit.runs.stored_eval import evaluate_stored
from tests.conftest import copy_db
from tests.kept_oracle import kept
from tests.runs.oracle_input import archive_digest

QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 d1 0\n2 0 d4 1\n"
RUN_A = "1 Q0 d1 1 3 A\n1 Q0 d2 2 2 A\n2 Q0 d4 1 1 A\n"
RUN_B = "1 Q0 d3 1 3 B\n1 Q0 dz 2 2 B\n"


@pytest.fixture
def files(tmp_path):
    out = {}
    for name, text in [("qrels.txt", QRELS), ("a.run", RUN_A), ("b.run", RUN_B)]:
        (tmp_path / name).write_text(text)
        out[name] = tmp_path / name
    return out


def counts(con):
    return tuple(
        con.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0]
        for t in ("runs", "run_rankings", "run_qrels", "run_docs")
    )


def test_import_load_and_reimport_changes_nothing(undone_store, files):
    rep = import_archive(
        undone_store,
        "trec-robust-2003",
        [files["a.run"], files["b.run"]],
        qrels_path=files["qrels.txt"],
    )
    assert rep.imported == ("A", "B") and rep.lines == 5 and rep.qrels == "imported"
    before = counts(undone_store.con)
    assert before == (2, 5, 5, 5)
    again = import_archive(
        undone_store,
        "trec-robust-2003",
        [files["b.run"], files["a.run"]],
        qrels_path=files["qrels.txt"],
    )
    assert again.imported == () and set(again.unchanged) == {"A", "B"}
    assert counts(undone_store.con) == before
    arch = load_archive(undone_store.con, "trec-robust-2003")
    assert arch.tags == ("A", "B") and len(arch.qrels) == 5
    ev_store = evaluate_stored(undone_store.con, "trec-robust-2003", ["AP", "Bpref", "nDCG@2"])
    ev_mem = evaluate(arch.runs, arch.qrels, ["AP", "Bpref", "nDCG@2"])
    np.testing.assert_array_equal(ev_store.scores, ev_mem.scores)
    # A: topic 1 d1 rel of R=2 -> 1/2, topic 2 d4 first of R=1 -> 1; B: topic 1 -> 1/2
    assert ev_store.mean("AP").tolist() == pytest.approx([0.75, 0.5])


def test_rejected_file_writes_nothing(mem_store, files, tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 d1 1 3 C\n9 Q0 d2 2 2 C\n")
    with pytest.raises(ValidationFailed, match="bad.run:2: topic 9 is not in the qrels"):
        import_archive(
            mem_store, "trec-robust-2003", [files["a.run"], bad], qrels_path=files["qrels.txt"]
        )
    assert counts(mem_store.con) == (0, 0, 0, 0)
    rep = import_archive(
        mem_store,
        "trec-robust-2003",
        [files["a.run"], bad],
        qrels_path=files["qrels.txt"],
        lenient=True,
    )
    assert rep.skipped == 1 and rep.lines == 4


def test_conflicts_are_refused(mem_store, files, tmp_path):
    import_archive(mem_store, "trec-robust-2003", [files["a.run"]], qrels_path=files["qrels.txt"])
    other = tmp_path / "a2.run"
    other.write_text(RUN_A.replace(" 3 A", " 4 A"))
    with pytest.raises(ValidationFailed, match="already stored .* from a different file"):
        import_archive(mem_store, "trec-robust-2003", [other])
    q2 = tmp_path / "q2.txt"
    q2.write_text(QRELS + "3 0 d1 1\n")
    with pytest.raises(LitauditError, match="already has different qrels"):
        import_archive(mem_store, "trec-robust-2003", [], qrels_path=q2)
    assert delete_runs(mem_store, "trec-robust-2003", ["A"]) == 1
    assert counts(mem_store.con)[:2] == (0, 0)


def test_delete_reports_each_run_deleted(undone_store, files):
    # one statement per run, each reported (runs, lines): a bar moves on an MS MARCO archive
    import_archive(
        undone_store,
        "trec-robust-2003",
        [files["a.run"], files["b.run"]],
        qrels_path=files["qrels.txt"],
    )
    from tests.cli.test_progress import Recorder

    rec = Recorder()
    assert delete_runs(undone_store, "trec-robust-2003", progress=rec) == 2
    assert [(n, c["lines"]) for n, _, c in rec.calls] == [
        (1, 3),
        (1, 2),
    ]  # runs A and B, in tag order
    assert counts(undone_store.con) == (0, 0, 0, 0)


def test_metadata_csv(mem_store, files, tmp_path):
    meta = tmp_path / "meta.csv"
    meta.write_text("tag,participant,run_type,pooled\nA,site1,manual,yes\n")
    import_archive(
        mem_store,
        "trec-robust-2003",
        [files["a.run"]],
        qrels_path=files["qrels.txt"],
        metadata=meta,
    )
    info = load_archive(mem_store.con, "trec-robust-2003").info[0]
    assert (info.participant, info.run_type, info.pooled) == ("site1", "manual", True)
    meta.write_text("tag,pooled\nA,maybe\n")
    with pytest.raises(ValidationFailed, match="meta.csv:2: pooled"):
        import_archive(mem_store, "trec-robust-2003", [files["b.run"]], metadata=meta)


@pytest.mark.slow
def test_cli_import_list_show_eval_delete(cli, files):
    assert cli("init", "--no-seeds").exit_code == 0  # the collections: no seeds needed
    r = cli(
        "runs",
        "import",
        "-c",
        "robust03",
        "--qrels",
        files["qrels.txt"],
        files["a.run"],
        files["b.run"],
    )
    assert r.exit_code == 0, r.output
    assert "2 run(s) imported (5 lines), 0 unchanged" in r.stdout
    r = cli("runs", "eval", "-c", "robust03", "-m", "map", "-m", "P_1", "--json")
    data = json.loads(r.stdout)
    assert data["measures"] == ["AP", "P@1"]
    assert [(x["run"], x["topics"], x["P@1"]) for x in data["runs"]] == [
        ("A", 2, 1.0),
        ("B", 1, 1.0),
    ]
    r = cli("runs", "eval", "-c", "robust03", "--per-topic", "--json", "--complete")
    assert [(x["run"], x["topic"]) for x in json.loads(r.stdout)] == [
        ("A", "1"),
        ("A", "2"),
        ("B", "1"),
        ("B", "2"),
    ]
    r = cli("runs", "list", "--json")
    assert [x["tag"] for x in json.loads(r.stdout)] == ["A", "B"]
    r = cli("runs", "show", "B")
    assert r.exit_code == 0 and "lines: 2" in r.stdout
    r = cli("runs", "show", "nosuch")
    assert r.exit_code == 1 and "no stored run 'nosuch'" in r.stderr
    r = cli("runs", "delete", "-c", "robust03", "B")
    assert r.exit_code == 0 and "deleted 1 run(s)" in r.stdout
    r = cli("runs", "delete", "-c", "robust03", "--whole-archive")
    assert r.exit_code == 0
    r = cli("runs", "eval", "-c", "robust03")
    assert r.exit_code == 1 and "no run archive stored" in r.stderr


def test_cli_bad_file_one_line_per_problem(cli, files, tmp_path, reference_db_file):
    copy_db(reference_db_file, cli.db)  # what `init --no-seeds` writes: the collections
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 d1 1 3 C\n1 Q0 d1 2 2 C\n")
    r = cli("runs", "import", "-c", "robust03", "--qrels", files["qrels.txt"], bad)
    assert r.exit_code == 1
    assert f"{bad}:2: document d1 appears twice in topic 1" in r.stderr
    assert "nothing was written" in r.stderr
    r = cli("runs", "list", "--json")
    assert json.loads(r.stdout) == []


@pytest.fixture
def robust03_store(robust03_db_file):
    """The seeded database with the robust03 archive imported, read-only (the session's
    file, conftest.py: import_archive of ../shared/data's 17 runs and qrels): a test that
    only reads it needs no copy."""
    from litaudit.store.db import open_store

    with open_store(robust03_db_file, read_only=True) as store:
        yield store


def _trec_eval_answers(pytrec_eval, arch) -> list[dict[str, dict[str, float]]]:
    """pytrec_eval's map, P_10 and Rprec of each run of ``arch`` on each topic."""
    qd: dict = {}
    for t, d, r in zip(arch.qrels.topic, arch.qrels.docno, arch.qrels.rel, strict=True):
        qd.setdefault(t, {})[d] = int(r)
    oracle = pytrec_eval.RelevanceEvaluator(qd, {"map", "P_10", "Rprec"})
    answers = []
    for run in arch.runs:
        # each topic's rows are together (load_archive's order, checked by the test): one
        # dict of a topic's docnos and scores built at once (0.55 -> 0.34 s for 17 runs)
        cut = np.flatnonzero(run.topic[1:] != run.topic[:-1]) + 1
        bounds = [0, *cut.tolist(), len(run)]
        docs, scores = run.docno.tolist(), run.score.tolist()
        rd = {
            run.topic[a]: dict(zip(docs[a:b], scores[a:b], strict=True))
            for a, b in zip(bounds[:-1], bounds[1:], strict=True)
        }
        answers.append(oracle.evaluate(rd))
    return answers


@pytest.mark.slow
def test_robust03_equals_trec_eval_and_official_maps(robust03_store, pytestconfig):
    """All 17 robust03 runs: every run and topic equal to trec_eval (pytrec_eval) to 1e-4,
    and the MAPs equal to NIST's official summaries seeded under trec12/robust (printed to
    4 digits, so tolerance 5e-5). pytrec_eval's answers are kept across runs under the
    digest of the archive it is given (tests/kept_oracle.py; 1.1 s of CPU when made);
    ours are computed every run."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    store = robust03_store
    ev = evaluate_stored(store.con, "trec-robust-2003", ["AP", "P@10", "Rprec"])
    assert len(ev.runs) == 17 and len(ev.topics) == 100
    arch = load_archive(store.con, "trec-robust-2003")
    for run in arch.runs:
        # no topic's rows apart: as many blocks of equal topics as distinct topics
        blocks = 1 + np.count_nonzero(run.topic[1:] != run.topic[:-1])
        assert blocks == len(set(run.topic.tolist()))
    answers = kept(
        pytestconfig,
        "pytrec_eval-terrier",
        # its evaluator is compiled code: its version in the key, beside its .py files
        f"{version('pytrec_eval-terrier')} {inspect.getsource(_trec_eval_answers)}",
        (archive_digest(arch.runs, arch.qrels),),
        lambda: _trec_eval_answers(pytrec_eval, arch),
    )
    assert len(answers) == len(arch.runs)
    for ri, want in enumerate(answers):
        for m, tm in [("AP", "map"), ("P@10", "P_10"), ("Rprec", "Rprec")]:
            got = ev.matrix(m)[ri]
            exp = np.array([want[t][tm] for t in ev.topics])
            np.testing.assert_allclose(got, exp, rtol=0, atol=1e-4)
    official = dict(
        store.con.execute(
            "SELECT system, value FROM results WHERE source = 'official' "
            "AND track = 'trec12/robust' AND measure = 'AP'"
        ).fetchall()
    )
    if not official:
        pytest.skip("seeds hold no official trec12/robust MAPs yet")
    means = dict(zip(ev.runs, ev.mean("AP"), strict=True))
    for tag, value in means.items():
        assert value == pytest.approx(official[tag], abs=5e-5), tag


def test_second_import_appends_docnos_and_still_ranks_by_docno(undone_store, files, tmp_path):
    """A later import numbers its new docnos after the stored ones (out of byte order):
    the stored evaluation must still break ties by docno as trec_eval does."""
    import_archive(
        undone_store, "trec-robust-2003", [files["a.run"]], qrels_path=files["qrels.txt"]
    )
    tied = tmp_path / "c.run"  # d0 and dz are new; all three tie on the score
    tied.write_text("1 Q0 d0 1 1 C\n1 Q0 dz 2 1 C\n1 Q0 d3 3 1 C\n")
    import_archive(undone_store, "trec-robust-2003", [tied, files["b.run"]])
    arch = load_archive(undone_store.con, "trec-robust-2003")
    assert list(arch.run("C").docno) == ["dz", "d3", "d0"]
    ev_store = evaluate_stored(undone_store.con, "trec-robust-2003", ["AP", "P@1", "Bpref"])
    ev_mem = evaluate(arch.runs, arch.qrels, ["AP", "P@1", "Bpref"])
    np.testing.assert_array_equal(ev_store.scores, ev_mem.scores)
    # C, topic 1: dz (unjudged), d3 (relevant, rank 2), R = 2 (d1, d3) -> AP (1/2) / 2
    assert ev_store.matrix("AP")[ev_store.runs.index("C"), 0] == pytest.approx(0.25)


def test_duplicate_found_after_coding_names_the_line(mem_store, files, tmp_path):
    """Tab-separated (fast reader) run with a document twice at different scores."""
    bad = tmp_path / "dup.run"
    bad.write_text("1\tQ0\td1\t1\t3\tD\n1\tQ0\td2\t2\t2\tD\n1\tQ0\td1\t3\t1\tD\n")
    with pytest.raises(ValidationFailed, match="dup.run:3: document d1 appears twice"):
        import_archive(
            mem_store, "trec-robust-2003", [files["a.run"], bad], qrels_path=files["qrels.txt"]
        )
    assert counts(mem_store.con) == (0, 0, 0, 0)
    rep = import_archive(
        mem_store,
        "trec-robust-2003",
        [files["a.run"], bad],
        qrels_path=files["qrels.txt"],
        lenient=True,
    )
    assert rep.skipped == 1 and rep.lines == 5  # lines stored: A 3, D 2


def _pandas_probe(reference_db_file, path) -> None:
    """Build: whether a fresh interpreter that imports this module's two runs and qrels
    into a copy of the session's reference database (schema and reference data: creating
    them in the subprocess cost it 0.2 s of CPU) and evaluates them has loaded pandas
    ("True"/"False", written to ``path``)."""
    import subprocess
    import sys
    import tempfile
    import textwrap
    from pathlib import Path

    from tests.conftest import copy_db

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, text in [("qrels.txt", QRELS), ("a.run", RUN_A), ("b.run", RUN_B)]:
            (folder / name).write_text(text)
        copy_db(reference_db_file, folder / "p.duckdb")
        script = textwrap.dedent(f"""
            import sys
            from litaudit.runs.stored_eval import evaluate_stored
            from litaudit.runs.ingest import import_archive
            from litaudit.store.db import open_store
            with open_store({str(folder / "p.duckdb")!r}) as store:
                import_archive(store, "trec-robust-2003", [{str(folder / "a.run")!r},
                               {str(folder / "b.run")!r}], qrels_path={str(folder / "qrels.txt")!r})
                evaluate_stored(store.con, "trec-robust-2003", ["AP", "P@10", "Rprec"])
            print("pandas" in sys.modules)
        """)
        out = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True
        )
    path.write_text(out.stdout, encoding="utf-8")


@pytest.mark.slow(reason="a fresh interpreter imports and evaluates (0.4 s) when code changed")
def test_import_and_eval_do_not_load_pandas(tmp_path_factory, reference_db_file):
    # pandas costs 0.3 s to import; Arrow loads it when given a Python scalar or list
    # (pc.equal(col, "x"), pa.array([...])), which the import path must not do. The
    # subprocess's answer is kept across runs while nothing it is built from changes
    # (tests/conftest.py _built_once: the package, schema, libraries; the name carries
    # the digest of the probe's source and of the runs and qrels it imports)
    import functools
    import hashlib

    from tests.conftest import _built_once

    digest = hashlib.sha256(
        "\0".join([inspect.getsource(_pandas_probe), QRELS, RUN_A, RUN_B]).encode()
    ).hexdigest()[:12]
    probe = functools.partial(_pandas_probe, reference_db_file)
    answer = _built_once(tmp_path_factory, f"pandas-probe-{digest}.txt", probe)
    assert answer.read_text(encoding="utf-8").strip() == "False"


def test_problems_of_runs_read_beside_their_qrels(mem_store, files, tmp_path):
    # the qrels are read beside the run files: a run with a bad line and a topic they
    # lack still gets both named, and a bad qrels file its own problems with the runs'
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 d1 x 3 C\n9 Q0 d2 2 2 C\n")
    with pytest.raises(ValidationFailed) as exc:
        import_archive(
            mem_store, "trec-robust-2003", [files["a.run"], bad], qrels_path=files["qrels.txt"]
        )
    assert [(p.line, p.message) for p in exc.value.problems] == [
        (1, "rank 'x' is not an integer"),
        (2, "topic 9 is not in the qrels"),
    ]
    badq = tmp_path / "q.txt"
    badq.write_text("1 0 d1 r\n")
    with pytest.raises(ValidationFailed) as exc:
        import_archive(mem_store, "trec-robust-2003", [bad], qrels_path=badq)
    assert [(p.file, p.line) for p in exc.value.problems] == [(str(badq), 1), (str(bad), 1)]
    assert counts(mem_store.con) == (0, 0, 0, 0)


def test_eval_of_rows_stored_out_of_order(undone_store, tmp_path, monkeypatch):
    # evaluate_stored takes the stored rows as ranked after a docno-free check; rows in
    # another order (ties included) send it back to the docnos and a full sort
    import litaudit.runs.stored_eval as archive

    (tmp_path / "q.txt").write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n2 0 a 1\n")
    (tmp_path / "t.run").write_text(
        "1 Q0 a 1 2 T\n1 Q0 b 2 2 T\n1 Q0 c 3 2 T\n2 Q0 c 1 5 T\n2 Q0 a 2 4 T\n"
    )
    import_archive(
        undone_store, "trec-robust-2003", [tmp_path / "t.run"], qrels_path=tmp_path / "q.txt"
    )
    want = evaluate(
        load_archive(undone_store.con, "trec-robust-2003").runs,
        load_archive(undone_store.con, "trec-robust-2003").qrels,
        ["AP", "P@1"],
    )
    # topic 1: three tied scores, ranked c, b, a (docno descending): AP (1/1 + 2/3) / 2
    assert want.matrix("AP")[0].tolist() == pytest.approx([(1 + 2 / 3) / 2, 1 / 2])
    calls = []
    real = archive.load_coded

    def counted(*a, **k):
        calls.append(k.get("byte_order", True))
        return real(*a, **k)

    monkeypatch.setattr(archive, "load_coded", counted)
    got = evaluate_stored(undone_store.con, "trec-robust-2003", ["AP", "P@1"])
    np.testing.assert_array_equal(got.scores, want.scores)
    assert calls == [False]  # stored order held: no docnos read
    con = undone_store.con
    con.execute("CREATE TEMP TABLE r AS SELECT * FROM run_rankings")
    con.execute("DELETE FROM run_rankings")
    con.execute("INSERT INTO run_rankings SELECT * FROM r ORDER BY score, doc_id")
    calls.clear()
    got = evaluate_stored(undone_store.con, "trec-robust-2003", ["AP", "P@1"])
    np.testing.assert_array_equal(got.scores, want.scores)
    assert calls == [False, True]  # not ranked: reloaded in byte order


def test_scores_beyond_float_range_evaluate_as_trec_eval(undone_store, tmp_path):
    # trec_eval keeps scores as C float: 1e300 becomes inf and ranks first; the stored
    # archive is read back through the same rounding (DuckDB refuses that cast, numpy not)
    (tmp_path / "q.txt").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "t.run").write_text("1 Q0 b 1 5 T\n1 Q0 a 2 1e300 T\n")
    import_archive(
        undone_store, "trec-robust-2003", [tmp_path / "t.run"], qrels_path=tmp_path / "q.txt"
    )
    ev = evaluate_stored(undone_store.con, "trec-robust-2003", ["AP", "P@1"])
    assert ev.matrix("AP")[0].tolist() == [1.0] and ev.matrix("P@1")[0].tolist() == [1.0]
