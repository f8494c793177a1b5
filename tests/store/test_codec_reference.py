"""The compiled decoder (litaudit.codec.decode) against the decoder it replaced
(tests/store/codec_reference.py): the same value of the same types, or the same error, for
the JSON of every stored kind's result type (random instances, and their JSON with one
value replaced by another JSON value), and for the annotations no stored kind uses yet."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import functools
import json
import math
import types
import typing
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from litaudit.analyses.audits import KINDS, kinds
from litaudit.codec import decode, dumps
from tests.conftest import examples
from tests.store import codec_reference


def _same(a: Any, b: Any) -> bool:
    """Equal values of the same types all the way down (NaN equals NaN, -0.0 is not 0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (
            a == b and math.copysign(1, a) == math.copysign(1, b)
        )
    if dataclasses.is_dataclass(a):
        return all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    return bool(a == b)


def _outcome(decoder, tp: Any, data: Any) -> tuple[str, Any]:
    try:
        return "value", decoder(tp, data)
    except Exception as exc:  # noqa: BLE001 (the error is what is compared)
        return type(exc).__name__, str(exc)


def _assert_same(tp: Any, data: Any) -> tuple[str, Any]:
    """The new decoder's outcome, asserted equal to the reference's."""
    new = _outcome(decode, tp, data)
    old = _outcome(codec_reference.decode, tp, data)
    assert new[0] == old[0], (new, old)
    assert _same(new[1], old[1]), (new, old)
    return new


def _json_values() -> st.SearchStrategy:
    leaf = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
    return st.recursive(
        leaf,
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
        ),
        max_leaves=5,
    )


