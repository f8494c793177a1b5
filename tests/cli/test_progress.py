"""Progress bars (issue 15 item 5): the library's progress callbacks are called from
inside the work with counts that add up to the total, and a bar is drawn only on a
terminal stderr, never under --json nor when stderr is not a terminal. (No timing here:
which commands take over two seconds is measured by hand, see the issue.)"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tests.conftest import copy_db


class Recorder:
    """A progress callback that keeps every call: (steps, total, counts)."""

    def __init__(self):
        self.calls: list[tuple[float, float, dict]] = []
        self.phases: list[tuple[str, str]] = []  # (label, unit) of each status call

    def __call__(self, steps=0, /, *, total=0, **counts):
        self.calls.append((steps, total, counts))

    def status(self, text, *, unit=""):
        self.phases.append((text, unit))

    def total(self) -> float:
        return sum(t for _, t, _ in self.calls)

    def steps(self) -> float:
        return sum(s for s, _, _ in self.calls)

    def count(self, name: str) -> int:
        return sum(c.get(name, 0) for _, _, c in self.calls)

    def running_steps(self) -> list[float]:
        out: list[float] = []
        n: float = 0
        for s, _, _ in self.calls:
            if s:
                n += s
                out.append(n)
        return out


# what a drawn bar leaves in stderr's text
BAR_MARKS = ("━", "measuring", "drawing", "groups", "0:00:0")


@pytest.fixture
def terminal(monkeypatch):
    """stderr as a 120-column terminal (a StringIO), as the bar sees it."""
    from rich.console import Console

    import litaudit.render.console as console

    buf = io.StringIO()
    monkeypatch.setattr(
        console, "err", Console(file=buf, force_terminal=True, width=120, color_system=None)
    )
    return buf


@pytest.mark.slow
def test_init_reports_every_seed_row_checked_and_added(undone_store, tmp_path_factory, monkeypatch):
    """The small seed set (~1,500 real rows in several seed files; tests/conftest.py),
    checked in steps of 100 rows (plan.PROGRESS_ROWS made 100 here): more than 10 steps,
    as the whole seeds without MTEB's file make at the 1,000 rows of a step. The folder
    is test_seed_sync's (written once, kept across runs under the digest of the seeds and
    of write_small_seeds: tests/conftest.py `_built_folder_once`)."""
    from litaudit.curation import plan
    from litaudit.curation.seed import load_seeds
    from tests.conftest import _built_folder_once
    from tests.curation.test_seed_sync import _small_seeds

    monkeypatch.setattr(plan, "PROGRESS_ROWS", 100)
    seeds = _built_folder_once(tmp_path_factory, "small-seeds", _small_seeds)
    rec = Recorder()
    summary = load_seeds(undone_store, seeds, progress=rec)
    assert rec.calls[0][1] > 0, "the total is announced before any row is checked"
    assert rec.total() == rec.steps()  # every row announced is checked
    assert rec.count("added") == summary["added"]["results"] > 0
    running = rec.running_steps()
    assert len(running) > 10, "advanced from inside the loop, not once at the end"
    assert running == sorted(running) and running[-1] == rec.total()


def test_results_import_reports_rows_of_each_file_as_read(
    small_seeded_db_file, undone_store, tmp_path, monkeypatch
):
    """A curation export (papers, history) of the small seeded store: each file's rows
    announced when read, checked in steps of PROGRESS_ROWS (50 here, so that two whole
    steps and a part take 107 of its rows: the steps are counted the same at any size,
    and an import of 1,007 rows twice cost ~0.15 s of CPU more), the added ones counted."""
    from litaudit.curation import plan
    from litaudit.curation.bundle import export_bundle
    from litaudit.curation.filters import CURATION
    from litaudit.curation.importer import import_files
    from litaudit.store.db import open_store

    monkeypatch.setattr(plan, "PROGRESS_ROWS", 50)
    PROGRESS_ROWS = plan.PROGRESS_ROWS
    with open_store(small_seeded_db_file, read_only=True) as store:
        bundle = export_bundle(store.con, CURATION)
    rows = bundle["results"][: 2 * PROGRESS_ROWS + 7]
    assert len(rows) == 2 * PROGRESS_ROWS + 7
    bib = {r["paper"] for r in rows if r.get("paper")}
    part = {
        **bundle,
        "results": rows,
        "papers": [p for p in bundle["papers"] if p["bibkey"] in bib],
        "history": [],
    }
    path = tmp_path / "part.json"
    path.write_text(json.dumps(part))
    rec = Recorder()
    [(rep, _)] = import_files(undone_store, [path], who="test", progress=rec)
    assert rec.total() == rec.steps() == len(rows)
    assert [s for s, _, _ in rec.calls if s] == [PROGRESS_ROWS, PROGRESS_ROWS, 7]
    assert rec.count("added") == rep.added_results == len(rows)
    rec2 = Recorder()
    [(rep2, _)] = import_files(undone_store, [path], who="test", on_existing="skip", progress=rec2)
    assert rec2.steps() == len(rows) and rec2.count("added") == rep2.added_results == 0


@pytest.mark.slow(
    reason="the small seeded store (a session fixture make test-fast builds for no other test)"
)
def test_audit_summary_reports_each_group(small_seeded_store):
    from litaudit.analyses.extreme.summary import run_summary

    rec = Recorder()
    rep = run_summary(small_seeded_store.con, save=False, progress=rec)
    groups = rec.total()
    assert groups >= len(rep.rows) > 0
    assert [s for s, _, _ in rec.calls if s] == [1] * int(groups)


@pytest.mark.slow
def test_table_counts_each_row_measured_then_drawn_and_prints_the_same():
    from rich.console import Console

    from litaudit.render.console import table

    rows = [(i, f"sys{i}", 0.25 + i / 1000) for i in range(300)]
    seen: list[str] = []

    def rec(steps=0, /, *, total=0, **counts):
        seen.extend(["drawn"] * int(steps) + [k for k, n in counts.items() for _ in range(n)])

    for width, fitted in ((80, []), (16, ["fitted"] * 300)):  # 16 columns: measured twice
        outs = []
        seen.clear()
        for progress in (None, rec):
            buf = io.StringIO()
            Console(file=buf, width=width).print(
                table("t", ["id", "system", "AP"], rows, progress=progress)
            )
            outs.append(buf.getvalue())
        assert outs[0] == outs[1]
        assert seen == ["measured"] * 300 + fitted + ["drawn"] * 300


def test_print_rows_draws_a_bar_on_a_terminal_and_the_same_table(terminal, monkeypatch):
    from rich.console import Console

    import litaudit.render.console as console
    from litaudit.render.progress import print_rows

    rows = [(i, f"sys{i}") for i in range(50)]
    plain = io.StringIO()
    Console(file=plain, width=80).print(console.table("t", ["id", "system"], rows))
    printed = io.StringIO()
    monkeypatch.setattr(console, "out", Console(file=printed, width=80))
    print_rows("t", ["id", "system"], rows, description="table")
    assert printed.getvalue() == plain.getvalue()
    frames = terminal.getvalue()
    assert "table: measuring" in frames and "0/50 rows" in frames
    last = frames.rstrip().split("\r")[-2]  # the last frame before the bar is cleared
    assert "table: drawing" in last and "50/50 rows" in last
    terminal.truncate(0)
    print_rows("t", ["id", "system"], rows, description="table", quiet=True)
    assert terminal.getvalue() == ""


def test_a_bar_is_a_progress_callback(terminal):
    from litaudit.render.progress import progress_bar

    with progress_bar("loading seeds", unit="rows", counts=("added",)) as bar:
        bar(total=3000)
        bar(1000)
        bar(1000, added=1500)
        bar(total=1000)
        bar._prog.refresh()
        text = terminal.getvalue()
    assert "2000/4000" in text and "1,500 added" in text


def test_a_bar_restarts_for_the_next_pass(terminal):
    from litaudit.render.progress import progress_bar

    with progress_bar("measuring", 10, unit="rows") as bar:
        bar(10)
        bar.restart("drawing")
        bar(4)
        bar._prog.refresh()
        last = terminal.getvalue().split("\r")[-1]
    assert "drawing" in last and "4/10 rows" in last


def test_quiet_bar_as_callback_is_harmless():
    from litaudit.render.progress import progress_bar

    with progress_bar("x", unit="rows", counts=("added",), quiet=True) as bar:
        bar(total=10)
        bar(5, added=2)
        assert not bar.shown


@pytest.mark.slow
def test_no_bar_text_when_stderr_is_not_a_terminal(cli, small_seeded_db_file, tmp_path):
    """CliRunner's stderr is not a terminal: the commands with bars print none of it, and
    --json stays one JSON document. (Whether a bar shows depends on stderr alone, not on
    how much work there is: a part of the store will do. `init` on a new database is
    checked in tests/repo/test_package.py.)"""

    db = tmp_path / "db.duckdb"
    copy_db(small_seeded_db_file, db)
    for args in (
        ("results", "list", "-c", "robust04", "--limit", "20"),
        ("audit", "summary", "--no-save", "--until", "2005"),
        ("results", "export", str(tmp_path / "part.json"), "-c", "robust04"),
        ("results", "export", str(tmp_path / "part.csv"), "-c", "robust04"),
    ):
        r = cli(*args, db=db)
        assert r.exit_code == 0, r.output
        assert not any(m in r.stderr for m in BAR_MARKS), (args, r.stderr)
    r = cli("audit", "summary", "--no-save", "--json", "--until", "2005", db=db)
    assert r.exit_code == 0 and not r.stderr
    json.loads(r.stdout)
    fresh = tmp_path / "fresh.duckdb"
    assert cli("init", "--no-seeds", "--json", db=fresh).exit_code == 0
    r = cli("results", "import", str(tmp_path / "part.csv"), "--json", db=fresh)
    assert r.exit_code == 0, r.output
    assert not r.stderr
    assert json.loads(r.stdout)[0]["results"] > 0


def test_loading_a_coded_archive_reports_its_steps(archive_store):
    """`reuse rao`/`lou`/`verdict` load a whole archive at once: the bar moves through the
    load's steps (read, docnos coded, rows ordered, assembled), and a verdict's units add
    up to its total."""
    from litaudit.analyses.reuse.coded_archive import LOAD_STEPS, load_coded
    from litaudit.analyses.reuse.verdict import run_verdict
    from litaudit.analyses.reuse.verdict_settings import (
        VerdictSettings,
        verdict_depths,
        verdict_steps,
    )
    from tests.runs.test_runs_cache import CID

    seen: list[int] = []
    cid, coded = load_coded(archive_store.con, CID, seen.append)
    assert seen == [1] * LOAD_STEPS and cid == CID and len(coded.run) > 0
    seen.clear()
    asked = VerdictSettings(assignments=3)
    run_verdict(archive_store.con, CID, asked, save=False, progress=seen.append)
    assert sum(seen) == verdict_steps(verdict_depths(None), 3, 0, False)


def test_verify_prints_a_line_per_result_after_its_bar_and_up_to_a_failure(
    cli, small_seeded_db_file
):

    copy_db(small_seeded_db_file, cli.db)  # any three results: 9 MB to copy, not 20
    ids = [r["id"] for r in json.loads(cli("results", "list", "--limit", "3", "--json").stdout)]
    r = cli("results", "verify", *map(str, ids))
    assert r.exit_code == 0 and r.stdout.splitlines() == [f"#{i} verified" for i in ids]
    r = cli("results", "retract", str(ids[0]), "999999999", str(ids[1]), "--reason", "test")
    assert r.exit_code == 1 and r.stdout.splitlines() == [f"#{ids[0]} retracted"]
    assert "999999999" in r.stderr and "━" not in r.stderr


def test_pooling_simulation_reports_each_run_evaluated_pooled_and_evaluated_again(tmp_path):
    """`reuse agreement`'s pooling simulation: three steps per run announced first
    (evaluated on the full qrels, pooled, evaluated on the reduced qrels), the pooled
    pairs counted run by run and the judgments kept counted once."""
    from litaudit.analyses.agreement import input as agin
    from litaudit.runs.trec_io import read_qrels, read_run
    from tests.analyses.test_reuse_agreement import _tiny_archive

    paths = _tiny_archive(tmp_path)
    runs = [read_run(p) for p in paths]
    sites = [r.tag[:5] for r in runs]  # site0 ... site3
    rec = Recorder()
    sim = agin.simulate_pooling(
        read_qrels(tmp_path / "qrels.txt"), runs, sites, depth=10, progress=rec
    )
    assert rec.calls[0] == (0, 3 * len(runs), {}), "the total is announced first"
    assert rec.steps() == rec.total()
    assert [s for s, _, _ in rec.calls if s] == [len(runs)] + [1] * len(runs) + [len(runs)]
    assert rec.count("judged") == sim.judged_kept > 0
    pooled = [c["pooled"] for _, _, c in rec.calls if "pooled" in c]
    assert len(pooled) == len(runs) and pooled[0] > 0
    # every pair pooled is distinct: at most the runs' depth-10 tops of topics not held out
    assert sim.judged_kept <= rec.count("pooled") <= len(runs) * 10 * len(sim.assignment.topics)


def test_randomization_test_reports_each_assignment():
    import numpy as np

    from litaudit.analyses.agreement.input import ScoreDesign
    from litaudit.analyses.agreement.run import randomization_test

    rng = np.random.default_rng(0)
    sites = ("A", "A", "B", "B", "C", "C")
    topics = tuple(str(t) for t in range(12))
    held = tuple((("A",), ("B",), ("C",))[t % 3] for t in range(12))
    d = ScoreDesign(
        tuple(f"r{i}" for i in range(6)), sites, topics, rng.uniform(size=(6, 12)), held
    )
    rec = Recorder()
    randomization_test(d, assignments=7, seed=1, min_topics=2, progress=rec)
    assert rec.calls[0] == (0, 7, {})
    assert [s for s, _, _ in rec.calls if s] == [1] * 7


@pytest.fixture(scope="module")
def agreement_db_file(reference_db_file, tmp_path_factory) -> Path:
    """The reference data and the tiny robust03 archive of test_reuse_agreement, built
    once for the module (treat as read-only: :func:`_agreement_db` copies it)."""
    from litaudit.runs.ingest import import_archive
    from litaudit.store.db import open_store
    from tests.analyses.test_reuse_agreement import _tiny_archive

    d = tmp_path_factory.mktemp("agreement")
    path = d / "agreement.duckdb"
    copy_db(reference_db_file, path)
    paths = _tiny_archive(d)
    with open_store(path) as store:
        import_archive(
            store,
            "trec-robust-2003",
            paths,
            qrels_path=d / "qrels.txt",
            metadata=d / "meta.csv",
        )
    return path


def _agreement_db(cli, agreement_db_file):
    copy_db(agreement_db_file, cli.db)


AGREEMENT = (
    "reuse",
    "agreement",
    "-c",
    "robust03",
    "--held-out",
    "1",
    "-d",
    "10",
    "--min-topics",
    "3",
)


@pytest.mark.slow
def test_agreement_draws_a_bar_for_the_simulation_and_the_randomization(
    cli, agreement_db_file, terminal
):
    _agreement_db(cli, agreement_db_file)
    r = cli(*AGREEMENT, "--randomize", "5", "--topic-seed", "2")
    assert r.exit_code == 0, r.output
    frames = terminal.getvalue()
    assert "simulating depth-10 pools, 1 sites held out" in frames
    assert "24/24 steps" in frames and " pooled" in frames and " judged" in frames
    assert "randomization test, 5 assignments" in frames and "5/5 assignments" in frames
    terminal.truncate(0)
    terminal.seek(0)
    r = cli(*AGREEMENT, "--randomize", "5", "--json")
    assert r.exit_code == 0 and terminal.getvalue() == ""
    json.loads(r.stdout)


def test_agreement_prints_no_bar_when_stderr_is_not_a_terminal(cli, agreement_db_file):
    _agreement_db(cli, agreement_db_file)
    r = cli(*AGREEMENT, "--randomize", "5")
    assert r.exit_code == 0, r.output
    assert r.stderr == ""


@pytest.mark.slow
def test_export_draws_a_bar_of_the_rows_written_on_a_terminal_only(
    cli, seeded_db_file, tmp_path, terminal
):
    for fmt in ("csv", "json"):  # a read-only command: on the session's file, no copy
        r = cli(
            "results", "export", str(tmp_path / f"r.{fmt}"), "-c", "robust04", db=seeded_db_file
        )
        assert r.exit_code == 0, r.output
        assert r.stderr == ""  # the bar went to the terminal (the fixture's)
        data = json.loads((tmp_path / "r.json").read_text()) if fmt == "json" else None
        n = (
            sum(len(data[k]) for k in ("papers", "results", "history"))
            if data
            else int(r.stdout.split()[1])  # "wrote N results to ..."
        )
        frames = terminal.getvalue()
        last = frames.rstrip().split("\r")[-2]  # the last frame before the bar is cleared
        assert f"export {fmt}: reading" in frames
        assert f"export {fmt}: writing" in last and f"{n}/{n} rows" in last, last
        terminal.truncate(0)
        terminal.seek(0)


def test_the_reports_verdict_announces_its_steps_and_does_them(archive_store):
    """`report` runs the reusability verdict under its bar: the verdict's steps announced
    (``progress(0, total=n)``), then done range by range, adding up to n."""
    from litaudit.analyses.report_audits import prepare_report
    from tests.runs.test_runs_cache import CID

    calls: list[tuple[float, float]] = []

    def progress(steps: float = 0, /, *, total: float = 0) -> None:
        calls.append((steps, total))

    rep = prepare_report(archive_store.con, CID, progress=progress)
    assert rep.verdict is not None
    announced = [t for _, t in calls if t]
    assert len(announced) == 1 and calls[0] == (0, announced[0])
    assert sum(s for s, _ in calls) == announced[0] and len(calls) > 10


def test_the_bar_and_the_tests_recorder_keep_the_one_progress_protocol():
    """litaudit.progress.Progress: the Rich bar (drawn or silent) is its one
    implementation; this file's Recorder keeps it too."""
    from litaudit.progress import Progress
    from litaudit.render.progress import Bar, progress_bar

    with progress_bar("x", quiet=True) as bar:
        assert isinstance(bar, Progress) and isinstance(Recorder(), Progress)
        bar(total=3)
        bar(1, lines=5)
        bar.status("next phase", unit="steps")  # silent: harmless
    assert not isinstance(lambda *a: None, Progress)
    assert isinstance(Bar(), Progress)


