"""Curation semantics (issue 22): a retracted result is reinstated, with a reason, before it
is verified; `edit` does not change what a result is a value of; an identical row on import
is unchanged, not a conflict; the names the tool writes under are refused for users;
history by collection and date window; bidirectional controls refused at entry."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from tests.cli.test_cli_curation import GOOD
from tests.conftest import copy_db, unwritten
from tests.curation.test_curation import write_csv


@pytest.fixture(scope="module")
def one_db(small_seeded_db_file, tmp_path_factory) -> tuple[Path, int]:
    """A copy of the small seeded database (robust04, TREC-7 and MS MARCO's seed rows,
    the papers of seeds/) with one draft result of alice's, imported through the CLI once
    for the module; and the result's id. (The whole seeds' export, check and re-reading
    is tests/curation/test_tree_safety.py's whole-seed test.)"""
    from tests.conftest import Cli

    folder = tmp_path_factory.mktemp("one")
    cli = Cli(folder / "one.duckdb")
    copy_db(small_seeded_db_file, cli.db)
    r = cli("results", "import", str(write_csv(folder / "r.csv", [GOOD[1]])), "--who", "alice")
    assert r.exit_code == 0, r.output
    rows = json.loads(cli("results", "list", "--paper", "zz2005test", "--json").stdout)
    return cli.db, rows[0]["id"]


@pytest.fixture
def one(cli, one_db) -> int:
    """The CLI on a copy of one_db: the draft result's id."""
    copy_db(one_db[0], cli.db)
    return one_db[1]


def test_a_retracted_result_is_reinstated_with_a_reason_before_it_is_verified(cli, one):
    assert cli("results", "retract", str(one), "--reason", "wrong table").exit_code == 0
    r = cli("results", "verify", str(one))
    assert r.exit_code == 1
    assert r.stderr.strip() == (
        f"Error: result #{one} is retracted; reinstate it first with "
        f"`litaudit results reinstate {one} --reason TEXT`, then verify it"
    )
    assert cli("results", "reinstate", str(one)).exit_code == 2  # --reason is required
    r = cli("results", "reinstate", str(one), "--reason", "table 3 was right", "--who", "bob")
    assert r.exit_code == 0 and r.stdout.strip() == f"#{one} reinstated (a draft)"
    r = cli("results", "reinstate", str(one), "--reason", "again")
    assert r.exit_code == 1 and "is draft, not retracted" in r.stderr
    assert cli("results", "verify", str(one)).stdout.strip() == f"#{one} verified"
    h = json.loads(cli("results", "history", str(one), "--json").stdout)
    assert [(x["action"], x["old_value"], x["new_value"]) for x in h] == [
        ("import", None, "0.30"),
        ("retract", "draft", "retracted"),
        ("reinstate", "retracted", "draft"),
        ("verify", "draft", "verified"),
    ]
    assert h[2]["reason"] == "table 3 was right" and h[2]["who"] == "bob"


@pytest.mark.parametrize(
    "change",
    ["measure=AP", "collection=trec7", "system=other", "topic_set=301-350", "n_topics=50"],
)
def test_edit_refuses_a_change_of_identity_with_the_commands_to_use(cli, one, change):
    with unwritten(cli.db):  # no edit, no history entry
        r = cli("results", "edit", str(one), "--set", change, "--reason", "x")
    assert r.exit_code == 1
    fld = change.split("=")[0]
    assert r.stderr.startswith(f"Error: --set {fld}: {fld} is part of what result #{one}")
    assert f"`litaudit results retract {one} --reason TEXT`" in r.stderr
    assert "`litaudit results add`" in r.stderr


@pytest.mark.slow
def test_reimporting_the_stores_own_export_adds_nothing_and_reports_unchanged(cli, one, tmp_path):
    """The whole (small) seeded store (~1,500 real seed results of three collections) as
    CSV, the form curators edit; JSON and Parquet, whose readers are what differs, on
    Robust04's results (papers and TREC's)."""

    def stored() -> int:
        return json.loads(cli("db", "info", "--json").stdout)["tables"]["results"]

    n = stored()
    out = tmp_path / "all.csv"
    assert cli("results", "export", str(out)).exit_code == 0
    r = cli("results", "import", str(out))  # the text report (from the report JSON prints)
    assert r.exit_code == 0, r.output
    assert f"added 0 results and 0 papers, left {n} unchanged" in r.stdout
    part = len(json.loads(cli("results", "list", "-c", "robust04", "--json").stdout))
    assert part > 400
    for fmt in ("json", "parquet"):
        out = tmp_path / f"robust04.{fmt}"
        assert cli("results", "export", str(out), "-c", "robust04").exit_code == 0
        r = cli("results", "import", str(out), "--json")
        assert r.exit_code == 0, r.output
        (rep,) = json.loads(r.stdout)
        assert (rep["results"], rep["unchanged"], rep["papers"]) == (0, part, 0)
    assert stored() == n


