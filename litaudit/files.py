"""Writing output files all-or-nothing: a temporary beside the target, renamed at the end.

Only a regular file (or a new name in an existing directory) is ever a target: a
directory, a FIFO, a device or the open database (or its ``.wal``) is refused before
anything is written, since a rename would replace it with a regular file. A symbolic link
is written through (its target is replaced). Temporaries get the permissions a plain
``open`` would give (0666 less the umask), so the renamed file is indistinguishable from
one written directly, and no temporary is left behind after a failure. An ``OSError``
(a full disk, a read-only directory) becomes a one-line :class:`OutputError` naming the
file and the system's reason ("No space left on device").
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from litaudit.errors import LitauditError

STDOUT = "-"


class OutputError(LitauditError):
    """An output file cannot be written (or would replace something it must not)."""


def _mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _protected(protect: Iterable) -> list[Path]:
    """The database files an output must never replace: each path and its ``.wal``."""
    out = []
    for p in protect:
        if p is None or str(p) in ("", ":memory:"):
            continue
        p = Path(p)
        out += [p, p.with_name(p.name + ".wal")]
    return out


def check_target(path: str | os.PathLike, protect: Iterable = ()) -> Path:
    """The path to replace for output ``path``, after refusing anything but a regular file.

    ``protect`` lists database paths (the open one): the target may be neither one of them
    nor its ``.wal`` (compared by inode and by resolved path).
    """
    text = os.fspath(path)
    if text.strip() == "":
        raise OutputError("output path is empty")
    if "\x00" in text:
        raise OutputError(f"{text!r}: output path contains a NUL byte")
    p = Path(text)
    real = Path(os.path.realpath(p))
    for db in _protected(protect):
        if _same(p, db) or real == Path(os.path.realpath(db)):
            raise OutputError(f"{text}: refusing to overwrite the open database ({db})")
    try:
        st = os.stat(p)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise OutputError(f"{text}: cannot write: {exc.strerror or exc}") from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise OutputError(f"{text}: is a directory; give a file name")
        if not stat.S_ISREG(st.st_mode):
            raise OutputError(
                f"{text}: not a regular file (a FIFO, socket or device); "
                "write to a regular file or to - (standard output)"
            )
    parent = real.parent
    if not parent.is_dir():
        raise OutputError(f"{text}: directory {p.parent} does not exist")
    return real


def _staging(target: Path) -> str:
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise OutputError(f"{target}: cannot write: {exc.strerror or exc}") from None
    try:
        os.fchmod(fd, _mode())
    finally:
        os.close(fd)
    return tmp


def _oserror(path, exc: OSError) -> OutputError:
    return OutputError(f"cannot write {path}: {exc.strerror or exc}")


@contextmanager
def atomic_path(path: str | os.PathLike, protect: Iterable = ()) -> Iterator[str]:
    """Yield a temporary path to write; it replaces ``path`` only if the block succeeds."""
    target = check_target(path, protect)
    tmp = _staging(target)
    try:
        yield tmp
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise _oserror(os.fspath(path), exc) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextmanager
def atomic_write(
    path: str | os.PathLike, mode: str = "w", protect: Iterable = (), **kwargs
) -> Iterator:
    """``open`` for writing, all or nothing."""
    with atomic_path(path, protect) as tmp, open(tmp, mode, **kwargs) as fh:
        yield fh


def write_files(files: Mapping[str | os.PathLike, str], protect: Iterable = ()) -> None:
    """Write several text files: either all of them are written or none is.

    Every target is checked before anything is written; after a failure no temporary is
    left, and files this call created are removed again.
    """
    protect = list(protect)
    targets = [(os.fspath(t), check_target(t, protect), text) for t, text in files.items()]
    staged: list[tuple[str, Path, bool]] = []
    current = "the output"
    try:
        for shown, target, text in targets:
            current = shown
            tmp = _staging(target)
            staged.append((tmp, target, target.exists()))
            with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
        done = []
        try:
            for tmp, target, existed in staged:
                current = str(target)
                os.replace(tmp, target)
                done.append((target, existed))
        except BaseException:
            for target, existed in done:
                if not existed:
                    target.unlink(missing_ok=True)
            raise
    except OSError as exc:
        for tmp, _, _ in staged:
            Path(tmp).unlink(missing_ok=True)
        raise _oserror(current, exc) from None
    except BaseException:
        for tmp, _, _ in staged:
            Path(tmp).unlink(missing_ok=True)
        raise
