"""Reading a store folder (`sync`, `check`; the layout is in
:mod:`litaudit.curation.tree`): every file checked for structure, not yet for values."""

from __future__ import annotations

import re
from pathlib import Path

from litaudit.curation import fields as field_parsers
from litaudit.curation import tree_fs as fs
from litaudit.curation.rows import Row
from litaudit.curation.tree import (
    ATTRIBUTES,
    FIELD_KEYS,
    HISTORY,
    OFFICIAL,
    PAPERS,
    RESULT_KEYS,
    SUFFIX,
    paper_path,
    track_path,
)
from litaudit.curation.tree_file import TreeFile
from litaudit.curation.tree_history import read_history
from litaudit.curation.tree_lines import json_lines
from litaudit.curation.tree_manifest import MANIFEST, Manifest, compare, parse_manifest
from litaudit.errors import LitauditError, Problem
from litaudit.measures import did_you_mean

_UID = re.compile(r"r-[0-9a-f]{16}")


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
        read_history(folder, tf, rel, problems)
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


def _read_file(data: bytes, rel: str, tf: TreeFile, problems: list[Problem]) -> None:
    name = tf.path
    parts = rel.split("/")
    first = True
    for n, obj in json_lines(data, name, problems):
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


_RESULT_KEY_SET = frozenset(RESULT_KEYS)


def _read_result(obj: dict, n: int, tf: TreeFile, problems: list[Problem]) -> None:
    name = tf.path
    bad = [k for k in obj if k not in _RESULT_KEY_SET]
    if bad:
        problems.append(
            Problem(name, n, f"unknown key {bad[0]!r}{did_you_mean(bad[0], RESULT_KEYS)}", bad[0])
        )
        return
    data = _field_texts(obj)
    if isinstance(data, str):
        problems.append(Problem(name, n, "must be text", data))
        return
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


def _field_texts(obj: dict) -> dict[str, str] | str:
    """A result line's fields as text (absent or null: ""), or the first key whose value
    is neither text nor a number."""
    data: dict[str, str] = {}
    for k in FIELD_KEYS:
        v = obj.get(k)
        if v is None:
            data[k] = ""
        elif type(v) is str:  # the common case first: ~35,000 lines x 20 keys a folder
            data[k] = v
        elif not isinstance(v, str | int | float) or isinstance(v, bool):
            return k
        else:
            data[k] = str(v)
    return data


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
