"""Writing the store as a folder (`litaudit export-tree`; the layout is in
:mod:`litaudit.curation.tree`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from litaudit.codec import escape_json_text
from litaudit.curation import tree_fs as fs
from litaudit.curation.cycles import no_cycle_collection
from litaudit.curation.export import export_row
from litaudit.curation.fields import PAPER_KEYS
from litaudit.curation.filters import CURATION
from litaudit.curation.results import query_results
from litaudit.curation.tree import (
    ATTRIBUTES,
    ATTRIBUTES_TEXT,
    FIELD_KEYS,
    HISTORY,
    HISTORY_KEYS,
    OFFICIAL,
    PAPERS,
    RESULT_KEYS,
    SUFFIX,
    history_path,
    paper_paths,
    track_path,
)
from litaudit.curation.tree_manifest import MANIFEST, manifest_text
from litaudit.errors import LitauditError
from litaudit.store import history as history_store
from litaudit.store import papers as paper_store
from litaudit.store import results as result_store
from litaudit.store.collections import user_collections

if TYPE_CHECKING:
    import duckdb


# json.dumps with these options builds an encoder a call: one for the ~70,000 lines
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))


def _line(obj: dict) -> str:
    """One JSON line; C1 and bidirectional controls escaped (as ``--json`` writes them)."""
    text = _ENCODER.encode(obj)
    # what escape_json_text escapes is all beyond ASCII: an ASCII line (most) is as it is
    return (text if text.isascii() else escape_json_text(text)) + "\n"


def tree_files(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """Every file of the store's folder: relative path -> text (the manifest included,
    :data:`~litaudit.curation.tree_manifest.MANIFEST`)."""

    hist = _history(con)
    times = result_store.times(con)
    uids = result_store.uids(con)
    papers = paper_store.every(con, PAPER_KEYS[:-1], order="bibkey")
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


def _history_lines(logs: dict, path: str, whose: dict, entries: list[dict]) -> None:
    """A paper's or result's entries as lines of its file's history, ordered by time,
    then by text (the same order in every clone, whatever its local ids)."""
    for h in entries:
        logs.setdefault(path, []).append((h["changed_at"], _line({**whose, **h})))


def _history(con: duckdb.DuckDBPyConnection) -> dict[tuple[str, int], list[dict]]:
    """(entity, id) -> its history entries, oldest first."""

    out: dict[tuple[str, int], list[dict]] = {}
    for _, entity, eid, *vals in history_store.every(con, order="time"):
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


def write_tree(con: duckdb.DuckDBPyConnection, folder: Path) -> TreeWrite:
    """Write the store into ``folder`` (created if need be): each file only if its text
    changed; a ``.jsonl`` under ``papers/`` or ``official/`` that the store does not
    have is removed (a paper or track gone). Nothing else in the folder is touched, no
    link in it is followed (a link is refused with its path, before anything is
    written), and the manifest is removed before the first change and written last: a
    write that does not finish leaves a folder `check` and `sync` refuse."""
    with no_cycle_collection():
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
