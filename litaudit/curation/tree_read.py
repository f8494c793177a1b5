"""Reading a store folder (`sync`, `check`; the layout is in
:mod:`litaudit.curation.tree`): every file checked for structure, not yet for values."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from litaudit.curation import fields as field_parsers
from litaudit.curation import tree_fs as fs
from litaudit.curation.fields import TOOL_USERS
from litaudit.curation.rows import Row, decode_utf8
from litaudit.curation.tree import (
    ATTRIBUTES,
    FIELD_KEYS,
    HISTORY,
    HISTORY_KEYS,
    OFFICIAL,
    PAPERS,
    RESULT_KEYS,
    SUFFIX,
    history_path,
    paper_path,
    track_path,
)
from litaudit.curation.tree_manifest import MANIFEST, Manifest, compare, parse_manifest
from litaudit.errors import LitauditError, Problem
from litaudit.measures import did_you_mean
from litaudit.store.history import ACTIONS

_UID = re.compile(r"r-[0-9a-f]{16}")


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


# what read_tree returns: the files, their problems and the manifest
TreeRead = tuple[list[TreeFile], list[Problem], Manifest | None]


def read_tree(folder: Path) -> TreeRead:
    """Every file of a folder, read and checked for structure (not yet for values), and
    its manifest (None when it has problems)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise LitauditError(f"{folder}: no such folder")
    files: list[TreeFile] = []
    problems: list[Problem] = []
    present, links, odd = fs.scan(folder, (PAPERS, OFFICIAL, HISTORY))
    for rel in links:
        problems.append(Problem(str(folder / rel), None, fs.LINK))
    for rel in odd:
        problems.append(Problem(str(folder / rel), None, "not a regular file"))
    counts: dict[str, int] = {}
    for rel in present:
        if rel.startswith(HISTORY + "/"):
            continue
        if not rel.endswith(SUFFIX):
            problems.append(
                Problem(str(folder / rel), None, f"not a {SUFFIX} file of the store's layout")
            )
            continue
        tf = TreeFile(str(folder / rel))
        _read_file(fs.read_bytes(folder, rel), rel, tf, problems)
        _read_history(folder, tf, rel, problems)
        files.append(tf)
        counts[rel] = len(tf.rows)
    problems += _stray_history(folder, present, counts)
    problems += _duplicate_uids(files)
    if not (folder / MANIFEST).is_file() and any(p.field == "history" for p in problems):
        return files, [_before_manifests(folder)], None  # the format before version 1
    manifest = _read_manifest(folder, counts, bool(files), problems)
    return files, problems, manifest


def _read_manifest(
    folder: Path, counts: dict[str, int], any_files: bool, problems: list[Problem]
) -> Manifest | None:
    """The folder's manifest checked against its files (None, with problems added, if
    it is missing or does not agree)."""
    mpath = folder / MANIFEST
    if mpath.is_symlink():
        problems.append(Problem(str(mpath), None, fs.LINK))
        return None
    if not mpath.is_file():
        if any_files:
            problems.append(
                Problem(
                    str(mpath),
                    None,
                    "missing: a store folder's manifest, written last by `export-tree` "
                    "(without it the folder is partial, an export that did not finish, or "
                    "not a store folder)",
                )
            )
        return None
    n0 = len(problems)
    text = fs.read_bytes(folder, MANIFEST).decode("utf-8", errors="replace")
    manifest = parse_manifest(text, str(mpath), RESULT_KEYS, problems)
    if manifest is not None:
        problems += compare(manifest, counts, str(folder), MANIFEST)
    return manifest if len(problems) == n0 else None


def _before_manifests(folder: Path) -> Problem:
    return Problem(
        str(folder),
        None,
        "a store folder of the format before version 1 (each result carrying its history, "
        "no manifest): sync it with the litaudit that wrote it, then write it again with "
        "this one (`export-tree`)",
    )


def _stray_history(folder: Path, present: list[str], counts: dict[str, int]) -> list[Problem]:
    """Files under history/ that are not the history of a store file of the folder."""
    out = []
    for rel in present:
        if not rel.startswith(HISTORY + "/") or rel == ATTRIBUTES:
            continue
        if rel.removeprefix(HISTORY + "/") not in counts:
            out.append(
                Problem(
                    str(folder / rel),
                    None,
                    "not the history of a store file of the folder (history/ mirrors "
                    "papers/ and official/)",
                )
            )
    return out


def _duplicate_uids(files: list[TreeFile]) -> list[Problem]:
    """A uid on two lines (a line copied by hand, or a bad merge)."""
    first: dict[str, str] = {}
    out = []
    for tf in files:
        for line, uid in sorted(tf.uids.items()):
            if uid in first:
                out.append(Problem(tf.path, line, f"uid {uid} is also on {first[uid]}", "uid"))
            else:
                first[uid] = f"{tf.path}:{line}"
    return out


# the lines git leaves in a file whose merge conflicts
_CONFLICT = re.compile(r"(<{7}|>{7}|\|{7})( .*)?|={7}")


def _lines(data: bytes, name: str, problems: list[Problem]) -> Iterator[tuple[int, dict]]:

    try:
        text = decode_utf8(name, data)
    except LitauditError as exc:
        problems.append(Problem(name, None, str(exc).removeprefix(f"{name}: ")))
        return
    for n, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        if _CONFLICT.fullmatch(raw.rstrip("\r")):
            problems.append(
                Problem(
                    name,
                    n,
                    "a git merge conflict marker: resolve the conflict (keep the lines "
                    "meant, remove the markers), then `litaudit check`",
                )
            )
            continue
        try:
            obj = json.loads(raw, object_pairs_hook=_no_duplicates)
        except (ValueError, _Duplicate) as exc:
            problems.append(Problem(name, n, f"not a JSON object on one line ({exc})"))
            continue
        if not isinstance(obj, dict):
            problems.append(Problem(name, n, "not a JSON object"))
            continue
        yield n, obj


