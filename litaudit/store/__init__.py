"""The store: the one package that owns DuckDB (connection, schema migrations, typed rows)."""

from litaudit.store.db import Store, default_db_path, open_store

__all__ = ["Store", "default_db_path", "open_store"]
