"""A store as a folder of small, diff-friendly files, for a team under version control
(`litaudit export-tree`, `sync`, `check`; the format is in docs/DEVELOPING.md, "Store
folder").

``papers/<bibkey>.jsonl``: one paper, its results and all their history;
``official/<track>/<collection>.jsonl`` (``official/trec7/adhoc/disks45%2Fnocr%2Ftrec7.jsonl``):
a track's official results on a collection. Each file is JSON Lines: line 1 the paper
(``{"paper": {...}, "history": [...]}``) or the track and collection (``{"track":
"trec7/adhoc", "collection": "disks45/nocr/trec7"}``), then one result per line in a stable order (by
collection, measure, topics, system, role), its fields those of the results import
format (values as printed, empty fields left out) with ``created_at``, ``updated_at`` and
its ``history`` (every change, oldest first). A change to a result changes its line
only, so that two curators' edits of different results merge in git without conflict.
Names are kept as they are where they are letters, digits, ``.``, ``_`` and ``-``;
other characters are written as ``%XX`` (UTF-8).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from litaudit.curation.fields import PAPER_KEYS
from litaudit.curation.rows import COLUMNS, Row
from litaudit.errors import LitauditError, Problem

PAPERS, OFFICIAL, SUFFIX = "papers", "official", ".jsonl"
# the columns of a result line: the import format's without those the file gives
RESULT_KEYS = tuple(
    c for c in COLUMNS if c not in ("source", "paper", "track") and not c.startswith("paper_")
) + ("created_at", "updated_at", "history")
HISTORY_KEYS = ("action", "field", "old_value", "new_value", "reason", "who", "changed_at")
_PLAIN = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*")


def file_name(text: str) -> str:
    """A name as a file name: kept where plain, else ``%XX`` escapes (never ``.``/``..``)."""
    if _PLAIN.fullmatch(text):
        return text
    out = []
    for i, ch in enumerate(text):
        if re.fullmatch(r"[A-Za-z0-9_-]", ch) or (ch == "." and i > 0):
            out.append(ch)
        else:
            out.extend(f"%{b:02X}" for b in ch.encode("utf-8"))
    return "".join(out)


def track_path(track: str, collection: str) -> str:
    """A track's results on a collection: ``trec7/adhoc`` on ``disks45/nocr/trec7`` ->
    ``official/trec7/adhoc/disks45%2Fnocr%2Ftrec7.jsonl`` (each part of the track a
    folder, the collection one file name)."""
    parts = [file_name(p) for p in track.split("/")]
    return "/".join([OFFICIAL, *parts, file_name(collection)]) + SUFFIX


def paper_path(bibkey: str) -> str:
    return f"{PAPERS}/{file_name(bibkey)}{SUFFIX}"


def _line(obj: dict) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(", ", ": ")) + "\n"


# ---------------------------------------------------------------- writing


def tree_files(con) -> dict[str, str]:
    """Every file of the store's folder: relative path -> text."""
    from litaudit.curation.export import export_row
    from litaudit.curation.filters import CURATION
    from litaudit.curation.results import query_results
    from litaudit.store import papers as P
    from litaudit.store import results as R

    hist = _history(con)
    times = R.times(con)
    groups: dict[str, list[tuple]] = {}
    track_of: dict[str, tuple[str, str]] = {}
    for r in query_results(con, CURATION):
        row = export_row(r)
        line = {k: row[k] for k in RESULT_KEYS[:-3] if row[k] != ""}
        line["created_at"], line["updated_at"] = times[r.id]
        line["history"] = hist.get(("result", r.id), [])
        if r.source == "paper":
            assert r.bibkey is not None  # the schema: a paper's result names its paper
            path = paper_path(r.bibkey)
        else:
            track = r.track or ""
            path = track_path(track, r.collection_id)
            track_of[path] = (track, r.collection_id)
        order = (r.collection_id, r.measure, r.n_topics, r.system, r.role)
        groups.setdefault(path, []).append((order, _line(line)))
    files: dict[str, str] = {}
    for pid, *vals in P.every(con, PAPER_KEYS[:-1], order="bibkey"):
        paper = {k: v for k, v in zip(PAPER_KEYS, vals, strict=True) if v is not None}
        head = _line({"paper": paper, "history": hist.get(("paper", pid), [])})
        path = paper_path(paper["bibkey"])
        files[path] = head + "".join(t for _, t in sorted(groups.pop(path, [])))
    for path, lines in groups.items():  # official tracks
        track, coll = track_of[path]
        head = _line({"track": track, "collection": coll})
        files[path] = head + "".join(t for _, t in sorted(lines))
    return dict(sorted(files.items()))


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
    have is removed (a paper or track gone). Nothing else in the folder is touched."""
    files = tree_files(con)
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise LitauditError(f"{folder}: not a folder")
    written = same = removed = size = 0
    for rel, text in files.items():
        p = folder / rel
        data = text.encode("utf-8")
        size += len(data)
        if p.is_file() and p.read_bytes() == data:
            same += 1
            continue
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_name(p.name + ".tmp")
        tmp.write_bytes(data)
        tmp.replace(p)
        written += 1
    for old in _layout_files(folder):
        if old.relative_to(folder).as_posix() not in files:
            old.unlink()
            removed += 1
    n_results = sum(t.count("\n") - 1 for t in files.values())
    n_papers = sum(1 for r in files if r.startswith(PAPERS + "/"))
    return TreeWrite(written, same, removed, n_results, n_papers, size)


def _layout_files(folder: Path) -> list[Path]:
    return sorted(p for d in (PAPERS, OFFICIAL) for p in (folder / d).rglob("*" + SUFFIX))


# ---------------------------------------------------------------- reading


@dataclass
class TreeFile:
    """One file of a folder, read: its paper (or track), its results as import rows
    (lines are the file's), each result's history and times, and its problems."""

    path: str  # as given in problems: the folder's name joined with the relative path
    paper: dict | None = None
    paper_history: list[dict] = field(default_factory=list)
    track: str | None = None
    rows: list[Row] = field(default_factory=list)
    history: dict[int, list[dict]] = field(default_factory=dict)  # line -> entries
    times: dict[int, tuple] = field(default_factory=dict)  # line -> (created, updated)


def read_tree(folder: Path) -> tuple[list[TreeFile], list[Problem]]:
    """Every file of a folder, read and checked for structure (not yet for values)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise LitauditError(f"{folder}: no such folder")
    files: list[TreeFile] = []
    problems: list[Problem] = []
    for p in _layout_files(folder):
        rel = p.relative_to(folder).as_posix()
        tf = TreeFile(str(folder / rel))
        _read_file(p, rel, tf, problems)
        files.append(tf)
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        if p.is_file() and rel.split("/")[0] in (PAPERS, OFFICIAL) and not rel.endswith(SUFFIX):
            problems.append(Problem(str(p), None, f"not a {SUFFIX} file of the store's layout"))
    return files, problems


def _lines(p: Path, name: str, problems: list[Problem]) -> Iterator[tuple[int, dict]]:
    from litaudit.curation.rows import decode_utf8

    try:
        text = decode_utf8(name, p.read_bytes())
    except LitauditError as exc:
        problems.append(Problem(name, None, str(exc).removeprefix(f"{name}: ")))
        return
    for n, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
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


def _read_file(p: Path, rel: str, tf: TreeFile, problems: list[Problem]) -> None:
    name = tf.path
    parts = rel.split("/")
    first = True
    for n, obj in _lines(p, name, problems):
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
        extra = [k for k in obj if k not in ("paper", "history")]
        paper = obj.get("paper")
        if extra or not isinstance(paper, dict):
            problems.append(Problem(name, n, 'line 1 must be {"paper": {...}, "history": [...]}'))
            return
        tf.paper = paper
        tf.paper_history = _entries(obj.get("history", []), name, n, problems)
        if isinstance(paper.get("bibkey"), str) and paper_path(paper["bibkey"]) != rel:
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
        tf.track = track
        if track_path(track, coll) != rel:
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
    for k in RESULT_KEYS[:-3]:
        v = obj.get(k, "")
        if v is None:
            v = ""
        if not isinstance(v, str | int | float) or isinstance(v, bool):
            problems.append(Problem(name, n, "must be text", k))
            return
        data[k] = str(v)
    if tf.paper is not None:
        data["source"], data["paper"] = "paper", str(tf.paper.get("bibkey") or "")
    else:
        data["source"], data["track"] = "official", tf.track or ""
    tf.rows.append(Row(n, data))
    tf.history[n] = _entries(obj.get("history", []), name, n, problems)
    c, u = obj.get("created_at"), obj.get("updated_at")
    if c is not None or u is not None:
        tf.times[n] = (c, u)


def _entries(raw, name: str, n: int, problems: list[Problem]) -> list[dict]:
    """History entries checked: known keys, text values, an action, a who and a time."""
    from litaudit.curation import fields as F
    from litaudit.store.history import ACTIONS

    if not isinstance(raw, list):
        problems.append(Problem(name, n, "history must be a list", "history"))
        return []
    out = []
    for i, h in enumerate(raw, start=1):
        where = f"history[{i}]"
        if not isinstance(h, dict) or any(k not in HISTORY_KEYS for k in h):
            problems.append(
                Problem(name, n, f"{where}: an object with keys {', '.join(HISTORY_KEYS)}")
            )
            continue
        texts = [h.get(k) for k in HISTORY_KEYS]
        if any(t is not None and (not isinstance(t, str) or F.check_text(t)) for t in texts):
            problems.append(Problem(name, n, f"{where}: values must be text"))
            continue
        if h.get("action") not in ACTIONS or F.blank(h.get("who")):
            problems.append(
                Problem(name, n, f"{where}: needs an action ({', '.join(ACTIONS)}) and a who")
            )
            continue
        try:
            F.parse_timestamp(h.get("changed_at"), "changed_at")
        except F.FieldError as e:
            problems.append(Problem(name, n, f"{where}: {e}"))
            continue
        out.append({k: h.get(k) for k in HISTORY_KEYS})
    return out
