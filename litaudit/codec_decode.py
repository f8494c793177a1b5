"""Typed decoding of canonical JSON: ``decode(T, data)`` rebuilds a ``T`` from the JSON
:func:`litaudit.codec.dumps` wrote (the rules: litaudit.codec's docstring), imported from
there. Split from codec.py when its decoder became compiled once per type.

Stdlib only (and litaudit.errors), as litaudit.codec.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import datetime as dt
import itertools
import math
import threading
import types
import typing
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

from litaudit.errors import LitauditError


class DecodeError(LitauditError, ValueError):
    """Stored JSON does not fit the type it is decoded into."""


def decode(tp: Any, data: Any) -> Any:
    """Rebuild a value of type ``tp`` from its JSON form (see the module docstring).

    The decoder of a type is compiled once a process (:func:`_decoder`): a closure per
    field built from the resolved type hints, so that a stored value costs a dict look-up
    and a type check rather than a walk of ``typing`` (`litaudit audit list` of a seeded
    store decodes 27,549 dataclasses: bench/bench_codec.py)."""
    try:
        return _decoder(tp)(data)
    except _Misfit as exc:
        root = tp.__name__ if isinstance(tp, type) else str(tp)
        raise DecodeError(f"{root}{''.join(reversed(exc.path))}: {exc.problem}") from None


class _Misfit(Exception):
    """A value that does not fit its type, and where (the path is built on the way out,
    innermost first; :func:`decode` turns it into a DecodeError)."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem
        self.path: list[str] = []


_Decoder = Callable[[Any], Any]
# compiled decoders: of a dataclass by the class, of any other annotation by the annotation
# and its text (``int | float`` equals ``float | int`` but decodes 1 to another value)
_CLASSES: dict[type, _Decoder] = {}
_PENDING: dict[type, _Decoder] = {}  # being compiled (published when the outermost is done)
_DECODERS: dict[tuple[Any, str], _Decoder] = {}
_COMPILING = threading.RLock()


def _decoder(tp: Any) -> _Decoder:
    """The compiled decoder of ``tp``, compiled on first use (a recursive dataclass finds
    its own decoder while its fields are compiled)."""
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        found = _CLASSES.get(tp)
        if found is None:
            with _COMPILING:
                found = _CLASSES.get(tp) or _PENDING.get(tp)
                if found is None:
                    outermost = not _PENDING
                    found = _dataclass_decoder(tp)
                    if outermost:
                        _CLASSES.update(_PENDING)
                        _PENDING.clear()
        return found
    try:
        key = (tp, repr(tp))
        found = _DECODERS.get(key)
    except TypeError:  # an unhashable annotation: compiled each time
        return _compile(tp)
    if found is None:
        with _COMPILING:
            found = _DECODERS.setdefault(key, _compile(tp))
    return found


def _identity(data: Any) -> Any:
    return data


def _compile(tp: Any) -> _Decoder:
    if tp is Any or tp is object:
        return _identity
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        return _union_decoder(tp, args)
    if origin is typing.Literal:
        return _identity
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return _decoder(tp)
    if origin is tuple:
        return _tuple_decoder(args)
    if origin in (list, collections.abc.Sequence):
        return _list_decoder(_decoder(args[0]) if args else _identity)
    if origin is dict:
        return _dict_decoder(_decoder(args[1]) if len(args) == 2 else _identity)
    return _scalar_decoder(tp)


def _union_decoder(tp: Any, args: tuple) -> _Decoder:
    none_ok = type(None) in args
    rest = [_decoder(a) for a in args if a is not type(None)]
    if len(rest) == 1:
        (only,) = rest
        if not none_ok:
            return only

        def optional(data: Any) -> Any:
            return None if data is None else only(data)

        return optional

    def first_fit(data: Any) -> Any:
        if data is None and none_ok:
            return None
        for dec in rest:  # a union of several types: the first that fits
            try:
                return dec(data)
            except (_Misfit, TypeError, ValueError):
                continue
        raise _Misfit(f"{data!r} fits none of {tp}")

    return first_fit


def _dataclass_decoder(tp: type) -> _Decoder:
    fields = [f for f in dataclasses.fields(tp) if f.init]
    required = [
        f.name
        for f in fields
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]
    required_set = frozenset(required)
    specs: list[tuple[str, _Decoder]] = []
    every = len(required) == len(fields)

    def dataclass_(data: Any) -> Any:
        if not isinstance(data, dict):
            raise _Misfit(f"expected an object, got {type(data).__name__}")
        if not required_set <= data.keys():
            raise _Misfit(f"no {', '.join(n for n in required if n not in data)}")
        try:
            if every:
                return tp(**{name: dec(data[name]) for name, dec in specs})
            return tp(**{name: dec(data[name]) for name, dec in specs if name in data})
        except _Misfit as exc:
            for name, dec in specs:  # which field: decoded again, one at a time
                if name in data:
                    try:
                        dec(data[name])
                    except _Misfit:
                        exc.path.append(f".{name}")
                        break
            raise

    _PENDING[tp] = dataclass_  # before its fields: a field may hold the class itself
    hints = typing.get_type_hints(tp)
    specs.extend((f.name, _decoder(hints[f.name])) for f in fields)
    return dataclass_


