"""A store as a folder of small, diff-friendly files, for a team under version control
(`litaudit export-tree`, `sync`, `check`; the format is in docs/DEVELOPING.md, "Store
folder").

``papers/<bibkey>.jsonl``: one paper and its results;
``official/<track>/<collection>.jsonl`` (``official/trec7/adhoc/disks45%2Fnocr%2Ftrec7.jsonl``):
a track's official results on a collection. Each file is JSON Lines: line 1 the paper
(``{"paper": {...}}``) or the track and collection (``{"track": "trec7/adhoc",
"collection": "disks45/nocr/trec7"}``), then one result per line in a stable order (by
collection, measure, topics, system, role), each after a blank line (git merges changes
to two lines an unchanged line apart; it conflicts on two lines side by side): its ``uid`` (the identity every clone
shares), its fields those of the results import format (values as printed, empty fields
left out), ``created_at`` and ``updated_at``. ``history/<the same path>`` holds the
file's history, one entry a line (``{"uid": ..., "action": ..., ...}`` or ``{"paper":
bibkey, ...}``), in time order; ``history/.gitattributes`` has git merge it by keeping
both sides' lines. A change to a result changes its line and appends to its history, so
that two curators' edits of different results merge in git, and two edits of one result
conflict on its one short line alone. ``litaudit-store.jsonl`` is the manifest
(:mod:`litaudit.curation.tree_manifest`), written last. Names are kept as they are
where they are letters, digits, ``.``, ``_`` and ``-``; other characters are written as
``%XX`` (UTF-8); see :func:`file_name` for the limits every filesystem needs. Nothing
outside the folder is read, written or removed (:mod:`litaudit.curation.tree_fs`).

This module holds the layout (paths, names, the columns of a line); the folder is written
by :mod:`litaudit.curation.tree_write` and read by :mod:`litaudit.curation.tree_read`.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache

from litaudit.curation.rows import COLUMNS

PAPERS, OFFICIAL, SUFFIX = "papers", "official", ".jsonl"
# history/<the store file's path>: its paper's and results' history, one entry a line,
# appended to in time order; git merges two clones' appends by keeping both lines
HISTORY = "history"
ATTRIBUTES = f"{HISTORY}/.gitattributes"
ATTRIBUTES_TEXT = (
    "# litaudit: history is appended to; a merge keeps both sides' lines\n*.jsonl merge=union\n"
)
# the columns of a result line: its uid (the identity every clone shares), the import
# format's without those the file gives, its times and history
FIELD_KEYS = tuple(
    c for c in COLUMNS if c not in ("source", "paper", "track") and not c.startswith("paper_")
)
RESULT_KEYS = ("uid", *FIELD_KEYS, "created_at", "updated_at")
HISTORY_KEYS = ("action", "field", "old_value", "new_value", "reason", "who", "changed_at")
_PLAIN = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*")
_PLAIN_CHAR = re.compile(r"[A-Za-z0-9_-]")


# names Windows keeps for devices, with any extension (``con.jsonl`` cannot be checked out)
_DEVICES = frozenset(
    ["con", "prn", "aux", "nul"]
    + [f"{d}{i}" for d in ("com", "lpt") for i in [*"123456789", "\u00b9", "\u00b2", "\u00b3"]]
)
NAME_MAX = 96  # a file name's length at most (bytes, before the suffix): ~ and a hash beyond
HASH_LEN = 12


@lru_cache(maxsize=4096)
def file_name(text: str) -> str:
    """A name as a file name every filesystem holds: kept where plain, else ``%XX``
    escapes (never ``.``/``..``, a device name such as ``con`` or a trailing ``.``);
    beyond :data:`NAME_MAX` characters, cut and ended with ``~`` and a hash of the whole
    name. Cached: an export names each track and collection once per result."""
    if _PLAIN.fullmatch(text):
        out = text
    else:
        parts = []
        for i, ch in enumerate(text):
            if _PLAIN_CHAR.fullmatch(ch) or (ch == "." and i > 0):
                parts.append(ch)
            else:
                parts.extend(f"%{b:02X}" for b in ch.encode("utf-8"))
        out = "".join(parts)
    if out.split(".")[0].lower() in _DEVICES:
        out = f"%{ord(out[0]):02X}{out[1:]}"
    if out.endswith("."):
        out = out[:-1] + "%2E"
    if len(out) > NAME_MAX:
        cut = out[:NAME_MAX]
        if "%" in cut[-2:]:  # never half an escape
            cut = cut[: cut.rindex("%")]
        out = f"{cut}~{_digest(text)}"
    return out


def _digest(text: str) -> str:

    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:HASH_LEN]


@lru_cache(maxsize=4096)
def track_path(track: str, collection: str) -> str:
    """A track's results on a collection: ``trec7/adhoc`` on ``disks45/nocr/trec7`` ->
    ``official/trec7/adhoc/disks45%2Fnocr%2Ftrec7.jsonl`` (each part of the track a
    folder, the collection one file name)."""
    parts = [file_name(p) for p in track.split("/")]
    return "/".join([OFFICIAL, *parts, file_name(collection)]) + SUFFIX


def paper_path(bibkey: str, *, distinct: bool = False) -> str:
    """A paper's file; ``distinct``: with ``~`` and a hash of the bibkey, the name of a
    paper whose file name differs from another's by case alone (a collision on macOS
    and Windows)."""
    name = file_name(bibkey)
    if distinct and "~" not in name:
        name = f"{name}~{_digest(bibkey)}"
    return f"{PAPERS}/{name}{SUFFIX}"


def paper_paths(bibkeys) -> dict[str, str]:
    """bibkey -> its file, a hash added to the names equal but for case."""
    plain = {b: paper_path(b) for b in bibkeys}
    seen: dict[str, int] = {}
    for path in plain.values():
        seen[path.lower()] = seen.get(path.lower(), 0) + 1
    return {b: paper_path(b, distinct=seen[p.lower()] > 1) for b, p in plain.items()}


def history_path(rel: str) -> str:
    """The history file of a store file: ``history/papers/x.jsonl``."""
    return f"{HISTORY}/{rel}"
