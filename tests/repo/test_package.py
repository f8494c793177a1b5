"""The package installs: a wheel built from this tree carries schema/ and seeds/, and in a
fresh virtual environment `litaudit init` and an audit work from it alone. (This is also
the test of what `litaudit init` prints on a new database.)"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.cli.test_progress import BAR_MARKS

REPO = Path(__file__).resolve().parents[2]
TREE = ("litaudit", "schema", "seeds", "pyproject.toml", "setup.py", "MANIFEST.in", "README.md")


def _run(*args, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=600, **kw)


def _install(src: Path, py: Path) -> None:
    """pip builds the wheel of ``src`` (:func:`_wheel`) and installs it into ``py``'s
    environment (--no-deps, no index)."""
    wheel = _wheel(src)
    pip = (sys.executable, "-m", "pip", "--python", py, "install", "--no-deps", "--no-compile")
    r = _run(*pip, "-q", "--no-index", wheel)
    assert r.returncode == 0, r.stderr


def _wheel(src: Path) -> Path:
    """The wheel pip builds of ``src`` (--no-deps): with this environment's setuptools
    when it has one (no build isolation, no index: the venv sees it through deps.pth), and
    then the build must succeed; else with build isolation (setuptools from the index or
    pip's cache), the test skipped when that cannot be had. (An isolated build is what
    `make venv`'s editable install does on every fresh environment; here it costs 1.6 s
    more.) The wheel is kept with the session's kept builds (tests/conftest.py
    `_built_once`: keyed by the package, schema/, seeds/ and the installed distributions,
    setuptools among them) under the digest of every file of ``src`` and of this builder:
    a run with the same tree installs the wheel the same build wrote (1.2 s of CPU
    saved); any change to the tree builds it anew."""
    import hashlib
    import importlib.util
    import inspect

    from tests.conftest import _kept_builds

    digest = hashlib.sha256(inspect.getsource(_wheel).encode())
    for path in sorted(src.rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(src).as_posix().encode() + b"\0" + path.read_bytes())
    kept_root = _kept_builds()
    kept = None if kept_root is None else kept_root / f"wheel-{digest.hexdigest()[:20]}"
    if kept is not None and kept.is_dir():
        return next(kept.glob("litaudit-*.whl"))
    local = importlib.util.find_spec("setuptools") is not None
    extra = ("--no-build-isolation", "--no-index") if local else ()
    out = src.parent / "wheel"
    r = _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", out, *extra, src)
    if not local and r.returncode != 0:
        last = r.stderr.strip().splitlines()[-1:] or ["?"]
        pytest.skip(f"cannot build the wheel here (no index, no pip cache?): {last}")
    assert r.returncode == 0, r.stderr
    (wheel,) = out.glob("litaudit-*.whl")
    if kept is not None:  # whole or not at all: a folder renamed into place
        part = kept.with_name(f"part-{kept.name}-{os.getpid()}")
        part.mkdir()
        shutil.copy(wheel, part / wheel.name)
        try:
            part.rename(kept)
        except OSError:  # another run kept the same wheel first
            shutil.rmtree(part)
    return wheel


def _wheel_files(site: Path) -> set[str]:
    """The files the installed wheel carried: its RECORD (the wheel's own list, which pip
    installs with it)."""
    (record,) = site.glob("litaudit-*.dist-info/RECORD")
    return {line.split(",", 1)[0] for line in record.read_text().splitlines() if line}


def _install_and_run(folder: Path) -> None:
    """Build the wheel of this tree, install it into a fresh virtual environment, and
    run its `litaudit init` and an audit there, from a folder elsewhere; write what the
    test checks to ``folder``: outcome.json (the installed wheel's RECORD, where
    ``import litaudit`` found it, each command's exit status and output) and the installed
    schema files (schema/). The environment and the database are removed after."""
    tmp = folder / "work"
    src = tmp / "src"
    src.mkdir(parents=True)
    for name in TREE:
        p = REPO / name
        (
            shutil.copytree(p, src / name, ignore=shutil.ignore_patterns("__pycache__"))
            if p.is_dir()
            else shutil.copy(p, src / name)
        )
    # a fresh venv without pip; the dependencies come from this environment's
    # site-packages through a .pth line (its .pth files, e.g. the editable litaudit, are
    # not read from there), litaudit itself only from the wheel pip builds of the tree
    env = tmp / "venv"
    r = _run(sys.executable, "-m", "venv", "--without-pip", env)
    assert r.returncode == 0, r.stderr
    py = env / "bin" / "python"
    site = Path(
        _run(py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip()
    )
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _install(src, py)
    shutil.copytree(site / "litaudit/_data/schema", folder / "schema")
    work = tmp / "elsewhere"
    work.mkdir()
    where = _run(py, "-c", "import litaudit; print(litaudit.__file__)", cwd=work)
    exe = env / "bin" / "litaudit"
    db = work / "lit.duckdb"
    init = _run(exe, "--db", db, "init", cwd=work)
    audit = _run(exe, "--db", db, "audit", "best", "-c", "trec7", "-m", "AP", "--json", cwd=work)
    outcome = {
        "record": sorted(_wheel_files(site)),
        "site": str(site),
        "where": where.stdout.strip(),
        "db": str(db),
        **{
            name: {"returncode": r.returncode, "stdout": r.stdout, "stderr": r.stderr}
            for name, r in (("init", init), ("audit", audit))
        },
    }
    (folder / "outcome.json").write_text(json.dumps(outcome))
    shutil.rmtree(tmp)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[dict, Path]:
    """What :func:`_install_and_run` found, and the folder of the installed schema files.
    Built once for as long as nothing it is built from changes (tests/conftest.py
    ``_built_folder_once``: keyed by the package, schema/, seeds/, the installed
    distributions and Python, this module and the other files of the tree the wheel is
    built from): a run with the same tree checks the outcome the same build wrote (5.2 s
    of CPU and a worker's wall saved a run); any change to them builds, installs and runs
    anew."""
    from tests.conftest import _built_folder_once

    also = tuple(REPO / name for name in TREE if (REPO / name).is_file())
    folder = _built_folder_once(tmp_path_factory, "wheel-installed", _install_and_run, also)
    return json.loads((folder / "outcome.json").read_text()), folder / "schema"


@pytest.mark.slow(reason="builds, installs and runs a wheel (5.2 s) when the tree changed")
def test_wheel_installs_and_runs_init_and_an_audit(installed):
    outcome, schema = installed
    names = set(outcome["record"])
    assert "litaudit/__init__.py" in names
    for f in (REPO / "schema").rglob("*.sql"):  # the migrations and their snapshot
        name = f.relative_to(REPO / "schema").as_posix()
        assert f"litaudit/_data/schema/{name}" in names
        assert (schema / name).read_bytes() == f.read_bytes()
    seeds = [*(REPO / "seeds").rglob("*.csv"), *(REPO / "seeds").rglob("*.csv.gz")]
    assert any(f.name.endswith(".csv.gz") for f in seeds)  # the large seeds are gzipped
    for f in seeds:
        assert f"litaudit/_data/seeds/{f.relative_to(REPO / 'seeds').as_posix()}" in names
    assert outcome["where"].startswith(outcome["site"]), outcome["where"]
    r, db = outcome["init"], outcome["db"]
    assert r["returncode"] == 0, r["stderr"]
    # what init prints on a new database (and, stderr not being a terminal, no bar)
    # every seed file read from the wheel, the gzipped ones too (their rows are in the count)
    assert r["stdout"].startswith(f"{db}: added 35123 results, 172 papers, 73 collections")
    assert "Results per collection and measure" in r["stdout"]
    assert not any(m in r["stderr"] for m in BAR_MARKS), r["stderr"]
    r = outcome["audit"]
    assert r["returncode"] == 0, r["stderr"]
    out = json.loads(r["stdout"])
    assert (out["audit_id"], out["reused"]) == (1, False)
    assert out["result"]["stats"]["reference"]["n_results"] == 103
