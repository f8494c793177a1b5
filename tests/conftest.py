"""Shared fixtures: stores, the shared data folder, and a CLI runner."""

from __future__ import annotations

import os

# One OpenBLAS thread, as the litaudit command runs (litaudit.runtime): its idle threads
# spin after each call, and under xdist two workers' spinning threads cost the suite ~6%
# of its CPU. Set before anything loads numpy.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import atexit
import gc
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis times its own input generation and each example; on a machine shared by other
# jobs those timings fail tests that are correct (a FailedHealthCheck "input generation is
# slow" was seen under a load average of 10). Time is not what these tests check.
settings.register_profile("litaudit", deadline=None, suppress_health_check=[HealthCheck.too_slow])
# `make test-fast` runs the property tests on a quarter of their examples (every test's
# own count goes through examples()); `make test` on all of them.
settings.register_profile("fast", parent=settings.get_profile("litaudit"), max_examples=25)
settings.load_profile("litaudit")

# Start-up and collection (importing the library, scipy and ~190 test modules: a few
# million objects that live to the end of the run) under the garbage collector's
# thresholds of the run (pytest_collection_finish): at the default ones its full
# collections walked the growing heap ~30 times a process (0.27 -> 0.0x s of CPU in each
# xdist worker). What is imported so far is frozen out of its sight at once.
gc.freeze()
gc.set_threshold(10_000, 20, 20)


def _end_worker_at_once() -> None:
    """An xdist worker whose session has ended (its results are with the controller)
    exits at once, after the exit functions registered after this one (the package's
    store finalizers, temporary folders: atexit runs them first), without the
    interpreter's teardown of its heap (~0.3 s of CPU, ~0.3-0.8 s the controller waited
    for each worker to exit before it could end the run)."""
    if _SESSION_ENDED:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


_SESSION_ENDED: list[bool] = []  # a worker's pytest_unconfigure ran
if os.environ.get("PYTEST_XDIST_WORKER"):
    atexit.register(_end_worker_at_once)


