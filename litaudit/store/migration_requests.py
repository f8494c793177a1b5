"""`litaudit db migrate` asked once (issue 37 item 1): list the schema migrations, or
apply the pending ones, in one call (:mod:`litaudit.store.migrations`) returning a typed
report (printed by :mod:`litaudit.render.db`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from litaudit.store import migrations
from litaudit.store.db import open_store


@dataclass(frozen=True, kw_only=True)
class MigrateRequest:
    """`db migrate`: the database file; ``list_only``: list the migrations and whether
    each is applied (the file need not exist), else apply the pending ones (it must)."""

    path: Path
    list_only: bool = False


@dataclass(frozen=True, kw_only=True)
class MigrationRow:
    """A migration this code ships: its number, name and when it was applied (the text
    'pending' when it was not)."""

    version: int
    name: str
    applied_at: str


@dataclass(frozen=True, kw_only=True)
class MigrationList:
    """The migrations of the database at ``path`` (all pending when it does not exist)."""

    path: Path
    rows: tuple[MigrationRow, ...]


@dataclass(frozen=True, kw_only=True)
class MigrationDone:
    """Migrations applied to the database at ``path``: from schema ``before`` to
    ``after``, the files applied in order (none: it was up to date)."""

    path: Path
    before: int
    after: int
    applied: tuple[str, ...]


def answer_migrate(req: MigrateRequest) -> MigrationList | MigrationDone:
    """The migrations listed (the database opened read-only, not migrated, when it
    exists), or the pending ones applied."""
    path = req.path
    if req.list_only:
        done: dict[int, str] = {}
        if path.exists():
            with open_store(path, read_only=True, migrate=False, allow_outdated=True) as store:
                done = {v: str(at) for v, _, at in migrations.applied(store.con)}
        rows = tuple(
            MigrationRow(version=m.version, name=m.name, applied_at=done.get(m.version, "pending"))
            for m in migrations.available()
        )
        return MigrationList(path=path, rows=rows)
    with open_store(path, read_only=False, migrate=False) as store:
        before = store.schema_version()
        applied = migrations.migrate(store.con, str(path))
        after = store.schema_version()
    return MigrationDone(
        path=path, before=before, after=after, applied=tuple(m.path.name for m in applied)
    )
