"""`runs import`, `list`, `show` and `delete` asked once (issue 37 item 1): each command's
options as one frozen settings object, checked before the store opens, and the one call
that answers it with a typed result (printed by :mod:`litaudit.render.runs`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import duckdb

from litaudit.errors import ParameterError
from litaudit.progress import Progress
from litaudit.runs.archive import StoredRun, count_runs, delete_runs, get_run, list_runs
from litaudit.runs.ingest import ImportReport, import_archive
from litaudit.runs.ingest_files import expand_paths
from litaudit.store.collections import resolve_collection


@dataclass(frozen=True, kw_only=True)
class RunsImport:
    """`runs import`: run files (or folders of them) and the collection's qrels."""

    collection: str
    files: tuple[Path, ...]
    qrels: Path | None = None
    metadata: Path | None = None
    lenient: bool = False

    def checked(self) -> RunsImport:
        """The request with its folders expanded to their run files (a missing one: an
        InputError naming it)."""
        return dataclasses.replace(self, files=tuple(expand_paths(self.files)))


def answer_import(store, req: RunsImport, progress: Progress | None = None) -> ImportReport:
    """Validate and store the files (:func:`~litaudit.runs.ingest.import_archive`), all or
    nothing; ``progress``: the files announced, then each file's share and lines."""
    if progress is not None:
        progress(total=len(req.files))
    return import_archive(
        store,
        resolve_collection(store.con, req.collection).id,
        list(req.files),
        qrels_path=req.qrels,
        metadata=req.metadata,
        lenient=req.lenient,
        progress=progress,
    )


def stored_runs(con: duckdb.DuckDBPyConnection, collection: str | None) -> tuple[StoredRun, ...]:
    """`runs list`: the stored runs, of one collection (any alias) or all."""
    cid = resolve_collection(con, collection).id if collection else None
    return tuple(list_runs(con, cid))


def stored_run(con: duckdb.DuckDBPyConnection, tag: str, collection: str | None) -> StoredRun:
    """`runs show`: one stored run by its tag (a collection, any alias, when ambiguous)."""
    cid = resolve_collection(con, collection).id if collection else None
    return get_run(con, tag, cid)


@dataclass(frozen=True, kw_only=True)
class RunsDelete:
    """`runs delete`: run tags of a collection, or its whole archive (``everything``)."""

    collection: str
    tags: tuple[str, ...] = ()
    everything: bool = False

    def checked(self) -> RunsDelete:
        if bool(self.tags) == self.everything:
            raise ParameterError("give run tags or --whole-archive (not both)")
        return self


@dataclass(frozen=True, kw_only=True)
class DeletedRuns:
    """What `runs delete` did: ``n`` runs of ``collection_id`` (and its qrels when
    ``everything``)."""

    collection_id: str
    n: int
    everything: bool


def answer_delete(store, req: RunsDelete, progress: Progress | None = None) -> DeletedRuns:
    """Delete the runs (:func:`~litaudit.runs.archive.delete_runs`) in one transaction;
    ``progress``: the runs announced, then each run's lines as it goes."""
    cid = resolve_collection(store.con, req.collection).id
    if progress is not None:
        progress(total=len(req.tags) if req.tags else count_runs(store.con, cid))
    n = delete_runs(store, cid, None if req.everything else list(req.tags), progress=progress)
    return DeletedRuns(collection_id=cid, n=n, everything=req.everything)
