"""The decoder and encoder litaudit.codec had before they were compiled per type (main at
0403802), kept as the references the new ones are compared with
(tests/store/test_codec_reference.py): the same value, or the same error, for every input;
the same text for every value."""

from __future__ import annotations

import collections.abc
import dataclasses
import datetime as dt
import json
import math
import types
import typing
from collections.abc import Callable
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

from litaudit.codec import DecodeError, to_jsonable


def dumps(obj: Any) -> str:
    """Canonical JSON (sorted keys) used for --json output and stored audits."""
    return json.dumps(to_jsonable(obj), sort_keys=True, indent=2, ensure_ascii=False)


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
