"""`litaudit check-change` (issue 34, item 5): the Markdown verdict on the results a change
to a store folder in git adds, against its base revision."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from litaudit.render.change import code, md

HEADER = "source,paper,paper_title,paper_authors,paper_year,collection,measure,value,system,role\n"
BASE = [
    ("p1", "0.2512", "bm25", "baseline"),
    ("p1", "0.2634", "sdm", "proposed"),
    ("p2", "0.2811", "rm3", "proposed"),
    ("p2", "0.2498", "ql", "baseline"),
    ("p3", "0.2903", "lm", "proposed"),
    ("p3", "0.2555", "bm25", "baseline"),
]


def _csv(path: Path, rows) -> Path:
    lines = [
        f"paper,{p},Paper {p},Author {p},2020,robust04,AP,{v},{s},{r}\n" for p, v, s, r in rows
    ]
    path.write_text(HEADER + "".join(lines), encoding="utf-8")
    return path


def _git(folder: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=ci@example.org", "-c", "user.name=ci", *args],
        cwd=folder,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def team(cli, reference_db_file, tmp_path):
    """A team's repository: a store folder of 6 robust04 results committed as the base,
    then one result added to the database and the folder (not committed)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    db = tmp_path / "team.duckdb"
    shutil.copy(reference_db_file, db)
    repo = tmp_path / "repo"
    repo.mkdir()
    r = cli("results", "import", str(_csv(tmp_path / "base.csv", BASE)), "--who", "ci", db=db)
    assert r.exit_code == 0, r.output
    assert cli("export-tree", str(repo / "store"), db=db).exit_code == 0
    _git(repo, "init", "-q")
    _git(repo, "add", "store")
    _git(repo, "commit", "-qm", "base")
    new = _csv(tmp_path / "new.csv", [("p4", "0.3100", "new_sys", "proposed")])
    assert cli("results", "import", str(new), "--who", "ci", db=db).exit_code == 0
    assert cli("export-tree", str(repo / "store"), db=db).exit_code == 0
    return db, repo


@pytest.mark.slow
def test_the_added_result_gets_its_verdict(cli, team, tmp_path):
    db, repo = team
    out = tmp_path / "verdict.md"
    r = cli("check-change", str(repo / "store"), "--base", "HEAD", "-o", str(out), db=db)
    assert r.exit_code == 0, r.output
    text = out.read_text(encoding="utf-8")
    assert text.startswith("## litaudit: the results this change adds (base `HEAD`)")
    assert "1 added and 0 changed result(s)" in text and "6 unchanged" in text
    assert "### robust04 AP: new\\_sys added: 0.3100" in text
    assert "`papers/p4.jsonl` line 3" in text
    assert "- Against the record: 0.3100 (new\\_sys, " in text and "holds the record" in text
    assert "No paired test: the store holds no per-topic or per-dataset scores" in text
    j = cli("check-change", str(repo / "store"), "--base", "HEAD", "--json", db=db)
    assert '"system": "new_sys"' in j.output and '"n_unchanged": 6' in j.output


@pytest.mark.slow
def test_nothing_added_and_a_bad_base(cli, team):
    db, repo = team
    _git(repo, "add", "store")
    _git(repo, "commit", "-qm", "new")
    r = cli("check-change", str(repo / "store"), "--base", "HEAD", db=db)
    assert r.exit_code == 0 and "Nothing to audit: the change adds no result." in r.output
    bad = cli("check-change", str(repo / "store"), "--base", "no-such-rev", db=db)
    assert bad.exit_code == 1 and "git rev-parse" in bad.output
    # a corrected value is a changed result, audited too
    rid = 7  # new_sys: the 7th result imported into the reference database
    edit = cli(
        "results",
        "edit",
        str(rid),
        "--set",
        "value=0.3150",
        "--reason",
        "typo",
        "--who",
        "ci",
        db=db,
    )
    assert edit.exit_code == 0, edit.output
    assert cli("export-tree", str(repo / "store"), db=db).exit_code == 0
    r = cli("check-change", str(repo / "store"), "--base", "HEAD", db=db)
    assert "0 added and 1 changed result(s)" in r.output
    assert "### robust04 AP: new\\_sys changed from 0.3100 to 0.3150" in r.output


def test_markdown_escapes_what_it_quotes():
    assert md("a_b *c* [x](y) <b>") == "a\\_b \\*c\\* \\[x\\](y) \\<b\\>"
    assert md("two\nlines") == "two lines"
    assert code("a_b`c") == "`a_b'c`"
