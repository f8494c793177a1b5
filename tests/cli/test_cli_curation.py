"""CLI: curation commands through Typer's CliRunner (exact output, exit codes)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import copy_db
from tests.curation.test_curation import GOOD, write_csv

# a bibkey the seeds do not have
GOOD = [[("zz2005test" if c == "liu2005cikm" else c) for c in row] for row in GOOD]


@pytest.fixture
def inited(cli, small_seeded_db_file):
    """The CLI on a copy of the session's small seeded database (built once by
    `load_seeds`: every paper and the reference data of seeds/, the seed results of
    robust04, TREC-7 and MS MARCO dev/small)."""

    copy_db(small_seeded_db_file, cli.db)
    return cli


# every command that opens the database, read or write: only `init` creates one
NO_DATABASE_COMMANDS = (
    ["results", "list"],
    ["results", "show", "1"],
    ["papers", "list"],
    ["collections", "list"],
    ["collections", "show", "robust04"],
    ["measures", "list"],
    ["db", "info"],
    ["db", "migrate"],
    ["audit", "claim", "-c", "robust04", "-m", "AP", "--value", "0.37"],
    ["audit", "claim", "-c", "robust04", "-m", "AP", "--value", "0.37", "--no-save"],
    ["audit", "best", "-c", "robust04", "-m", "AP"],
    ["audit", "list"],
    ["results", "add", "-c", "robust04", "-m", "AP", "--value", "0.3", "--system", "x",
     "--role", "proposed", "--paper", "zz2005test"],
    ["collections", "add", "x/y", "--topics", "5"],
    ["runs", "list"],
    ["report", "-c", "robust04", "-o", "r.html"],
)  # fmt: skip


def test_read_only_commands_never_create_a_database(cli, tmp_path):
    db = tmp_path / "none.duckdb"
    for args in NO_DATABASE_COMMANDS:
        r = cli(*args, db=db)
        assert r.exit_code == 1, args
        assert r.stderr == (
            f"Error: no database at {db} (given with --db); create one with "
            f"`litaudit --db {db} init`\n"
        ), args
    assert not db.exists()


def test_outside_a_project_nothing_is_left_behind(tmp_path, monkeypatch):
    # issue 20 item 7: `audit claim` in a directory without a database said "run
    # `litaudit init`" and left an empty litaudit.duckdb behind
    from typer.testing import CliRunner

    from litaudit.cli.main import app

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LITAUDIT_DB", raising=False)
    for args in NO_DATABASE_COMMANDS:
        r = CliRunner().invoke(app, args)
        assert r.exit_code == 1, args
        assert r.stderr == (
            f"Error: no database at {tmp_path / 'litaudit.duckdb'} (the default: "
            "litaudit.duckdb in the current directory; --db or $LITAUDIT_DB name another); "
            "create one with `litaudit init`\n"
        ), args
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setenv("LITAUDIT_DB", str(tmp_path / "env.duckdb"))
    r = CliRunner().invoke(app, NO_DATABASE_COMMANDS[8])
    assert r.stderr == (
        f"Error: no database at {tmp_path / 'env.duckdb'} (from $LITAUDIT_DB); "
        "create one with `litaudit init`\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_db_info_and_migrate(inited):
    r = inited("db", "info", "--json")
    info = json.loads(r.stdout)
    assert info["schema_version"] == info["code_version"] >= 1
    assert info["tables"]["results"] > 1000
    r = inited("db", "migrate")
    assert r.exit_code == 0 and "is up to date" in r.stdout
    r = inited("db", "migrate", "--list", "--json")
    assert [m["version"] for m in json.loads(r.stdout)][0] == 1


def test_import_error_is_one_line_per_problem_with_file_and_line(inited, tmp_path):
    bad = write_csv(
        tmp_path / "bad.csv",
        [
            [
                "paper",
                "x2020",
                "X (SIGIR 2020)",
                "2020",
                "",
                "robust4",
                "AP",
                "0.3",
                "s",
                "proposed",
                "",
                "",
                "a",
                "2026-11-20",
            ]
        ],
    )
    r = inited("results", "import", str(bad))
    assert r.exit_code == 1
    assert r.stderr.splitlines() == [
        f"  {bad}:2: collection: unknown collection 'robust4'; did you mean 'robust04' "
        "(disks45/nocr/trec-robust-2004)?",
        "Error: 1 problem(s); nothing was written",
    ]
    assert "Traceback" not in r.output


def test_import_dry_run_then_real(inited, tmp_path):
    f = write_csv(tmp_path / "r.csv", [GOOD[0], GOOD[1]])
    r = inited("results", "import", str(f), "--dry-run")
    assert r.exit_code == 0 and f"{f}: would add 2 results and 1 papers" in r.stdout
    r = inited("results", "import", str(f), "--who", "alice")
    assert r.exit_code == 0 and f"{f}: added 2 results and 1 papers" in r.stdout
    r = inited("results", "list", "--paper", "zz2005test", "--json")
    rows = json.loads(r.stdout)
    assert sorted(x["value_text"] for x in rows) == ["0.30", "0.3574"]


@pytest.mark.slow
def test_edit_verify_retract_history(inited, tmp_path):
    inited("results", "import", str(write_csv(tmp_path / "r.csv", [GOOD[1]])))
    rid = json.loads(inited("results", "list", "--paper", "zz2005test", "--json").stdout)[0]["id"]
    r = inited("results", "edit", str(rid), "--set", "value=0.31")
    assert r.exit_code == 2  # --reason is required
    r = inited(
        "results", "edit", str(rid), "--set", "value=0.31", "--reason", "typo", "--who", "carol"
    )
    assert r.exit_code == 0 and r.stdout.strip() == f"#{rid} value: 0.30 -> 0.31"
    r = inited("results", "edit", str(rid), "--set", "colour=red", "--reason", "x")
    assert r.exit_code == 1 and "field 'colour' cannot be edited" in r.stderr
    assert inited("results", "verify", str(rid)).stdout.strip() == f"#{rid} verified"
    r = inited("results", "retract", str(rid), "--reason", "duplicate table")
    assert r.stdout.strip() == f"#{rid} retracted"
    h = json.loads(inited("results", "history", str(rid), "--json").stdout)
    assert [x["action"] for x in h] == ["import", "edit", "verify", "retract"]
    assert h[1]["who"] == "carol" and h[1]["old_value"] == "0.30"
    r = inited("results", "show", "999999")
    assert r.exit_code == 1 and r.stderr.strip() == "Error: no result with id 999999"


def test_export_round_trip_through_the_cli(inited, cli, reference_db_file, tmp_path):

    out = tmp_path / "trec7.csv"
    r = inited("results", "export", str(out), "--collection", "trec7", "--measure", "AP")
    assert r.exit_code == 0 and "wrote 103 results" in r.stdout
    fresh = tmp_path / "fresh.duckdb"
    copy_db(reference_db_file, fresh)  # what `init --no-seeds` writes
    assert cli("results", "import", str(out), db=fresh).exit_code == 0
    again = tmp_path / "again.csv"
    cli("results", "export", str(again), db=fresh)
    assert again.read_text() == out.read_text()


def test_papers_add_show_list(inited):
    r = inited(
        "papers",
        "add",
        "doe2024x",
        "--authors",
        "Doe, Jane and Roe, R",
        "--venue",
        "ECIR",
        "--year",
        "2024",
        "--title",
        "A Paper",
    )
    assert r.exit_code == 0 and "added paper" in r.stdout
    p = json.loads(inited("papers", "show", "doe2024x", "--json").stdout)
    assert p["citation"] == "Doe and Roe (ECIR 2024)"
    r = inited("papers", "add", "doe2024x")
    assert r.exit_code == 1 and "already exists" in r.stderr
    r = inited("papers", "show", "doe2024")
    assert r.exit_code == 1 and "did you mean 'doe2024x'" in r.stderr
    rows = json.loads(inited("papers", "list", "--collection", "robust04", "--json").stdout)
    assert len(rows) >= 100


def test_collections_and_measures(inited):
    c = json.loads(inited("collections", "show", "Robust04", "--json").stdout)
    assert c["id"] == "disks45/nocr/trec-robust-2004"
    assert c["topic_sets"][0]["n_topics"] == 249
    ms = {m["name"]: m for m in json.loads(inited("measures", "list", "--json").stdout)}
    assert "map" in ms["AP"]["aliases"] and "p_10" in ms["P@10"]["aliases"]
    assert "ndcg_cut_20" in ms["nDCG@20"]["aliases"]


def test_every_command_has_help():
    from typer.main import get_command

    from litaudit.cli.main import app

    root = get_command(app)

    def walk(cmd, path):
        if hasattr(cmd, "commands"):
            for name, sub in cmd.commands.items():
                yield from walk(sub, [*path, name])
        else:
            yield path, cmd

    commands = list(walk(root, []))
    missing = [" ".join(p) for p, c in commands if not (c.help or "").strip()]
    assert missing == []
    # rich reads [..] in help text as markup and silently drops it
    bracketed = [
        (" ".join(p), o.name)
        for p, c in commands
        for o in c.params
        if "[" in (getattr(o, "help", None) or "")
    ]
    assert bracketed == []


def test_every_robust04_paper_is_seeded_and_nonstandard_ones_are_flagged(cli, seeded_db_file):
    # the whole seeds (a paper comes with its results): read-only, on the session's file
    papers = json.loads(cli("papers", "list", "--json", db=seeded_db_file).stdout)
    robust = [p for p in papers if "robust04-analysis" in (p.get("url") or "") or p["results"]]
    # every paper of the SIGIR 2019 meta-analysis, and the 42 of seeds/literature.py
    assert len(papers) == 130 + 42
    assert sum("nonstandard" in (p["tags"] or "") for p in papers) == 11
    assert sum("neural" in (p["tags"] or "").split(",") for p in papers) >= 19
    assert robust


def test_an_unexpected_database_error_is_one_line(inited):
    import duckdb

    con = duckdb.connect(str(inited.db))
    con.execute("DROP TABLE history")
    con.close()
    r = inited("results", "history", "1")
    assert r.exit_code == 1
    assert r.stderr.startswith(f"Error: {inited.db}: database error: ")
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.output


def test_a_dry_run_import_does_not_migrate_an_outdated_database(cli, reference_db_file, tmp_path):
    """`results import --dry-run` writes nothing, a schema migration included: an outdated
    database is refused with the command that migrates it, and stays as it was."""

    import duckdb

    from litaudit.store import migrations

    copy_db(reference_db_file, cli.db)  # what `init --no-seeds` writes, built once a run
    latest = migrations.code_version()
    con = duckdb.connect(str(cli.db))
    con.execute("DELETE FROM _migrations WHERE version = ?", [latest])  # as before it
    row = con.execute("SELECT max(version) FROM _migrations").fetchone()  # gaps allowed
    assert row is not None
    previous = row[0]
    con.close()
    r = cli("results", "import", str(tmp_path / "any.csv"), "--dry-run")
    assert r.exit_code == 1
    assert f"database schema version {previous} is older" in r.stderr
    assert "a dry run writes nothing, a migration included: run `litaudit db migrate`" in r.stderr
    con = duckdb.connect(str(cli.db), read_only=True)
    assert latest not in {v for (v,) in con.execute("SELECT version FROM _migrations").fetchall()}
    con.close()