def _places(data: Any, at: tuple = ()) -> list[tuple]:
    """The path of every value in a JSON value (itself first)."""
    out = [at]
    if isinstance(data, dict):
        for k, v in data.items():
            out += _places(v, (*at, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out += _places(v, (*at, i))
    return out


def _replaced(data: Any, at: tuple, value: Any) -> Any:
    if not at:
        return value
    copy = dict(data) if isinstance(data, dict) else list(data)
    copy[at[0]] = _replaced(data[at[0]], at[1:], value)
    return copy


# the elements of a variable-length tuple in a random instance of a result type: each
# element goes through the same decoding, so a fourth one reaches no path three do not;
# Hypothesis's own from_type drew ~10 on average (a third of a kind's time went to them)
ELEMENTS = 3


@functools.cache
def _instances(tp: Any) -> st.SearchStrategy:
    """``st.from_type(tp)`` for the annotations of the stored result types (dataclasses,
    fixed and variable-length tuples, unions, and plain values, which go to
    ``st.from_type``) but with at most :data:`ELEMENTS` elements in a variable-length
    tuple: every field drawn, a field with a default its default or any value, as
    ``st.from_type`` does. Built once a type for the module's examples."""
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        fields: dict[str, st.SearchStrategy] = {}
        for f in dataclasses.fields(tp):
            drawn = _instances(hints[f.name])
            if f.default is not dataclasses.MISSING:
                drawn = st.just(f.default) | drawn
            elif f.default_factory is not dataclasses.MISSING:
                drawn = st.builds(f.default_factory) | drawn
            fields[f.name] = drawn
        return st.builds(tp, **fields)
    args = typing.get_args(tp)
    if typing.get_origin(tp) is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return st.lists(_instances(args[0]), max_size=ELEMENTS).map(tuple)
        return st.tuples(*map(_instances, args))
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return st.one_of(*map(_instances, args))
    return st.from_type(tp)


@pytest.mark.slow(reason="random instances of a result type: 0.02-0.3 s a kind, 1.1 s for all")
@pytest.mark.parametrize("kind", [k for k, _ in KINDS])
@settings(max_examples=examples(10))
@given(data=st.data())
def test_every_stored_kind_decodes_as_the_reference_does(kind, data):
    tp = kinds()[kind]
    x = data.draw(_instances(tp), label="result")
    assert dumps(x) == codec_reference.dumps(x)
    stored = json.loads(dumps(x))
    outcome, value = _assert_same(tp, stored)
    assert outcome == "value" and type(value) is tp
    assert dumps(value) == dumps(x)  # canonical: the same text again
    # one value anywhere replaced by another JSON value: the same value, or the same error
    at = data.draw(st.sampled_from(_places(stored)), label="at")
    _assert_same(tp, _replaced(stored, at, data.draw(_json_values(), label="by")))


class Colour(enum.Enum):
    RED = "red"


@dataclasses.dataclass(frozen=True)
class Node:
    name: str
    children: tuple[Node, ...] = ()
    parent: Node | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)
class Odd:
    colour: Colour
    level: Literal["low", "high"]
    when: dt.date
    stamp: dt.datetime
    path: Path
    amount: Decimal
    array: np.ndarray
    items: list[int]
    table: dict[str, float]
    seq: Sequence[str]
    bare: tuple
    bare_list: list
    bare_dict: dict
    anything: Any
    either: int | float
    other: float | int
    pair: tuple[float | None, float | None]
    nothing: tuple[()] = ()
    flags: tuple[bool, ...] = ()
    later: int = dataclasses.field(default_factory=lambda: 7)


ODD = {
    "colour": "red",
    "level": "low",
    "when": "2026-11-27",
    "stamp": "2026-11-27T19:30:00",
    "path": "a/b",
    "amount": "0.10",
    "array": [1.0, None, -0.0],
    "items": [1, 2],
    "table": {"a": None, "b": 1},
    "seq": ["x"],
    "bare": [1, "a"],
    "bare_list": [None],
    "bare_dict": {"k": [1]},
    "anything": {"z": [1.5]},
    "either": 1,
    "other": 1,
    "pair": [None, 0.5],
}


def test_the_annotations_no_kind_uses_yet_decode_as_the_reference_does():
    outcome, value = _assert_same(Odd, ODD)
    assert outcome == "value"
    # `int | float` and `float | int` are equal annotations that decode 1 differently
    assert type(value.either) is int and type(value.other) is float
    assert value.later == 7 and value.colour == "red"  # not converted, as before
    for key in ODD:
        for by in (None, True, 1, 1.5, "s", [], [1, "a"], {}, {"a": 1}):
            _assert_same(Odd, ODD | {key: by})
    _assert_same(Odd, {k: v for k, v in ODD.items() if k not in ("when", "path")})


def test_a_recursive_dataclass_and_top_level_annotations():
    tree = {"name": "r", "children": [{"name": "a", "parent": {"name": "r"}}, {"name": "b"}]}
    outcome, value = _assert_same(Node, tree)
    assert value.children[0].parent == Node("r")
    bad = {"name": "r", "children": [{"name": "a"}, {"name": "b", "children": [{"name": 1}]}]}
    outcome, message = _assert_same(Node, bad)
    assert message == "Node.children[1].children[0].name: expected a string, got 1"
    for tp in (tuple[Node, ...], list[float], dict[str, int], int | None, tuple[int, str]):
        for data in ([tree], [1.5, None], {"a": 1}, None, [1, "a"], [1], "x", 1):
            _assert_same(tp, data)


@settings(max_examples=examples(100))
@given(st.lists(st.none() | st.booleans() | st.integers() | st.floats() | st.text()))
def test_tuples_of_plain_values_decode_as_the_reference_does(items):
    for tp in (tuple[float, ...], tuple[int, ...], tuple[str, ...], tuple[float | None, ...]):
        _assert_same(tp, items)


class Level(enum.IntEnum):
    LOW = 1


class Name(enum.StrEnum):
    A = "a\u2028b"


def _python_values() -> st.SearchStrategy:
    """What a result or a --json output may hold: JSON's types, their subclasses, numpy
    scalars and arrays, dates, paths, Decimals, enums, sets, dicts of any keys."""
    leaf = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(),  # NaN, infinities and -0.0 included
        st.text(),
        st.floats().map(np.float64),
        st.integers(-(2**62), 2**62).map(np.int64),
        st.booleans().map(np.bool_),
        st.dates(),
        st.datetimes(),
        st.text(max_size=5).map(Path),
        st.decimals(allow_nan=False),
        st.sampled_from([Level.LOW, Name.A, Colour.RED]),
        st.lists(st.floats(), max_size=4).map(np.array),
    )
    return st.recursive(
        leaf,
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.lists(inner, max_size=3).map(tuple)
            | st.frozensets(st.integers() | st.text(max_size=3), max_size=3)
            | st.dictionaries(st.integers() | st.text(max_size=3), inner, max_size=3)
            | st.builds(
                Node, st.text(max_size=3), st.lists(st.just(Node("x")), max_size=2).map(tuple)
            )
        ),
        max_leaves=8,
    )


@settings(max_examples=examples(100))
@given(_python_values())
def test_dumps_writes_the_reference_text_of_any_value(x):
    assert dumps(x) == codec_reference.dumps(x)