def test_an_update_import_neither_unretracts_nor_touches_absent_columns(cli, one, tmp_path):
    """`--on-existing update` changes only the fields the file has columns for, and does
    not bring a retracted result back (that is `results reinstate`'s, with a reason)."""
    import csv

    out = tmp_path / "one.csv"
    assert cli("results", "export", str(out), "--paper", "zz2005test").exit_code == 0
    assert cli("results", "retract", str(one), "--reason", "wrong table").exit_code == 0
    (row,) = list(csv.DictReader(out.open(newline="", encoding="utf-8")))
    assert row["status"] == "draft"  # as exported before the retraction
    no_status = tmp_path / "no_status.csv"
    with no_status.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=[c for c in row if c != "status"])
        w.writeheader()
        w.writerow({c: v for c, v in row.items() if c != "status"})
    r = cli("results", "import", str(no_status), "--on-existing", "update", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)[0]["updated"] == 0
    r = cli("results", "import", str(out), "--on-existing", "update")
    assert r.exit_code == 1
    assert (
        f"one.csv:2: status: result #{one} is retracted; an import does not bring it back "
        f"(`litaudit results reinstate {one} --reason ...` does)"
    ) in r.stderr
    shown = json.loads(cli("results", "show", str(one), "--json").stdout)
    assert shown["status"] == "retracted"
    assert [h["action"] for h in shown["history"]] == ["import", "retract"]


def test_a_changed_row_is_still_a_conflict(cli, one, tmp_path):
    out = tmp_path / "one.csv"
    cli("results", "export", str(out), "--paper", "zz2005test")
    out.write_text(out.read_text().replace(",0.30,", ",0.31,"))
    r = cli("results", "import", str(out))
    assert r.exit_code == 1
    assert f"already in the database as result #{one} (value 0.30)" in r.stderr


@pytest.mark.parametrize("name", ["litaudit init", " LITAUDIT INIT ", "litaudit sync"])
def test_the_names_the_tool_writes_under_are_refused(cli, one, name, monkeypatch):
    with unwritten(cli.db):  # no change, no history entry
        r = cli("results", "verify", str(one), "--who", name)
        assert r.exit_code == 1
        assert "is the name litaudit records its own changes under" in r.stderr
        assert r.stderr.startswith("Error: --who: ")
        monkeypatch.setenv("LITAUDIT_USER", name)
        r = cli("results", "retract", str(one), "--reason", "x")
        assert r.exit_code == 1 and r.stderr.startswith("Error: $LITAUDIT_USER: ")
        r = cli("papers", "edit", "zz2005test", "--set", "venue=CIKM", "--reason", "x")
        assert r.exit_code == 1 and "$LITAUDIT_USER" in r.stderr


def test_history_by_collection_and_date_window(cli, one):
    cli("results", "edit", str(one), "--set", "value=0.31", "--reason", "typo", "--who", "carol")
    today = dt.datetime.now(dt.UTC).date()
    r = cli("results", "history", "-c", "robust04", "--since", today.isoformat(), "--json")
    rows = [x for x in json.loads(r.stdout) if x["who"] != "litaudit init"]  # not the seeds'
    assert [(x["result_id"], x["action"]) for x in rows] == [(one, "import"), (one, "edit")]
    assert rows[1]["who"] == "carol" and rows[1]["measure"] == "P@20"
    r = cli("results", "history", "-c", "trec7", "--since", today.isoformat(), "--json")
    assert {x["who"] for x in json.loads(r.stdout)} == {"litaudit init"}
    before = (today - dt.timedelta(days=400)).isoformat()
    r = cli("results", "history", "-c", "robust04", "--until", before, "--json")
    assert all(x["changed_at"][:10] <= before for x in json.loads(r.stdout))
    r = cli("results", "history", "-c", "robust04", "--since", today.isoformat())
    assert r.exit_code == 0 and r.stdout.split(" ")[1].startswith("changes")
    # over PAGE_MAX changes (the seeds' own): plain lines, the edit's among them
    assert any("carol" in line and "typo" in line for line in r.stdout.splitlines())
    r = cli("results", "history")
    assert r.exit_code == 1 and "give a result id" in r.stderr
    r = cli("results", "history", "--since", "yesterday")
    assert r.exit_code == 1 and "--since: expected YYYY" in r.stderr


@pytest.mark.parametrize("char", ["\u202e", "\u2066", "\u202a"])
def test_bidi_controls_are_refused_at_entry(cli, one, tmp_path, char):
    row = list(GOOD[0])
    row[8] = f"best{char}evil"
    r = cli("results", "import", str(write_csv(tmp_path / "b.csv", [row])))
    assert r.exit_code == 1
    assert f"system: contains bidirectional control U+{ord(char):04X}" in r.stderr
    r = cli("results", "edit", str(one), "--set", f"notes=a{char}b", "--reason", "x")
    assert r.exit_code == 1 and "bidirectional control" in r.stderr
    r = cli("results", "retract", str(one), "--reason", f"a{char}b")
    assert r.exit_code == 1 and "--reason: contains bidirectional control" in r.stderr


def test_bidi_controls_stored_before_are_escaped_when_shown():
    from litaudit.render.console import clean, terminal_json
    from litaudit.render.report.markdown import _text
    from litaudit.render.report.svg import escape

    assert clean("a\u202eb\u2067c") == "abc"
    assert terminal_json('"a\u202eb"') == '"a\\u202eb"'
    assert escape("a\u202eb") == "ab" and "\u202e" not in _text("a\u202eb")
