"""`litaudit init` asked once (issue 37 item 1): the database to create or bring up to
the seeds, and the one call that does it (:func:`~litaudit.curation.seed.load_seeds`),
returning the seed sync's typed report (printed by :mod:`litaudit.render.db`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from litaudit.curation.seed import load_seeds
from litaudit.progress import Progress
from litaudit.store.db import open_store


@dataclass(frozen=True, kw_only=True)
class InitRequest:
    """`init`: the database file (created when missing) and whether to load the seed
    papers and results (``seeds``; False: the reference data alone, collections and
    measures, a database to import a curation export into)."""

    path: Path
    seeds: bool = True


@dataclass(frozen=True, kw_only=True)
class SeedsAdded:
    """Rows `init` added: results, papers, collections and measures."""

    results: int
    papers: int
    collections: int
    measures: int


@dataclass(frozen=True, kw_only=True)
class SeedFile:
    """One seed file read: its rows added and those already there (skipped)."""

    file: str
    added: int
    skipped: int


@dataclass(frozen=True, kw_only=True)
class SeedSync:
    """The seeded results brought up to the seeds (seeds/README.md): added, unchanged,
    updated (values, notes, dates or sources, roles), retracted (no longer in the seeds),
    restored (back in them); ``left``: the ids of seeded rows a user changed, left alone."""

    added: int
    unchanged: int
    updated: int
    notes_updated: int
    dates_updated: int
    roles_changed: int
    retracted: int
    restored: int
    left: tuple[int, ...]


@dataclass(frozen=True, kw_only=True)
class ResultCountRow:
    """Results (not retracted) of a collection and measure: from papers, official."""

    collection: str
    measure: str
    paper: int
    official: int


@dataclass(frozen=True, kw_only=True)
class InitReport:
    """What `init` did to the database at ``path``: the rows added, the zero-shot rows
    loaded, each seed file, the seed sync (None: ``--no-seeds``) and the results per
    collection and measure."""

    path: str
    added: SeedsAdded
    zero_shot: int
    files: tuple[SeedFile, ...]
    seeds: SeedSync | None
    counts: tuple[ResultCountRow, ...]


def answer_init(req: InitRequest, progress: Progress | None = None) -> InitReport:
    """Create the database (if needed), load the reference data and (``req.seeds``) the
    seeds, in one transaction; ``progress`` is told every seed row."""
    with open_store(req.path) as store:
        got = load_seeds(store, seeds=req.seeds, progress=progress)
    sync = got.get("seeds")
    return InitReport(
        path=str(got["path"]),
        added=SeedsAdded(**got["added"]),
        zero_shot=got["zero_shot"],
        files=tuple(SeedFile(**f) for f in got["files"]),
        seeds=None if sync is None else SeedSync(**{**sync, "left": tuple(sync["left"])}),
        counts=tuple(ResultCountRow(**c) for c in got["counts"]),
    )
