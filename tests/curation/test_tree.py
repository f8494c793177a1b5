"""A store as a folder under version control (issue 22): `export-tree`, `sync`, `check`.

The folder is the source of truth: a database synced from it and exported again gives
the same bytes; a second sync changes nothing; two curators editing two clones merge
with git and end with the same store."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cli.test_cli_curation import GOOD
from tests.conftest import copy_db, unwritten
from tests.curation.test_curation import write_csv

GIT = shutil.which("git")


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def _set_count(folder: Path, rel: str, n: int) -> None:
    """The manifest's count of results for ``rel`` set to ``n`` (a change meant)."""
    m = folder / "litaudit-store.jsonl"
    lines = [json.loads(x) for x in m.read_text().splitlines() if x.strip()]
    for x in lines:
        if x.get("file") == rel:
            x["results"] = n
    m.write_text("".join(json.dumps(x) + "\n" for x in lines))


def _tree_text(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(folder.rglob("*.jsonl"))
    }


@pytest.fixture(scope="module")
def small_db(reference_db_file, tmp_path_factory) -> tuple[Path, dict[str, int]]:
    """A store of 3 results (2 of a paper, 1 official) with an edit and a verification,
    built once for the module through the CLI; and the results' ids."""
    from tests.conftest import Cli

    folder = tmp_path_factory.mktemp("small")
    cli = Cli(folder / "small.duckdb")
    copy_db(reference_db_file, cli.db)
    r = cli("results", "import", str(write_csv(folder / "r.csv", GOOD)), "--who", "alice")
    assert r.exit_code == 0, r.output
    rows = json.loads(cli("results", "list", "--json").stdout)
    ids = {x["system"] + x["measure"]: x["id"] for x in rows}
    cli("results", "edit", str(ids["bestAP"]), "--set", 'notes=Table 3, "best"', "--reason", "r")
    cli("results", "verify", str(ids["ok7axAP"]), "--who", "bob")
    return cli.db, ids


@pytest.fixture(scope="module")
def checked_folder(small_db, tmp_path_factory) -> Path:
    """The small store exported by `export-tree` and accepted by `check`, once for the
    module."""
    from tests.conftest import Cli

    work = tmp_path_factory.mktemp("checked")
    cli = Cli(work / "small.duckdb")
    copy_db(small_db[0], cli.db)
    out = work / "store"
    assert cli("export-tree", str(out)).exit_code == 0
    r = cli("check", str(out))
    assert r.exit_code == 0, r.output
    return out


@pytest.fixture
def small(cli, small_db):
    """The cli fixture on a copy of small_db: the results' ids."""
    copy_db(small_db[0], cli.db)
    return small_db[1]


def test_export_tree_layout_and_one_result_a_line(cli, small, tmp_path):
    out = tmp_path / "store"
    r = cli("export-tree", str(out))
    assert r.exit_code == 0, r.output
    # the two store files, their history, git's merge rule for it, and the manifest
    assert "3 results and 1 papers in 6 files (6 written, 0 unchanged, 0 removed" in r.stdout
    files = _tree_text(out)
    assert sorted(files) == [
        "history/official/trec7/adhoc/disks45%2Fnocr%2Ftrec7.jsonl",
        "history/papers/zz2005test.jsonl",
        "litaudit-store.jsonl",
        "official/trec7/adhoc/disks45%2Fnocr%2Ftrec7.jsonl",
        "papers/zz2005test.jsonl",
    ]
    assert (out / "history/.gitattributes").read_text().endswith("*.jsonl merge=union\n")
    lines = [x for x in files["papers/zz2005test.jsonl"].splitlines() if x.strip()]
    assert json.loads(lines[0])["paper"]["citation"] == "Liu et al. (CIKM 2005)"
    results = [json.loads(x) for x in lines[1:]]
    assert [(x["measure"], x["value"]) for x in results] == [("AP", "0.3574"), ("P@20", "0.30")]
    assert results[0]["notes"] == 'Table 3, "best"'
    # each result's history in the history file, one entry a line, by its uid
    log = [json.loads(x) for x in files["history/papers/zz2005test.jsonl"].splitlines()]
    assert [h["action"] for h in log if h.get("uid") == results[0]["uid"]] == ["import", "edit"]
    assert all("history" not in x for x in results)
    # unchanged store: nothing rewritten
    assert "(0 written, 6 unchanged" in cli("export-tree", str(out)).stdout


