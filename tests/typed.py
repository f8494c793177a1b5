"""Typed helpers for tests: values mypy can check where a test builds or reads them.

``Qrels`` and ``Run`` convert their columns to arrays (``__post_init__`` in
litaudit/runs/model.py); their fields are typed as the arrays they hold, so a list passed
straight in is a type error to mypy: :func:`make_qrels` and :func:`make_run` build the
arrays first. :func:`some` is an Optional checked where a test expects a value."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np

from litaudit.runs.model import Qrels, Run

T = TypeVar("T")
Column = Sequence[Any] | np.ndarray


def make_qrels(topic: Column, docno: Column, rel: Column) -> Qrels:
    """Qrels(topic, docno, rel) from lists or arrays."""
    return Qrels(np.array(topic, dtype=object), np.array(docno, dtype=object), np.asarray(rel))


def make_run(tag: str, topic: Column, docno: Column, score: Column) -> Run:
    """Run(tag, topic, docno, score) from lists or arrays."""
    return Run(tag, np.array(topic, dtype=object), np.array(docno, dtype=object), np.asarray(score))


def some(value: T | None) -> T:
    """``value``, failing the test where it is None."""
    assert value is not None
    return value


def without_verdict(output: str) -> list[str]:
    """A claim audit's terminal lines without its verdict block ("Verdict:", its lines,
    the blank line after them): the answers and tables that follow it (issue 32)."""
    lines = output.splitlines()
    if "Verdict:" not in lines:
        return lines
    start = lines.index("Verdict:")
    end = lines.index("", start)
    return lines[:start] + lines[end + 1 :]
