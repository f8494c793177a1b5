"""The collections' and measures' listings are typed rows (issue 37, item 3), and their
``--json`` keeps the keys the dicts had."""

from __future__ import annotations

from litaudit.codec import to_jsonable
from litaudit.store.collections import (
    CollectionDetails,
    CollectionListing,
    NewCollection,
    add_collection,
    collection_details,
    list_collections,
)
from litaudit.store.measures import MeasureListing, list_measures


def test_list_collections_gives_typed_rows_with_the_default_topic_count(mem_store):
    con = mem_store.con
    add_collection(
        con,
        NewCollection(id="local/one", n_topics=7, title="One", aliases=("uno",)),
        who="tester",
    )
    rows = {r.id: r for r in list_collections(con)}
    one = rows["local/one"]
    assert isinstance(one, CollectionListing)
    assert (one.title, one.n_topics, one.results, one.ir_datasets) == ("One", 7, 0, False)
    assert set(to_jsonable(one)) == {
        "id",
        "name",
        "title",
        "ir_datasets",
        "n_topics",
        "provenance",
        "results",
    }


def test_collection_details_are_typed_and_name_the_default_topic_set(mem_store):
    con = mem_store.con
    add_collection(
        con,
        NewCollection(id="local/two", n_topics=12, title="Two", aliases=("deux",)),
        who="tester",
    )
    d = collection_details(con, "local/two")
    assert isinstance(d, CollectionDetails)
    assert "deux" in d.aliases
    assert d.default_topics == 12
    assert [t.n_topics for t in d.topic_sets if t.default] == [12]
    assert d.results == ()
    js = to_jsonable(d)
    assert set(js) == {
        "id",
        "name",
        "title",
        "documents",
        "ir_datasets",
        "notes",
        "provenance",
        "aliases",
        "topic_sets",
        "results",
    }
    assert set(js["topic_sets"][0]) == {"name", "n_topics", "default", "description"}


def test_list_measures_gives_typed_rows_with_ranges_and_aliases(mem_store):
    ms = {m.name: m for m in list_measures(mem_store.con)}
    ap = ms["AP"]
    assert isinstance(ap, MeasureListing)
    assert (ap.min, ap.max) == (0.0, 1.0)
    assert "map" in ap.aliases
    assert set(to_jsonable(ap)) == {
        "name",
        "family",
        "cutoff",
        "min",
        "max",
        "description",
        "aliases",
    }


def test_measures_are_listed_in_one_order(mem_store):
    """Measures of one family and cutoff (AP, AP(rel=2)) are ordered by name: the listing
    is the same from run to run (`measures list --json` flipped them once)."""
    keys = [
        (m.family, m.cutoff is not None, m.cutoff or 0, m.name)
        for m in list_measures(mem_store.con)
    ]
    assert keys == sorted(keys)
