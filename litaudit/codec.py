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

import collections.abc
import dataclasses
import datetime as dt
import json
import math
import re
import types
import typing
from collections.abc import Callable
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from litaudit.errors import LitauditError

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
    """Canonical JSON (sorted keys) used for --json output and stored audits."""
    return json.dumps(to_jsonable(obj), sort_keys=True, indent=2, ensure_ascii=False)


# what json.dumps(ensure_ascii=False) leaves raw that a terminal or an editor acts on: the
# C1 controls and the bidirectional controls (they occur only inside JSON strings)
_UNSAFE_IN_JSON = re.compile("[\x80-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def escape_json_text(text: str) -> str:
    """JSON text with its C1, bidirectional and line-separator characters written as
    ``\\u0085``-style escapes: the same JSON value, safe to show (every file output
    that writes JSON passes through this, as ``--json`` does)."""
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class DecodeError(LitauditError, ValueError):
    """Stored JSON does not fit the type it is decoded into."""


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def decode(tp: Any, data: Any) -> Any:
    """Rebuild a value of type ``tp`` from its JSON form (see the module docstring)."""
    return _decode(tp, data, tp.__name__ if isinstance(tp, type) else str(tp))


def _decode(tp: Any, data: Any, where: str) -> Any:
    if tp is Any or tp is object:
        return data
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        return _decode_union(tp, args, data, where)
    if origin is typing.Literal:
        return data
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return _decode_dataclass(tp, data, where)
    if origin is tuple:
        return _decode_tuple(args, data, where)
    if origin in (list, collections.abc.Sequence):
        _seq(data, where)
        inner = args[0] if args else Any
        return [_decode(inner, x, f"{where}[{i}]") for i, x in enumerate(data)]
    if origin is dict:
        if not isinstance(data, dict):
            raise DecodeError(f"{where}: expected an object")
        vt = args[1] if len(args) == 2 else Any
        return {k: _decode(vt, v, f"{where}.{k}") for k, v in data.items()}
    return _scalar(tp, data, where)


def _decode_union(tp: Any, args: tuple, data: Any, where: str) -> Any:
    if data is None and type(None) in args:
        return None
    rest = [a for a in args if a is not type(None)]
    if len(rest) == 1:
        return _decode(rest[0], data, where)
    for a in rest:  # a union of several types: the first that fits
        try:
            return _decode(a, data, where)
        except (DecodeError, TypeError, ValueError):
            continue
    raise DecodeError(f"{where}: {data!r} fits none of {tp}")


def _decode_dataclass(tp: type, data: Any, where: str) -> Any:
    if not isinstance(data, dict):
        raise DecodeError(f"{where}: expected an object, got {type(data).__name__}")
    hints = _hints(tp)
    fields = [f for f in dataclasses.fields(tp) if f.init]
    missing = [
        f.name
        for f in fields
        if f.name not in data
        and f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
    ]
    if missing:
        raise DecodeError(f"{where}: no {', '.join(missing)}")
    kw = {
        f.name: _decode(hints[f.name], data[f.name], f"{where}.{f.name}")
        for f in fields
        if f.name in data
    }
    return tp(**kw)


def _decode_tuple(args: tuple, data: Any, where: str) -> tuple:
    _seq(data, where)
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(_decode(args[0], x, f"{where}[{i}]") for i, x in enumerate(data))
    if args and len(args) != len(data):
        raise DecodeError(f"{where}: expected {len(args)} items, got {len(data)}")
    return (
        tuple(
            _decode(a, x, f"{where}[{i}]") for i, (a, x) in enumerate(zip(args, data, strict=True))
        )
        if args
        else tuple(data)
    )


def _seq(data: Any, where: str) -> None:
    if not isinstance(data, list):
        raise DecodeError(f"{where}: expected a list, got {type(data).__name__}")


# JSON's own values: what a stored value of the type must be, and what it is called
_PLAIN: dict[Any, tuple[Callable[[Any], bool], str]] = {
    bool: (lambda x: isinstance(x, bool), "true/false"),
    int: (lambda x: isinstance(x, int) and not isinstance(x, bool), "an integer"),
    str: (lambda x: isinstance(x, str), "a string"),
    type(None): (lambda x: x is None, "null"),
}


def _scalar(tp: Any, data: Any, where: str) -> Any:
    if tp is float:
        if data is None:
            return math.nan
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            raise DecodeError(f"{where}: expected a number, got {data!r}")
        return float(data)
    plain = _PLAIN.get(tp)
    if plain is not None:
        if not plain[0](data):
            raise DecodeError(f"{where}: expected {plain[1]}, got {data!r}")
        return data
    if tp in (dt.date, dt.datetime):
        return tp.fromisoformat(data)
    if tp in (Path, Decimal):
        return tp(data)
    if getattr(tp, "__name__", "") == "ndarray":  # numpy arrays: lists of numbers
        # start-up: numpy
        import numpy as np

        return np.asarray(
            [math.nan if x is None else x for x in data]
            if isinstance(data, list) and data and not isinstance(data[0], list)
            else data
        )
    return data
