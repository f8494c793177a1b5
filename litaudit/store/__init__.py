"""The store: the one package that owns DuckDB (connection, schema migrations, typed rows)
and every read and write of the curated tables (``results``, ``papers``, ``history``: see
:mod:`litaudit.store.results`, :mod:`litaudit.store.papers`, :mod:`litaudit.store.history`)."""

from litaudit.store.db import Store, default_db_path, open_store

__all__ = ["Store", "default_db_path", "open_store"]
