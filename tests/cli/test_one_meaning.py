"""One meaning per option name (issue 37 item 1): a short flag stands for the same long
option in every command (-m is --measure, -k --depth, -o --output), read from every
registered command's parameters; a short flag a command gave another meaning is refused
there, naming the command's own option."""

from __future__ import annotations

import collections
import importlib

import pytest
import typer

from litaudit.cli.main import _COMMANDS


def _options():
    """(command words, short flags, long names) of each visible option of every command."""
    for words, mod, attr in _COMMANDS:
        app = typer.Typer()
        app.command()(getattr(importlib.import_module(f"litaudit.cli.{mod}"), attr))
        for param in typer.main.get_command(app).params:
            if type(param).__name__.endswith("Option") and not getattr(param, "hidden", False):
                names = param.opts + param.secondary_opts
                longs = tuple(sorted(n for n in names if n.startswith("--")))
                yield words, [n for n in param.opts if not n.startswith("--")], longs


def test_a_short_flag_means_one_option_in_every_command():
    meanings: dict[str, dict[tuple[str, ...], list[str]]] = collections.defaultdict(
        lambda: collections.defaultdict(list)
    )
    for words, shorts, longs in _options():
        for short in shorts:
            meanings[short][longs].append(words)
    clashes = {s: dict(m) for s, m in meanings.items() if len(m) > 1}
    assert clashes == {}
    assert set(meanings["-m"]) == {("--measure",)}
    assert set(meanings["-k"]) == {("--depth",)}
    assert set(meanings["-o"]) == {("--output",)}


@pytest.mark.parametrize(
    "args,use",
    [
        (("reuse", "design", "-m", "14", "-N", "249", "--baseline-min", "0"), "--sites 14"),
        (("reuse", "holdout", "--sites", "3", "-N", "6", "-k", "1", "-o", "-"), "--held-out 1"),
        (("reuse", "agreement", "-c", "robust03", "-k", "1"), "--held-out 1"),
        (("reuse", "table", "-o", "6,3,0,1"), "--observed 6,3,0,1"),
    ],
)
def test_a_short_flag_of_another_meaning_is_refused_naming_the_option(cli, args, use):
    res = cli(*args)
    assert res.exit_code == 2
    assert f"use {use}" in " ".join(res.output.split()).replace("│", "")
    assert not cli.db.exists()
