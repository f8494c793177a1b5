"""A store folder's manifest, ``litaudit-store.jsonl``: what a whole folder holds.

`export-tree` removes it before it changes any file and writes it last, so a folder whose
export did not finish has none. JSON Lines, one fact a line (so that two curators' changes
to different files change different lines): line 1 ``{"format": "litaudit-store",
"version": 1, "result_keys": [...]}`` (the keys a result line may have in this format: a
key it does not list is "not given", and a sync keeps the stored value); then a line
``{"collection": {...}}`` for each collection added with `collections add` that the
folder's results use (its id, names, query count: the folder carries it); then
``{"file": PATH, "results": N}`` for each file, sorted by path (each after a blank
line, so that git merges changes to neighbouring lines). `check` and `sync` refuse
a folder without a manifest, of another format or version, missing a file it lists,
holding one it does not, or whose file has another count of results.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from litaudit.codec import escape_json_text
from litaudit.errors import Problem

MANIFEST = "litaudit-store.jsonl"
FORMAT, VERSION = "litaudit-store", 1
COLLECTION_KEYS = (
    "id",
    "name",
    "title",
    "documents",
    "aliases",
    "ir_datasets",
    "provenance",
    "n_topics",
)


@dataclass
class Manifest:
    result_keys: tuple[str, ...]
    collections: list[dict] = field(default_factory=list)
    files: dict[str, int] = field(default_factory=dict)  # path -> results


def _line(obj: dict) -> str:
    return escape_json_text(json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))) + "\n"


def manifest_text(
    result_keys: tuple[str, ...], collections: list[dict], counts: dict[str, int]
) -> str:
    out = [_line({"format": FORMAT, "version": VERSION, "result_keys": list(result_keys)})]
    # each fact after a blank line: git merges changes to two lines an unchanged line
    # apart (two curators' counts of files side by side), not two lines side by side
    out += ["\n" + _line({"collection": c}) for c in collections]
    out += ["\n" + _line({"file": rel, "results": n}) for rel, n in sorted(counts.items())]
    return "".join(out)


def parse_manifest(
    text: str, name: str, known_keys: tuple[str, ...], problems: list[Problem]
) -> Manifest | None:
    """The manifest of ``text``, or None with its problems added."""
    lines = [(n, raw) for n, raw in enumerate(text.split("\n"), start=1) if raw.strip()]
    objs = []
    for n, raw in lines:
        if re.fullmatch(r"(<{7}|>{7}|\|{7})( .*)?|={7}", raw.rstrip("\r")):
            problems.append(
                Problem(
                    name,
                    n,
                    "a git merge conflict marker: keep both sides' lines of a file, or "
                    "either; then `litaudit check` names each file's count of results",
                )
            )
            return None
        try:
            obj = json.loads(raw)
        except ValueError:
            obj = None
        if not isinstance(obj, dict):
            problems.append(Problem(name, n, "not a JSON object on one line"))
            return None
        objs.append((n, obj))
    if not objs or objs[0][1].get("format") != FORMAT:
        problems.append(Problem(name, 1, f'line 1 must be {{"format": "{FORMAT}", ...}}'))
        return None
    head = objs[0][1]
    if head.get("version") != VERSION:
        problems.append(
            Problem(
                name,
                1,
                f"format version {head.get('version')!r}; this litaudit reads version "
                f"{VERSION} (export the folder again with the litaudit that reads it, or "
                "upgrade)",
            )
        )
        return None
    keys = head.get("result_keys")
    if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
        problems.append(Problem(name, 1, "result_keys must be a list of names"))
        return None
    unknown = [k for k in keys if k not in known_keys]
    if unknown:
        problems.append(Problem(name, 1, f"result key {unknown[0]!r} is not of this format"))
        return None
    m = Manifest(tuple(keys))
    for n, obj in objs[1:]:
        _entry(obj, n, name, m, problems)
    return m


def _entry(obj: dict, n: int, name: str, m: Manifest, problems: list[Problem]) -> None:
    if set(obj) == {"file", "results"}:
        rel, count = obj["file"], obj["results"]
        if not isinstance(rel, str) or type(count) is not int or count < 0:
            problems.append(Problem(name, n, "a file's line: a path and a whole number"))
        elif rel in m.files:
            problems.append(Problem(name, n, f"{rel} is listed twice"))
        else:
            m.files[rel] = count
        return
    c = obj.get("collection")
    if set(obj) == {"collection"} and isinstance(c, dict):
        bad = sorted(set(c) - set(COLLECTION_KEYS))
        if bad or not isinstance(c.get("id"), str) or type(c.get("n_topics")) is not int:
            problems.append(
                Problem(
                    name,
                    n,
                    f"a collection's line needs an id and n_topics (keys: "
                    f"{', '.join(COLLECTION_KEYS)})",
                )
            )
            return
        m.collections.append(c)
        return
    problems.append(
        Problem(name, n, 'expected {"file": ..., "results": N} or {"collection": {...}}')
    )


def compare(m: Manifest, counts: dict[str, int], folder_name: str, name: str) -> list[Problem]:
    """The folder's files (path -> results read) against the manifest's."""
    problems = []
    for rel, n in sorted(m.files.items()):
        if rel not in counts:
            problems.append(
                Problem(
                    f"{folder_name}/{rel}",
                    None,
                    f"missing: the manifest lists it ({n} results); the folder is partial "
                    "(a part not checked out or an export that did not finish)",
                )
            )
        elif counts[rel] != n:
            problems.append(
                Problem(
                    f"{folder_name}/{rel}",
                    None,
                    f"{counts[rel]} results, the manifest says {n} (lines lost or added "
                    f"outside litaudit; if the change is meant, set its count in {name})",
                )
            )
    for rel in sorted(set(counts) - set(m.files)):
        problems.append(
            Problem(
                f"{folder_name}/{rel}",
                None,
                f"not in the manifest {name} (a file added outside litaudit: add the line "
                f'{{"file": "{rel}", "results": {counts[rel]}}} if it is meant)',
            )
        )
    return problems
