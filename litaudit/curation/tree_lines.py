"""The lines of a store folder's files (:mod:`litaudit.curation.tree`): one JSON object a
line, read as UTF-8, blank lines skipped, and every line that is not one named with its
line: a git merge conflict marker (a merge left unresolved), a key twice in an object, not
JSON, or JSON that is not an object.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from litaudit.curation.rows import decode_utf8
from litaudit.errors import LitauditError, Problem

# the lines git leaves in a file whose merge conflicts
_CONFLICT = re.compile(r"(<{7}|>{7}|\|{7})( .*)?|={7}")


def json_lines(data: bytes, name: str, problems: list[Problem]) -> Iterator[tuple[int, dict]]:
    """(line number, object) of every JSON object line of a store folder file ``name``; a
    problem noted for each line that is not one (a git conflict marker, a key twice, not
    JSON, not an object) or for a file that is not UTF-8."""

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
            # one decoder for every line (json.loads builds one a call when given a
            # hook); its check of a leading BOM kept for a line that has one
            obj = json.loads(raw) if raw.startswith("\ufeff") else _DECODER.decode(raw)
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
    obj = dict(pairs)
    if len(obj) != len(pairs):  # a key twice: the first one repeated named
        seen = set()
        for k, _ in pairs:
            if k in seen:
                raise _Duplicate(f"key {k!r} appears twice")
            seen.add(k)
    return obj


_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicates)
