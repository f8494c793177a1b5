"""The owners of the results, papers and history tables (litaudit.store.results, .papers,
.history): the one history writer, and the validation of store.models."""

from __future__ import annotations

import datetime as dt

import pytest

from litaudit.errors import LitauditError
from litaudit.store import history as H
from litaudit.store import papers as P

AT = dt.datetime(2026, 11, 25, 12, 30, 15, 123456)


def _rows(con):
    return con.execute(
        "SELECT entity, entity_id, action, field, old_value, new_value, reason, who, "
        "changed_at FROM history ORDER BY id"
    ).fetchall()


@pytest.mark.parametrize("action", H.ACTIONS)
def test_every_action_writes_one_entry_with_who_and_when(mem_store, action):
    con = mem_store.con
    H.record(
        con, ("result", 7), action, field="status", old=True, new=None, reason="r", who="ann", at=AT
    )
    assert _rows(con) == [("result", 7, action, "status", "true", None, "r", "ann", AT)]


def test_record_many_writes_in_order_one_value_or_one_per_entry(mem_store):
    con = mem_store.con
    later = AT + dt.timedelta(seconds=1)
    n = H.record_many(
        con,
        ("result", [3, 1, 2]),
        ["edit", "verify", "retract"],
        field="status",
        old=["a", None, "c"],
        new="x",
        reason=None,
        who=["ann", "bob", "cy"],
        at=[AT, later, AT],
    )
    assert n == 3
    assert _rows(con) == [
        ("result", 3, "edit", "status", "a", "x", None, "ann", AT),
        ("result", 1, "verify", "status", None, "x", None, "bob", later),
        ("result", 2, "retract", "status", "c", "x", None, "cy", AT),
    ]
    assert H.record_many(con, ("paper", []), "create", who="ann", at=AT) == 0
    assert H.record_rows(con, [("paper", 9, "create", None, None, None, "why", "dee", AT)]) == 1
    assert _rows(con)[-1] == ("paper", 9, "create", None, None, None, "why", "dee", AT)


def test_record_many_writes_many_entries_in_order_on_several_threads(reference_db_file, tmp_path):
    """Ids follow the entries' order without an ORDER BY, on an instance of several
    threads too (the suite's is one thread: tests/conftest.py)."""
    import duckdb

    from tests.conftest import copy_db

    path = tmp_path / "threads.duckdb"
    copy_db(reference_db_file, path)
    con = duckdb.connect(str(path), config={"threads": 4})
    try:
        ids = [(i * 7919) % 5003 for i in range(5003)]  # every id once, shuffled
        reasons = [f"r{i}" for i in range(len(ids))]
        assert H.record_many(con, ("result", ids), "edit", reason=reasons, who="ann", at=AT) == 5003
        got = con.execute("SELECT entity_id, reason FROM history ORDER BY id").fetchall()
    finally:
        con.close()
    assert got == list(zip(ids, reasons, strict=True))


def test_history_reads_back_typed_entries(mem_store):
    con = mem_store.con
    H.record(con, ("paper", 4), "edit", field="year", old=2019, new=2020, who="ann", at=AT)
    (e,) = H.entries(con, "paper", 4)
    assert (e.action, e.field, e.old_value, e.new_value, e.who) == (
        "edit",
        "year",
        "2019",
        "2020",
        "ann",
    )
    assert e.changed_at == "2026-11-25 12:30:15.123456"
    assert list(e.as_dict()) == [
        "id",
        "action",
        "field",
        "old_value",
        "new_value",
        "reason",
        "who",
        "changed_at",
    ]


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"of": ("run", [1])}, "entity 'run' is not one of result, paper"),
        ({"action": "delete"}, "action 'delete' is not one of create, edit"),
        ({"who": " "}, "needs who made the change"),
        ({"who": ["ann", None]}, "needs who made the change"),
        ({"at": "2026-11-25"}, "needs when the change was made"),
        ({"of": ("result", [1, None])}, "needs the id of what it changed"),
        ({"of": ("result", 1)}, "the ids of the entries must be a list"),
        ({"field": ["a"]}, "field must have one value per entry"),
    ],
)
def test_a_bad_entry_is_refused_before_anything_is_written(mem_store, kw, message):
    args = {"of": ("result", [1, 2]), "action": "edit", "who": "ann", "at": AT} | kw
    with pytest.raises(LitauditError, match=message):
        H.record_many(mem_store.con, args.pop("of"), args.pop("action"), **args)
    assert _rows(mem_store.con) == []


@pytest.fixture(scope="module")
def models():
    """litaudit.store.models, imported once for the module's model tests: SQLModel with
    pydantic and SQLAlchemy takes ~0.3 s of CPU to import, and nothing else in the fast
    loop loads it now that a paper is written without it."""
    from litaudit.store import models

    return models


def test_a_paper_is_validated_when_written_and_refused_with_one_line(mem_store, models):
    Paper = models.Paper

    con = mem_store.con
    # SQLModel's table classes do not validate in their constructor: the store does
    bad = Paper(bibkey="x2020", citation="X (2020)", year=3000)
    with pytest.raises(LitauditError) as exc:
        P.insert(con, bad)
    assert str(exc.value) == "paper 'x2020': year 3000 is out of range 1950-2100"
    with pytest.raises(LitauditError, match="^paper ' ': bibkey cannot be empty$"):
        P.insert(con, Paper(bibkey=" ", citation="X (2020)"))
    assert P.bibkeys(con) == set()
    pid = P.insert(con, Paper(bibkey="x2020", citation="X (2020)", year=2020, created_at=AT))
    got = P.get(con, "x2020")
    assert (got.id, got.year, got.created_at) == (pid, 2020, AT)