@pytest.mark.slow
def test_a_database_synced_from_the_folder_exports_the_same_bytes(
    cli, small, tmp_path, reference_db_file
):
    out = tmp_path / "store"
    cli("export-tree", str(out))
    fresh = copy_db(reference_db_file, tmp_path / "fresh.duckdb")  # reference data only
    r = cli("sync", str(out), "--json", db=fresh)
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout)
    assert (rep["added"], rep["papers_added"], rep["retracted"]) == (3, 1, 0)
    again = tmp_path / "again"
    cli("export-tree", str(again), db=fresh)
    assert _tree_text(again) == _tree_text(out)
    # idempotent: a second sync changes nothing, on either database
    for db in (fresh, cli.db):
        rep = json.loads(cli("sync", str(out), "--json", db=db).stdout)
        assert (rep["added"], rep["updated"], rep["retracted"], rep["history"]) == (0, 0, 0, 0)
        assert rep["unchanged"] == 3


def test_sync_retracts_what_the_folder_no_longer_holds_and_names_the_change(cli, small, tmp_path):
    out = tmp_path / "store"
    cli("export-tree", str(out))
    p = out / "papers/zz2005test.jsonl"
    lines = [x for x in p.read_text().splitlines(keepends=True) if x.strip()]
    p.write_text(lines[0] + lines[1].replace('"0.3574"', '"0.3575"'))  # P@20 line removed
    _set_count(out, "papers/zz2005test.jsonl", 1)
    gone = json.loads(lines[2])["uid"]  # and its history
    h = out / "history/papers/zz2005test.jsonl"
    h.write_text("".join(x for x in h.read_text().splitlines(keepends=True) if gone not in x))
    r = cli("sync", str(out), "--who", "carol", "--prune")
    assert r.exit_code == 0, r.output
    assert "update 1 results" in r.stdout and "retract 1" in r.stdout
    h = json.loads(cli("results", "history", str(small["bestAP"]), "--json").stdout)
    assert (h[-1]["action"], h[-1]["old_value"], h[-1]["new_value"], h[-1]["who"]) == (
        "edit",
        "0.3574",
        "0.3575",
        "carol",
    )
    assert h[-1]["reason"] == f"synced from {p}"
    h = json.loads(cli("results", "history", str(small["bestP@20"]), "--json").stdout)
    assert (h[-1]["action"], h[-1]["new_value"]) == ("retract", "retracted")
    assert h[-1]["reason"] == f"not in {out} (synced)"


@pytest.mark.parametrize(
    "edit, where, message",
    [
        # (lines: 1 the paper, 3 and 5 its results, each after a blank line)
        (lambda s: s.replace('"0.3574"', '"1.5"'), 3, "1.5 is outside the range of AP"),
        (
            lambda s: s.replace('"measure": "AP"', '"measure": "P@99999999999999999999"'),
            3,
            "measure",
        ),
        (lambda s: s.replace('"role": "proposed"', '"rle": "proposed"'), 3, "unknown key 'rle'"),
        (lambda s: s + "{not json\n", 6, "not a JSON object on one line"),
        (lambda s: s.replace('"P@20"', '"AP"'), 5, "duplicate of line"),
    ],
    ids=["range", "cutoff", "key", "json", "duplicate"],
)
def test_check_names_file_and_line_and_sync_writes_nothing(
    cli, small, checked_folder, tmp_path, edit, where, message
):
    out = tmp_path / "store"
    shutil.copytree(checked_folder, out)  # the small store's folder, which `check` accepts
    p = out / "papers/zz2005test.jsonl"
    p.write_text(edit(p.read_text()))
    r = cli("check", str(out), "--json")
    assert r.exit_code == 1
    problems = json.loads(r.stderr)
    assert problems[0]["file"] == str(p) and problems[0]["line"] == where
    assert message in json.dumps(problems)
    with unwritten(cli.db):
        r = cli("sync", str(out))
    assert r.exit_code == 1 and "nothing was written" in r.stderr


