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
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from litaudit.codec import escape_json_text
from litaudit.curation import tree_fs as fs
from litaudit.curation.fields import PAPER_KEYS
from litaudit.curation.rows import COLUMNS, Row
from litaudit.errors import LitauditError, Problem

if TYPE_CHECKING:
    from litaudit.curation.tree_manifest import Manifest

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
_UID = re.compile(r"r-[0-9a-f]{16}")
_PLAIN = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*")


# names Windows keeps for devices, with any extension (``con.jsonl`` cannot be checked out)
_DEVICES = frozenset(
    ["con", "prn", "aux", "nul"]
    + [f"{d}{i}" for d in ("com", "lpt") for i in [*"123456789", "\u00b9", "\u00b2", "\u00b3"]]
)
NAME_MAX = 96  # a file name's length at most (bytes, before the suffix): ~ and a hash beyond
HASH_LEN = 12


def file_name(text: str) -> str:
    """A name as a file name every filesystem holds: kept where plain, else ``%XX``
    escapes (never ``.``/``..``, a device name such as ``con`` or a trailing ``.``);
    beyond :data:`NAME_MAX` characters, cut and ended with ``~`` and a hash of the whole
    name."""
    if _PLAIN.fullmatch(text):
        out = text
    else:
        parts = []
        for i, ch in enumerate(text):
            if re.fullmatch(r"[A-Za-z0-9_-]", ch) or (ch == "." and i > 0):
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
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:HASH_LEN]


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


def _line(obj: dict) -> str:
    """One JSON line; C1 and bidirectional controls escaped (as ``--json`` writes them)."""
    return escape_json_text(json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))) + "\n"


# ---------------------------------------------------------------- writing


def tree_files(con) -> dict[str, str]:
    """Every file of the store's folder: relative path -> text (the manifest included,
    :data:`~litaudit.curation.tree_manifest.MANIFEST`)."""
    from litaudit.curation.export import export_row
    from litaudit.curation.filters import CURATION
    from litaudit.curation.results import query_results
    from litaudit.curation.tree_manifest import MANIFEST, manifest_text
    from litaudit.store import papers as P
    from litaudit.store import results as R
    from litaudit.store.collections import user_collections

    hist = _history(con)
    times = R.times(con)
    uids = R.uids(con)
    papers = P.every(con, PAPER_KEYS[:-1], order="bibkey")
    paths = paper_paths(vals[0] for _, *vals in papers)
    groups: dict[str, list[tuple]] = {}
    logs: dict[str, list[tuple]] = {}
    track_of: dict[str, tuple[str, str]] = {}
    used: set[str] = set()
    for r in query_results(con, CURATION):
        row = export_row(r)
        line = {"uid": uids[r.id], **{k: row[k] for k in FIELD_KEYS if row[k] != ""}}
        line["created_at"], line["updated_at"] = times[r.id]
        used.add(r.collection_id)
        if r.source == "paper":
            assert r.bibkey is not None  # the schema: a paper's result names its paper
            path = paths[r.bibkey]
        else:
            track = r.track or ""
            path = track_path(track, r.collection_id)
            track_of[path] = (track, r.collection_id)
        order = (r.collection_id, r.measure, r.n_topics, r.system, r.role)
        groups.setdefault(path, []).append((order, _line(line)))
        _history_lines(logs, path, {"uid": uids[r.id]}, hist.get(("result", r.id), []))
    files: dict[str, str] = {}
    for pid, *vals in papers:
        paper = {k: v for k, v in zip(PAPER_KEYS, vals, strict=True) if v is not None}
        head = _line({"paper": paper})
        path = paths[paper["bibkey"]]
        files[path] = head + "".join("\n" + t for _, t in sorted(groups.pop(path, [])))
        _history_lines(logs, path, {"paper": paper["bibkey"]}, hist.get(("paper", pid), []))
    for path, lines in groups.items():  # official tracks
        track, coll = track_of[path]
        head = _line({"track": track, "collection": coll})
        files[path] = head + "".join("\n" + t for _, t in sorted(lines))
    counts = _counts(files)
    for path, entries in logs.items():
        files[history_path(path)] = "".join(t for *_, t in sorted(entries))
    if logs:
        files[ATTRIBUTES] = ATTRIBUTES_TEXT
    files[MANIFEST] = manifest_text(RESULT_KEYS, user_collections(con, used), counts)
    return dict(sorted(files.items()))


def history_path(rel: str) -> str:
    """The history file of a store file: ``history/papers/x.jsonl``."""
    return f"{HISTORY}/{rel}"


def _history_lines(logs: dict, path: str, whose: dict, entries: list[dict]) -> None:
    """A paper's or result's entries as lines of its file's history, ordered by time,
    then by text (the same order in every clone, whatever its local ids)."""
    for h in entries:
        logs.setdefault(path, []).append((h["changed_at"], _line({**whose, **h})))


def _history(con) -> dict[tuple[str, int], list[dict]]:
    """(entity, id) -> its history entries, oldest first."""
    from litaudit.store import history as H

    out: dict[tuple[str, int], list[dict]] = {}
    for _, entity, eid, *vals in H.every(con, order="time"):
        out.setdefault((entity, eid), []).append(
            {k: v for k, v in zip(HISTORY_KEYS, vals, strict=True) if v is not None}
        )
    return out


