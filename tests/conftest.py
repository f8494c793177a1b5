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
