"""`collections list/show/add/depth` and `measures list` in the one shape (issue 37 item 1):
each request's `.checked()` refuses bad input before the store opens (a missing --db is
neither reported nor created), and each answer is the typed result its renderer prints."""

from __future__ import annotations

import pytest

from litaudit.curation.refdata_requests import (
    CollectionAdd,
    PoolDepthRequest,
    PoolDepthShown,
    answer_add,
    answer_depth,
    listed_collections,
    listed_measures,
    shown_collection,
)
from litaudit.errors import LitauditError, ParameterError
from litaudit.store.collections import NewCollection
from litaudit.store.db import open_store
from litaudit.store.pool_depths import DepthChange
from litaudit.store.refdata import load_reference_data


@pytest.mark.parametrize(
    "args,message",
    [
        (("collections", "add", "two words", "--topics", "5"), "give a non-empty id without"),
        (("collections", "add", "x/y", "--topics", "0"), "--topics must be at least 1, got 0"),
        (("collections", "depth", "robust04", "--citation", "x"), "--citation and --reason go"),
        (("collections", "depth", "robust04", "--reason", "x"), "--citation and --reason go"),
        (("collections", "depth", "robust04", "50"), "give --citation: where the pool depth"),
    ],
)
def test_bad_options_refused_before_the_store_opens(cli, args, message):
    res = cli(*args)
    assert res.exit_code == 1
    assert message in res.output
    assert "no database" not in res.output
    assert not cli.db.exists()


def test_checked_requests():
    assert PoolDepthRequest(collection="robust04").checked().who is None  # nothing to record
    rec = PoolDepthRequest(collection="robust04", depth=100, source="overview", who="ann")
    assert rec.checked().who == "ann" and rec.records
    with pytest.raises(ParameterError, match="at least 1, got 0"):
        PoolDepthRequest(collection="robust04", depth=0, source="s").checked()
    with pytest.raises(LitauditError, match="give a non-empty id without spaces"):
        CollectionAdd(new=NewCollection(id="  ", n_topics=3)).checked()
    assert CollectionAdd(new=NewCollection(id="a/b", n_topics=3), who="bo").checked().who == "bo"


def test_answers_are_typed_and_round_trip():
    with open_store(":memory:") as store:
        load_reference_data(store.con)
        n = len(listed_collections(store.con))
        assert n > 0 and isinstance(listed_collections(store.con), tuple)
        assert any(m.name == "AP" for m in listed_measures(store.con))
        req = CollectionAdd(
            new=NewCollection(id="test/new", n_topics=7, aliases=("tnew",)), who="ann"
        ).checked()
        ref = answer_add(store, req)
        assert (ref.id, ref.default_topics) == ("test/new", 7)
        assert len(listed_collections(store.con)) == n + 1
        assert shown_collection(store.con, "tnew").id == "test/new"
        shown = answer_depth(store, PoolDepthRequest(collection="tnew").checked())
        assert shown == PoolDepthShown(collection_id="test/new", depth=None, history=())
        change = answer_depth(
            store,
            PoolDepthRequest(collection="tnew", depth=20, source="a table", who="ann").checked(),
        )
        assert isinstance(change, DepthChange)
        assert (change.old_depth, change.depth, change.who) == (None, 20, "ann")
        again = answer_depth(store, PoolDepthRequest(collection="test/new"))
        assert isinstance(again, PoolDepthShown)
        assert again.depth == (20, "a table") and again.history == (change,)
