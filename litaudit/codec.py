"""Canonical JSON for results, and back: the codec every layer shares.

``to_jsonable`` / ``dumps`` turn a result (frozen dataclasses, tuples, numpy scalars and
arrays, dates, paths, Decimals) into plain JSON with sorted keys: the form of ``--json``
output and of stored audits. ``decode(T, data)`` rebuilds a ``T`` from that JSON by
reading ``T``'s type hints, so that ``decode(type(x), json.loads(dumps(x))) == x`` for a
frozen dataclass ``x`` built of the types below (nested dataclasses, ``tuple[X, ...]``,
fixed tuples, ``list``/``dict``, ``X | None``, ``int``/``float``/``str``/``bool``).

Floats survive exactly (JSON keeps ``repr``'s shortest round-trip digits). JSON has no NaN
or infinity: they are written as null, and a null read into a field typed ``float`` (not
``float | None``) comes back as NaN. numpy scalars are written as Python numbers and come
back as the field's Python type.

Stdlib only (and litaudit.errors): analyses, the store and the renderers all import it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import math
import re
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar

from litaudit.codec_decode import DecodeError, decode  # noqa: F401  (re-exported: the codec's home)

T = TypeVar("T")


def to_jsonable(obj: Any) -> Any:
    """Plain JSON types for dataclasses, numpy scalars/arrays, dates, paths, Decimals."""
    t = type(obj)
    if t is str or t is int or t is bool or obj is None:  # fast path: most leaves
        return obj
    if t is float:
        return None if math.isnan(obj) or math.isinf(obj) else obj
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, float):
        return None if math.isnan(obj) or math.isinf(obj) else obj
    if isinstance(obj, (str, int, bool)) or obj is None:
        return obj
    return _other_jsonable(obj)


def _other_jsonable(obj: Any) -> Any:
    """:func:`to_jsonable` of what is neither a container nor a plain JSON value."""
    if isinstance(obj, (dt.date, dt.datetime)):
        return obj.isoformat()
    if isinstance(obj, Decimal):
        return str(obj)
    if isinstance(obj, Path):
        return str(obj)
    if hasattr(obj, "model_dump"):  # SQLModel / pydantic rows
        return to_jsonable(obj.model_dump())
    if hasattr(obj, "tolist"):  # numpy arrays and scalars
        return to_jsonable(obj.tolist())
    return str(obj)


def dumps(obj: Any) -> str:
    """Canonical JSON (sorted keys) used for --json output and stored audits: the text of
    ``json.dumps(to_jsonable(obj), sort_keys=True, indent=2, ensure_ascii=False)``, written
    directly (json's encoder runs in Python when it indents; this one skips the
    intermediate plain structure and knows each dataclass's sorted fields:
    bench/bench_codec.py)."""
    return _text(obj, "\n")


_encode_str = json.encoder.encode_basestring  # C, as json.dumps(ensure_ascii=False) uses
_FIELDS: dict[type, tuple[tuple[str, str], ...] | None] = {}


def _fields_text(t: type) -> tuple[tuple[str, str], ...] | None:
    """A dataclass's field names in sorted order, each with its key's JSON text; None for
    a type that is not a dataclass."""
    try:
        return _FIELDS[t]
    except KeyError:
        pass
    out = None
    if dataclasses.is_dataclass(t):
        names = sorted(f.name for f in dataclasses.fields(t))
        out = tuple((n, _encode_str(n) + ": ") for n in names)
    _FIELDS[t] = out
    return out


def _text(obj: Any, nl: str) -> str:
    """The JSON text of ``obj`` (see :func:`dumps`), ``nl`` the newline and indentation
    of the line it starts on."""
    t = type(obj)
    if t is str:
        return _encode_str(obj)
    if t is float:
        return float.__repr__(obj) if math.isfinite(obj) else "null"
    if t is int:
        return int.__repr__(obj)
    if obj is None:
        return "null"
    if t is bool:
        return "true" if obj else "false"
    if t is list or t is tuple:
        return _seq_text(obj, nl)
    fields = _fields_text(t)
    if fields is not None:
        if not fields:
            return "{}"
        inner = nl + "  "
        return (
            "{"
            + inner
            + ("," + inner).join([k + _text(getattr(obj, n), inner) for n, k in fields])
            + nl
            + "}"
        )
    return _other_text(obj, nl)


def _other_text(obj: Any, nl: str) -> str:
    """:func:`_text` of a dict, a set, a subclass of a JSON type, or what
    :func:`_other_jsonable` turns into JSON."""
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        plain = {str(k): v for k, v in obj.items()}
        inner = nl + "  "
        return (
            "{"
            + inner
            + ("," + inner).join(
                [_encode_str(k) + ": " + _text(plain[k], inner) for k in sorted(plain)]
            )
            + nl
            + "}"
        )
    if isinstance(obj, (list, tuple, set, frozenset)):
        return _seq_text(list(obj), nl)
    if isinstance(obj, float):
        return float.__repr__(obj) if math.isfinite(obj) else "null"
    if isinstance(obj, str):
        return _encode_str(obj)
    if isinstance(obj, int):  # bool is handled above; an int subclass (IntEnum)
        return int.__repr__(obj)
    return _text(_other_jsonable(obj), nl)


def _seq_text(items: list | tuple, nl: str) -> str:
    if not items:
        return "[]"
    inner = nl + "  "
    return "[" + inner + ("," + inner).join([_text(x, inner) for x in items]) + nl + "]"


# what json.dumps(ensure_ascii=False) leaves raw that a terminal or an editor acts on: the
# C1 controls and the bidirectional controls (they occur only inside JSON strings)
_UNSAFE_IN_JSON = re.compile("[\x80-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def escape_json_text(text: str) -> str:
    """JSON text with its C1, bidirectional and line-separator characters written as
    ``\\u0085``-style escapes: the same JSON value, safe to show (every file output
    that writes JSON passes through this, as ``--json`` does)."""
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
