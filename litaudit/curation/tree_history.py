"""The history files of a store folder (:mod:`litaudit.curation.tree`; read with their papers
file by :mod:`litaudit.curation.tree_read`): each entry checked (known keys, text values,
an action, a who, a time; an entry under the tool's own name only for a change the tool
makes) and given to its paper or result, oldest first, an entry kept on both sides of a
merge counted once.
"""

from __future__ import annotations

from pathlib import Path

from litaudit.curation import fields as field_parsers
from litaudit.curation import tree_fs as fs
from litaudit.curation.fields import TOOL_USERS
from litaudit.curation.tree import HISTORY_KEYS, history_path
from litaudit.curation.tree_file import TreeFile
from litaudit.curation.tree_lines import json_lines
from litaudit.errors import Problem
from litaudit.store.history import ACTIONS

_KEYS = frozenset(HISTORY_KEYS)


def read_history(folder: Path, tf: TreeFile, rel: str, problems: list[Problem]) -> None:
    """The history file of ``tf`` (if any): each entry checked and given to its paper
    (``{"paper": bibkey, ...}``) or result (``{"uid": ..., ...}``), oldest first; an
    entry the same on two lines (both sides of a merge kept it) counted once."""
    hrel = history_path(rel)
    if not (folder / hrel).is_file():
        return
    name = str(folder / hrel)
    line_of = {uid: line for line, uid in tf.uids.items()}
    seen: set[tuple] = set()
    for n, obj in json_lines(fs.read_bytes(folder, hrel), name, problems):
        whose = {k: obj.pop(k) for k in ("uid", "paper") if k in obj}
        h = _entry(obj, name, n, problems)
        if h is None:
            continue
        key = (tuple(sorted(whose.items())), tuple(h.values()))
        if key in seen:
            continue
        seen.add(key)
        if list(whose) == ["uid"] and whose["uid"] in line_of:
            tf.history.setdefault(line_of[whose["uid"]], []).append(h)
        elif tf.paper is not None and whose == {"paper": tf.paper.get("bibkey")}:
            tf.paper_history.append(h)
        else:
            what = ", ".join(f"{k} {v!r}" for k, v in whose.items()) or "no uid or paper"
            problems.append(
                Problem(
                    name,
                    n,
                    f"history of {what}, which {tf.path} does not hold (a result's line "
                    "removed: remove its history with it, or keep it and retract the result)",
                )
            )
    for entries in [tf.paper_history, *tf.history.values()]:
        entries.sort(key=lambda h: h["changed_at"])


def _entry(h: dict, name: str, n: int, problems: list[Problem]) -> dict | None:
    """A history entry checked: known keys, text values, an action, a who and a time."""

    if not _KEYS.issuperset(h):
        problems.append(
            Problem(name, n, f"an entry has uid or paper, and {', '.join(HISTORY_KEYS)}")
        )
        return None
    # every value text and none with what check_text refuses (one search over them all)
    texts = [t for t in (h.get(k) for k in HISTORY_KEYS) if t is not None]
    if not all(isinstance(t, str) for t in texts) or field_parsers.has_control(texts):
        problems.append(Problem(name, n, "values must be text"))
        return None
    if h.get("action") not in ACTIONS or field_parsers.blank(h.get("who")):
        problems.append(Problem(name, n, f"needs an action ({', '.join(ACTIONS)}) and a who"))
        return None
    try:
        field_parsers.parse_timestamp(h.get("changed_at"), "changed_at")
    except field_parsers.FieldError as e:
        problems.append(Problem(name, n, str(e)))
        return None
    why = _tool_entry_problem(h)
    if why:
        problems.append(Problem(name, n, why))
        return None
    return {k: h.get(k) for k in HISTORY_KEYS}


def is_tool_name(who: str) -> bool:
    """A name litaudit records its own changes under (``litaudit init``)."""

    s = who.strip().lower()
    return s in TOOL_USERS or s.startswith("litaudit ")


def _tool_entry_problem(h: dict) -> str | None:
    """Why an entry under a tool's name is not one the tool writes: `init` imports the
    seeds and changes their roles, notes and statuses (its reasons name the seeds); any
    other change under its name would be taken for its own (the next `init` undoes
    those)."""
    if not is_tool_name(h["who"]):
        return None
    action, fld = h["action"], h.get("field")
    if action in ("import", "create") and fld is None:
        return None
    if fld in ("role", "notes", "status") and "seeds" in (h.get("reason") or ""):
        return None
    return (
        f"who {h['who']!r} is the name litaudit records its own changes under, and "
        f"{action}{' of ' + fld if fld else ''} is not a change it makes: give the "
        "curator's name"
    )