def _at_index(exc: _Misfit, decs: Any, data: list) -> _Misfit:
    """``exc`` with the index of the first item of ``data`` that does not fit (each item
    decoded again, one at a time, by its decoder in ``decs``)."""
    for i, (dec, x) in enumerate(zip(decs, data, strict=False)):
        try:
            dec(x)
        except _Misfit:
            exc.path.append(f"[{i}]")
            break
    return exc


def _tuple_decoder(args: tuple) -> _Decoder:
    if len(args) == 2 and args[1] is Ellipsis:
        return _homogeneous(args[0], tuple)
    if not args:

        def bare(data: Any) -> tuple:
            _seq(data)
            return tuple(data)

        return bare
    decs = [_decoder(a) for a in args]
    n = len(decs)

    def fixed(data: Any) -> tuple:
        _seq(data)
        if len(data) != n:
            raise _Misfit(f"expected {n} items, got {len(data)}")
        try:
            return tuple([dec(x) for dec, x in zip(decs, data, strict=False)])
        except _Misfit as exc:
            raise _at_index(exc, decs, data) from None

    return fixed


def _list_decoder(inner: _Decoder) -> _Decoder:
    def list_(data: Any) -> list:
        _seq(data)
        try:
            return [inner(x) for x in data]
        except _Misfit as exc:
            raise _at_index(exc, itertools.repeat(inner), data) from None

    return list_


def _homogeneous(item: Any, make: type) -> _Decoder:
    """``tuple[item, ...]``; plain floats, ints and strings checked in one pass (a JSON
    list of floats is taken as it is when every item is a float already)."""
    inner = _decoder(item)
    plain = item if item in (float, int, str) else None

    def homogeneous(data: Any) -> Any:
        _seq(data)
        if plain is not None and all(type(x) is plain for x in data):
            return make(data)
        try:
            return make([inner(x) for x in data])
        except _Misfit as exc:
            raise _at_index(exc, itertools.repeat(inner), data) from None

    return homogeneous


def _dict_decoder(inner: _Decoder) -> _Decoder:
    def dict_(data: Any) -> dict:
        if not isinstance(data, dict):
            raise _Misfit("expected an object")
        try:
            return {k: inner(v) for k, v in data.items()}
        except _Misfit as exc:
            for k, v in data.items():
                try:
                    inner(v)
                except _Misfit:
                    exc.path.append(f".{k}")
                    break
            raise

    return dict_


def _seq(data: Any) -> None:
    if not isinstance(data, list):
        raise _Misfit(f"expected a list, got {type(data).__name__}")


def _float(data: Any) -> float:
    if type(data) is float:
        return data
    if data is None:
        return math.nan
    if isinstance(data, bool) or not isinstance(data, (int, float)):
        raise _Misfit(f"expected a number, got {data!r}")
    return float(data)


def _int(data: Any) -> int:
    if type(data) is int or (isinstance(data, int) and not isinstance(data, bool)):
        return data
    raise _Misfit(f"expected an integer, got {data!r}")


def _str(data: Any) -> str:
    if isinstance(data, str):
        return data
    raise _Misfit(f"expected a string, got {data!r}")


def _bool(data: Any) -> bool:
    if isinstance(data, bool):
        return data
    raise _Misfit(f"expected true/false, got {data!r}")


def _none(data: Any) -> None:
    if data is None:
        return data
    raise _Misfit(f"expected null, got {data!r}")


def _ndarray(data: Any) -> Any:
    # start-up: numpy
    import numpy as np

    return np.asarray(
        [math.nan if x is None else x for x in data]
        if isinstance(data, list) and data and not isinstance(data[0], list)
        else data
    )


_SCALARS: dict[Any, _Decoder] = {
    float: _float,
    int: _int,
    str: _str,
    bool: _bool,
    type(None): _none,
    dt.date: dt.date.fromisoformat,
    dt.datetime: dt.datetime.fromisoformat,
    Path: Path,
    Decimal: Decimal,
}


def _scalar_decoder(tp: Any) -> _Decoder:
    dec = _SCALARS.get(tp)
    if dec is not None:
        return dec
    if getattr(tp, "__name__", "") == "ndarray":  # numpy arrays: lists of numbers
        return _ndarray
    return _identity
