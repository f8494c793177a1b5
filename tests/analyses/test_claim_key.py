"""`audit claim` finds an identical stored audit before it computes (issue 37, item 4):
its key is read from the population's rows, the run archive and what the se's choice
reads, so a reused call computes nothing, says what the first said, and any change to an
input the result depends on (a row edited, retracted, a run archive imported) is a new
audit."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.analyses.test_reuse_runs import write_tiny_files

CLAIM = ("audit", "claim", "-c", "robust04", "-m", "AP", "--value", "0.372")
REUSED = "stored earlier by an identical call (same parameters, input and version)"


@pytest.fixture
def db(small_seeded_db_file, tmp_path):
    """A private copy of the small seeded database (robust04's rows in full)."""
    path = tmp_path / "claim.duckdb"
    shutil.copy(small_seeded_db_file, path)
    return path


def _id(cli, db, *args) -> tuple[int, bool]:
    res = cli(*CLAIM, *args, "--json", db=db)
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    return out["audit_id"], out["reused"]


def test_a_reused_claim_is_not_computed_and_says_what_the_first_said(cli, db, monkeypatch):
    from litaudit.analyses.extreme import claim_audit

    first = cli(*CLAIM, db=db)
    assert first.exit_code == 0, first.output
    first_json = json.loads(cli(*CLAIM, "--json", db=db).output)
    assert (first_json["audit_id"], first_json["reused"]) == (1, True)

    def computed(*args, **kw):
        raise AssertionError("a reused claim audit was computed")

    monkeypatch.setattr(claim_audit, "_report", computed)
    again = cli(*CLAIM, db=db)
    assert again.exit_code == 0, again.output
    said = again.output.rstrip().splitlines()
    assert said[-1].startswith("audit #1: " + REUSED)
    assert said[:-1] == first.output.rstrip().splitlines()
    again_json = json.loads(cli(*CLAIM, "--json", db=db).output)
    assert again_json == first_json
    # another claim is another key: computed (here, refused by the stand-in)
    with pytest.raises(AssertionError, match="was computed"):
        from litaudit.store.db import open_store

        with open_store(db) as store:
            claim_audit.run_claim(store.con, "robust04", "AP", claim_audit.Claim(value=0.371))


@pytest.mark.slow
def test_a_changed_input_is_a_new_claim_audit(cli, db, tmp_path):
    from litaudit.runs.ingest import import_archive
    from litaudit.store.db import open_store

    assert _id(cli, db) == (1, False)
    assert _id(cli, db) == (1, True)
    listed = json.loads(
        cli("results", "list", "-c", "robust04", "-m", "AP", "--json", db=db).output
    )
    rows = listed["results"] if isinstance(listed, dict) else listed
    one, two = rows[0]["id"], rows[1]["id"]
    # a row's value edited
    res = cli("results", "edit", str(one), "--set", "value=0.2001", "--reason", "test", db=db)
    assert res.exit_code == 0, res.output
    assert _id(cli, db) == (2, False)
    # a row retracted
    res = cli("results", "retract", str(two), "--reason", "test", db=db)
    assert res.exit_code == 0, res.output
    assert _id(cli, db) == (3, False)
    # a run archive of the collection imported (its noise, chance and resolution read it)
    paths, q, meta = write_tiny_files(tmp_path)
    with open_store(db) as store:
        import_archive(store, "disks45/nocr/trec-robust-2004", paths, qrels_path=q, metadata=meta)
    assert _id(cli, db)[1] is False
    assert _id(cli, db)[1] is True