def test_a_phase_restarts_the_drawn_bar_under_its_label_and_unit(terminal):
    from litaudit.render.progress import progress_bar

    with progress_bar("first", 2, unit="files", counts=("lines",)) as bar:
        bar(2, lines=7)
        bar.status("second phase", unit="assignments")
        bar(total=4)
        bar(4)
        assert bar._total == 4 and bar._done == 4 and bar._counts == {}
        bar._prog.refresh()
    frames = terminal.getvalue()
    assert "first" in frames and "2/2 files" in frames and "7 lines" in frames
    assert "second phase" in frames and "4/4 assignments" in frames


@pytest.mark.slow
def test_runs_import_delete_and_eval_keep_the_protocol(tmp_path):
    """The three run commands' work reports as every long function does: steps and
    running line counts (``progress(k, lines=n)``), the eval's total announced first."""
    from litaudit.runs.archive import delete_runs
    from litaudit.runs.archive_eval import evaluate_archive
    from litaudit.runs.ingest import import_archive
    from litaudit.store.db import open_store
    from litaudit.store.refdata import load_reference_data
    from tests.runs.test_runs_cache import CID, _write_archive

    q, paths = _write_archive(tmp_path)
    db = tmp_path / "runs.duckdb"
    with open_store(db) as store:
        load_reference_data(store.con)
        rec = Recorder()
        rep = import_archive(store, CID, paths, qrels_path=q, progress=rec)
        assert rec.steps() == pytest.approx(len(paths)) and rec.count("lines") == rep.lines
    rec = Recorder()
    ev = evaluate_archive(db, CID, ["AP"], cache=False, progress=rec)
    assert rec.calls[0] == (0, len(paths), {}), "the total is announced first"
    assert rec.steps() == rec.total() == len(ev.evaluation.runs)
    assert rec.count("lines") == rep.lines
    with open_store(db) as store:
        rec = Recorder()
        assert delete_runs(store, CID, progress=rec) == len(paths)
        assert rec.steps() == len(paths) and rec.count("lines") == rep.lines


