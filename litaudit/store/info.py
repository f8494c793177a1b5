"""Database summary for `litaudit db info`."""

from __future__ import annotations

from pathlib import Path

from litaudit.store import migrations
from litaudit.store.db import open_store


def db_info(path: Path) -> dict:
    with open_store(path, read_only=True, migrate=False, allow_outdated=True) as store:
        con = store.con
        names = [
            r[0]
            for r in con.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' "
                "AND table_catalog = current_database() ORDER BY table_name"
            ).fetchall()
        ]
        counts = {n: con.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names}
        return {
            "path": str(path),
            "schema_version": store.schema_version(),
            "code_version": migrations.code_version(),
            "tables": counts,
        }
