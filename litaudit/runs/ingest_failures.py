"""An import's failures said as what they are (for :mod:`litaudit.runs.ingest`): DuckDB out
of memory within its limit (nothing kept), and a full disk, with the folder of the
database, its free space and what was kept (the groups written before it stay unless the
import undid them).
"""

from __future__ import annotations

import errno
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from litaudit.errors import LitauditError

if TYPE_CHECKING:
    pass


def raise_if_out_of_memory(exc: BaseException, collection_id: str) -> None:
    """DuckDB out of memory (within its limit), said as such: nothing was kept."""
    if type(exc).__name__ == "OutOfMemoryException":  # duckdb's, within its limit
        raise LitauditError(
            f"DuckDB ran out of memory importing into {collection_id} "
            f"({str(exc).splitlines()[0]}); nothing was kept"
        ) from None


def disk_full(exc: BaseException) -> bool:
    """Is this (or what caused it) the system's "no space left on device"?"""

    seen = 0
    e: BaseException | None = exc
    while e is not None and seen < 10:
        if isinstance(e, OSError) and e.errno == errno.ENOSPC:
            return True
        text = str(e).lower()
        if "no space left on device" in text or "disk is full" in text:
            return True
        e = e.__cause__ or e.__context__
        seen += 1
    return False


def raise_if_disk_full(exc: BaseException, store, collection_id: str, *, undone: bool) -> None:
    """A full disk, said as such: the folder of the database (where DuckDB writes it and
    its temporary files), its free space, and what was kept."""
    if not disk_full(exc):
        return

    folder = Path(store.path).resolve().parent if store.path != ":memory:" else Path.cwd()
    try:
        free = f"{shutil.disk_usage(folder).free / 2**20:.1f} MiB free"
    except OSError:
        free = "free space unknown"
    kept = (
        "nothing was written"
        if undone
        else f"the runs written before it stay (see `litaudit runs list -c {collection_id}`)"
    )
    raise LitauditError(
        f"the disk holding {folder} is full ({free}) while importing runs into "
        f"{collection_id}; {kept}; free some space and import again"
    ) from None
