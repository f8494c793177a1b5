"""One file of a store folder as read (:mod:`litaudit.curation.tree_read`), with the
history :mod:`litaudit.curation.tree_history` gives its paper and results: the type both
fill, so neither imports the other's."""

from __future__ import annotations

from dataclasses import dataclass, field

from litaudit.curation.rows import Row


@dataclass
class TreeFile:
    """One file of a folder, read: its paper (or track), its results as import rows
    (lines are the file's), each result's history and times, and its problems."""

    path: str  # as given in problems: the folder's name joined with the relative path
    paper: dict | None = None
    paper_history: list[dict] = field(default_factory=list)
    track: str | None = None
    collection: str | None = None  # an official file's collection (line 1)
    rows: list[Row] = field(default_factory=list)
    history: dict[int, list[dict]] = field(default_factory=dict)  # line -> entries
    times: dict[int, tuple] = field(default_factory=dict)  # line -> (created, updated)
    uids: dict[int, str] = field(default_factory=dict)  # line -> the result's uid
