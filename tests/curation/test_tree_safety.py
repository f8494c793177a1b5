"""A store folder that cannot hurt the machine it is checked out on and that is whole
or refused (issue 33): no link followed, nothing written or removed outside it, one
verdict from `check` and `sync`, a manifest written last, local work kept."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
from pathlib import Path

import pytest

from tests.cli.test_cli_curation import GOOD
from tests.conftest import copy_db, unwritten
from tests.curation import test_tree
from tests.curation.test_curation import write_csv

small_db = test_tree.small_db  # the module fixtures, shared
small = test_tree.small

PAPER = "papers/zz2005test.jsonl"
OFFICIAL = "official/trec7/adhoc/disks45%2Fnocr%2Ftrec7.jsonl"
MANIFEST = "litaudit-store.jsonl"


@pytest.fixture(scope="module")
def exported(small_db, tmp_path_factory) -> Path:
    """The small store exported to a folder by `export-tree`, once for the module."""
    from tests.conftest import Cli

    folder = tmp_path_factory.mktemp("exported")
    cli = Cli(folder / "small.duckdb")
    copy_db(small_db[0], cli.db)
    out = folder / "store"
    r = cli("export-tree", str(out))
    assert r.exit_code == 0, r.output
    return out


@pytest.fixture
def store(cli, small, exported, tmp_path) -> Path:
    """The small store (the cli's database) exported to a folder: a copy of
    :func:`exported`, the bytes `export-tree` writes of that database."""
    out = tmp_path / "store"
    shutil.copytree(exported, out)
    return out


def _records(text: str) -> list[str]:
    """A store file's lines without the blank lines between them (ends kept)."""
    return [x for x in text.splitlines(keepends=True) if x.strip()]


def _listing(cli) -> str:
    return cli("results", "list", "--json").stdout


def _refused_by_both(cli, folder: Path, message: str) -> list[dict]:
    """`check` and `sync` both refuse ``folder`` with ``message``; sync writes nothing."""
    r = cli("check", str(folder), "--json")
    assert r.exit_code == 1, r.output
    problems = json.loads(r.stderr)
    assert message in json.dumps(problems), problems
    with unwritten(cli.db):
        r = cli("sync", str(folder))
    assert r.exit_code == 1 and message in r.stderr + json.dumps(problems)
    return problems


# ---------------------------------------------------------------- 1: nothing outside


def test_export_tree_refuses_a_linked_folder_and_touches_nothing_outside(cli, store, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious.jsonl").write_text("not the store's\n")
    shutil.rmtree(store / "papers")
    (store / "papers").symlink_to(outside, target_is_directory=True)
    r = cli("export-tree", str(store))
    assert r.exit_code == 1
    assert f"{store / 'papers'}: a symbolic link" in r.stderr
    assert sorted(p.name for p in outside.iterdir()) == ["precious.jsonl"]
    assert (outside / "precious.jsonl").read_text() == "not the store's\n"
    _refused_by_both(cli, store, "a symbolic link")


def test_a_store_file_linked_outside_is_neither_read_nor_written(cli, store, tmp_path):
    target = tmp_path / "elsewhere.jsonl"
    shutil.copy(store / PAPER, target)
    before = target.read_bytes()
    (store / PAPER).unlink()
    (store / PAPER).symlink_to(target)
    problems = _refused_by_both(cli, store, "a symbolic link")
    assert problems[0]["file"] == str(store / PAPER)
    cli("results", "edit", "1", "--set", "notes=changed", "--reason", "r")
    r = cli("export-tree", str(store))
    assert r.exit_code == 1 and "a symbolic link" in r.stderr
    assert target.read_bytes() == before


def test_a_temporary_name_linked_outside_is_not_written_through(cli, store, tmp_path):
    """The old writer wrote NAME.jsonl.tmp and renamed it: a link there was written
    through. Temporary files are now made exclusively (O_EXCL) under a fresh name."""
    target = tmp_path / "victim"
    target.write_text("keep\n")
    (store / (PAPER + ".tmp")).symlink_to(target)
    cli("results", "edit", "1", "--set", "notes=changed", "--reason", "r")
    r = cli("export-tree", str(store))
    assert r.exit_code == 1 and "a symbolic link" in r.stderr  # found in papers/, refused
    assert target.read_text() == "keep\n"


def test_export_tree_leaves_no_temporary_file_behind(cli, store):
    cli("results", "edit", "1", "--set", "notes=changed", "--reason", "r")
    assert cli("export-tree", str(store)).exit_code == 0
    names = [p.name for p in store.rglob("*")]
    assert not [n for n in names if n.endswith(".tmp")]
    assert cli("check", str(store)).exit_code == 0


# ---------------------------------------------------------------- 3: one verdict


@pytest.mark.parametrize("track", ["trec7/adhoc/", "trec7//adhoc", "/trec7", "trec7/../x"])
def test_a_track_with_an_empty_part_is_refused_at_entry(cli, small, tmp_path, track):
    row = [[track if i == 4 else c for i, c in enumerate(GOOD[2])]]
    r = cli("results", "import", str(write_csv(tmp_path / "t.csv", row)), "--json")
    assert r.exit_code == 1
    assert "track" in r.stderr and "part" in r.stderr


def test_a_tool_name_in_a_history_entry_is_refused_by_check_and_sync(cli, store):
    p = store / PAPER
    lines = _records(p.read_text())
    res = json.loads(lines[1])
    res["value"] = "0.3999"
    lines[1] = json.dumps(res) + "\n"
    p.write_text("".join(lines))
    forged = {
        "uid": res["uid"],
        "action": "edit",
        "field": "value",
        "old_value": "0.3574",
        "new_value": "0.3999",
        "reason": "x",
        "who": "litaudit init",
        "changed_at": "2026-11-21 10:00:00",
    }
    with (store / "history" / PAPER).open("a") as fh:
        fh.write(json.dumps(forged) + "\n")
    _refused_by_both(cli, store, "the name litaudit records its own changes under")


def test_a_line_of_another_collection_in_an_official_file_is_refused(cli, store):
    p = store / OFFICIAL
    head, line = _records(p.read_text())
    p.write_text(head + line.replace('"disks45/nocr/trec7"', '"robust04"'))
    problems = _refused_by_both(cli, store, "a result belongs in its collection's file")
    assert problems[0]["line"] == 2  # (written back without the blank line)


def test_git_conflict_markers_are_named_as_such(cli, store):
    p = store / PAPER
    lines = _records(p.read_text())
    p.write_text(
        lines[0]
        + "<<<<<<< HEAD\n"
        + lines[1]
        + "=======\n"
        + lines[1].replace("0.3574", "0.3575")
        + ">>>>>>> theirs\n"
        + lines[2]
    )
    problems = _refused_by_both(cli, store, "a git merge conflict marker")
    assert [x["line"] for x in problems if "conflict marker" in x["message"]] == [2, 4, 6]


def test_a_bad_created_at_is_refused_by_sync_as_by_check(cli, store):
    p = store / PAPER
    p.write_text(p.read_text().replace('"created_at": "', '"created_at": "yesterday', 1))
    _refused_by_both(cli, store, "created_at: expected a timestamp")


# ---------------------------------------------------------------- 2: whole or refused


def test_a_folder_without_its_manifest_is_refused(cli, store):
    (store / MANIFEST).unlink()
    _refused_by_both(cli, store, "missing: a store folder's manifest")


@pytest.mark.slow
def test_an_interrupted_export_leaves_a_folder_that_is_refused(cli, store, monkeypatch):
    from litaudit.curation import tree_fs

    cli("results", "edit", "1", "--set", "notes=changed", "--reason", "r")
    cli("results", "edit", "3", "--set", "notes=changed too", "--reason", "r")
    real = tree_fs.write_file
    calls: list[str] = []

    def dies_after_one(folder, rel, data):
        if calls:
            raise KeyboardInterrupt  # the process killed mid-way
        calls.append(rel)
        real(folder, rel, data)

    monkeypatch.setattr(tree_fs, "write_file", dies_after_one)
    with pytest.raises(KeyboardInterrupt):
        from litaudit.curation.tree_write import write_tree
        from litaudit.store.db import open_store

        with open_store(cli.db, read_only=True) as s:
            write_tree(s.con, store)
    monkeypatch.undo()
    assert len(calls) == 1 and not (store / MANIFEST).exists()
    _refused_by_both(cli, store, "missing: a store folder's manifest")
    assert cli("export-tree", str(store)).exit_code == 0  # finished: whole again
    assert cli("check", str(store)).exit_code == 0


def test_a_folder_missing_a_part_is_refused_with_what_is_missing(cli, store):
    shutil.rmtree(store / "official")
    problems = _refused_by_both(cli, store, "missing: the manifest lists it (1 results)")
    assert str(store / OFFICIAL) in [x["file"] for x in problems if "missing" in x["message"]]


def test_a_file_the_manifest_does_not_list_or_another_count_is_refused(cli, store):
    extra = store / "papers/other.jsonl"
    shutil.copy(store / PAPER, extra)
    _refused_by_both(cli, store, "not in the manifest")
    extra.unlink()
    p = store / PAPER
    p.write_text("".join(_records(p.read_text())[:2]))
    _refused_by_both(cli, store, "1 results, the manifest says 2")


def test_a_folder_of_another_format_version_is_refused(cli, store):
    m = store / MANIFEST
    m.write_text(m.read_text().replace('"version": 1', '"version": 2', 1))
    _refused_by_both(cli, store, "format version 2; this litaudit reads version 1")


def test_a_key_the_manifest_does_not_list_is_not_given_and_kept(cli, store):
    """An older format without `notes`: the stored notes are kept, never blanked."""
    m = store / MANIFEST
    lines = _records(m.read_text())
    head = json.loads(lines[0])
    head["result_keys"].remove("notes")
    m.write_text(json.dumps(head) + "\n" + "".join(lines[1:]))
    p = store / PAPER
    p.write_text(p.read_text().replace(', "notes": "Table 3, \\"best\\""', ""))
    assert cli("check", str(store)).exit_code == 0
    r = cli("sync", str(store), "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["updated"] == 0
    rows = json.loads(_listing(cli))
    assert [x["notes"] for x in rows if x["id"] == 1] == ['Table 3, "best"']


@pytest.mark.slow
def test_the_folder_carries_the_user_collections_it_uses(cli, small, tmp_path, reference_db_file):
    assert cli("collections", "add", "my/coll", "--topics", "7").exit_code == 0
    row = [["my/coll" if i == 5 else c for i, c in enumerate(GOOD[0])]]
    assert cli("results", "import", str(write_csv(tmp_path / "m.csv", row))).exit_code == 0
    out = tmp_path / "store"
    assert cli("export-tree", str(out)).exit_code == 0
    m = [json.loads(x) for x in _records((out / MANIFEST).read_text())]
    assert [x["collection"]["id"] for x in m if "collection" in x] == ["my/coll"]
    assert cli("check", str(out)).exit_code == 0
    fresh = copy_db(reference_db_file, tmp_path / "fresh.duckdb")  # reference data only
    r = cli("sync", str(out), "--json", db=fresh)
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["collections_added"] == ["my/coll"]
    again = tmp_path / "again"
    cli("export-tree", str(again), db=fresh)
    assert (again / MANIFEST).read_text() == (out / MANIFEST).read_text()


# ---------------------------------------------------------------- 5: local work kept


@pytest.mark.slow
def test_sync_keeps_and_names_local_work_the_folder_lacks(cli, store, tmp_path):
    # a result added here and an edit made here, neither exported
    row = [["bm25" if i == 8 else "0.2222" if i == 7 else c for i, c in enumerate(GOOD[0])]]
    assert cli("results", "import", str(write_csv(tmp_path / "n.csv", row))).exit_code == 0
    cli("results", "edit", "3", "--set", "location=p. 9", "--reason", "pdf", "--who", "ann")
    r = cli("sync", str(store), "--json")
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout)
    assert rep["retracted"] == 0 and rep["not_in_folder"] == [4]
    # (an edit of a verified result makes it a draft again: its status changed too)
    assert rep["local_changes"] == [f"#3 ({store / OFFICIAL}:3): location, status"]
    rows = {x["id"]: x for x in json.loads(_listing(cli))}
    assert rows[4]["status"] == "draft" and rows[3]["location"] == "p. 9"
    text = cli("sync", str(store)).stdout
    assert "not in the folder, kept: #4" in text and "#3 (" in text
    # --prune: the folder wins
    r = cli("sync", str(store), "--prune", "--json")
    rep = json.loads(r.stdout)
    assert rep["retracted"] == 1 and rep["updated"] == 1
    rows = {x["id"]: x for x in json.loads(_listing(cli))}
    assert rows[4]["status"] == "retracted" and rows[3]["location"] is None


def test_sync_dry_run_lists_each_change_and_writes_nothing(cli, store):
    p = store / PAPER
    p.write_text(p.read_text().replace('"0.3574"', '"0.3575"'))
    with unwritten(cli.db):
        r = cli("sync", str(store), "--dry-run", "--json")
        text = cli("sync", str(store), "--dry-run").stdout
    assert r.exit_code == 0, r.output
    changes = json.loads(r.stdout)["changes"]
    assert changes == [{"what": f"#1 ({p}:3)", "field": "value", "old": "0.3574", "new": "0.3575"}]
    assert f"#1 ({p}:3) value: '0.3574' -> '0.3575'" in text


def test_sync_dry_run_refuses_an_outdated_database(cli, store):
    import duckdb

    from litaudit.store import migrations

    latest = migrations.code_version()
    con = duckdb.connect(str(cli.db))
    con.execute("DELETE FROM _migrations WHERE version = ?", [latest])
    con.close()
    r = cli("sync", str(store), "--dry-run")
    assert r.exit_code == 1 and "a dry run writes nothing" in r.stderr
    con = duckdb.connect(str(cli.db), read_only=True)
    assert latest not in {v for (v,) in con.execute("SELECT version FROM _migrations").fetchall()}
    con.close()


def test_the_folder_is_never_read_through_a_linked_manifest(cli, store, tmp_path):
    target = tmp_path / "m.jsonl"
    shutil.copy(store / MANIFEST, target)
    os.unlink(store / MANIFEST)
    (store / MANIFEST).symlink_to(target)
    _refused_by_both(cli, store, "a symbolic link")


# ---------------------------------------------------------------- 6: file names


def test_file_names_every_filesystem_holds():
    from litaudit.curation.tree import NAME_MAX, file_name, paper_paths, track_path

    # Windows device names, with or without an extension, in any case
    for dev in ("con", "CON", "aux", "nul", "Nul.x", "com1", "LPT9", "prn"):
        assert file_name(dev).split(".")[0].lower() not in (
            "con",
            "aux",
            "nul",
            "com1",
            "lpt9",
            "prn",
        )
    assert file_name("con") != file_name("CON")
    assert not file_name("a.").endswith(".")
    # bounded length, distinct names stay distinct (a hash of the whole name)
    a, b = "k" * 800 + "a", "k" * 800 + "b"
    assert len(file_name(a)) <= NAME_MAX + 13 and file_name(a) != file_name(b)
    long_escaped = "\u00e9" * 400  # 817 bytes escaped before
    assert len(file_name(long_escaped)) <= NAME_MAX + 13
    assert "%" not in file_name(long_escaped).split("~")[0][-2:]
    # names equal but for case get distinct files, in any order of listing
    paths = paper_paths(["Smith2020", "smith2020", "other"])
    assert len({p.lower() for p in paths.values()}) == 3 and paths["other"] == "papers/other.jsonl"
    assert paper_paths(["smith2020", "Smith2020"]) == {
        k: paths[k] for k in ("smith2020", "Smith2020")
    }
    # NFC and NFD spellings escape to different ASCII names: no normalisation collision
    assert file_name("caf\u00e9").isascii() and file_name("cafe\u0301") != file_name("caf\u00e9")
    assert track_path("trec7/adhoc", "aux").endswith("/%61ux.jsonl")


@pytest.mark.slow
def test_bibkeys_are_limited_at_entry(cli, small, tmp_path):
    r = cli("papers", "add", "k" * 101, "--citation", "X (2020)")
    assert r.exit_code == 1 and "at most 100" in r.stderr
    assert cli("papers", "add", "Smith2020", "--citation", "S (2020)").exit_code == 0
    r = cli("papers", "add", "smith2020", "--citation", "S (2020)")
    assert r.exit_code == 1 and "by case alone" in r.stderr
    row = [["k" * 200 if i == 1 else c for i, c in enumerate(GOOD[0])]]
    r = cli("results", "import", str(write_csv(tmp_path / "k.csv", row)))
    assert r.exit_code == 1 and "at most 100" in r.stderr


def test_papers_equal_but_for_case_export_to_distinct_files(cli, small, tmp_path):
    from litaudit.store import papers as P
    from litaudit.store.db import open_store

    with open_store(cli.db) as s:  # as an older litaudit let them in
        recs = [
            dict.fromkeys(P.COLUMNS) | {"bibkey": b, "citation": b} for b in ("Lee2020", "lee2020")
        ]
        P.insert_many(s.con, recs, at=dt.datetime(2026, 1, 1))
    out = tmp_path / "store"
    assert cli("export-tree", str(out)).exit_code == 0
    names = [p.name for p in (out / "papers").iterdir()]
    assert len({n.lower() for n in names}) == len(names) == 3
    assert cli("check", str(out)).exit_code == 0


# ---------------------------------------------------------------- 7: entry


@pytest.mark.parametrize("url", ["javascript:alert(1)", "file:///etc/passwd", "data:text/html,x"])
def test_a_paper_url_other_than_http_is_refused_at_entry(cli, small, tmp_path, url):
    r = cli("papers", "add", "p2020", "--citation", "P (2020)", "--url", url)
    assert r.exit_code == 1 and "http(s) URL" in r.stderr
    r = cli("papers", "edit", "zz2005test", "--set", f"url={url}", "--reason", "r")
    assert r.exit_code == 1 and "http(s) URL" in r.stderr
    row = [["new2020" if i == 1 else c for i, c in enumerate(GOOD[0])]]
    header = [*write_csv.__defaults__[0], "paper_url"]  # type: ignore[index]
    r = cli("results", "import", str(write_csv(tmp_path / "u.csv", [[*row[0], url]], header)))
    assert r.exit_code == 1 and "http(s) URL" in r.stderr


# ---------------------------------------------------------------- 4: one name everywhere


def _by_uid(cli, db) -> dict[str, dict]:
    return {x["uid"]: x for x in json.loads(cli("results", "list", "--json", db=db).stdout)}


@pytest.mark.slow
def test_a_result_has_the_same_uid_in_every_clone_and_is_named_by_it(
    cli, store, tmp_path, reference_db_file
):
    other = copy_db(reference_db_file, tmp_path / "other.duckdb")  # reference data only
    # a result of its own first: the other database numbers the folder's results apart
    row = [["own" if i == 8 else c for i, c in enumerate(GOOD[2])]]
    assert (
        cli("results", "import", str(write_csv(tmp_path / "o.csv", row)), db=other).exit_code == 0
    )
    r = cli("sync", str(store), "--json", db=other)
    assert r.exit_code == 0, r.output
    mine, theirs = _by_uid(cli, cli.db), _by_uid(cli, other)
    shared = set(mine) & set(theirs)
    assert len(shared) == 3
    assert any(mine[u]["id"] != theirs[u]["id"] for u in shared)  # local numbers differ
    for u in shared:
        assert (mine[u]["system"], mine[u]["measure"]) == (
            theirs[u]["system"],
            theirs[u]["measure"],
        )
    # "please retract r-..." hits the same result in both
    u = next(u for u in shared if mine[u]["system"] == "ok7ax")
    for db in (cli.db, other):
        shown = json.loads(cli("results", "show", u, "--json", db=db).stdout)
        assert shown["uid"] == u and shown["system"] == "ok7ax"
        r = cli("results", "retract", u, "--reason", "wrong run", "--who", "ann", db=db)
        assert r.exit_code == 0, r.output
        assert _by_uid(cli, db)[u]["status"] == "retracted"
    assert json.loads(cli("results", "history", u, "--json").stdout)[-1]["action"] == "retract"
    r = cli("results", "show", "r-0000000000000000")
    assert r.exit_code == 1 and "no result r-0000000000000000" in r.stderr
    r = cli("results", "show", "x12")
    assert r.exit_code == 1 and "is not a result id" in r.stderr


def test_a_uid_is_kept_when_the_result_is_edited_and_travels_with_the_folder(
    cli, store, tmp_path, reference_db_file
):
    before = _by_uid(cli, cli.db)
    r = cli("results", "edit", "1", "--set", "value=0.3575", "--reason", "pdf v2")
    assert r.exit_code == 0, r.output
    after = _by_uid(cli, cli.db)
    assert set(after) == set(before)
    assert cli("export-tree", str(store)).exit_code == 0
    lines = [json.loads(x) for x in _records((store / PAPER).read_text())[1:]]
    assert {x["uid"] for x in lines} <= set(after) and all(list(x)[0] == "uid" for x in lines)
    fresh = copy_db(reference_db_file, tmp_path / "fresh.duckdb")  # reference data only
    assert cli("sync", str(store), db=fresh).exit_code == 0
    assert set(_by_uid(cli, fresh)) == set(after)


def test_a_uid_on_two_lines_is_refused(cli, store):
    p = store / OFFICIAL
    text = p.read_text()
    uid = json.loads(_records(text)[1])["uid"]
    q = store / PAPER
    q.write_text(q.read_text().replace(json.loads(_records(q.read_text())[1])["uid"], uid))
    _refused_by_both(cli, store, f"uid {uid} is also on")


def test_the_migration_and_new_rows_compute_the_same_uids(cli, small):
    """schema/017 fills the uids of rows stored before it with the expression that
    store.results_write.fill_uids gives new rows."""
    from litaudit.resources import data_dir
    from litaudit.store import results as R
    from litaudit.store.db import open_store

    sql = (data_dir("schema") / "017_result_uids.sql").read_text()
    update = sql[sql.index("UPDATE results") :]
    with open_store(cli.db) as s:
        new = R.uids(s.con)
        s.con.execute("UPDATE results SET uid = NULL")
        s.con.execute(update)
        assert R.uids(s.con) == new
        assert all(u.startswith("r-") and len(u) == 18 for u in new.values())


# ---------------------------------------------------------------- 8: the repository's corpus


@pytest.fixture(scope="module")
def seeded_tree(request, tmp_path_factory) -> Path:
    """The seeded store (``seeded_db_file``) exported by `export-tree --json` and checked
    by `check --json`: what the test asserts of them, kept in a folder: the export's report
    (``export.json``), its manifest, the relative paths of what it wrote (``paths.json``)
    and check's exit code and output (``check.json``). Built once, and kept across runs
    under the digest of everything it is built from (tests/conftest.py
    `_built_folder_once`: the package, schema/, seeds/, the libraries, conftest and this
    module), so that a run with the same code asserts on what that code's export-tree and
    check did (3.7 s of CPU a run saved: the export, the check, and a copy of the 35 MB
    folder); any change to them exports and checks it anew."""
    from tests.conftest import Cli, _built_folder_once

    def build(folder: Path) -> None:
        # export-tree only reads: on the session's file itself (no copy of its 18 MB)
        db = request.getfixturevalue("seeded_db_file")
        work = tmp_path_factory.mktemp("seeded-export")
        out = work / "store"
        r = Cli(db)("export-tree", str(out), "--json")
        assert r.exit_code == 0, r.output
        (folder / "export.json").write_text(r.stdout, encoding="utf-8")
        shutil.copy(out / MANIFEST, folder / MANIFEST)
        paths = [p.relative_to(out).as_posix() for p in out.rglob("*")]
        (folder / "paths.json").write_text(json.dumps(paths), encoding="utf-8")
        r = Cli(work / "check.duckdb")("check", str(out), "--json")
        done = {"exit_code": r.exit_code, "stdout": r.stdout, "stderr": r.stderr}
        (folder / "check.json").write_text(json.dumps(done), encoding="utf-8")
        shutil.rmtree(work)

    return _built_folder_once(tmp_path_factory, "seeded-tree", build)


@pytest.mark.slow(reason="the whole seeds' export-tree and check (a module fixture, 4.6 s built)")
def test_the_seeded_store_is_a_folder_check_accepts(seeded_tree):
    """The repository's own corpus (34,495 seeded results, their `litaudit init`
    history): every file name plain and bounded, the manifest's counts its lines, the
    tool's own history entries accepted, and `check` passes."""
    from pathlib import PurePosixPath

    from litaudit.curation.tree import NAME_MAX

    rep = json.loads((seeded_tree / "export.json").read_text(encoding="utf-8"))
    m = [json.loads(x) for x in _records((seeded_tree / MANIFEST).read_text())]
    assert sum(x["results"] for x in m if "file" in x) == rep["results"] > 30_000
    paths = [PurePosixPath(x) for x in json.loads((seeded_tree / "paths.json").read_text())]
    assert all(len(p.name) <= NAME_MAX + 13 + len(".jsonl") for p in paths)
    folded = {(p.parent, p.name.lower()) for p in paths}
    assert len(folded) == len(paths)  # no two names of a folder equal but for case
    r = json.loads((seeded_tree / "check.json").read_text(encoding="utf-8"))
    assert r["exit_code"] == 0, r["stderr"][:2000]


def _git(cwd: Path, *args: str, check: bool = True) -> str:
    import subprocess

    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=cwd,
        check=check,
        capture_output=True,
        text=True,
    ).stdout


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_two_clones_edit_one_result_merge_and_sync_to_one_store(
    cli, store, tmp_path, reference_db_file
):
    """Two curators, two clones numbering results apart: they name results by uid, both
    edit one result (a conflict of that result's line alone: its history merges by
    itself), resolve it, sync, and end with one store."""
    origin = tmp_path / "origin.git"
    _git(tmp_path, "init", "-q", "--bare", str(origin))
    _git(store, "init", "-q")
    _git(store, "add", ".")
    _git(store, "commit", "-q", "-m", "store")
    _git(store, "push", "-q", str(origin), "HEAD:refs/heads/main")
    a, b = tmp_path / "a", tmp_path / "b"
    for clone in (a, b):
        _git(tmp_path, "clone", "-q", "-b", "main", str(origin), str(clone))
    db_a, db_b = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    shutil.copy(cli.db, db_a)  # curator A: the database the folder came from
    copy_db(reference_db_file, db_b)  # reference data only
    own = [["own" if i == 8 else "0.2" if i == 7 else c for i, c in enumerate(GOOD[2])]]
    r = cli("results", "import", str(write_csv(tmp_path / "o.csv", own)), "--who", "ben", db=db_b)
    assert r.exit_code == 0
    r = cli("sync", str(b), "--json", db=db_b)
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["not_in_folder"] == [1]  # B's own result, named and kept
    ua, ub = _by_uid(cli, db_a), _by_uid(cli, db_b)
    best = next(u for u, x in ua.items() if x["system"] == "best" and x["measure"] == "AP")
    ok7 = next(u for u, x in ua.items() if x["system"] == "ok7ax")
    assert ua[best]["id"] != ub[best]["id"]  # one result, two local numbers, one uid
    # A corrects the value, B the notes of the same result, and B retracts ok7ax
    r = cli(
        "results", "edit", best, "--set", "value=0.3575", "--reason", "v2", "--who", "ann", db=db_a
    )
    assert r.exit_code == 0, r.output
    cli("export-tree", str(a), db=db_a)
    _git(a, "commit", "-q", "-am", "ann: value")
    _git(a, "push", "-q", "origin", "main")
    r = cli(
        "results", "edit", best, "--set", "notes=Table 3", "--reason", "n", "--who", "ben", db=db_b
    )
    assert r.exit_code == 0, r.output
    assert (
        cli(
            "results", "retract", ok7, "--reason", "not this run", "--who", "ben", db=db_b
        ).exit_code
        == 0
    )
    cli("export-tree", str(b), db=db_b)
    _git(b, "add", ".")
    _git(b, "commit", "-q", "-m", "ben: notes, ok7ax retracted, own run")
    _git(b, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main", check=False)
    conflicted = _git(b, "diff", "--name-only", "--diff-filter=U").split()
    assert conflicted == [PAPER]  # the history files merged by themselves
    text = (b / PAPER).read_text()
    region = text[text.index("<<<<<<<") : text.index(">>>>>>>")].splitlines()
    assert len(region) == 4 and max(map(len, region)) < 700  # one short line a side
    r = cli("check", str(b), "--json")
    assert r.exit_code == 1 and "a git merge conflict marker" in r.stderr
    # resolved by hand: both changes kept on one line
    ours, theirs = region[1], region[3]
    keep = json.loads(ours)
    keep["value"] = json.loads(theirs)["value"]
    lines = text.splitlines(keepends=True)
    start = next(i for i, x in enumerate(lines) if x.startswith("<<<<<<<"))
    end = next(i for i, x in enumerate(lines) if x.startswith(">>>>>>>"))
    lines[start : end + 1] = [json.dumps(keep) + "\n"]
    (b / PAPER).write_text("".join(lines))
    assert cli("check", str(b)).exit_code == 0, cli("check", str(b)).stderr
    _git(b, "commit", "-q", "-am", "merge")
    for clone, db in ((b, db_b), (a, db_a)):
        if clone == a:
            _git(a, "pull", "-q", "--no-rebase", "origin", "main")
        r = cli("sync", str(clone), "--json", "--who", "ben" if clone == b else "ann", db=db)
        assert r.exit_code == 0, r.output
        rep = json.loads(r.stdout)
        assert rep["local_changes"] == [] and rep["not_in_folder"] == []
        cli("export-tree", str(clone), db=db)
        _git(clone, "add", ".")
        _git(clone, "commit", "-q", "-m", "synced", check=False)
        _git(clone, "push", "-q", "origin", "main")
    _git(b, "pull", "-q", "--no-rebase", "origin", "main")
    ua, ub = _by_uid(cli, db_a), _by_uid(cli, db_b)
    fields = ("value_text", "notes", "status", "system")
    assert {u: [x[f] for f in fields] for u, x in ua.items()} == {
        u: [x[f] for f in fields] for u, x in ub.items()
    }
    assert ua[best]["value_text"] == "0.3575" and ua[best]["notes"] == "Table 3"
    assert ua[ok7]["status"] == "retracted" and len(ua) == 4
    out_a, out_b = tmp_path / "out_a", tmp_path / "out_b"
    cli("export-tree", str(out_a), db=db_a)
    cli("export-tree", str(out_b), db=db_b)
    text_a = {p.relative_to(out_a): p.read_bytes() for p in out_a.rglob("*") if p.is_file()}
    text_b = {p.relative_to(out_b): p.read_bytes() for p in out_b.rglob("*") if p.is_file()}
    assert text_a == text_b


def test_a_folder_of_the_format_before_manifests_is_one_clear_problem(cli, store):
    """A folder written before version 1 (each result carrying its history, no
    manifest) is refused once, with what to do, not with a problem a line."""
    (store / MANIFEST).unlink()
    p = store / PAPER
    lines = [x.rstrip("\n") for x in _records(p.read_text())]
    p.write_text("\n".join([lines[0], *(x[:-1] + ', "history": []}' for x in lines[1:])]) + "\n")
    problems = _refused_by_both(cli, store, "a store folder of the format before version 1")
    assert len(problems) == 1


def test_audit_claim_takes_a_result_by_its_uid(cli, small_seeded_db_file, tmp_path):
    copy_db(small_seeded_db_file, cli.db)  # TREC-7's seed rows whole
    rows = json.loads(cli("results", "list", "-c", "trec7", "-m", "AP", "--json").stdout)
    ok7 = next(x for x in rows if x["system"] == "ok7ax")
    args = ("audit", "claim", "-c", "trec7", "-m", "AP", "--no-save", "--json", "--result")
    by_id = cli(*args, str(ok7["id"]))
    by_uid = cli(*args, ok7["uid"])
    assert by_id.exit_code == 0 and by_uid.exit_code == 0, by_uid.output
    assert json.loads(by_uid.stdout) == json.loads(by_id.stdout)
    r = cli(*args, "r-0000000000000000")
    assert r.exit_code == 1 and "no result r-0000000000000000" in r.stderr


def test_sync_keeps_a_paper_edited_here_since_its_export(cli, store):
    r = cli("papers", "edit", "zz2005test", "--set", "title=Mine", "--reason", "r", "--who", "ann")
    assert r.exit_code == 0, r.output
    p = store / PAPER
    p.write_text(
        p.read_text().replace('"citation": "Liu et al. (CIKM 2005)"', '"citation": "Theirs"', 1)
    )
    rep = json.loads(cli("sync", str(store), "--json").stdout)
    assert rep["papers_updated"] == 0
    assert rep["local_changes"] == [f"paper zz2005test ({p}:1): title"]
    shown = json.loads(cli("papers", "show", "zz2005test", "--json").stdout)
    assert (shown["title"], shown["citation"]) == ("Mine", "Liu et al. (CIKM 2005)")
    rep = json.loads(cli("sync", str(store), "--prune", "--json").stdout)
    assert rep["papers_updated"] == 1


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_edits_of_neighbouring_results_and_counts_merge_without_conflict(cli, store, tmp_path):
    """Two curators edit the two results of one paper (lines a blank line apart) and add
    a result each to two files (neighbouring lines of the manifest): git merges it all."""
    _git(store, "init", "-q")
    _git(store, "add", ".")
    _git(store, "commit", "-q", "-m", "store")
    b = tmp_path / "b"
    _git(tmp_path, "clone", "-q", str(store), str(b))
    _git(store, "checkout", "-q", "-b", "ann")
    db_a, db_b = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    for db in (db_a, db_b):
        shutil.copy(cli.db, db)
    rows = {x["system"] + x["measure"]: x["uid"] for x in json.loads(_listing(cli))}
    edit = ("results", "edit", "--reason", "r", "--who")
    assert cli(*edit, "ann", rows["bestAP"], "--set", "notes=a", db=db_a).exit_code == 0
    assert cli(*edit, "ben", rows["bestP@20"], "--set", "notes=b", db=db_b).exit_code == 0
    new_a = [["bm25" if i == 8 else "0.2" if i == 7 else c for i, c in enumerate(GOOD[0])]]
    new_b = [["own" if i == 8 else "0.2" if i == 7 else c for i, c in enumerate(GOOD[2])]]
    for new, db, who in ((new_a, db_a, "ann"), (new_b, db_b, "ben")):
        path = write_csv(tmp_path / f"{who}.csv", new)
        assert cli("results", "import", str(path), "--who", who, db=db).exit_code == 0
    cli("export-tree", str(store), db=db_a)
    _git(store, "commit", "-q", "-am", "ann")
    cli("export-tree", str(b), db=db_b)
    _git(b, "commit", "-q", "-am", "ben")
    _git(b, "pull", "-q", "--no-rebase", "--no-edit", str(store), "ann")  # no conflict
    assert cli("check", str(b)).exit_code == 0
    r = cli("sync", str(b), "--json", db=db_b)
    assert r.exit_code == 0, r.output
    listed = json.loads(cli("results", "list", "--json", db=db_b).stdout)
    got = {x["system"] + x["measure"]: x for x in listed}
    assert (got["bestAP"]["notes"], got["bestP@20"]["notes"]) == ("a", "b")
    assert {"bm25AP", "ownAP"} <= set(got)
