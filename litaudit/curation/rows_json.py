"""A JSON results file decoded with the line each result starts on (for
:mod:`litaudit.curation.rows`): numbers and constants kept as the text the file wrote
(``0.30`` stays ``0.30``), an object's duplicate keys marked under :data:`DUPLICATES`,
and the line of each object of the list of results (a list of objects, or the
``"results"`` list of a curation export)."""

from __future__ import annotations

import json


class _Literal(str):
    """A JSON number or constant, kept as the text the file wrote."""


def _pairs(pairs):
    d: dict = {}
    dups = []
    for k, v in pairs:
        if k in d:
            dups.append(k)
        d[k] = v
    if dups:
        d[DUPLICATES] = dups
    return d


DUPLICATES = "\x00duplicate keys"


_WS = " \t\n\r"


class _Positions:
    """Line numbers (from 1) of offsets into a text, asked for in increasing order."""

    def __init__(self, text: str):
        self.text, self.pos, self.line = text, 0, 1

    def line_of(self, pos: int) -> int:
        self.line += self.text.count("\n", self.pos, pos)
        self.pos = pos
        return self.line


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _expect(text: str, i: int, what: str) -> None:
    if i >= len(text) or text[i] not in what:
        want = " or ".join(repr(c) for c in what)
        raise json.JSONDecodeError(f"Expecting {want}", text, i)


def _scan_list(text: str, i: int, dec, at: _Positions) -> tuple[list, list[int], int]:
    """The JSON list starting at ``text[i]`` ('['): its items, the line each item starts
    on, and the offset after the list."""
    items: list = []
    lines: list[int] = []
    i = _skip(text, i + 1)
    if i < len(text) and text[i] == "]":
        return items, lines, i + 1
    while True:
        lines.append(at.line_of(i))
        item, i = dec.raw_decode(text, i)
        items.append(item)
        i = _skip(text, i)
        _expect(text, i, ",]")
        if text[i] == "]":
            return items, lines, i + 1
        i = _skip(text, i + 1)


def _scan_bundle(text: str, i: int, dec, at: _Positions) -> tuple[dict, list[int] | None, int]:
    """The JSON object starting at ``text[i]`` ('{'), with the lines of the items of its
    "results" list (None when it has none), and the offset after the object."""
    pairs: list = []
    lines = None
    i = _skip(text, i + 1)
    if i < len(text) and text[i] == "}":
        return _pairs(pairs), None, i + 1
    while True:
        _expect(text, i, '"')
        key, i = dec.raw_decode(text, i)
        i = _skip(text, i)
        _expect(text, i, ":")
        i = _skip(text, i + 1)
        if key == "results" and i < len(text) and text[i] == "[":
            value, lines, i = _scan_list(text, i, dec, at)
        else:
            value, i = dec.raw_decode(text, i)
        pairs.append((key, value))
        i = _skip(text, i)
        _expect(text, i, ",}")
        if text[i] == "}":
            return _pairs(pairs), lines, i + 1
        i = _skip(text, i + 1)


def decode_json(text: str) -> tuple[object, list[int] | None]:
    """The JSON document, numbers kept as their literal text, with the line each result
    object starts on (a list of objects, or the "results" list of a curation export)."""
    dec = json.JSONDecoder(
        parse_float=_Literal,
        parse_int=_Literal,
        parse_constant=_Literal,
        object_pairs_hook=_pairs,
    )
    at = _Positions(text)
    i = _skip(text, 0)
    lines = None
    data: object
    if text.startswith("[", i):
        data, lines, i = _scan_list(text, i, dec, at)
    elif text.startswith("{", i):
        data, lines, i = _scan_bundle(text, i, dec, at)
    else:
        data, i = dec.raw_decode(text, i)
    i = _skip(text, i)
    if i != len(text):
        raise json.JSONDecodeError("Extra data", text, i)
    return data, lines
