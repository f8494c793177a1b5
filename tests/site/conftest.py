"""The fixture store's site, built once per run (per xdist worker) for the site's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import _built_folder_once
from tests.site.fixture import make_site_db

FIXTURE = Path(__file__).with_name("fixture.py")


@pytest.fixture(scope="session")
def fixture_site(tmp_path_factory) -> tuple[Path, Path]:
    """(the fixture store with its audits run by one build of its site, that site's
    folder): test_site.py copies the store, test_site_browser.py reads the pages (and adds
    its self-test copies of them beside them). One build, not one per module; kept across
    runs while nothing it is built from changes (tests/conftest.py ``_built_folder_once``:
    the package, this file and fixture.py)."""
    folder = _built_folder_once(tmp_path_factory, "fixture-site", _build, also=(FIXTURE,))
    return folder / "site.duckdb", folder / "site"


def _build(folder: Path) -> None:
    from typer.testing import CliRunner

    from litaudit.cli.main import app

    db = make_site_db(folder / "site.duckdb")
    res = CliRunner().invoke(app, ["--db", str(db), "site", str(folder / "site")])
    assert res.exit_code == 0, res.output
