"""The digest that keys the session fixtures' kept builds (tests/conftest.py,
``_build_key``): a change to anything they are built from changes it, so that a kept
build is never reused for code, seeds, schema, shared data or libraries it was not built
from."""

from __future__ import annotations

import importlib.metadata
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.conftest import _build_key


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    """A repository root (the package, schema/, seeds/) and a trec folder, one file each."""
    root = tmp_path / "repo"
    for top, name in (("litaudit", "mod.py"), ("schema", "001.sql"), ("seeds", "a.csv")):
        (root / top).mkdir(parents=True)
        (root / top / name).write_text(f"{top}\n")
    trec = tmp_path / "trec"
    (trec / "runs").mkdir(parents=True)
    (trec / "runs" / "input.a").write_text("run\n")
    return root, trec


def test_a_change_to_any_input_changes_the_key(tree, monkeypatch):
    root, trec = tree
    key = _build_key(root, trec)
    # the installed distributions as names and versions, read once: each key below parses
    # every one's METADATA otherwise (~40 ms a key)
    real = [
        SimpleNamespace(metadata={"Name": d.metadata["Name"]}, version=d.version)
        for d in importlib.metadata.distributions()
    ]
    monkeypatch.setattr(importlib.metadata, "distributions", lambda: real)
    assert key == _build_key(root, trec)  # the same inputs, the same key
    changes = [
        lambda: (root / "litaudit" / "mod.py").write_text("litaudit, edited\n"),
        lambda: (root / "schema" / "002.sql").write_text("new\n"),
        lambda: (root / "seeds" / "a.csv").rename(root / "seeds" / "b.csv"),
        lambda: (trec / "runs" / "input.a").write_text("run, longer\n"),
        lambda: os.utime(trec / "runs" / "input.a", ns=(1, 1)),  # same size, another time
    ]
    seen = {key}
    for change in changes:
        change()
        now = _build_key(root, trec)
        assert now not in seen
        seen.add(now)
    # a compiled module beside the sources is not an input
    (root / "litaudit" / "__pycache__").mkdir()
    (root / "litaudit" / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"\0")
    assert _build_key(root, trec) in seen
    # an installed distribution's version
    fake = SimpleNamespace(metadata={"Name": "zz-fake"}, version="1.0")
    monkeypatch.setattr(importlib.metadata, "distributions", lambda: [*real, fake])
    with_fake = _build_key(root, trec)
    assert with_fake not in seen
    fake.version = "1.1"
    assert _build_key(root, trec) not in {*seen, with_fake}


def test_the_key_without_shared_data(tree):
    """No trec folder (a clone without ../shared): a key all the same, another one."""
    root, trec = tree
    assert _build_key(root, trec.parent / "absent") != _build_key(root, trec)