class _Duplicate(ValueError):
    pass


def _no_duplicates(pairs):
    seen = {}
    for k, v in pairs:
        if k in seen:
            raise _Duplicate(f"key {k!r} appears twice")
        seen[k] = v
    return seen


def _read_file(data: bytes, rel: str, tf: TreeFile, problems: list[Problem]) -> None:
    name = tf.path
    parts = rel.split("/")
    first = True
    for n, obj in _lines(data, name, problems):
        if first:
            first = False
            _read_head(obj, n, parts, rel, tf, problems)
            continue
        _read_result(obj, n, tf, problems)
    if first:
        problems.append(Problem(name, None, "empty file (line 1 names the paper or track)"))


def _read_head(obj: dict, n: int, parts: list[str], rel: str, tf, problems) -> None:
    name = tf.path
    if parts[0] == PAPERS:
        paper = obj.get("paper")
        if set(obj) != {"paper"} or not isinstance(paper, dict):
            problems.append(Problem(name, n, 'line 1 must be {"paper": {...}}'))
            return
        tf.paper = paper
        key = paper.get("bibkey")
        if isinstance(key, str) and rel not in (paper_path(key), paper_path(key, distinct=True)):
            problems.append(
                Problem(
                    name, n, f"paper {paper['bibkey']!r} belongs in {paper_path(paper['bibkey'])}"
                )
            )
    else:
        track, coll = obj.get("track"), obj.get("collection")
        if (
            set(obj) != {"track", "collection"}
            or not all(isinstance(x, str) and x.strip() for x in (track, coll))
            or not isinstance(track, str)
            or not isinstance(coll, str)
        ):
            problems.append(
                Problem(name, n, 'line 1 must be {"track": "...", "collection": "..."}')
            )
            return
        tf.track, tf.collection = track, coll
        why = _track_problem(track)
        if why:
            problems.append(Problem(name, n, why, "track"))
        elif track_path(track, coll) != rel:
            problems.append(
                Problem(
                    name, n, f"track {track!r} on {coll!r} belongs in {track_path(track, coll)}"
                )
            )


def _read_result(obj: dict, n: int, tf: TreeFile, problems: list[Problem]) -> None:
    name = tf.path
    bad = [k for k in obj if k not in RESULT_KEYS]
    if bad:
        problems.append(
            Problem(name, n, f"unknown key {bad[0]!r}{did_you_mean(bad[0], RESULT_KEYS)}", bad[0])
        )
        return
    data: dict = {}
    for k in FIELD_KEYS:
        v = obj.get(k, "")
        if v is None:
            v = ""
        if not isinstance(v, str | int | float) or isinstance(v, bool):
            problems.append(Problem(name, n, "must be text", k))
            return
        data[k] = str(v)
    if tf.collection is not None and data["collection"] != tf.collection:
        problems.append(
            Problem(
                name,
                n,
                f"collection {data['collection']!r} in the file of {tf.collection!r} (line 1): "
                "a result belongs in its collection's file",
                "collection",
            )
        )
        return
    if tf.paper is not None:
        data["source"], data["paper"] = "paper", str(tf.paper.get("bibkey") or "")
    else:
        data["source"], data["track"] = "official", tf.track or ""
    if not _read_uid(obj.get("uid"), n, tf, problems):
        return
    tf.rows.append(Row(n, data))
    c, u = obj.get("created_at"), obj.get("updated_at")
    if c is not None or u is not None:
        for k, t in (("created_at", c), ("updated_at", u)):
            try:
                if t is not None:
                    field_parsers.parse_timestamp(t, k)
            except field_parsers.FieldError as e:
                problems.append(Problem(name, n, str(e), k))
                return
        tf.times[n] = (c, u)


def _read_uid(uid, n: int, tf: TreeFile, problems: list[Problem]) -> bool:
    """A result line's uid kept (none: the database's own is kept); False if malformed."""
    if uid is None:
        return True
    if not isinstance(uid, str) or not _UID.fullmatch(uid):
        problems.append(Problem(tf.path, n, "expected r- and 16 hex digits", "uid"))
        return False
    tf.uids[n] = uid
    return True


def _track_problem(track: str) -> str | None:

    try:
        field_parsers.parse_track(track)
    except field_parsers.FieldError as e:
        return str(e)
    return None


def _read_history(folder: Path, tf: TreeFile, rel: str, problems: list[Problem]) -> None:
    """The history file of ``tf`` (if any): each entry checked and given to its paper
    (``{"paper": bibkey, ...}``) or result (``{"uid": ..., ...}``), oldest first; an
    entry the same on two lines (both sides of a merge kept it) counted once."""
    hrel = history_path(rel)
    if not (folder / hrel).is_file():
        return
    name = str(folder / hrel)
    line_of = {uid: line for line, uid in tf.uids.items()}
    seen: set[tuple] = set()
    for n, obj in _lines(fs.read_bytes(folder, hrel), name, problems):
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

    if any(k not in HISTORY_KEYS for k in h):
        problems.append(
            Problem(name, n, f"an entry has uid or paper, and {', '.join(HISTORY_KEYS)}")
        )
        return None
    texts = [h.get(k) for k in HISTORY_KEYS]
    if any(
        t is not None and (not isinstance(t, str) or field_parsers.check_text(t)) for t in texts
    ):
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
