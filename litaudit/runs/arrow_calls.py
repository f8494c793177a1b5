"""Arrow compute kernels called by name, without importing ``pyarrow.compute``.

``pyarrow.compute`` makes a Python wrapper, with a docstring parsed by numpydoc's
scraper (and pydoc), for each of its ~300 kernels when it is imported: 26-38 ms of CPU on
this project's machine, paid by every ``runs import`` for the handful of kernels the
importer calls. ``pyarrow._compute.call_function`` (what those wrappers call) costs 5 ms
to load. The kernels are called with their default options, as the wrappers called with
no options do; pyarrow's own methods that call a kernel (``Array.take``,
``Array.unique``, ...) load ``pyarrow.compute``, so the run-archive code calls these
instead (tests/cli/test_command_imports.py checks that ``runs import`` does not load it).
"""

from __future__ import annotations

from typing import Any


def call(name: str, *args: Any) -> Any:
    """The Arrow kernel ``name`` on ``args`` (arrays, or scalars: a str becomes an Arrow
    string scalar), with its default options."""
    # start-up: pyarrow (the importer's reader threads load it; `runs eval` never does)
    import pyarrow as pa

    # start-up: pyarrow._compute (5 ms, not pyarrow.compute's 26-38)
    import pyarrow._compute as arrow_compute

    values = [pa.scalar(a, pa.string()) if isinstance(a, str) else a for a in args]
    return arrow_compute.call_function(name, values)


def take(values: Any, indices: Any) -> Any:
    """``values.take(indices)`` (bounds checked)."""
    return call("take", values, indices)


def unique(values: Any) -> Any:
    """The distinct values, in order of first appearance (``pc.unique``)."""
    return call("unique", values)


def dictionary_encode(values: Any) -> Any:
    """``pc.dictionary_encode``: a DictionaryArray (dictionary in order of first
    appearance; a ChunkedArray gives a ChunkedArray)."""
    return call("dictionary_encode", values)
