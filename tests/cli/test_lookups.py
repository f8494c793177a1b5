"""Lookups that never dead-end (issue 20 items 5 and 6): one collection resolver for
every command, suggestions for unknown names, empty populations that say what the store
holds, one naming rule for short names, tables that never cut an id, `results list`."""

from __future__ import annotations

import functools
import json
import re

import pytest

from tests.conftest import REPO, copy_db


@pytest.fixture
def seeded(cli, seeded_db_file):
    """The CLI on the session's seeded database, for read-only commands: no copy, and
    each open reuses the DuckDB instance the run keeps open on it (tests/conftest.py)."""
    return functools.partial(cli, db=seeded_db_file)


@pytest.fixture
def small_seeded(cli, small_seeded_db_file):
    """The CLI on the session's small seeded database (tests/conftest.py), read-only."""
    return functools.partial(cli, db=small_seeded_db_file)


@pytest.fixture
def seeded_copy(cli, small_seeded_db_file):
    """The CLI on a private copy of the small seeded database (a command that opens it to
    write, a dry run included): the names are the reference data's (collections.json),
    which it holds whole; its few results are what a dry run checks a row against."""
    copy_db(small_seeded_db_file, cli.db)
    return cli


def _claim(cli, *args):
    return cli("audit", "claim", *args, "--no-save")


def test_the_issue_lookups_say_what_the_store_holds(seeded):
    # the four lookups of issue 20, each a dead end before ("0 result(s) after the
    # filters" with no filter given; "unknown collection 'dl19'" with no suggestion)
    r = _claim(seeded, "-c", "msmarco-passage/dev", "-m", "recip_rank", "--value", "0.397")
    assert r.exit_code == 1
    assert r.stderr == (
        "Error: msmarco-passage-dev RR: 0 result(s); recip_rank is RR without cutoff; "
        "msmarco-passage-dev holds RR@10 (343); its other measures: R@1000 (78), "
        "R@100 (6); "
        "no collection holds RR\n"
    )
    r = _claim(seeded, "-c", "dl19-passage", "-m", "RR@10", "--value", "0.397")
    assert r.exit_code == 1
    assert r.stderr == (
        "Error: dl19-passage RR@10: 0 result(s); dl19-passage holds nDCG@10 (224), "
        "R(rel=2)@1000 (47), AP(rel=2) (45), AP (41), P@10 (37); RR@10 is held by "
        "msmarco-passage-dev (343), msmarco-passage-eval (174), beir-arguana (269), "
        "beir-trec-covid (269), beir-scidocs (268) and 27 more\n"
    )
    r = _claim(seeded, "-c", "scifact", "-m", "ndcg", "--value", "0.78")
    assert r.exit_code == 1
    assert r.stderr == (
        "Error: beir-scifact nDCG: 0 result(s); ndcg is nDCG without cutoff; beir-scifact "
        "holds nDCG@10 (254); its other measures: R@100 (236), AP@10 (228), RR@10 (223), "
        "R@1000 (6); no collection holds nDCG\n"
    )
    r = _claim(seeded, "-c", "dl19", "-m", "nDCG@10", "--value", "0.745")
    assert r.exit_code == 1
    assert r.stderr == (
        "Error: unknown collection 'dl19'; did you mean 'dl19-doc' "
        "(msmarco-document/trec-dl-2019/judged) or 'dl19-passage' "
        "(msmarco-passage/trec-dl-2019/judged)?\n"
    )
    # "after the filters" only when a filter was given, with what is there without them
    r = _claim(seeded, "-c", "trec7", "-m", "AP", "--value", "0.3", "--years", "1990")
    assert r.stderr == (
        "Error: trec7 AP: 0 result(s) after the filters; without the filters trec7 holds "
        "103 AP result(s)\n"
    )


def test_unknown_names_get_suggestions_from_ids_aliases_and_titles(seeded_db_file):
    from litaudit.store.collection_names import CollectionNames
    from litaudit.store.db import open_store

    with open_store(seeded_db_file, read_only=True) as store:
        names = CollectionNames.load(store.con)
    assert names.suggest("dl19") == [
        "msmarco-document/trec-dl-2019/judged",
        "msmarco-passage/trec-dl-2019/judged",
    ]
    assert names.suggest("trec-dl-2019") == names.suggest("dl19")
    assert names.suggest("nfcorpus") == ["beir/nfcorpus/test"]
    assert names.suggest("robust") == [  # words of the titles
        "trec-robust-2003",
        "disks45/nocr/trec-robust-2004",
        "aquaint/trec-robust-2005",
    ]
    assert names.suggest("robust4") == ["disks45/nocr/trec-robust-2004"]  # a typo
    # never another split or year of the same corpus
    assert names.suggest("msmarco-passage/dev/large") == []
    assert names.suggest("msmarco-passage/trec-dl-2021") == []
    assert names.suggest("zzz") == []


@pytest.mark.slow
def test_every_command_accepts_the_same_names(seeded_copy, tmp_path):
    seeded = seeded_copy
    # `beir/scifact` (a prefix of the id beir/scifact/test) worked in `audit` but
    # `results import` refused it: imports now use the same resolver
    for name in ("beir/scifact", "beir-scifact", "scifact", "mteb/scifact", "BEIR/SciFact/test"):
        f = tmp_path / "r.csv"
        f.write_text(
            "source,track,collection,measure,value,system,role,year,transcribed_by,"
            f"transcribed_at\nofficial,mteb/retrieval,{name},nDCG@10,0.5,x,official,2024,"
            "a,2026-11-25\n"
        )
        r = seeded("results", "import", str(f), "--dry-run")
        assert r.exit_code == 0, (name, r.output)
        assert "beir-scifact" in r.stdout or "beir/scifact/test" in r.stdout
        r = seeded("collections", "show", name, "--json")
        assert json.loads(r.stdout)["id"] == "beir/scifact/test", name
    r = seeded("results", "list", "-c", "dl19", "--json")
    assert r.exit_code == 1 and "did you mean 'dl19-doc'" in r.stderr


