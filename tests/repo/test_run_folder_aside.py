"""tests/conftest.py's ``_RunFolderAside``: a passing run's temp folder is renamed aside at
its end (not removed while the run waits), and the next run removes the folders set
aside; a failing run's folder, and a --basetemp folder, stay where they are."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from tests.conftest import _ASIDE, _RunFolderAside


def _config(folder: Path, *, given: bool = False, policy: str = "failed") -> SimpleNamespace:
    return SimpleNamespace(
        _tmp_path_factory=SimpleNamespace(getbasetemp=lambda: folder),
        option=SimpleNamespace(basetemp=str(folder) if given else None),
        getini=lambda name: policy if name == "tmp_path_retention_policy" else None,
    )


def _run(root: Path, number: int) -> Path:
    folder = root / f"pytest-{number}"
    (folder / "popen-gw0").mkdir(parents=True)
    (folder / "popen-gw0" / "copy.duckdb").write_bytes(b"\0" * 10)
    (folder / ".lock").touch()
    return folder


def test_a_passing_run_is_set_aside_and_removed_by_the_next(tmp_path: Path):
    first = _run(tmp_path, 1)
    plugin = _RunFolderAside()
    session = SimpleNamespace(config=_config(first))
    plugin.pytest_sessionstart(session)
    assert plugin.removing is None  # nothing set aside before
    plugin.pytest_sessionfinish(session, 0)
    plugin.pytest_unconfigure(session.config)
    assert not first.exists()
    (aside,) = tmp_path.glob(_ASIDE + "*")
    assert aside.name.startswith(f"{_ASIDE}pytest-1-")
    assert (aside / "popen-gw0" / "copy.duckdb").is_file()

    second = _run(tmp_path, 2)
    plugin = _RunFolderAside()
    session = SimpleNamespace(config=_config(second))
    plugin.pytest_sessionstart(session)
    plugin.pytest_unconfigure(session.config)  # joins the removal
    assert not aside.exists()
    assert (second / "popen-gw0" / "copy.duckdb").is_file()  # this run's own: untouched


def test_a_failing_run_or_a_given_folder_stays(tmp_path: Path):
    for number, config, status in (
        (1, _config(tmp_path / "pytest-1"), 1),  # tests failed
        (2, _config(tmp_path / "pytest-2", given=True), 0),  # --basetemp
        (3, _config(tmp_path / "pytest-3", policy="all"), 0),  # pytest keeps it too
    ):
        folder = _run(tmp_path, number)
        plugin = _RunFolderAside()
        session = SimpleNamespace(config=config)
        plugin.pytest_sessionstart(session)
        plugin.pytest_sessionfinish(session, status)
        plugin.pytest_unconfigure(config)
        assert (folder / "popen-gw0" / "copy.duckdb").is_file()
    assert not list(tmp_path.glob(_ASIDE + "*"))
