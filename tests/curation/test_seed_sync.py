"""`init` on a database seeded before the seeds changed: its seeded rows follow the seeds.

The "old" database is built the way an earlier `init` built it: `load_seeds` on a seeds
folder holding what the seeds held then (here: the current official rows of a track with
P@15 named P@10, as the seeds had them before NIST's 'P_10' was read as P@15).
"""

from __future__ import annotations

import csv
import functools
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from litaudit.curation.seed import GONE_REASON, SEED_USER, load_seeds
from tests.conftest import copy_db

REPO = Path(__file__).resolve().parents[2]
SEEDS = REPO / "seeds"
OLD_SEEDS_COMMIT = "2cbf4fc"  # the seeds before P@15 and the DL 2020 passage nDCG@10 drop


def _official(*tracks: str) -> tuple[list[str], list[dict]]:
    """The fields of the seeds' official results and the rows of ``tracks`` (each a new
    dict: a test may change its rows)."""
    fields, rows = _official_file()
    return list(fields), [dict(r) for r in rows if r["track"] in tracks]


@functools.cache
def _official_file() -> tuple[tuple[str, ...], tuple[dict, ...]]:
    """seeds/results/trec_official.csv, read once for the module (1.5 MB: ~35 ms a read,
    and five of the tests read it)."""
    with open(SEEDS / "results" / "trec_official.csv", newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        rows = tuple(reader)
        return tuple(reader.fieldnames or ()), rows


def _as_p10(rows: list[dict]) -> list[dict]:
    """The rows as the seeds held them before: NIST's 'P_10' seeded as P@10."""
    return [{**r, "measure": "P@10"} if r["measure"] == "P@15" else r for r in rows]


def _seeds_dir(root: Path, name: str, fields: list[str], rows: list[dict]) -> Path:
    d = root / name
    (d / "results").mkdir(parents=True)
    (d / "papers").mkdir()
    shutil.copy(SEEDS / "collections.json", d / "collections.json")
    with open(d / "results" / "trec_official.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fields)
        w.writeheader()
        w.writerows(rows)
    return d


def _status(con, track: str, measure: str) -> dict[str, int]:
    return dict(
        con.execute(
            "SELECT status, count(*) FROM results WHERE track = ? AND measure = ? GROUP BY 1",
            [track, measure],
        ).fetchall()
    )


def _ids(con, track: str, measure: str) -> list[int]:
    return [
        i
        for (i,) in con.execute(
            "SELECT id FROM results WHERE track = ? AND measure = ? ORDER BY id",
            [track, measure],
        ).fetchall()
    ]


@pytest.fixture
def trec7(tmp_path):
    """(old seeds folder, current seeds folder, current rows) for trec7/adhoc."""
    fields, rows = _official("trec7/adhoc")
    n15 = sum(r["measure"] == "P@15" for r in rows)
    assert n15 == 103 and len(rows) == 3 * 103  # AP, P@15, Rprec of every run
    old = _seeds_dir(tmp_path, "old", fields, _as_p10(rows))
    new = _seeds_dir(tmp_path, "new", fields, rows)
    return old, new, rows


@pytest.fixture(scope="module")
def trec7_seeded(tmp_path_factory, reference_db_file) -> tuple[Path, Path, Path]:
    """(a database file `load_seeds` seeded from the old trec7 folder, the old folder,
    the current one): the first step of five tests, done once for the module."""
    from litaudit.store.db import open_store

    root = tmp_path_factory.mktemp("trec7")
    fields, rows = _official("trec7/adhoc")
    assert sum(r["measure"] == "P@15" for r in rows) == 103 and len(rows) == 3 * 103
    old = _seeds_dir(root, "old", fields, _as_p10(rows))
    new = _seeds_dir(root, "new", fields, rows)
    db = copy_db(reference_db_file, root / "old.duckdb")
    with open_store(db) as store:
        load_seeds(store, old)
    return db, old, new


@pytest.fixture
def store(trec7_seeded, tmp_path):
    """A test's own copy of the database seeded from the old trec7 folder."""
    from litaudit.store.db import open_store

    store = open_store(copy_db(trec7_seeded[0], tmp_path / "old.duckdb"))
    yield store
    store.close()


def test_rows_the_seeds_no_longer_hold_are_retracted_with_the_reason(store, trec7_seeded):
    from litaudit.curation.filters import AUDIT
    from litaudit.curation.results import history, query_results

    _, _, new = trec7_seeded
    p10 = _ids(store.con, "trec7/adhoc", "P@10")
    sync = load_seeds(store, new)["seeds"]
    assert sync == {
        "added": 103,
        "unchanged": 206,
        "updated": 0,
        "notes_updated": 0,
        "dates_updated": 0,
        "roles_changed": 0,
        "retracted": 103,
        "restored": 0,
        "left": [],
    }
    con = store.con
    assert _status(con, "trec7/adhoc", "P@10") == {"retracted": 103}
    assert _status(con, "trec7/adhoc", "P@15") == {"draft": 103}
    assert query_results(con, AUDIT, collection="trec7", measure="P@10") == []
    assert len(query_results(con, AUDIT, collection="trec7", measure="P@15")) == 103
    # the history keeps the seeding and says why the row went, naming the row that holds it
    rid = p10[0]
    system, value = con.execute(
        "SELECT system, value_text FROM results WHERE id = ?", [rid]
    ).fetchone()
    (p15,) = con.execute(
        "SELECT id FROM results WHERE track = 'trec7/adhoc' AND measure = 'P@15' "
        "AND system = ? AND value_text = ?",
        [system, value],
    ).fetchone()
    h = history(con, "result", rid)
    assert [(e.action, e.who) for e in h] == [("import", SEED_USER), ("retract", SEED_USER)]
    assert (h[1].field, h[1].old_value, h[1].new_value) == ("status", "draft", "retracted")
    assert h[1].reason == (
        f"no longer in the seeds, which hold this value as P@15 (result #{p15}): "
        "see seeds/README.md"
    )
    # a second run changes nothing
    again = load_seeds(store, new)["seeds"]
    assert (again["added"], again["unchanged"], again["retracted"]) == (0, 309, 0)
    assert len(history(con, "result", rid)) == 2


def test_a_row_dropped_without_a_replacement_names_the_seeds_readme(undone_store, tmp_path):
    from litaudit.curation.results import history

    fields, rows = _official("trec7/adhoc", "trec8/adhoc")
    load_seeds(undone_store, _seeds_dir(tmp_path, "old", fields, rows))
    trec8 = _ids(undone_store.con, "trec8/adhoc", "AP")
    kept = [r for r in rows if r["track"] == "trec7/adhoc"]
    sync = load_seeds(undone_store, _seeds_dir(tmp_path, "new", fields, kept))["seeds"]
    assert (sync["retracted"], sync["unchanged"]) == (len(rows) - len(kept), len(kept))
    assert history(undone_store.con, "result", trec8[0])[-1].reason == GONE_REASON


def test_a_seeds_folder_missing_a_file_retracts_nothing(store, tmp_path):
    empty = tmp_path / "empty"
    (empty / "results").mkdir(parents=True)
    (empty / "papers").mkdir()
    shutil.copy(SEEDS / "collections.json", empty / "collections.json")
    sync = load_seeds(store, empty)["seeds"]
    assert (sync["retracted"], sync["unchanged"]) == (0, 0)
    assert _status(store.con, "trec7/adhoc", "P@10") == {"draft": 103}


def test_rows_a_user_changed_are_left_and_listed(store, trec7_seeded):
    from litaudit.curation.results import edit_result, history, set_status

    _, _, new = trec7_seeded
    edited, verified, retracted, *_ = _ids(store.con, "trec7/adhoc", "P@10")
    edit_result(store, edited, {"location": "Table 3"}, reason="re-read", who="ann")
    set_status(store, verified, "verified", reason=None, who="bob")
    set_status(store, retracted, "retracted", reason="wrong run", who="ann")
    sync = load_seeds(store, new)["seeds"]
    # the one a user retracted already is out of the audits: not listed
    assert sync["left"] == [edited, verified]
    assert sync["retracted"] == 103 - 3
    con = store.con
    statuses = dict(
        con.execute(
            "SELECT id, status FROM results WHERE id IN (?, ?, ?)", [edited, verified, retracted]
        ).fetchall()
    )
    assert statuses == {edited: "draft", verified: "verified", retracted: "retracted"}
    for rid in (edited, verified, retracted):
        assert SEED_USER not in [e.who for e in history(con, "result", rid)][1:]


def test_a_changed_seed_value_updates_a_row_nobody_changed_and_leaves_an_edited_one(
    undone_store, tmp_path
):
    from litaudit.curation.results import edit_result, history

    fields, rows = _official("trec7/adhoc")
    ap = [i for i, r in enumerate(rows) if r["measure"] == "AP"][:2]
    before = [dict(r) for r in rows]
    for i in ap:  # the seeds held another value for these two rows then
        before[i]["value"] = "0.0001"
    load_seeds(undone_store, _seeds_dir(tmp_path, "old", fields, before))
    con = undone_store.con
    ids = [
        con.execute(
            "SELECT id FROM results WHERE track = 'trec7/adhoc' AND measure = 'AP' AND system = ?",
            [rows[i]["system"]],
        ).fetchone()[0]
        for i in ap
    ]
    edit_result(undone_store, ids[1], {"notes": "checked"}, reason="read the paper", who="ann")
    sync = load_seeds(undone_store, _seeds_dir(tmp_path, "new", fields, rows))["seeds"]
    assert (sync["updated"], sync["left"], sync["unchanged"]) == (1, [ids[1]], len(rows) - 2)
    value = "SELECT value_text FROM results WHERE id = ?"
    assert con.execute(value, [ids[0]]).fetchone()[0] == rows[ap[0]]["value"]
    assert con.execute(value, [ids[1]]).fetchone()[0] == "0.0001"
    last = history(con, "result", ids[0])[-1]
    assert (last.action, last.field, last.old_value, last.who) == (
        "edit",
        "value",
        "0.0001",
        SEED_USER,
    )


def test_a_changed_seed_note_is_written_once_and_never_over_a_users_note(undone_store, tmp_path):
    from litaudit.curation.results import edit_result, history

    fields, rows = _official("trec7/adhoc")
    assert "notes" in fields
    load_seeds(undone_store, _seeds_dir(tmp_path, "old", fields, rows))
    con = undone_store.con
    ap = _ids(con, "trec7/adhoc", "AP")
    edit_result(undone_store, ap[0], {"notes": "checked"}, reason="read the paper", who="ann")
    note = "judged with NIST's qrels"
    renoted = [{**r, "notes": note} if r["measure"] == "AP" else r for r in rows]
    new = _seeds_dir(tmp_path, "new", fields, renoted)
    sync = load_seeds(undone_store, new)["seeds"]
    assert (sync["notes_updated"], sync["unchanged"], sync["left"]) == (102, len(rows), [])
    notes = dict(
        con.execute(
            "SELECT id, notes FROM results WHERE id IN (SELECT unnest(?::BIGINT[]))", [ap]
        ).fetchall()
    )
    assert notes == {rid: ("checked" if rid == ap[0] else note) for rid in ap}
    last = history(con, "result", ap[1])[-1]
    assert (last.field, last.new_value, last.who) == ("notes", note, SEED_USER)
    # a second run changes nothing (what a second `init` on real seeds would check)
    again = load_seeds(undone_store, new)["seeds"]
    assert (again["notes_updated"], again["unchanged"]) == (0, len(rows))
    assert history(con, "result", ap[1])[-1] == last


def test_seed_dates_follow_the_seeds_unless_a_user_changed_the_row(undone_store, tmp_path):
    """Issue 32: rows seeded with the day their source was read (Pyserini's reproductions,
    2026-08-07) take the seeds' new dates, years, locations and urls (the commit that added
    each value) on the next `init`, with history; a row a user changed is left alone."""
    from litaudit.curation.results import edit_result, history

    fields, rows = _official("trec7/adhoc")
    assert {"date", "year", "location", "url"} <= set(fields)
    read_day = [
        {**r, "date": "2026-08-07", "year": "2026", "location": r["location"] + " (read)"}
        if r["measure"] == "AP"
        else r
        for r in rows
    ]
    load_seeds(undone_store, _seeds_dir(tmp_path, "old", fields, read_day))
    con = undone_store.con
    ap = _ids(con, "trec7/adhoc", "AP")
    edit_result(undone_store, ap[0], {"notes": "checked"}, reason="read the paper", who="ann")
    new = _seeds_dir(tmp_path, "new", fields, rows)
    sync = load_seeds(undone_store, new)["seeds"]
    assert (sync["dates_updated"], sync["unchanged"], sync["left"]) == (102, len(rows), [])
    got = dict(
        con.execute(
            "SELECT id, CAST(date AS VARCHAR) || ' ' || year FROM results "
            "WHERE id IN (SELECT unnest(?::BIGINT[]))",
            [ap],
        ).fetchall()
    )
    want = {r["system"]: f"{r['date']} {r['year']}" for r in rows if r["measure"] == "AP"}
    systems = dict(con.execute("SELECT id, system FROM results").fetchall())
    assert got[ap[0]] == "2026-08-07 2026"  # the user's row: as it was
    assert all(got[i] == want[systems[i]] for i in ap[1:])
    fields_changed = [h.field for h in history(con, "result", ap[1])[-3:]]
    assert fields_changed == ["date", "year", "location"]
    last = history(con, "result", ap[1])[-3]
    assert (last.old_value, last.new_value, last.who) == (
        "2026-08-07",
        want[systems[ap[1]]][:10],
        SEED_USER,
    )
    again = load_seeds(undone_store, new)["seeds"]  # a second run changes nothing
    assert again["dates_updated"] == 0


def test_a_row_back_in_the_seeds_gets_its_status_back(store, trec7_seeded):
    from litaudit.curation.results import history

    _, old, new = trec7_seeded
    load_seeds(store, new)
    sync = load_seeds(store, old)["seeds"]
    assert (sync["restored"], sync["retracted"], sync["unchanged"]) == (103, 103, 206)
    con = store.con
    assert _status(con, "trec7/adhoc", "P@10") == {"draft": 103}
    assert _status(con, "trec7/adhoc", "P@15") == {"retracted": 103}
    last = history(con, "result", _ids(con, "trec7/adhoc", "P@10")[0])[-1]
    assert (last.action, last.old_value, last.new_value) == ("edit", "retracted", "draft")
    assert last.reason == "back in the seeds: see seeds/README.md"


def test_a_failure_while_retracting_leaves_the_database_as_it_was(store, trec7_seeded, monkeypatch):
    from litaudit.curation import seed

    _, _, new = trec7_seeded
    con = store.con
    counts = "SELECT (SELECT count(*) FROM results), (SELECT count(*) FROM history)"
    before = con.execute(counts).fetchone()

    def fail(con, changes):
        raise RuntimeError("disk full")

    monkeypatch.setattr(seed, "_set_statuses", fail)
    with pytest.raises(RuntimeError):
        load_seeds(store, new)
    assert con.execute(counts).fetchone() == before
    assert _status(con, "trec7/adhoc", "P@15") == {}
    assert _status(con, "trec7/adhoc", "P@10") == {"draft": 103}


# the result rows of the small seed set (tests/conftest.py SMALL_SEED_COLLECTIONS)
SMALL = 1499


def _small_seeds(folder: Path) -> None:
    from tests.conftest import write_small_seeds

    write_small_seeds(folder)


def _old_database(path: Path, seeds_dir: Path) -> None:
    from litaudit.store.db import open_store

    with open_store(path) as store:
        load_seeds(store, seeds_dir)


@pytest.mark.slow
def test_init_says_what_it_did(cli, trec7, tmp_path_factory, monkeypatch):
    """`init`'s report of a sync, and a second init that has nothing to do, on the small
    seed set (tests/conftest.py `write_small_seeds`: every real seed row of robust04,
    TREC-7 and MS MARCO passage dev/small): what init says and that a second one is a no-op
    are per row, and the full seeds prove nothing more here at some 20 times the rows (the
    whole seeds' sync: test_a_database_seeded_before_p15_and_the_dl2020_drop; their count
    on a new database: tests/repo/test_package.py)."""
    import functools

    from litaudit.curation import init_request
    from litaudit.curation.results import edit_result
    from litaudit.store.db import open_store
    from tests.conftest import _built_folder_once

    # written once (0.35 s of CPU), kept across runs under the digest of the seeds and
    # of write_small_seeds (tests/conftest.py `_built_folder_once`)
    small = _built_folder_once(tmp_path_factory, "small-seeds", _small_seeds)
    monkeypatch.setattr(init_request, "load_seeds", functools.partial(load_seeds, seeds_dir=small))
    old, _, _ = trec7
    _old_database(cli.db, old)
    with open_store(cli.db) as store:
        edited = _ids(store.con, "trec7/adhoc", "P@10")[0]
        edit_result(store, edited, {"location": "Table 3"}, reason="re-read", who="ann")
    r = cli("init")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    n = SMALL - 206  # every small seed row but trec7's AP and Rprec, there already
    assert lines[1] == (
        f"seeded results: {n:,} added, 206 unchanged, 102 retracted: no longer "
        "in the seeds (history says why; seeds/README.md)"
    )
    assert lines[2] == (
        "left as they are: 1 seeded result(s) that the seeds no longer hold (or hold with "
        f"another value) but a user changed since: #{edited}. `litaudit results history ID` "
        "shows each; retract or edit them by hand."
    )

    # a second init adds nothing, changes nothing and says so
    def tables() -> dict:
        return json.loads(cli("db", "info", "--json").stdout)["tables"]

    before = tables()
    r = cli("init", "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["added"] == {"results": 0, "papers": 0, "collections": 0, "measures": 0}
    assert any(c["collection"] == "trec7" and c["measure"] == "AP" for c in data["counts"])
    assert tables() == before
    assert data["seeds"] == {
        "added": 0,
        "unchanged": SMALL,
        "updated": 0,
        "notes_updated": 0,
        "dates_updated": 0,
        "roles_changed": 0,
        "retracted": 0,
        "restored": 0,
        "left": [edited],
    }


def _git_seeds(commit: str, dest: Path) -> Path:
    """The seeds folder as it was at ``commit`` (skip when this clone lacks it)."""
    probe = subprocess.run(
        ["git", "-C", str(REPO), "cat-file", "-e", f"{commit}:seeds/collections.json"],
        capture_output=True,
    )
    if probe.returncode != 0:
        pytest.skip(f"commit {commit} is not in this clone (a shallow clone has no history)")
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", commit, "seeds"], capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    return dest / "seeds"


@pytest.fixture
def seeded_before_p15(tmp_path_factory) -> Path:
    """A database seeded by `load_seeds` from the seeds of OLD_SEEDS_COMMIT (a copy for
    the test). Built once, and kept across runs (tests/conftest.py `_built_once`: keyed by
    the package, schema/, seeds/ and conftest) under a name that carries the commit and
    the digest of the builders below, so a change to either builds it anew."""
    import hashlib
    import inspect

    from tests.conftest import _built_once

    def build(path: Path) -> None:
        _old_database(path, _git_seeds(OLD_SEEDS_COMMIT, tmp_path_factory.mktemp("old")))

    builders = "".join(inspect.getsource(f) for f in (_old_database, _git_seeds))
    digest = hashlib.sha256(builders.encode()).hexdigest()[:12]
    return _built_once(tmp_path_factory, f"seeded-{OLD_SEEDS_COMMIT}-{digest}.duckdb", build)


@pytest.fixture
def synced_from_before_p15(request, tmp_path_factory) -> Path:
    """:func:`seeded_before_p15` after today's `init --json` (the whole seeds' sync, 2.2 s
    of CPU): the folder holding the database (``synced.duckdb``, this test's copy) and the
    command's output (``init.json``). Built once, and kept across runs under the digest of
    everything it is built from (tests/conftest.py `_built_folder_once`: the package,
    schema/, seeds/, the libraries, conftest and this module, whose builders name
    OLD_SEEDS_COMMIT), so that a run with the same code asserts on what that code's init
    wrote; any change to them runs the init anew."""
    from tests.conftest import Cli, _built_folder_once, copy_db

    def build(folder: Path) -> None:
        old = request.getfixturevalue("seeded_before_p15")  # this build's copy
        r = Cli(old)("init", "--json")
        assert r.exit_code == 0, r.output
        copy_db(old, folder / "synced.duckdb")
        (folder / "init.json").write_text(r.stdout, encoding="utf-8")

    return _built_folder_once(tmp_path_factory, "synced-before-p15", build)


@pytest.mark.slow
def test_a_database_seeded_before_p15_and_the_dl2020_drop(synced_from_before_p15):
    """The real case: the seeds of 2cbf4fc, then today's: P_10 of the older tracks is P@15,
    DL 2020's passage nDCG@10 is gone, and its map and P_10 are AP(rel=2), P(rel=2)@10."""
    from litaudit.store.db import open_store
    from tests.conftest import Cli

    cli = Cli(synced_from_before_p15 / "synced.duckdb")
    sync = json.loads((synced_from_before_p15 / "init.json").read_text(encoding="utf-8"))["seeds"]
    assert (sync["retracted"], sync["left"], sync["updated"]) == (946, [], 0)
    # the DL 2019/2020 passage AP and P@10 rows get the seeds' new note on NIST's qrels
    assert sync["notes_updated"] > 0
    with open_store(cli.db, read_only=True) as store:
        renoted = store.con.execute(
            "SELECT r.track, count(*) FROM results r JOIN history h ON h.entity = 'result' "
            "AND h.entity_id = r.id AND h.field = 'notes' GROUP BY ALL ORDER BY ALL"
        ).fetchall()
    assert sum(n for _, n in renoted) == sync["notes_updated"]
    assert {t for t, _ in renoted} <= {"trec28/deep/passages", "trec29/deep/passages"}
    # (that a second sync has nothing left to do: test_init_says_what_it_did on real
    # seed rows (the small set), test_a_changed_seed_note_is_written_once_... on notes)
    with open_store(cli.db, read_only=True) as store:
        gone = store.con.execute(
            "SELECT r.track, r.measure, regexp_extract(h.reason, 'which hold this value "
            "as (\\S+) ', 1), count(*) FROM results r JOIN history h "
            "ON h.entity = 'result' AND h.entity_id = r.id AND h.action = 'retract' "
            "GROUP BY ALL ORDER BY ALL"
        ).fetchall()
    assert sum(n for *_, n in gone) == 946
    assert ("trec29/deep/passages", "nDCG@10", "", 59) in gone
    assert [(t, m) for t, m, renamed, _ in gone if not renamed] == [
        ("trec29/deep/passages", "nDCG@10")
    ]
    assert sum(n for _, m, renamed, n in gone if m == "P@10" and renamed == "P@15") == 769
    assert ("trec7/adhoc", "P@10", "P@15", 103) in gone
    assert ("trec12/robust", "P@10", "P@15", 78) in gone
    assert ("trec29/deep/passages", "AP", "AP(rel=2)", 59) in gone
    assert ("trec29/deep/passages", "P@10", "P(rel=2)@10", 59) in gone
    r = cli("audit", "best", "-c", "trec7", "-m", "P@10", "--source", "official")
    assert r.exit_code == 1
    assert "trec7 P@10: 0 result(s) after the filters" in r.stderr
    r = cli("audit", "best", "-c", "trec7", "-m", "P@15", "--source", "official")
    assert r.exit_code == 0, r.output
    assert "N = 103 results on 50 topics" in r.stdout


def test_init_lists_the_first_ids_of_many_left_rows():
    from litaudit.defaults import SEED_IDS_SHOWN
    from litaudit.render.seeds import seed_sync_lines

    sync = {"added": 0, "unchanged": 5, "updated": 0, "retracted": 0, "restored": 0}
    lines = seed_sync_lines({**sync, "left": list(range(1, SEED_IDS_SHOWN + 6))})
    assert lines[0] == "seeded results: 0 added, 5 unchanged"
    assert f"#{SEED_IDS_SHOWN + 1}" not in lines[1]
    assert f"#{SEED_IDS_SHOWN - 1}, #{SEED_IDS_SHOWN} and 5 more (--json lists all)." in lines[1]
    assert seed_sync_lines({**sync, "left": []}) == [lines[0]]


def test_mteb_rows_seeded_as_official_take_the_leaderboard_role_in_place(undone_store, tmp_path):
    """Seeds that held MTEB rows with role official, then today's (leaderboard): the rows
    change role in place, with their ids, statuses and users' edits; nothing retracted."""
    from litaudit.curation.results import edit_result, set_status

    with open(SEEDS / "results" / "beir_averages.csv.gz", "rb") as f:
        import gzip
        import io

        reader = csv.DictReader(io.StringIO(gzip.decompress(f.read()).decode("utf-8")))
        fields = list(reader.fieldnames or ())
        rows = [r for r in reader if r["collection"] == "beir/mean"][:40]
    assert {r["role"] for r in rows} == {"leaderboard"}

    def seeds(name: str, role: str) -> Path:
        d = _seeds_dir(tmp_path, name, fields, [])
        (d / "results" / "trec_official.csv").unlink()
        with open(d / "results" / "beir_averages.csv", "w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fields)
            w.writeheader()
            w.writerows({**r, "role": role} for r in rows)
        return d

    load_seeds(undone_store, seeds("old", "official"))
    con = undone_store.con
    ids = [i for (i,) in con.execute("SELECT id FROM results ORDER BY id").fetchall()]
    set_status(undone_store, ids[0], "verified", reason="checked", who="ann")
    edit_result(undone_store, ids[1], {"notes": "ann's note"}, reason="mine", who="ann")
    sync = load_seeds(undone_store, seeds("new", "leaderboard"))["seeds"]
    assert (sync["roles_changed"], sync["added"], sync["retracted"]) == (40, 0, 0)
    assert sync["unchanged"] == 40 and sync["left"] == []
    got = con.execute("SELECT id, role, status, notes FROM results ORDER BY id").fetchall()
    assert [i for i, *_ in got] == ids
    assert {r for _, r, _, _ in got} == {"leaderboard"}
    assert got[0][2] == "verified" and got[1][3] == "ann's note"
    hist = con.execute(
        "SELECT count(*) FROM history WHERE field = 'role' AND old_value = 'official' "
        "AND new_value = 'leaderboard' AND who = ?",
        [SEED_USER],
    ).fetchone()
    assert hist == (40,)
    again = load_seeds(undone_store, seeds("again", "leaderboard"))["seeds"]
    assert (again["roles_changed"], again["added"], again["unchanged"]) == (0, 0, 40)