def test_agreement_reports_its_phases_through_status(cli, agreement_db_file):
    """`reuse agreement`: one progress for the analysis, a phase (label, unit) for the
    pooling simulation and one for the randomization test, each announcing its total."""
    from litaudit.analyses.agreement.run import AgreementRequest, run_agreement
    from litaudit.store.db import open_store

    _agreement_db(cli, agreement_db_file)
    req = AgreementRequest(
        collection="robust03", held_out=1, depth=10, min_topics=3, seed=2, randomize=5
    )
    rec = Recorder()
    with open_store(cli.db) as store:
        run_agreement(req, store=store, progress=rec)
    assert rec.phases == [
        ("simulating depth-10 pools, 1 sites held out", "steps"),
        ("randomization test, 5 assignments", "assignments"),
    ]
    assert rec.total() == rec.steps() == 24 + 5


def test_archive_audits_report_their_load_and_their_pass_as_phases(
    archive_store, synthetic_archive
):
    """`reuse rao` / `reuse subcollections`: the archive's load a phase, the audit's pass
    over its ranges (or random splits) the next; each phase's steps add up to its total."""
    from litaudit.analyses.reuse.archive_requests import (
        RaoRequest,
        SubcollectionsRequest,
        answer_rao,
        answer_subcollections,
    )
    from litaudit.analyses.reuse.subcollection_tau import SubcollectionTest
    from tests.runs.test_runs_cache import CID

    lines = synthetic_archive.lines
    rec = Recorder()
    answer_rao(archive_store.con, RaoRequest(collection=CID, depth=10), progress=rec)
    assert rec.phases == [
        ("RAO: reading the archive", "ranges"),
        (f"RAO of {lines:,} ranked documents, by topic ranges", "ranges"),
    ]
    assert rec.steps() == rec.total() > 1
    rec = Recorder()
    req = SubcollectionsRequest(
        collection=CID, test=SubcollectionTest(permutations=20, automatic_only=False)
    )
    answer_subcollections(archive_store.con, req, progress=rec)
    assert [label for label, _ in rec.phases] == [
        "sub-collections: loading the archive",
        f"sub-collections of {lines:,} ranked documents: random splits",
    ]
    assert rec.steps() == rec.total()
