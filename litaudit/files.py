"""Writing output files all-or-nothing: a temporary beside the target, renamed at the end.

Temporaries get the permissions a plain ``open`` would give (0666 less the umask), so the
renamed file is indistinguishable from one written directly.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from litaudit.errors import LitauditError


def _mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _staging(path: Path) -> str:
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise LitauditError(f"{path}: directory {parent} does not exist")
    fd, tmp = tempfile.mkstemp(dir=parent, prefix=f".{path.name}.", suffix=".tmp")
    os.fchmod(fd, _mode())
    os.close(fd)
    return tmp


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[str]:
    """Yield a temporary path to write; it replaces ``path`` only if the block succeeds."""
    path = Path(path)
    tmp = _staging(path)
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", **kwargs) -> Iterator:
    """``open`` for writing, all or nothing."""
    with atomic_path(path) as tmp, open(tmp, mode, **kwargs) as fh:
        yield fh


def write_files(files: Mapping[str | os.PathLike, str]) -> None:
    """Write several text files: either all of them are replaced or none is."""
    staged: list[tuple[str, Path]] = []
    try:
        for target, text in files.items():
            tmp = _staging(Path(target))
            staged.append((tmp, Path(target)))
            with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
    except BaseException as exc:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise LitauditError(f"cannot write {exc.filename or 'the output'}: "
                                f"{exc.strerror or exc}") from None
        raise
    for tmp, target in staged:
        os.replace(tmp, target)
