"""The fixture store's site, built once per run (per xdist worker) for the site's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.site.fixture import make_site_db


@pytest.fixture(scope="session")
def fixture_site(tmp_path_factory) -> tuple[Path, Path]:
    """(the fixture store with its audits run by one build of its site, that site's
    folder): test_site.py copies the store, test_site_browser.py reads the pages (and adds
    its self-test copies of them beside them). One build, not one per module."""
    from typer.testing import CliRunner

    from litaudit.cli.main import app

    folder = tmp_path_factory.mktemp("site")
    db = make_site_db(folder / "site.duckdb")
    out = folder / "site"
    res = CliRunner().invoke(app, ["--db", str(db), "site", str(out)])
    assert res.exit_code == 0, res.output
    return db, out
