"""A reused audit says so in text as in JSON, and the extreme-value reports share one
population header (issue 37)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import copy_db

REUSED = "stored earlier by an identical call"


@pytest.fixture
def db(small_seeded_db_file, tmp_path):
    """A private copy of the small seeded database (audit commands write): TREC-7's seed
    rows whole, so its audits are those of the full seeds, and what is checked (one
    header, the reused note, the same text) holds of any store."""
    path = tmp_path / "audit.duckdb"
    copy_db(small_seeded_db_file, path)
    return path


@pytest.mark.parametrize(
    "args, head",
    [
        (("best", "-c", "trec7", "-m", "AP"), "Best-result audit: trec7 AP (all sources)"),
        (
            ("claim", "-c", "trec7", "-m", "AP", "--value", "0.31"),
            "Claim audit: trec7 AP (all sources)",
        ),
        (("history", "-c", "trec7", "-m", "AP"), "Sequential-testing history: trec7 AP"),
    ],
)
def test_a_reused_extreme_value_audit_says_so_in_text(cli, db, args, head):
    first = cli("audit", *args, db=db)
    assert first.exit_code == 0, first.output
    lines = first.output.splitlines()
    # one header: what was audited and its audit id, then the population it used
    assert lines[0].startswith(head) and "[audit #1]" in lines[0]
    assert lines[1].startswith("Population: N = ")
    assert REUSED not in first.output
    again = cli("audit", *args, db=db)
    assert again.exit_code == 0, again.output
    said = again.output.rstrip().splitlines()
    assert said[-1] == (f"audit #1: {REUSED} (same parameters, input and version), not recomputed")
    assert said[:-1] == first.output.rstrip().splitlines()  # the same text, then the note
    out = json.loads(cli("audit", *args, "--json", db=db).output)
    assert (out["audit_id"], out["reused"]) == (1, True)
    # `audit show` prints the stored audit as the command first did, after its provenance
    shown = cli("audit", "show", "1", db=db).output.rstrip().splitlines()
    assert shown[0].startswith("Audit #1 (") and shown[1:] == lines
