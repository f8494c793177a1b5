"""Shared fixtures: stores, the shared data folder, and a CLI runner."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis times its own input generation and each example; on a machine shared by other
# jobs those timings fail tests that are correct (a FailedHealthCheck "input generation is
# slow" was seen under a load average of 10). Time is not what these tests check.
settings.register_profile("litaudit", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("litaudit")

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
SHARED_PAPERS = REPO.parent / "shared" / "papers"


@pytest.fixture
def shared_data() -> Path:
    """../shared/data, or skip with the reason when this checkout has no shared folder."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA} (CI keeps ../shared beside the clone)")
    return SHARED_DATA


@pytest.fixture
def shared_papers() -> Path:
    if not SHARED_PAPERS.is_dir():
        pytest.skip(f"shared papers not found at {SHARED_PAPERS}")
    return SHARED_PAPERS


@pytest.fixture(scope="session")
def reference_db_file(tmp_path_factory) -> Path:
    """A database file with the schema and reference data, built once per session."""
    from litaudit.store.db import open_store
    from litaudit.store.refdata import load_reference_data

    path = tmp_path_factory.mktemp("reference") / "reference.duckdb"
    with open_store(path) as store:
        with store.transaction():
            load_reference_data(store.con)
    return path


@pytest.fixture
def mem_store(reference_db_file, tmp_path):
    """A fresh store with the schema and reference data (collections, measures).

    (A copy of a session-built file: as isolated as an in-memory database, and fast.)
    """
    import shutil

    from litaudit.store.db import open_store

    path = tmp_path / "store.duckdb"
    shutil.copy(reference_db_file, path)
    store = open_store(path)
    yield store
    store.close()


@pytest.fixture(scope="session")
def seeded_db_file(tmp_path_factory) -> Path:
    """A database file built once per test session from seeds/ (treat as read-only)."""
    from litaudit.curation.seed import load_seeds
    from litaudit.store.db import open_store

    path = tmp_path_factory.mktemp("seeded") / "seeded.duckdb"
    with open_store(path) as store:
        load_seeds(store)
    return path


ROBUST03 = "trec-robust-2003"


@pytest.fixture(scope="session")
def robust03_db_file(seeded_db_file, tmp_path_factory) -> Path:
    """The seeded database with the robust03 archive of ../shared/data (17 runs, the
    qrels) imported: built once per session (per xdist worker); treat as read-only."""
    import shutil

    from litaudit.runs.ingest import import_archive
    from litaudit.store.db import open_store

    trec = SHARED_DATA / "trec"
    if not (trec / "runs" / "robust03").is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}: the robust03 archive is needed")
    path = tmp_path_factory.mktemp("robust03") / "robust03.duckdb"
    shutil.copy(seeded_db_file, path)
    with open_store(path) as store:
        import_archive(
            store,
            ROBUST03,
            [trec / "runs" / "robust03"],
            qrels_path=trec / "qrels" / "qrels.robust03.txt",
        )
    return path


@pytest.fixture
def seeded_store(seeded_db_file, tmp_path):
    """A writable copy of the seeded database."""
    import shutil

    from litaudit.store.db import open_store

    path = tmp_path / "seeded.duckdb"
    shutil.copy(seeded_db_file, path)
    store = open_store(path)
    yield store
    store.close()


@pytest.fixture(scope="session", autouse=True)
def _click_command_once():
    """Build the Typer app's click command once per session, not on every CliRunner
    invoke (~0.1 s each; the bad-input corpus alone runs the CLI ~170 times)."""
    import typer
    import typer.testing as tt

    original = tt._get_command
    cache: dict[int, Any] = {}  # the command: typer's own click (typer._click), vendored

    def cached(typer_instance: typer.Typer) -> Any:
        return cache.setdefault(id(typer_instance), original(typer_instance))

    tt._get_command = cached
    yield
    tt._get_command = original


class Cli:
    """cli(*args, input=None, db=None) -> click Result, with --db pointing at ``cli.db``
    unless ``db`` is given."""

    def __init__(self, db: Path):
        from typer.testing import CliRunner

        self.db = db
        self._runner = CliRunner()

    def __call__(self, *args: object, input: str | None = None, db: Path | None = None):
        from litaudit.cli.main import app

        argv = ["--db", str(db or self.db), *map(str, args)]
        return self._runner.invoke(app, argv, input=input)


@pytest.fixture
def cli(tmp_path) -> Cli:
    """The CLI on a database file in tmp_path (not created until a command writes it)."""
    return Cli(tmp_path / "cli.duckdb")


# ------------------------------------------------------------- --cpu-durations
# `slow` means more than about 2 s of CPU with the test's fixtures (pyproject.toml). Wall
# time on a shared machine says little about that, so this option measures CPU: this
# process's (all its threads: DuckDB's too) and that of the subprocesses it waited for,
# from setup to teardown. It works under xdist (-n): each worker's numbers travel in the
# test reports' user_properties.
SLOW_CPU = 2.0


def pytest_addoption(parser):
    parser.addoption(
        "--cpu-durations",
        type=int,
        default=None,
        metavar="N",
        help="list the N tests that took the most CPU (0: all), and the tests whose slow "
        f"mark disagrees with the {SLOW_CPU:g} s rule",
    )


def _cpu_seconds() -> float:
    import resource
    import time

    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _timed(item, phase: str):
    if item.config.getoption("--cpu-durations") is None:
        yield
        return
    start = _cpu_seconds()
    yield
    item.user_properties.append((f"cpu_{phase}", _cpu_seconds() - start))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    yield from _timed(item, "setup")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    yield from _timed(item, "call")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item):
    yield from _timed(item, "teardown")


_cpu_by_test: dict[str, tuple[float, bool]] = {}


def pytest_runtest_logreport(report):
    if report.when != "teardown":
        return
    cpu = sum(v for k, v in report.user_properties if str(k).startswith("cpu_"))
    if any(str(k).startswith("cpu_") for k, _ in report.user_properties):
        _cpu_by_test[report.nodeid] = (cpu, "slow" in report.keywords)


def pytest_terminal_summary(terminalreporter, config):
    n = config.getoption("--cpu-durations")
    if n is None or not _cpu_by_test:
        return
    tr = terminalreporter
    rows = sorted(_cpu_by_test.items(), key=lambda kv: -kv[1][0])
    total = sum(cpu for cpu, _ in _cpu_by_test.values())
    slow = sum(cpu for cpu, marked in _cpu_by_test.values() if marked)
    tr.write_sep("=", "CPU time of the tests (s; setup + call + teardown, with subprocesses)")
    tr.write_line(
        f"{total:.1f} s in {len(rows)} tests: {slow:.1f} s marked slow, {total - slow:.1f} s not "
        "(a session or module fixture counts in the first test of a process that uses it)"
    )
    for nodeid, (cpu, marked) in rows[: n or None]:
        tr.write_line(f"{cpu:7.2f}  {'slow ' if marked else '     '} {nodeid}")
    over = [(k, c) for k, (c, marked) in rows if c > SLOW_CPU and not marked]
    under = [(k, c) for k, (c, marked) in rows if c < SLOW_CPU / 2 and marked]
    for title, found in (
        (f"over {SLOW_CPU:g} s, not marked slow", over),
        (f"marked slow, under {SLOW_CPU / 2:g} s (a browser test may be; see pyproject)", under),
    ):
        if found:
            tr.write_sep("-", title)
            for nodeid, cpu in found:
                tr.write_line(f"{cpu:7.2f}  {nodeid}")
