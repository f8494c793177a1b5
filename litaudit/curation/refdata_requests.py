"""`collections list`, `show`, `add`, `depth` and `measures list` asked once (issue 37
item 1): each command's options as one frozen settings object, checked before the store
opens, and the one call that answers it with a typed result (printed by
:mod:`litaudit.render.refdata`). The SQL stays with the tables' owners
(:mod:`litaudit.store.collections`, :mod:`litaudit.store.measures`,
:mod:`litaudit.store.pool_depths`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from litaudit.curation.fields import current_user
from litaudit.errors import LitauditError, ParameterError
from litaudit.store.collections import (
    CollectionDetails,
    CollectionListing,
    CollectionRef,
    NewCollection,
    add_collection,
    collection_details,
    list_collections,
    resolve_collection,
)
from litaudit.store.measures import MeasureListing, list_measures
from litaudit.store.pool_depths import DepthChange, pool_depth, pool_depth_history, set_pool_depth

if TYPE_CHECKING:
    import duckdb

    from litaudit.store.db import Store


def listed_collections(con: duckdb.DuckDBPyConnection) -> tuple[CollectionListing, ...]:
    """`collections list`: every collection with its default topic count and results."""
    return tuple(list_collections(con))


def shown_collection(con: duckdb.DuckDBPyConnection, name: str) -> CollectionDetails:
    """`collections show`: the collection called ``name`` (its id or any alias)."""
    return collection_details(con, resolve_collection(con, name).id)


def listed_measures(con: duckdb.DuckDBPyConnection) -> tuple[MeasureListing, ...]:
    """`measures list`: the registered measures, their aliases and value ranges."""
    return tuple(list_measures(con))


@dataclass(frozen=True, kw_only=True)
class CollectionAdd:
    """`collections add`: the collection to add and who adds it (None: $LITAUDIT_USER or
    the login, :meth:`checked`)."""

    new: NewCollection
    who: str | None = None

    def checked(self) -> CollectionAdd:
        """The request with its curator named; an id that is empty or holds spaces, or
        fewer than one query, refused before the store opens (as
        :func:`~litaudit.store.collections.add_collection` refuses them)."""
        cid = self.new.id.strip()
        if not cid or any(ch.isspace() for ch in cid):
            raise LitauditError(f"collection id {cid!r}: give a non-empty id without spaces")
        if self.new.n_topics < 1:
            raise LitauditError(f"--topics must be at least 1, got {self.new.n_topics}")
        return dataclasses.replace(self, who=current_user(self.who))


def answer_add(store: Store, req: CollectionAdd) -> CollectionRef:
    """Add the collection (:func:`~litaudit.store.collections.add_collection`) in one
    transaction."""
    with store.transaction() as con:
        return add_collection(con, req.new, who=current_user(req.who))


@dataclass(frozen=True, kw_only=True)
class PoolDepthRequest:
    """`collections depth`: show a collection's pool depth and its history (``depth``
    None), or record ``depth`` with its ``source`` (and a ``reason``) as ``who``."""

    collection: str
    depth: int | None = None
    source: str | None = None
    reason: str | None = None
    who: str | None = None

    @property
    def records(self) -> bool:
        """Does it record a depth (and so write to the store)?"""
        return self.depth is not None

    def checked(self) -> PoolDepthRequest:
        """A source or reason without a depth, a depth without its source, or a depth
        below 1 refused before the store opens; the curator of a record named."""
        if self.depth is None:
            if self.source is not None or self.reason is not None:
                raise ParameterError("--citation and --reason go with a DEPTH to record")
            return self
        if self.source is None:
            raise ParameterError("give --citation: where the pool depth is stated")
        if self.depth < 1:
            raise ParameterError(f"a pool depth is at least 1, got {self.depth}")
        return dataclasses.replace(self, who=current_user(self.who))


@dataclass(frozen=True, kw_only=True)
class PoolDepthShown:
    """A collection's recorded pool depth and its source (None: not recorded), and every
    change of it, oldest first."""

    collection_id: str
    depth: tuple[int, str] | None
    history: tuple[DepthChange, ...]


def answer_depth(store: Store, req: PoolDepthRequest) -> PoolDepthShown | DepthChange:
    """`collections depth`: the depth recorded (one transaction; the store opened for
    writing) and the change returned, or the depth in force and its history."""
    req = req.checked()
    depth, source = req.depth, req.source
    if depth is None:
        cid = resolve_collection(store.con, req.collection).id
        return PoolDepthShown(
            collection_id=cid,
            depth=pool_depth(store.con, cid),
            history=tuple(pool_depth_history(store.con, cid)),
        )
    if source is None:  # checked() refuses it
        raise ParameterError("give --citation: where the pool depth is stated")
    with store.transaction() as con:
        cid = resolve_collection(con, req.collection).id
        return set_pool_depth(con, cid, depth, source, who=current_user(req.who), reason=req.reason)