def test_one_naming_rule_for_short_names():
    # README "Collection names": BEIR collections are beir-<their dataset in the id>; the
    # names used before stay aliases (users' files hold them)
    data = json.loads((REPO / "seeds" / "collections.json").read_text(encoding="utf-8"))
    for c in data["collections"]:
        parts = c["id"].split("/")
        if parts[0] == "beir":
            forum = parts[2] if parts[1] == "cqadupstack" and len(parts) > 2 else None
            assert c["name"] == "-".join(["beir", parts[1], *([forum] if forum else [])]), c
        assert "/" not in c["name"] and c["name"] == c["name"].lower(), c
    by_id = {c["id"]: c for c in data["collections"]}
    for cid, old in (
        ("beir/scifact/test", "scifact"),
        ("beir/arguana", "arguana"),
        ("beir/cqadupstack/android", "cqadupstack-android"),
        ("beir/webis-touche2020/v2", "touche2020"),
    ):
        assert old in by_id[cid]["aliases"]


def test_a_database_seeded_before_gets_the_new_short_names(undone_store):
    """(The aliases are the reference data's: a store holding them, rolled back after.)"""
    from litaudit.store.collections import resolve_collection
    from litaudit.store.refdata import load_reference_data

    con = undone_store.con
    con.execute("DELETE FROM collection_aliases WHERE alias IN ('beir-scifact', 'beir-nq')")
    sql = (REPO / "schema" / "009_collection_short_names.sql").read_text()
    con.execute(sql)  # the migration adds them back
    assert resolve_collection(con, "beir-scifact").id == "beir/scifact/test"
    con.execute("DELETE FROM collection_aliases WHERE alias IN ('beir-scifact', 'beir-nq')")
    load_reference_data(con)  # so does `init`
    assert resolve_collection(con, "beir-nq").id == "beir/nq"
    assert resolve_collection(con, "scifact").id == "beir/scifact/test"


def test_collections_list_never_cuts_an_id_at_80_columns(seeded, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    from litaudit.render.console import out

    monkeypatch.setattr(out, "width", 80)
    r = seeded("collections", "list")
    assert r.exit_code == 0
    assert "…" not in r.stdout
    assert max(len(line) for line in r.stdout.splitlines()) <= 80
    data = json.loads(seeded("collections", "list", "--json").stdout)
    for c in data:
        assert re.search(rf"│ {re.escape(c['id'])} +│", r.stdout), c["id"]


def test_results_list_to_a_pipe_is_every_row_as_plain_lines(small_seeded, small_seeded_db_file):
    """Every row of a store of real seed rows (the small seeds: ~1,500 results of three
    collections; a listing's rows are alike whatever the store holds)."""
    from litaudit.curation.filters import CURATION
    from litaudit.curation.results import query_results
    from litaudit.store.db import open_store

    seeded = small_seeded
    r = seeded("results", "list")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert lines[0].split() == [
        "id",
        "source",
        "collection",
        "n",
        "measure",
        "value",
        "system",
        "role",
        "type",
        "year",
        "status",
    ]
    with open_store(small_seeded_db_file, read_only=True) as store:
        everything = query_results(store.con, CURATION)
    assert len(lines) == 1 + len(everything) > 1400
    assert "…" not in r.stdout
    # the longest system name is whole
    longest = max((x.system for x in everything), key=len)
    assert longest in r.stdout
    # --json: every field of every row, as query_results gives them
    got = json.loads(seeded("results", "list", "--json", "--sort", "id").stdout)
    assert got == [x.as_dict() for x in sorted(everything, key=lambda x: x.id)]
    assert (
        json.loads(seeded("results", "list", "-c", "trec7", "--years", "1951", "--json").stdout)
        == []
    )


def test_results_list_sorts_by_value(seeded):
    got = json.loads(
        seeded(
            "results", "list", "-c", "robust04", "-m", "AP", "--sort", "value", "--desc", "--json"
        ).stdout
    )
    values = [x["value"] for x in got]
    assert values == sorted(values, reverse=True) and len(values) > 300
    top = seeded(
        "results", "list", "-c", "robust04", "-m", "AP", "--sort", "value", "--desc", "--limit", "1"
    )
    assert top.stdout.splitlines()[1].split()[0] == str(got[0]["id"])
    bad = seeded("results", "list", "--sort", "valeu")
    assert bad.exit_code == 1 and "did you mean 'value'" in bad.stderr


def test_results_list_in_a_terminal_shows_a_page(seeded, monkeypatch):
    from litaudit.render.console import out

    monkeypatch.setattr(out, "_force_terminal", True)
    monkeypatch.setattr(out, "width", 80)
    r = seeded("results", "list", "--sort", "value", "--desc")
    assert r.exit_code == 0
    lines = re.sub(r"\x1b\[[0-9;]*m", "", r.stdout).splitlines()  # no bold headers
    assert lines[0] == "35123 results, the first 40"
    assert lines[-1] == "35083 more: --all (or --limit N, --sort, a filter)"
    header = next(x for x in lines if "collection" in x)
    for h in ("id", "collection", "measure", "value", "system", "source", "year", "status"):
        assert re.search(rf"\b{h}\b", header), h
    assert "…" not in r.stdout and max(len(x) for x in lines) <= 80
    assert sum(1 for x in lines if re.match(r"│ +\d+ │", x)) == 40
