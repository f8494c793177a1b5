"""What every row of one results import is checked against, read once per import: the
collection names, topic sets, measures and papers of the database and the stored
results' keys; and the checks of a row's fields remembered by their texts (rows of a
file repeat their measures, topic sets, roles and dates). For
:mod:`litaudit.curation.row_fields`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from litaudit.curation import fields
from litaudit.curation.rows import Row
from litaudit.errors import LitauditError
from litaudit.store import papers as paper_store
from litaudit.store import results as result_store
from litaudit.store.collection_names import CollectionNames
from litaudit.store.collections import TopicSet, topic_sets
from litaudit.store.measures import ranges as measure_ranges

if TYPE_CHECKING:
    import duckdb


class Context:
    """Lookups cached once per import: aliases, measures, papers, existing keys. Each
    but the collection names is read when first asked for (a file refused on its first
    rows reads none of the stored results' keys), from a connection the import has not
    written to yet: the plan and the check come before the writes."""

    def __init__(self, con: duckdb.DuckDBPyConnection, rows: Sequence[Row] = ()):
        self.con = con

        self.collections = CollectionNames.load(con)  # the resolver every command uses
        # the stored results' keys, by collection id: read in one query for the collections
        # the rows name (those a row can collide with; a file of one track into a large
        # store reads that track's, and each seed file its own), a collection at a time
        # for any other
        self._existing: dict[str, dict[tuple, tuple[int, str]]] = {}
        named = {t for r in rows if isinstance(t := r.data.get("collection"), str)}
        self._named = sorted({cid for cid in map(self._resolved, named) if cid is not None})
        # each field's text parsed once: (name, type, text) -> (True, value) or (False,
        # problem); the type, since True == 1 in a dict but not to the parsers' messages
        self.parsed: dict[tuple[str, type, Any], tuple[bool, Any]] = {}
        # a group of fields checked together, by their texts: their values and problems
        # (rows of a file share a few measures, topic sets, roles and dates)
        self.groups: dict[tuple, tuple[dict, list[tuple[str, str | None]]]] = {}

    @functools.cached_property
    def _sets(self) -> list[TopicSet]:
        return topic_sets(self.con)

    @functools.cached_property
    def default_topics(self) -> dict[Any, tuple[Any, Any]]:
        """(name, number of topics) of each collection's default topic set, by its id."""
        return {ts.collection_id: (ts.name, ts.n_topics) for ts in self._sets if ts.is_default}

    @functools.cached_property
    def topic_sets(self) -> dict[tuple[Any, Any], int]:
        """The number of topics of each (collection id, topic set name)."""
        return {(ts.collection_id, ts.name): ts.n_topics for ts in self._sets}

    @functools.cached_property
    def measures(self) -> dict[str, tuple[float, float]]:
        """(min, max) of each known measure (the import adds the new ones it checks)."""
        return measure_ranges(self.con)

    @functools.cached_property
    def papers(self) -> dict[str, tuple[int, int | None]]:
        """(id, year) of each stored paper, by its bibkey."""
        return paper_store.ids_and_years(self.con)

    def stored(self, key: tuple) -> tuple[int, str] | None:
        """(id, value as printed) of the stored result with natural ``key``
        (:func:`natural_key`), if any."""
        if self._named:  # the first asked: the keys of every collection the rows name
            ids, self._named = self._named, []
            self._existing.update({cid: {} for cid in ids})
            for found_key, found in result_store.natural_keys(self.con, ids).items():
                self._existing[found_key[3]][found_key] = found
        keys = self._existing.get(key[3])
        if keys is None:
            keys = self._existing[key[3]] = result_store.natural_keys(self.con, [key[3]])
        return keys.get(key)

    def _resolved(self, text: str) -> str | None:
        """The collection id a row's collection names, if it names one."""
        if fields.blank(text):
            return None
        try:
            return self.collections.lookup(text)
        except LitauditError:  # an ambiguous name: the row's own check says so
            return None

    def group(
        self, key: tuple, check: Callable[[dict, Callable], None]
    ) -> tuple[dict, list[tuple[str, str | None]]]:
        """``check(values, bad)`` (it fills ``values`` from texts that ``key`` holds with
        a tag naming the group, and reports problems through ``bad``), remembered for the
        next row whose key is the same."""
        try:
            hit = self.groups.get(key)
        except TypeError:  # an unhashable value (a JSON list): nothing to remember
            return self._checked(check)
        if hit is None:
            hit = self._checked(check)
            # only texts are remembered: True == 1 as a key, not to the parsers
            if all(x is None or type(x) is str for x in key[1:]):
                self.groups[key] = hit
        return hit

    @staticmethod
    def _checked(check: Callable[[dict, Callable], None]) -> tuple[dict, list]:
        values: dict = {}
        problems: list[tuple[str, str | None]] = []
        check(values, lambda message, field=None: problems.append((message, field)))
        return values, problems

    def parse(self, name: str, fn: Callable[[Any], Any], text: Any) -> Any:
        """``fn(text)`` (a pure parser of one field), remembered for the next row with the
        same text; its FieldError raised again each time."""
        try:
            key = (name, type(text), text)
            hit = self.parsed.get(key)
        except TypeError:  # an unhashable value (a JSON list): nothing to remember
            return fn(text)
        if hit is None:
            try:
                hit = (True, fn(text))
            except fields.FieldError as e:
                hit = (False, str(e))
            self.parsed[key] = hit
        if hit[0]:
            return hit[1]
        raise fields.FieldError(hit[1])