@dataclass(frozen=True)
class TreeWrite:
    written: int  # files written (new or changed)
    unchanged: int  # files already so
    removed: int  # files of the folder's layout that the store no longer has
    results: int
    papers: int
    bytes: int


def write_tree(con, folder: Path) -> TreeWrite:
    """Write the store into ``folder`` (created if need be): each file only if its text
    changed; a ``.jsonl`` under ``papers/`` or ``official/`` that the store does not
    have is removed (a paper or track gone). Nothing else in the folder is touched, no
    link in it is followed (a link is refused with its path, before anything is
    written), and the manifest is removed before the first change and written last: a
    write that does not finish leaves a folder `check` and `sync` refuse."""
    from litaudit.curation.tree_manifest import MANIFEST

    files = tree_files(con)
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise LitauditError(f"{folder}: not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    present, links, _odd = fs.scan(folder, (PAPERS, OFFICIAL, HISTORY))
    for rel in [*links, *([MANIFEST] if (folder / MANIFEST).is_symlink() else [])]:
        raise LitauditError(f"{folder / rel}: {fs.LINK}")
    changed: list[tuple[str, bytes]] = []
    same = size = 0
    for rel, text in files.items():
        data = text.encode("utf-8")
        size += len(data)
        fs.refuse_links(folder, rel)
        p = folder / rel
        if p.is_file() and fs.read_bytes(folder, rel) == data:
            same += 1
        else:
            changed.append((rel, data))
    gone = [
        rel
        for rel in present
        if (rel.endswith(SUFFIX) and rel not in files) or fs.is_temporary(rel)
    ]
    if changed or gone:
        if (folder / MANIFEST).exists():
            fs.remove_file(folder, MANIFEST)  # until the last file is written
        if all(rel != MANIFEST for rel, _ in changed):
            changed.append((MANIFEST, files[MANIFEST].encode("utf-8")))
            same -= 1
        done = 0
        try:
            for rel, data in sorted(changed, key=lambda c: c[0] == MANIFEST):
                fs.write_file(folder, rel, data)
                done += 1
        except fs.DiskFull as exc:
            raise fs.DiskFull(
                f"{exc}: {done} of {len(changed)} files written, the manifest not (the "
                "folder is refused until `export-tree` finishes)"
            ) from None
        for rel in gone:
            fs.remove_file(folder, rel)
    n_results = sum(n for n in _counts(files).values())
    n_papers = sum(1 for r in files if r.startswith(PAPERS + "/"))
    removed = sum(1 for rel in gone if not fs.is_temporary(rel))
    return TreeWrite(len(changed), same, removed, n_results, n_papers, size)


def _counts(files: dict[str, str]) -> dict[str, int]:
    return {
        rel: sum(1 for line in text.split("\n") if line.strip()) - 1
        for rel, text in files.items()
        if rel.startswith((PAPERS + "/", OFFICIAL + "/"))
    }


# ---------------------------------------------------------------- reading


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


def read_tree(folder: Path) -> tuple[list[TreeFile], list[Problem], Manifest | None]:
    """Every file of a folder, read and checked for structure (not yet for values), and
    its manifest (None when it has problems)."""
    from litaudit.curation.tree_manifest import MANIFEST

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
    from litaudit.curation.tree_manifest import MANIFEST, compare, parse_manifest

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
    from litaudit.curation.rows import decode_utf8

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
        from litaudit.measures import did_you_mean

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
        from litaudit.curation import fields as F

        for k, t in (("created_at", c), ("updated_at", u)):
            try:
                if t is not None:
                    F.parse_timestamp(t, k)
            except F.FieldError as e:
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
    from litaudit.curation import fields as F

    try:
        F.parse_track(track)
    except F.FieldError as e:
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
    from litaudit.curation import fields as F
    from litaudit.store.history import ACTIONS

    if any(k not in HISTORY_KEYS for k in h):
        problems.append(
            Problem(name, n, f"an entry has uid or paper, and {', '.join(HISTORY_KEYS)}")
        )
        return None
    texts = [h.get(k) for k in HISTORY_KEYS]
    if any(t is not None and (not isinstance(t, str) or F.check_text(t)) for t in texts):
        problems.append(Problem(name, n, "values must be text"))
        return None
    if h.get("action") not in ACTIONS or F.blank(h.get("who")):
        problems.append(Problem(name, n, f"needs an action ({', '.join(ACTIONS)}) and a who"))
        return None
    try:
        F.parse_timestamp(h.get("changed_at"), "changed_at")
    except F.FieldError as e:
        problems.append(Problem(name, n, str(e)))
        return None
    why = _tool_entry_problem(h)
    if why:
        problems.append(Problem(name, n, why))
        return None
    return {k: h.get(k) for k in HISTORY_KEYS}


def is_tool_name(who: str) -> bool:
    """A name litaudit records its own changes under (``litaudit init``)."""
    from litaudit.curation.fields import TOOL_USERS

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