def examples(n: int) -> int:
    """A property test's number of examples under the loaded Hypothesis profile: ``n``
    under the default's 100 (``make test``), a quarter of it under "fast"
    (``make test-fast``: ``--hypothesis-profile=fast``), at least 10."""
    loaded = settings.default
    assert loaded is not None  # a profile is loaded above
    return max(10, n * loaded.max_examples // 100)


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


_TMP_NUMBER = [0]  # the number of this process's last tmp_path folder


@contextmanager
def _own_folder(base: Path, test_name: str, remove: Callable[[], bool]) -> Iterator[Path]:
    """A new empty folder under ``base`` named after ``test_name`` (its characters other
    than letters, digits and _ as _, 30 at most, and a number of this process), removed
    at the end of the block if ``remove()`` then says so (:func:`tmp_path`)."""
    import re
    import shutil

    name = re.sub(r"[\W]", "_", test_name)[:30]
    while True:
        _TMP_NUMBER[0] += 1
        path = base / f"{name}{_TMP_NUMBER[0]}"
        try:
            path.mkdir(mode=0o700)
            break
        except FileExistsError:  # a folder of that name made another way
            continue
    yield path
    if remove():
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def tmp_path(request, tmp_path_factory) -> Iterator[Path]:
    """pytest's ``tmp_path`` (an empty folder of the test's own under the run's base
    temporary folder, named after the test; removed when the test passes, kept when it
    fails, ``tmp_path_retention_policy = "failed"``), made without pytest's numbered-folder
    bookkeeping: pytest lists the base folder to number each one after those of the same
    name and points a ``<name>current`` symlink at it. This process numbers its folders
    itself (:func:`_own_folder`): 1.57 -> 1.41 s of CPU for 1,000 tests that write a file
    in theirs (~750 tests of `make test-fast` take a tmp_path). A test whose setup or
    call fails keeps its folder."""
    failed_before = request.session.testsfailed
    keep_failed = request.config.getini("tmp_path_retention_policy") == "failed"

    def passed() -> bool:
        return keep_failed and request.session.testsfailed == failed_before

    with _own_folder(tmp_path_factory.getbasetemp(), request.node.name, passed) as path:
        yield path


def _run_folder(tmp_path_factory) -> Path:
    """The run's temp folder, which every xdist worker of the run shares (the parent of
    each one's own), or this process's own without xdist."""
    import os

    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextmanager
def _build_lock(shared: Path, name: str) -> Iterator[Path]:
    """``shared/built-<name>``, held under the run's lock of that name while the body
    runs: the first process of the run to get it builds (or restores) the output, the
    others wait, then find it built."""
    import fcntl

    with open(shared / f"built-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield shared / f"built-{name}"


def _built_once(tmp_path_factory, name: str, build: Callable[[Path], None]) -> Path:
    """This process's copy of a database file that ``build`` writes once per run, or
    once for as long as nothing it is built from changes (:func:`_build_key`).

    Under xdist the workers share the run's temp folder (the parent of each one's own):
    the first worker to need the file builds it under a lock, the others wait for it and
    copy it (a copy takes milliseconds; a build, seconds). Each worker gets its own copy,
    so a test that opens it for writing cannot lock another worker out.

    A build also goes to pytest's cache (.pytest_cache), under the digest of everything
    it is built from: the next run whose code, schema, seeds, shared data and libraries
    are the same copies it from there instead of building it again (``build`` is
    deterministic in these; docs/DEVELOPING.md says which outputs are kept and which
    tests run their commands every run). ``--rebuild-fixtures`` or ``-p no:cacheprovider``
    builds anew. Files ``build`` writes beside the database as ``built-<stem>.*`` go with
    it.
    """
    shared = _run_folder(tmp_path_factory)
    with _build_lock(shared, name) as built:
        if not built.exists():
            kept = _kept_builds()
            if kept is None or not _restore(kept, shared, name):
                part = shared / f"building-{name}"
                part.unlink(missing_ok=True)
                build(part)
                part.rename(built)
                if kept is not None:
                    _keep(kept, shared, name)
    mine = tmp_path_factory.mktemp(name.split(".")[0]) / name
    copy_db(built, mine)
    return mine


# ------------------------------------------------------------- copies of database files
_PAGE = 4096
_EXTENTS: dict[Path, tuple[tuple[int, int], list[tuple[int, memoryview]]]] = {}


def copy_db(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> Path:
    """``shutil.copy(src, dst)`` for a database file built once a run, written sparse:
    the same bytes, but the runs of 4 KiB pages that are all zeros are left as holes
    (read back as zeros), not written. DuckDB's files are mostly such pages (a block is
    256 KiB however little it holds): 96% of the reference database's 5 MB, 44% of the
    seeded one's 17 MB; a copy, and the removal of the test's folder after it, write and
    free only the rest (sys time of a copy, open, write, close and removal of the
    reference file ~4.7 -> ~2.6 ms). The file's pages are read once per process (``src``
    is a session file, never written: keyed by its size and time all the same)."""
    source = Path(src)
    st = source.stat()
    stamp = (st.st_size, st.st_mtime_ns)
    known = _EXTENTS.get(source)
    if known is None or known[0] != stamp:
        known = _EXTENTS[source] = (stamp, _data_extents(source.read_bytes()))
    fd = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        for offset, data in known[1]:
            os.pwrite(fd, data, offset)
        os.ftruncate(fd, stamp[0])
    finally:
        os.close(fd)
    return Path(dst)


def _data_extents(data: bytes) -> list[tuple[int, memoryview]]:
    """(offset, bytes) of each run of pages of ``data`` that are not all zeros (and of
    a last partial page)."""
    import numpy as np

    whole = len(data) // _PAGE
    words = np.frombuffer(data, np.uint64, whole * _PAGE // 8)  # none for a file under a page
    nonzero = words.reshape(whole, _PAGE // 8).any(axis=1)
    edges = np.flatnonzero(np.diff(np.concatenate(([False], nonzero, [False])).astype(np.int8)))
    view = memoryview(data)
    runs = [
        (int(a) * _PAGE, view[int(a) * _PAGE : int(b) * _PAGE])
        for a, b in zip(edges[::2], edges[1::2], strict=True)
    ]
    if len(data) > whole * _PAGE:
        runs.append((whole * _PAGE, view[whole * _PAGE :]))
    return runs


# ------------------------------------------------------------- builds kept across runs
_KEY: list[Path | None] = []  # this process's folder of kept builds (None: keep none)
_KEY_INPUT = "litaudit_build_key"  # the controller's key in an xdist worker's workerinput


class _HandKey:
    """Hands the controller's digest of the kept builds (:func:`_build_key`) to each xdist
    worker it starts, in the worker's ``config.workerinput``. A plugin, not a hook of this
    file: ``pytest_configure_node`` is xdist's hook, unknown to pytest without it."""

    def __init__(self, key: str):
        self.key = key

    def pytest_configure_node(self, node) -> None:
        node.workerinput[_KEY_INPUT] = self.key


def _build_key(root: Path = REPO, trec: Path = SHARED_DATA / "trec") -> str:
    """The digest of what a session fixture's file is built from: the package, schema/,
    seeds/, this conftest (the builders), the versions of Python and of the installed
    distributions, and the size and time of each file of ../shared/data/trec (the robust03
    archive). A change to any of them builds every fixture anew (tests/repo/
    test_build_key.py). Computed once a run, in the controller under xdist
    (:func:`_configure_kept_builds`)."""
    import hashlib
    import importlib.metadata

    digest = hashlib.sha256(sys.version.encode())
    # a set: with the repository on sys.path (xdist's workers) litaudit.egg-info makes a
    # second entry of the same distribution
    for dist in sorted(
        {(d.metadata["Name"] or "", d.version) for d in importlib.metadata.distributions()}
    ):
        digest.update(f"{dist[0]}=={dist[1]}\n".encode())
    for top in ("litaudit", "schema", "seeds"):
        for path in sorted((root / top).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(root)).encode() + b"\0")
                digest.update(path.read_bytes())
    digest.update(Path(__file__).read_bytes())
    if trec.is_dir():
        for path in sorted(trec.rglob("*")):
            if path.is_file():
                st = path.stat()
                digest.update(f"{path.relative_to(trec)} {st.st_size} {st.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:20]


def _kept_builds() -> Path | None:
    return _KEY[0] if _KEY else None


def _restore(kept: Path, shared: Path, name: str) -> bool:
    """Link a kept build of ``name`` (and its companions) into the run's folder: the
    run's file is only read (each process copies it, :func:`copy_db`), so a hard link
    serves as a copy without writing its ~90 MB a run (a copy where links fail)."""
    if not (kept / f"built-{name}").exists():
        return False
    stem = name.split(".")[0]
    for path in kept.glob(f"built-{stem}.*"):
        try:
            os.link(path, shared / path.name)
        except OSError:  # another file system, or links refused
            copy_db(path, shared / path.name)
    return True


def _keep(kept: Path, shared: Path, name: str) -> None:
    """Put this run's build of ``name`` and its companions in the kept folder (the
    database last, by rename, so a half-copied entry is never taken for a whole one)."""
    import shutil

    stem = name.split(".")[0]
    for path in shared.glob(f"built-{stem}.*"):
        if path.name == f"built-{name}" or path.suffix == ".lock":
            continue
        shutil.copy(path, kept / path.name)
    part = kept / f"part-{os.getpid()}-{name}"
    shutil.copy(shared / f"built-{name}", part)
    part.rename(kept / f"built-{name}")


def _link_or_copy(src: str, dst: str) -> None:
    """``shutil.copytree``'s copy_function for a folder only read: a hard link, or a copy
    where links fail (another file system, or links refused)."""
    import shutil

    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _built_folder_once(
    tmp_path_factory, name: str, build: Callable[[Path], None], also: tuple[Path, ...] = ()
) -> Path:
    """This process's copy of a folder that ``build`` fills once per run, or once for as
    long as nothing it is built from changes: :func:`_built_once` for a folder (the
    seeded site, with the database its build stored audits in). Kept across runs under
    the digest of :func:`_build_key`, of the source file that defines ``build`` (a test
    module's builder is not in this conftest) and of the files ``also`` names (modules
    it calls)."""
    import hashlib
    import inspect
    import shutil

    digest = hashlib.sha256()
    for path in (Path(inspect.getfile(build)), *also):
        digest.update(path.read_bytes())
    base, name = name, f"{name}-{digest.hexdigest()[:12]}"
    shared = _run_folder(tmp_path_factory)
    with _build_lock(shared, name) as built:
        if not built.exists():
            kept = _kept_builds()
            if kept is not None and (kept / f"built-{name}").is_dir():
                # linked, as _restore links a file: the run's folder is only copied from
                # (each process's own copy below), so links serve without writing the
                # folders' ~150 MB a run (0.30 -> 0.02 s of sys, 0.46 -> 0.02 s of wall)
                shutil.copytree(kept / f"built-{name}", built, copy_function=_link_or_copy)
            else:
                part = shared / f"building-{name}"
                shutil.rmtree(part, ignore_errors=True)
                part.mkdir()
                build(part)
                part.rename(built)
                if kept is not None:  # whole or not at all: copied aside, then renamed
                    for old in kept.glob(f"built-{base}-" + "?" * 12):  # of older sources
                        shutil.rmtree(old, ignore_errors=True)
                    aside = kept / f"part-{os.getpid()}-{name}"
                    shutil.copytree(built, aside)
                    try:
                        aside.rename(kept / f"built-{name}")
                    except OSError:  # another run kept the same build first
                        shutil.rmtree(aside, ignore_errors=True)
    mine = tmp_path_factory.mktemp(name.split("-")[0]) / name
    shutil.copytree(built, mine)
    return mine


def _configure_kept_builds(config) -> None:
    """This run's folder of kept builds: ``.pytest_cache/d/litaudit-built/<digest>``;
    the folders of other digests are removed (one set of builds is kept, ~60 MB)."""
    import shutil

    cache = getattr(config, "cache", None)
    if cache is None or config.getoption("--rebuild-fixtures"):
        _KEY.append(None)
        return
    root = cache.mkdir("litaudit-built")
    # the controller's digest, handed to the xdist workers it starts (_HandKey): one
    # digest a run, computed once, whatever a worker's sys.path holds
    workerinput = getattr(config, "workerinput", None)
    key = workerinput.get(_KEY_INPUT) if workerinput is not None else None
    if key is None:
        key = _build_key()
    if workerinput is None:  # the controller (or the only process)
        if config.pluginmanager.hasplugin("xdist"):
            config.pluginmanager.register(_HandKey(key), "litaudit-build-key")
        for old in root.iterdir():
            if old.name != key:
                shutil.rmtree(old, ignore_errors=True)
    kept = root / key
    kept.mkdir(exist_ok=True)
    _KEY.append(kept)


_HELD: list[Any] = []  # read-only stores of the session's files, closed at its end


def _read_only_for_the_run(path: Path) -> Path:
    """``path``, held open read-only (:func:`litaudit.store.db.open_store`) until the run
    ends, so that a write open of a session file fails at once ("this process has it open
    read-only") instead of changing what the tests after it read: copy it to write
    (``shutil.copy``). The file stays attached to the process's DuckDB instance
    (``litaudit.store.instance``), so the tests' read-only opens of it skip the ATTACH.
    """
    from litaudit.store.db import open_store

    _HELD.append(open_store(path, read_only=True))
    return path


@pytest.fixture(scope="session", autouse=True)
def _close_held_connections():
    """Closes the session's held stores at its end; and, at its start, sets the process's
    DuckDB instance (``litaudit.store.instance``, which every store of the process joins)
    to one thread, for the reason OPENBLAS_NUM_THREADS is 1 above: the suite's queries
    are small, and under xdist two workers' second threads only contend for the two cores
    and wake each other (`SET threads` is the instance's; ~8% of the CPU, user and sys,
    of tests/cli and tests/store with or without xdist). And it does not fsync: a written
    store's close checkpoints it, and the fsyncs of ~800 closes kept a worker waiting on
    the disk (~1.5 s of `make test-fast`'s 21 s wall). Durability through an operating
    system crash is DuckDB's to test, not this suite's; a test's CLI subprocesses (a
    killed import, the installed wheel) keep DuckDB's default, as a user's commands do."""
    from litaudit.store.db import open_store

    with open_store(":memory:") as store:
        store.con.execute("SET threads = 1")
        store.con.execute("SET fsync_mode = 'NONE'")
    yield
    while _HELD:
        _HELD.pop().close()


@pytest.fixture(scope="session")
def reference_db_file(tmp_path_factory) -> Path:
    """A database file with the schema and reference data (built once per run)."""

    def build(path: Path) -> None:
        from litaudit.store.db import open_store
        from litaudit.store.refdata import load_reference_data

        with open_store(path) as store:
            with store.transaction():
                load_reference_data(store.con)

    return _read_only_for_the_run(_built_once(tmp_path_factory, "reference.duckdb", build))


@pytest.fixture
def mem_store(reference_db_file, tmp_path):
    """A fresh store with the schema and reference data (collections, measures).

    (A copy of a session-built file: as isolated as an in-memory database, and fast.)
    """

    from litaudit.store.db import open_store

    path = tmp_path / "store.duckdb"
    copy_db(reference_db_file, path)
    store = open_store(path)
    yield store
    store.close()


@pytest.fixture(scope="module")
def shared_stores(reference_db_file, tmp_path_factory):
    """Two stores with the schema and reference data, shared by a module's tests: use them
    inside :func:`rolled_back`, which undoes every write at the end of the block (each
    example of a property test on fresh stores, without a copy and an open each)."""

    from litaudit.store.db import open_store

    d = tmp_path_factory.mktemp("shared_stores")
    stores = []
    for name in ("a", "b"):
        copy_db(reference_db_file, d / f"{name}.duckdb")
        stores.append(open_store(d / f"{name}.duckdb"))
    yield stores
    for store in stores:
        store.close()


class _Undo(Exception):
    """Ends a :func:`rolled_back` block: its transactions roll back."""


@contextmanager
def rolled_back(*stores):
    """A block inside a transaction on each of ``stores``, rolled back at its end (or at
    an error, which goes on): the stores are as before it. The code inside that opens a
    transaction joins these (:meth:`litaudit.store.db.Store.transaction`)."""
    try:
        with ExitStack() as stack:
            for store in stores:
                stack.enter_context(store.transaction())
            yield
            raise _Undo
    except _Undo:
        pass


@pytest.fixture(scope="session")
def seeded_db_file(tmp_path_factory) -> Path:
    """A database file built from seeds/ once per run (treat as read-only)."""

    def build(path: Path) -> None:
        from litaudit.curation.seed import load_seeds
        from litaudit.store.db import open_store

        with open_store(path) as store:
            load_seeds(store)

    return _read_only_for_the_run(_built_once(tmp_path_factory, "seeded.duckdb", build))


# The collections of the small seed set: whole collections (every seed row of each), so a
# population of them holds in it what it holds in the full seeds.
SMALL_SEED_COLLECTIONS = (
    "disks45/nocr/trec-robust-2004",
    "disks45/nocr/trec7",
    "msmarco-passage/dev/small",
)


def write_small_seeds(folder: Path, collections=SMALL_SEED_COLLECTIONS) -> Path:
    """A seeds folder (as ``load_seeds`` reads one) holding the reference data and papers
    of seeds/ and, of its result files, the rows of ``collections`` only: real seed rows,
    each file under its own name (the seeded rows' reasons name it)."""
    import csv
    import gzip
    import io
    import shutil

    from litaudit.curation.seed import seed_files
    from litaudit.store.refdata import SEEDS_DIR

    for item in SEEDS_DIR.iterdir():
        if item.is_file():
            shutil.copy(item, folder / item.name)
    shutil.copytree(SEEDS_DIR / "papers", folder / "papers")
    (folder / "results").mkdir()
    for path in seed_files(SEEDS_DIR):
        gz = path.name.endswith(".gz")
        text = gzip.decompress(path.read_bytes()).decode("utf-8") if gz else path.read_text("utf-8")
        reader = csv.DictReader(io.StringIO(text))
        rows = [row for row in reader if row["collection"] in collections]
        if not rows:
            continue
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=reader.fieldnames or [], lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        data = out.getvalue().encode("utf-8")
        (folder / "results" / path.name).write_bytes(gzip.compress(data) if gz else data)
    return folder


@pytest.fixture(scope="session")
def small_seeded_db_file(tmp_path_factory) -> Path:
    """A database file built by ``load_seeds`` from a small seed set (built once per run;
    treat as read-only): the reference data and papers of seeds/ and every seed result of
    robust04, TREC-7 and MS MARCO passage dev/small (SMALL_SEED_COLLECTIONS; ~1,500 of the
    seeds' ~35,000 results). For a test of a command over the whole store (a summary, an
    export, a listing, progress) whose checks hold on any seeded store: the full seeds
    prove nothing more there, at some 20 times the rows."""

    def build(path: Path) -> None:
        import tempfile

        from litaudit.curation.seed import load_seeds
        from litaudit.store.db import open_store

        seeds = write_small_seeds(Path(tempfile.mkdtemp(prefix="small-seeds", dir=path.parent)))
        with open_store(path) as store:
            load_seeds(store, seeds)

    return _read_only_for_the_run(_built_once(tmp_path_factory, "small-seeded.duckdb", build))


@pytest.fixture
def small_seeded_store(small_seeded_db_file, tmp_path):
    """A writable copy of the small seeded database (:func:`small_seeded_db_file`)."""

    from litaudit.store.db import open_store

    path = tmp_path / "small-seeded.duckdb"
    copy_db(small_seeded_db_file, path)
    store = open_store(path)
    yield store
    store.close()


@dataclass(frozen=True)
class Summarized:
    """The seeded database after `litaudit audit summary` (every population's best audit
    stored, as `make run` leaves it), with what that command printed (``text``: its
    output, stderr too) and the ``--json`` stdout of a second `audit summary` on it (which
    reuses the stored audits)."""

    db: Path  # this process's copy: read-only (copy it to write)
    text: str
    json: dict[str, Any]


@pytest.fixture(scope="session")
def summarized(seeded_db_file, tmp_path_factory) -> Summarized:
    """The seeded database summarized once per run (:class:`Summarized`): a test of what
    `audit summary` prints, stores or leaves for the commands after it reads this rather
    than summarizing the whole seeded store again (3.6 s of CPU each time)."""
    import json
    import shutil

    from typer.testing import CliRunner

    from litaudit.cli.main import app

    shared = _run_folder(tmp_path_factory)

    def build(path: Path) -> None:
        shutil.copy(seeded_db_file, path)
        runner = CliRunner()
        res = runner.invoke(app, ["--db", str(path), "audit", "summary"])
        assert res.exit_code == 0, res.output
        (shared / "built-summarized.txt").write_text(res.output, encoding="utf-8")
        res = runner.invoke(app, ["--db", str(path), "audit", "summary", "--json"])
        assert res.exit_code == 0, res.output
        (shared / "built-summarized.json").write_text(res.stdout, encoding="utf-8")

    db = _read_only_for_the_run(_built_once(tmp_path_factory, "summarized.duckdb", build))
    return Summarized(
        db=db,
        text=(shared / "built-summarized.txt").read_text(encoding="utf-8"),
        json=json.loads((shared / "built-summarized.json").read_text(encoding="utf-8")),
    )


ROBUST03 = "trec-robust-2003"


@pytest.fixture(scope="session")
def robust03_db_file(seeded_db_file, tmp_path_factory) -> Path:
    """The seeded database with the robust03 archive of ../shared/data (17 runs, the
    qrels) imported, built once per run; treat as read-only."""
    trec = SHARED_DATA / "trec"
    if not (trec / "runs" / "robust03").is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}: the robust03 archive is needed")

    def build(path: Path) -> None:
        import shutil

        from litaudit.runs.ingest import import_archive
        from litaudit.store.db import open_store

        shutil.copy(seeded_db_file, path)
        with open_store(path) as store:
            import_archive(
                store,
                ROBUST03,
                [trec / "runs" / "robust03"],
                qrels_path=trec / "qrels" / "qrels.robust03.txt",
            )

    return _read_only_for_the_run(_built_once(tmp_path_factory, "robust03.duckdb", build))


@pytest.fixture
def seeded_store(seeded_db_file, tmp_path):
    """A writable copy of the seeded database."""

    from litaudit.store.db import open_store

    path = tmp_path / "seeded.duckdb"
    copy_db(seeded_db_file, path)
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
        # not cache.setdefault(key, original(...)): that builds the command on every call
        command = cache.get(id(typer_instance))
        if command is None:
            command = cache[id(typer_instance)] = original(typer_instance)
        return command

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
# `slow` means more than a quarter second of CPU of the test's own (pyproject.toml): its
# call, and the setup and teardown of its function-scoped fixtures. A fixture shared by a
# module or the session (the seeded database, 2.5 s) is counted apart: it is built once
# for all the tests that use it, in whichever of them runs first. Wall time on a shared
# machine says little, so this option measures CPU: this process's (all its threads:
# DuckDB's too) and that of the subprocesses it waited for. It works under xdist (-n):
# each worker's numbers travel in the test reports' user_properties.
SLOW_CPU = 0.25


TEST_SECONDS = "litaudit/test-seconds"  # pytest's cache: each test's seconds, last timed


def _file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


@pytest.hookimpl(trylast=True)  # after -m and -k have deselected: the tests that will run
def pytest_collection_modifyitems(config, items):
    """The costliest files first (each file's tests in their order): under `--dist
    loadfile` a worker takes a whole file whenever it runs short of work, so handing out
    the longest first keeps the two workers busy to the end, where a long file handed out
    last keeps one busy after the other has finished. A file's cost is the sum of the
    seconds of its selected tests in the last run that ran each (setup, call and
    teardown, the fixtures a test built included), kept in pytest's cache (.pytest_cache,
    :func:`pytest_sessionfinish`); a test no run has timed yet counts a second if slow.
    Kept by test, not by file: `make test-fast` times a file's fast tests only (2.6 s of
    test_reuse_verdict.py's 25.7 s), and a file's sum kept from it put that file among
    the last of the next `make test`."""
    cache = getattr(config, "cache", None)
    timed: dict[str, float] = cache.get(TEST_SECONDS, {}) if cache is not None else {}
    cost: dict[str, float] = {}
    for item in items:
        name = _file_of(item.nodeid)
        default = 1.0 if item.get_closest_marker("slow") else 0.0
        cost[name] = cost.get(name, 0.0) + timed.get(item.nodeid, default)
    items.sort(key=lambda item: -cost[_file_of(item.nodeid)])


_test_seconds: dict[str, float] = {}  # this run's seconds by test (the controller's)


def pytest_sessionfinish(session):
    """Keep each test's seconds of this run in pytest's cache, for the order of the next
    (under xdist the controller, which sees every worker's reports, writes them)."""
    cache = getattr(session.config, "cache", None)
    if cache is None or hasattr(session.config, "workerinput") or not _test_seconds:
        return
    timed = dict(cache.get(TEST_SECONDS, {}))
    # at least half the seconds kept before: a test whose kept build is reused is cheap on
    # the next run of the same tree and costly again after an edit (test_package.py's
    # wheel fixture: 0.05 or 5 s); ordered by its cheap run only, its costly one would come
    # last and keep one worker busy after the other has finished
    timed.update(
        {
            nodeid: round(max(s, timed.get(nodeid, 0.0) / 2), 3)
            for nodeid, s in _test_seconds.items()
        }
    )
    cache.set(TEST_SECONDS, timed)


def pytest_collection_finish(session):
    """What collection built (the test items, the imported modules) lives to the end of
    the run: moved out of the garbage collector's sight (gc.freeze), so that its full
    collections do not walk it again and again (they took 5 of a run's 7 s of GC)."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 20, 20)


def pytest_addoption(parser):
    parser.addoption(
        "--rebuild-fixtures",
        action="store_true",
        help="build the session's database files anew, not from the builds .pytest_cache "
        "keeps for unchanged code, seeds and data (tests/conftest.py, _built_once)",
    )
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


_in_setup: list = []  # the test whose setup is running


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    _in_setup.append(item)
    mark = item.get_closest_marker("slow")
    if mark is not None and mark.kwargs.get("reason"):
        item.user_properties.append(("slow_reason", mark.kwargs["reason"]))
    try:
        yield from _timed(item, "setup")
    finally:
        _in_setup.pop()


class _SharedFixtureTimer:
    """A module- or session-scoped fixture's CPU, recorded apart (its own fixtures are set
    up before this hook, so nothing is counted twice). A plugin, not a hook of this file:
    pytest asks a session fixture's hooks of the root's conftest files only."""

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef, request):
        if fixturedef.scope == "function" or not _in_setup:
            yield
            return
        start = _cpu_seconds()
        yield
        cpu = _cpu_seconds() - start
        _in_setup[-1].user_properties.append((f"shared_cpu:{fixturedef.argname}", cpu))


_ASIDE = "garbage-litaudit-"  # a run's temp folder set aside (pytest's "garbage-" prefix)


class _RunFolderAside:
    """The controller's (or the only process's) removal of the run's temp folder, off the
    run's critical path. pytest removes a passing run's folder at its end, and the run
    waits: ~300 MB of database copies, 0.4-1.7 s of wall on this machine's ext4 for
    ~0.1 s of CPU, after the workers' last test. Instead the folder is renamed aside at
    the end (``garbage-litaudit-*``, beside the numbered ones, its lock inside: pytest's
    own clean-up leaves it), and the next run removes the folders set aside, in a thread,
    while its workers start (which takes them ~2 s of CPU, not of the disk). A run that
    fails keeps its folder, as pytest does; ``--basetemp`` folders are not touched."""

    def __init__(self) -> None:
        self.removing: Any = None  # the thread removing the folders of earlier runs

    @staticmethod
    def _folder(config) -> Path | None:
        # pytest's own TempPathFactory: the folder it removes, unless --basetemp gave it
        factory = getattr(config, "_tmp_path_factory", None)
        if factory is None or config.option.basetemp is not None:
            return None
        return factory.getbasetemp()

    def pytest_sessionstart(self, session) -> None:
        import shutil
        import threading

        folder = self._folder(session.config)
        if folder is None:
            return
        aside = sorted(folder.parent.glob(_ASIDE + "*"))

        def remove() -> None:
            for path in aside:
                shutil.rmtree(path, ignore_errors=True)

        if aside:
            self.removing = threading.Thread(target=remove, name="litaudit-remove-run-folders")
            self.removing.start()

    @pytest.hookimpl(tryfirst=True)  # before pytest's tmpdir plugin removes the folder
    def pytest_sessionfinish(self, session, exitstatus) -> None:
        import uuid

        config = session.config
        folder = self._folder(config)
        if (
            folder is not None
            and exitstatus == 0
            and config.getini("tmp_path_retention_policy") == "failed"
            and folder.is_dir()
        ):
            try:
                folder.rename(folder.parent / f"{_ASIDE}{folder.name}-{uuid.uuid4().hex[:8]}")
            except OSError:  # left where it is: pytest removes it, as without this plugin
                pass

    def pytest_unconfigure(self, config) -> None:
        if self.removing is not None:
            self.removing.join()


def pytest_unconfigure(config):
    if hasattr(config, "workerinput"):
        _SESSION_ENDED.append(True)


def pytest_configure(config):
    _configure_kept_builds(config)
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(_RunFolderAside(), "litaudit-run-folder-aside")
    if config.getoption("--cpu-durations") is not None:
        config.pluginmanager.register(_SharedFixtureTimer(), "litaudit-shared-fixture-timer")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    yield from _timed(item, "call")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item):
    yield from _timed(item, "teardown")


_cpu_by_test: dict[str, tuple[float, bool]] = {}
_shared_cpu: dict[str, float] = {}  # a shared fixture's name -> its CPU, over every build
_slow_reason: dict[str, str] = {}  # a slow mark's reason, when it is not the test's CPU


def pytest_runtest_logreport(report):
    _test_seconds[report.nodeid] = _test_seconds.get(report.nodeid, 0.0) + report.duration
    if report.when != "teardown":
        return
    props = report.user_properties
    if any(str(k).startswith("cpu_") for k, _ in props):
        shared = [(str(k).split(":", 1)[1], v) for k, v in props if str(k).startswith("shared_")]
        cpu = sum(v for k, v in props if str(k).startswith("cpu_")) - sum(v for _, v in shared)
        _cpu_by_test[report.nodeid] = (cpu, "slow" in report.keywords)
        for name, v in shared:
            _shared_cpu[name] = _shared_cpu.get(name, 0.0) + v
        for k, v in props:
            if k == "slow_reason":
                _slow_reason[report.nodeid] = str(v)


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
        f"{total:.1f} s in {len(rows)} tests: {slow:.1f} s marked slow, {total - slow:.1f} s not; "
        f"and {sum(_shared_cpu.values()):.1f} s building the fixtures shared by a module or "
        "the session"
    )
    shared = sorted(_shared_cpu.items(), key=lambda kv: -kv[1])[:5]
    tr.write_line(
        "the costliest shared fixtures (every build): "
        + ", ".join(f"{name} {cpu:.1f} s" for name, cpu in shared)
    )
    for nodeid, (cpu, marked) in rows[: n or None]:
        tr.write_line(f"{cpu:7.2f}  {'slow ' if marked else '     '} {nodeid}")
    # between half and one and a half times the rule: measurement noise (a loaded machine
    # moves a test's CPU by a third), no verdict
    over = [(k, c) for k, (c, marked) in rows if c > 1.5 * SLOW_CPU and not marked]
    under = [
        (k, c) for k, (c, marked) in rows if c < SLOW_CPU / 2 and marked and k not in _slow_reason
    ]
    for title, found in (
        (f"over {1.5 * SLOW_CPU:g} s, not marked slow", over),
        (f"marked slow, under {SLOW_CPU / 2:g} s, and the mark gives no reason", under),
    ):
        if found:
            tr.write_sep("-", title)
            for nodeid, cpu in found:
                tr.write_line(f"{cpu:7.2f}  {nodeid}")


@pytest.fixture(scope="session")
def robust03_coded(robust03_db_file):
    """(collection id, coded archive) of the session's robust03 database
    (:func:`litaudit.analyses.reuse.coded_archive.load_coded`): the reusability analyses'
    input, read once for the run by the modules that check them on robust03. Shared: its
    arrays are read-only (a test that wrote to one would change what the others see)."""
    import dataclasses

    import numpy as np

    from litaudit.analyses.reuse.coded_archive import load_coded
    from litaudit.store.db import open_store

    with open_store(robust03_db_file, read_only=True) as store:
        cid, coded = load_coded(store.con, ROBUST03)
    for f in dataclasses.fields(coded):
        value = getattr(coded, f.name)
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
    return cid, coded


@pytest.fixture(scope="module")
def seeded_read_store(seeded_db_file):
    """The session's seeded database opened read-only once for a module, for tests that
    only read it (audits with ``save=False``, lookups): a write fails at once. It spares
    each such test :func:`seeded_store`'s copy of the ~17 MB file and its open (~11 ms)."""
    from litaudit.store.db import open_store

    store = open_store(seeded_db_file, read_only=True)
    yield store
    store.close()


_UNWRITTEN_NS = 1_000_000_000_000_000_000  # 2001-09-09: a time no write of this run sets


@contextmanager
def unwritten(db: Path) -> Iterator[None]:
    """Asserts that the block writes nothing to the database file ``db`` (closed before
    it): its modification time is set to a past one first, and after the block the file
    has that time and its size and no write-ahead log beside it. Any commit writes the
    log or, at the close's checkpoint, the file (a stat, where listing what a command
    could have changed costs a CLI run: a check of every table, not of one listing)."""
    os.utime(db, ns=(_UNWRITTEN_NS, _UNWRITTEN_NS))
    size = db.stat().st_size
    yield
    now = db.stat()
    assert not Path(f"{db}.wal").exists(), f"{db}: a write-ahead log was left behind"
    assert (now.st_size, now.st_mtime_ns) == (size, _UNWRITTEN_NS), f"{db} was written"


@pytest.fixture
def undone_store(shared_stores):
    """A store with the schema and reference data for a test whose writes succeed: the
    first of the module's :func:`shared_stores`, inside :func:`rolled_back` for the test
    (no copy, open and checkpointed close: ~18 ms of CPU less than :func:`mem_store`'s
    for a one-row import). Not for a test of what a failed write leaves behind: the
    store's own transactions join this one, so their rollback waits for the test's end."""
    with rolled_back(shared_stores[0]):
        yield shared_stores[0]


@dataclass(frozen=True)
class SyntheticArchive:
    """The synthetic archive of tests/runs/test_runs_cache.py (``_write_archive``: five
    runs with tied scores, six topics) imported as robust03's into a copy of the reference
    database: ``db`` (read-only for the run: copy it to use it), its files and the lines
    the import stored."""

    db: Path
    qrels: Path
    paths: list[Path]
    lines: int


@pytest.fixture(scope="session")
def synthetic_archive(reference_db_file, tmp_path_factory) -> SyntheticArchive:
    """:class:`SyntheticArchive`, imported once per run: a test of what is done with the
    archive once stored copies ``db`` (~3 ms) instead of importing it again into a new
    store (~30 ms); a test of the import itself imports it."""
    from litaudit.runs.ingest import import_archive
    from litaudit.store.db import open_store
    from tests.runs.test_runs_cache import CID, _write_archive

    root = tmp_path_factory.mktemp("synthetic_archive")
    qrels, paths = _write_archive(root)
    db = copy_db(reference_db_file, root / "archive.duckdb")
    with open_store(db) as store:
        lines = import_archive(store, CID, paths, qrels_path=qrels).lines
    return SyntheticArchive(_read_only_for_the_run(db), qrels, paths, lines)


@pytest.fixture
def archive_store(synthetic_archive, tmp_path, monkeypatch):
    """A writable copy of :func:`synthetic_archive`'s database, open for the test. Its
    copies share the archive's fingerprint (the import's time is the one import's), so
    the process's kept matrices (``litaudit.runs.archive_eval``) start empty for the
    test, as after an import of its own: what it evaluates is evaluated again."""
    from litaudit.runs import archive_eval
    from litaudit.store.db import open_store

    monkeypatch.setattr(archive_eval, "_MATRICES", {})
    store = open_store(copy_db(synthetic_archive.db, tmp_path / "archive.duckdb"))
    yield store
    store.close()
