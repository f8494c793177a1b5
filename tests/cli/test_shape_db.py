"""`init` and `db migrate` in the one shape (issue 37 item 1): one request, one call
returning a typed report (the seed sync's; the migrations listed or applied), one
renderer; `db migrate` on a missing database creates nothing."""

from __future__ import annotations

import dataclasses
import json

import pytest

from litaudit.curation.init_request import InitReport, InitRequest, answer_init
from litaudit.store import migrations
from litaudit.store.migration_requests import (
    MigrateRequest,
    MigrationDone,
    MigrationList,
    answer_migrate,
)


def test_migrate_list_of_a_missing_database_creates_nothing(tmp_path, cli):
    path = tmp_path / "none.duckdb"
    got = answer_migrate(MigrateRequest(path=path, list_only=True))
    assert isinstance(got, MigrationList)
    assert [r.version for r in got.rows] == [m.version for m in migrations.available()]
    assert {r.applied_at for r in got.rows} == {"pending"}
    res = cli("db", "migrate")
    assert res.exit_code == 1 and "no database at" in res.output
    assert not path.exists() and not cli.db.exists()


@pytest.mark.slow
def test_init_report_is_typed_and_its_json_unchanged(tmp_path, cli):
    rep = answer_init(InitRequest(path=tmp_path / "a.duckdb", seeds=False))
    assert isinstance(rep, InitReport) and rep.seeds is None and rep.counts == ()
    assert rep.added.collections > 0 and rep.added.measures > 0 and rep.added.results == 0
    again = answer_init(InitRequest(path=tmp_path / "a.duckdb", seeds=False))
    assert (again.added.collections, again.added.measures) == (0, 0)
    res = cli("init", "--no-seeds", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert set(data) == {"path", "added", "zero_shot", "files", "counts"}  # no "seeds"
    assert data["added"] == dataclasses.asdict(rep.added)  # a fresh database as the first
    assert data["path"] == str(cli.db) and data["zero_shot"] == rep.zero_shot
    up = answer_migrate(MigrateRequest(path=tmp_path / "a.duckdb"))
    assert up == MigrationDone(
        path=tmp_path / "a.duckdb",
        before=migrations.code_version(),
        after=migrations.code_version(),
        applied=(),
    )
    listed = answer_migrate(MigrateRequest(path=tmp_path / "a.duckdb", list_only=True))
    assert isinstance(listed, MigrationList) and "pending" not in {
        r.applied_at for r in listed.rows
    }