def test_the_models_refuse_what_the_schema_refuses(models):
    History, Result, validated = models.History, models.Result, models.validated

    good: dict[str, object] = {
        "source": "paper",
        "paper_id": 1,
        "collection_id": "c",
        "n_topics": 50,
        "measure": "AP",
        "value": 0.25,
        "value_text": "0.25",
        "system": "s",
        "role": "baseline",
        "year": 2020,
        "transcribed_by": "t",
        "transcribed_at": "2026-01-01",
    }
    assert validated(Result, good, "result").role == "baseline"
    changes: list[tuple[dict[str, object], str]] = [
        ({"role": "winner"}, "role 'winner' is not one of proposed, baseline"),
        ({"status": "gone"}, "status 'gone' is not one of draft, verified, retracted"),
        ({"year": 1900}, "year 1900 is out of range 1950-2100"),
        ({"n_topics": 0}, "n_topics must be above 0, got 0"),
        ({"value_text": ""}, "value_text cannot be empty"),
        ({"paper_id": None}, "a result of a paper names its paper"),
        ({"source": "official"}, "an official result names its track"),
        ({"n_topics": "many"}, "n_topics: Input should be a valid integer"),
    ]
    for change, message in changes:
        with pytest.raises(LitauditError, match=f"^result: {message}"):
            validated(Result, good | change, "result")
    with pytest.raises(LitauditError, match="action 'delete' is not one of"):
        validated(
            History, {"entity": "result", "entity_id": 1, "action": "delete", "who": "a"}, "h"
        )


def test_the_model_refuses_a_stored_row_its_owner_reads(mem_store, models):
    Paper, validated = models.Paper, models.validated

    con = mem_store.con
    con.execute("INSERT INTO papers (bibkey, citation) VALUES ('ok2020', 'Ok (2020)')")
    con.execute("INSERT INTO papers (bibkey, citation) VALUES ('blank2020', ' ')")
    ok, blank = P.get(con, "ok2020"), P.get(con, "blank2020")
    assert validated(Paper, ok.as_dict(), f"papers row {ok.id}").bibkey == "ok2020"
    with pytest.raises(LitauditError, match=r"^papers row \d+: citation cannot be empty$"):
        validated(Paper, blank.as_dict(), f"papers row {blank.id}")


def test_set_many_writes_one_column_of_many_results_in_one_statement(seeded_store):
    from litaudit.store import results_write

    con = seeded_store.con
    ids = [i for (i,) in con.execute("SELECT id FROM results ORDER BY id LIMIT 3").fetchall()]
    results_write.set_many(con, "notes", ids, ["a", None, "c"], at=AT)
    results_write.set_many(con, "status", ids[:2], "verified", at=AT)
    got = con.execute(
        "SELECT notes, status, updated_at FROM results WHERE id IN (?, ?, ?) ORDER BY id", ids
    ).fetchall()
    assert [(n, s) for n, s, _ in got] == [("a", "verified"), (None, "verified"), ("c", "draft")]
    assert {u for _, _, u in got} == {AT}
    with pytest.raises(LitauditError, match="'value' is not one of status, notes, role"):
        results_write.set_many(con, "value", ids, "1", at=AT)


@pytest.mark.parametrize(
    "change",
    [
        {},
        {"bibkey": " "},
        {"citation": ""},
        {"year": 3000},
        {"year": 1949, "url": "ftp://x"},
        {"url": "ftp://x.org/a"},
        {"url": "https://x.org/a b"},
        {"year": "2020"},  # another type: through the model itself
        {"year": "soon"},
    ],
)
def test_the_light_paper_check_says_what_the_model_says(change, models):
    Paper, validated = models.Paper, models.validated

    values = {"bibkey": "x2020", "citation": "X (2020)", "year": 2020, "created_at": AT}
    values |= change

    def said(check) -> str:
        try:
            check()
        except LitauditError as exc:
            return str(exc)
        return "accepted"

    model = said(lambda: validated(Paper, values, "paper 'x'"))
    assert said(lambda: P.check_paper(values, "paper 'x'")) == model
    assert (model == "accepted") == (change in ({}, {"year": "2020"}))


def test_the_identical_audit_is_the_newest_of_an_equal_key_and_code(mem_store):
    """`identical_id`: the newest id of an equal key (NULLs equal too) made by the same
    code; None for another code or another key."""
    from litaudit.store import audits as A

    con = mem_store.con
    cid = con.execute("SELECT min(id) FROM collections").fetchall()[0][0]
    key = ("best", cid, None, "{}", "exact", None, None, "fp")
    first = A.insert(con, key, "{}", version="1", code_digest="c1")
    second = A.insert(con, key, "{}", version="1", code_digest="c1")
    A.insert(con, key, "{}", version="1", code_digest="c2")
    A.insert(con, (*key[:5], 7, None, "fp"), "{}", version="1", code_digest="c1")
    assert first < second
    assert A.identical_id(con, key, "c1") == second
    assert A.identical_id(con, key, "c3") is None
    assert A.identical_id(con, (*key[:7], "other"), "c1") is None
    assert A.identical_id(con, (*key[:5], 7, None, "fp"), "c1") == second + 2
