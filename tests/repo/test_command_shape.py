"""Every command one shape (issue 37 item 1): a command function parses its options into
one settings object, makes one call into the library (analyses, curation, runs, store)
that returns a typed result, and hands it to one renderer (litaudit.render), read from
each command function's syntax tree (ast). Plumbing is not counted: opening the store
(litaudit.cli.common), the options' helpers (litaudit.cli.options), progress bars
(litaudit.render.progress) and making a settings object (a class: a capitalized name).
A call of a helper function of the command's own module counts against it (what computes
belongs in analyses/ or render/)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

from litaudit.cli.main import _COMMANDS
from tests.repo import syntax

CLI = Path(__file__).resolve().parents[2] / "litaudit" / "cli"
LIBRARY = ("litaudit.analyses", "litaudit.curation", "litaudit.runs", "litaudit.store")
PLUMBING = ("litaudit.render.progress", "litaudit.cli")

# Commands not yet in the shape: none left (issue 37); a new command starts in the shape.
# `python -m tests.repo.test_command_shape` lists it.
NOT_YET: frozenset[str] = frozenset()


def _module(mod: str) -> ast.Module:
    return syntax.tree(CLI / f"{mod}.py")


@functools.cache
def _module_imports(mod: str) -> dict[str, str]:
    """A cli module's ``from M import name`` names, walked once for all its commands."""
    return _imported(_module(mod).body)


def _imported(nodes) -> dict[str, str]:
    """Local name -> the module it was imported from (``from M import name``)."""
    names: dict[str, str] = {}
    for node in nodes:
        for sub in ast.walk(node):
            if isinstance(sub, ast.ImportFrom) and sub.module and not sub.level:
                for a in sub.names:
                    names[a.asname or a.name] = sub.module
    return names


def shape(mod: str, attr: str) -> dict[str, list[str]]:
    """The calls of a command function's body: into the library, into render, and of its
    module's own helper functions."""
    tree = _module(mod)
    helpers = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    [fn] = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == attr]
    names = {**_module_imports(mod), **_imported(fn.body)}
    got: dict[str, list[str]] = {"library": [], "render": [], "helper": []}
    for sub in ast.walk(ast.Module(body=fn.body, type_ignores=[])):
        if not isinstance(sub, ast.Call) or not isinstance(sub.func, ast.Name):
            continue
        name = sub.func.id
        where = names.get(name)
        if where is None:
            if name in helpers:
                got["helper"].append(name)
            continue
        if name[:1].isupper() or where.startswith(PLUMBING):
            continue
        if where.startswith(LIBRARY):
            got["library"].append(name)
        elif where.startswith("litaudit.render"):
            got["render"].append(name)
    return got


def _in_shape(got: dict[str, list[str]]) -> bool:
    return len(got["library"]) == 1 and len(got["render"]) <= 1 and not got["helper"]


@pytest.mark.parametrize("words,mod,attr", _COMMANDS, ids=[w for w, _, _ in _COMMANDS])
def test_each_command_is_parse_one_call_render(words, mod, attr):
    got = shape(mod, attr)
    if words in NOT_YET:
        assert not _in_shape(got), f"`{words}` is in the shape now: take it off NOT_YET"
        return
    assert _in_shape(got), (
        f"`litaudit {words}` (cli/{mod}.py {attr}): one library call and one renderer "
        f"expected, got {got}"
    )


def test_the_allowlist_names_only_commands():
    assert NOT_YET <= {w for w, _, _ in _COMMANDS}


if __name__ == "__main__":  # the shape of every command, for the one moving it
    for words, mod, attr in _COMMANDS:
        got = shape(mod, attr)
        print("ok  " if _in_shape(got) else "NOT ", words, {k: v for k, v in got.items() if v})
