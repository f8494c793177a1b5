"""What a change to a store folder under git adds (`litaudit check-change`, issue 34 item
5): the folder as a base revision has it (read with ``git archive``) against the folder as
it is, result by result.

A result is known by its natural key as the folder writes it (source, paper or track,
collection, topic set, topic count, measure, system, role); a key the base does not have
is *added*, one whose printed value changed is *changed* (both are audited), one the
folder no longer has is *removed* (counted). Retracted results are left out on both sides.
"""

from __future__ import annotations

import io
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

from litaudit.curation.tree_file import TreeFile
from litaudit.curation.tree_read import read_tree
from litaudit.errors import LitauditError, ValidationFailed

KEY = (
    "source",
    "paper",
    "track",
    "collection",
    "topic_set",
    "n_topics",
    "measure",
    "system",
    "role",
)


@dataclass(frozen=True)
class AddedRow:
    """A result the change adds (``before`` None) or whose value it changes (``before``:
    the base's printed value): the folder's ``file`` and ``line``, the row's fields."""

    file: str
    line: int
    data: dict
    before: str | None = None


@dataclass(frozen=True)
class FolderDiff:
    base: str
    added: tuple[AddedRow, ...]
    n_removed: int
    n_unchanged: int


def _git(args: list[str], cwd: Path) -> bytes:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except FileNotFoundError:
        raise LitauditError("git is not installed: check-change reads the base with git") from None
    if done.returncode != 0:
        msg = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise LitauditError(f"git {' '.join(args[:2])}: {msg[-1] if msg else 'failed'}")
    return done.stdout


def folder_at(folder: Path, rev: str, dest: Path) -> Path:
    """Write the store folder as revision ``rev`` has it into ``dest`` (its files, from
    ``git archive``); returns ``dest``. An error names the folder or the revision."""
    folder = Path(folder)
    if not folder.is_dir():
        raise LitauditError(f"{folder}: no such folder")
    prefix = _git(["rev-parse", "--show-prefix"], folder).decode().strip()
    top = Path(_git(["rev-parse", "--show-toplevel"], folder).decode().strip())
    _git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], top)
    listed = _git(["ls-tree", "-r", "--name-only", rev, "--", prefix or "."], top)
    dest.mkdir(parents=True, exist_ok=True)
    if not listed.strip():
        return dest  # the folder did not exist at the base: everything is added
    data = _git(["archive", "--format=tar", rev, "--", prefix or "."], top)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for m in tar.getmembers():
            if not m.isfile() or not m.name.startswith(prefix):
                continue
            rel = m.name[len(prefix) :]
            if rel.startswith("/") or ".." in Path(rel).parts:
                continue
            out = dest / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            f = tar.extractfile(m)
            if f is not None:
                out.write_bytes(f.read())
    return dest


def _rows(files: list[TreeFile], root: str) -> dict[tuple, tuple[str, int, dict]]:
    out = {}
    for tf in files:
        for row in tf.rows:
            d = row.data
            if d.get("status") == "retracted":
                continue
            key = tuple(d.get(k, "") for k in KEY)
            out[key] = (tf.path.removeprefix(root).lstrip("/"), row.line, d)
    return out


def _read(folder: Path) -> list[TreeFile]:
    files, problems, _ = read_tree(folder)
    if problems:
        raise ValidationFailed(problems)
    return files


def diff_folder(folder: Path, base: str, scratch: Path) -> FolderDiff:
    """The results the folder adds or changes relative to revision ``base`` (its files at
    ``base`` written under ``scratch``)."""
    old = folder_at(folder, base, scratch)
    before = _rows(_read(old), str(old))
    now = _rows(_read(Path(folder)), str(folder))
    added = []
    unchanged = 0
    for key, (path, line, d) in now.items():
        was = before.get(key)
        if was is None:
            added.append(AddedRow(path, line, d))
        elif was[2].get("value") != d.get("value"):
            added.append(AddedRow(path, line, d, was[2].get("value")))
        else:
            unchanged += 1
    removed = sum(1 for k in before if k not in now)
    return FolderDiff(base, tuple(added), removed, unchanged)