@pytest.mark.slow
@pytest.mark.skipif(GIT is None, reason="git is not installed")
def test_two_curators_edit_two_clones_and_merge_with_git(cli, small, tmp_path, reference_db_file):
    origin = tmp_path / "origin.git"
    seed = tmp_path / "seed"
    cli("export-tree", str(seed))
    _git(tmp_path, "init", "-q", "--bare", str(origin))
    _git(seed, "init", "-q")
    _git(seed, "add", ".")
    _git(seed, "commit", "-q", "-m", "store")
    _git(seed, "push", "-q", str(origin), "HEAD:refs/heads/main")
    a, b = tmp_path / "a", tmp_path / "b"
    for clone in (a, b):
        _git(tmp_path, "clone", "-q", "-b", "main", str(origin), str(clone))
    db_a, db_b = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    for clone, db in ((a, db_a), (b, db_b)):
        copy_db(reference_db_file, db)  # reference data only
        assert cli("sync", str(clone), db=db).exit_code == 0
    ids_a = {
        x["system"] + x["measure"]: x["id"]
        for x in json.loads(cli("results", "list", "--json", db=db_a).stdout)
    }
    ids_b = {
        x["system"] + x["measure"]: x["id"]
        for x in json.loads(cli("results", "list", "--json", db=db_b).stdout)
    }
    # curator A: corrects a value and adds a result with the CLI, then exports
    r = cli(
        "results",
        "edit",
        str(ids_a["bestAP"]),
        "--set",
        "value=0.3575",
        "--reason",
        "pdf v2",
        "--who",
        "ann",
        db=db_a,
    )
    assert r.exit_code == 0, r.output
    new = [
        [
            ("0.2222" if i == 7 else "bm25" if i == 8 else "baseline" if i == 9 else c)
            for i, c in enumerate(GOOD[0])
        ]
    ]
    assert (
        cli(
            "results", "import", str(write_csv(tmp_path / "n.csv", new)), "--who", "ann", db=db_a
        ).exit_code
        == 0
    )
    cli("export-tree", str(a), db=db_a)
    _git(a, "commit", "-q", "-am", "ann: value from the pdf's v2, bm25 baseline")
    _git(a, "add", ".")
    _git(a, "push", "-q", "origin", "main")
    # curator B: retracts the official result with the CLI, edits a note by hand
    r = cli(
        "results",
        "retract",
        str(ids_b["ok7axAP"]),
        "--reason",
        "not this run",
        "--who",
        "ben",
        db=db_b,
    )
    assert r.exit_code == 0
    cli("export-tree", str(b), db=db_b)
    # (git merges changes to lines an unchanged line apart; these are in different files
    # anyway: B edits the official file, A the paper's)
    p = b / "official/trec7/adhoc/disks45%2Fnocr%2Ftrec7.jsonl"
    p.write_text(
        p.read_text().replace('"role": "official"', '"role": "official", "location": "p. 5"')
    )
    assert cli("check", str(b)).exit_code == 0
    assert cli("sync", str(b), "--who", "ben", db=db_b).exit_code == 0
    cli("export-tree", str(b), db=db_b)
    _git(b, "commit", "-q", "-am", "ben: ok7ax retracted, location")
    _git(b, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")  # a merge, no conflict
    _git(b, "push", "-q", "origin", "main")
    _git(a, "pull", "-q", "--no-rebase", "origin", "main")
    assert _tree_text(a) == _tree_text(b)
    assert cli("check", str(a)).exit_code == 0
    for clone, db in ((a, db_a), (b, db_b)):
        r = cli("sync", str(clone), "--json", db=db)
        assert r.exit_code == 0, r.output
    # both databases hold the merged store, history included
    out_a, out_b = tmp_path / "out_a", tmp_path / "out_b"
    cli("export-tree", str(out_a), db=db_a)
    cli("export-tree", str(out_b), db=db_b)
    assert _tree_text(out_a) == _tree_text(out_b) == _tree_text(a)
    rows = {
        x["system"] + x["measure"]: x
        for x in json.loads(cli("results", "list", "--json", db=db_a).stdout)
    }
    assert rows["bestAP"]["value_text"] == "0.3575" and rows["ok7axAP"]["location"] == "p. 5"
    assert rows["ok7axAP"]["status"] == "retracted" and rows["bm25AP"]["value_text"] == "0.2222"
    # and a second sync of each changes nothing
    for clone, db in ((a, db_a), (b, db_b)):
        rep = json.loads(cli("sync", str(clone), "--json", db=db).stdout)
        assert (rep["added"], rep["updated"], rep["retracted"], rep["history"]) == (0, 0, 0, 0)


def test_sync_refuses_a_folder_without_store_files(cli, small, tmp_path):
    (tmp_path / "empty").mkdir()
    r = cli("sync", str(tmp_path / "empty"))
    assert r.exit_code == 1 and "no store files here" in r.stderr
    assert all(
        x["status"] != "retracted" for x in json.loads(cli("results", "list", "--json").stdout)
    )
    r = cli("check", str(tmp_path / "none"))
    assert r.exit_code == 1 and "no such folder" in r.stderr
