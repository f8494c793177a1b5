"""A peer's answer (an oracle such as honestboard) kept across runs in pytest's cache.

An oracle test runs our code and a peer's on the same input and compares them. The peer's
answer depends only on the peer's code, the libraries it draws with and the input, never
on ours: it is kept under the digest of all of these (the peer's installed source files,
numpy's and scipy's versions, the input arrays and the call's arguments), so a run whose
peer, libraries and input are unchanged reads it back instead of recomputing it, while our
side is computed on every run. Without pytest's cache (``-p no:cacheprovider``) or with
``--rebuild-fixtures`` it is computed each time, as on a fresh clone's first run.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy


def _source_digest(package: str) -> str:
    """The digest of an installed package's Python files (its code, not just its name)."""
    h = hashlib.sha256()
    dist = importlib.metadata.distribution(package)
    for f in sorted(dist.files or [], key=str):
        if str(f).endswith(".py"):
            h.update(str(f).encode())
            h.update(Path(str(dist.locate_file(f))).read_bytes())
    return h.hexdigest()


def _update(h: Any, value: object) -> None:
    if isinstance(value, np.ndarray):
        h.update(f"ndarray{value.dtype}{value.shape}".encode())
        h.update(np.ascontiguousarray(value).tobytes())
    elif isinstance(value, (list, tuple)):
        h.update(f"seq{len(value)}".encode())
        for v in value:
            _update(h, v)
    else:
        h.update(repr(value).encode())


def kept(
    config: pytest.Config, peer: str, call: str, inputs: tuple, compute: Callable[[], Any]
) -> Any:
    """``compute()`` (a JSON value: the peer's answer to ``call`` on ``inputs``), read from
    pytest's cache when the peer, numpy, scipy and the inputs are those it was kept for."""
    h = hashlib.sha256()
    _update(h, (peer, _source_digest(peer), np.__version__, scipy.__version__, call))
    _update(h, inputs)
    key = f"litaudit/oracle/{peer}/{h.hexdigest()}"
    cache = getattr(config, "cache", None)
    if cache is None or config.getoption("--rebuild-fixtures", default=False):
        return compute()
    found = cache.get(key, None)
    if found is not None:
        return found["answer"]
    answer = compute()
    cache.set(key, {"answer": answer})
    # what is kept is what is computed: a value JSON would change (a tuple, an integer
    # key, a NaN) would make a kept run differ from a computed one
    assert json.loads(json.dumps(answer)) == answer
    return answer
