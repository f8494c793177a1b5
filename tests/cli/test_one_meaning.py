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


def _defined() -> dict[str, set[str]]:
    """Each long option name -> the cli modules whose source defines it (a literal '--name'
    in a typer.Option call or filter_options.optional's, or a command parameter's
    typer.Option(...) default with no name, which typer names after the parameter), read
    by ast."""
    import ast
    from pathlib import Path

    from tests.repo import syntax

    def called(node: ast.AST) -> str | None:
        fn = getattr(node, "func", None)
        return getattr(fn, "attr", None) or getattr(fn, "id", None)

    found: dict[str, set[str]] = collections.defaultdict(set)
    for path in sorted((Path(__file__).resolve().parents[2] / "litaudit" / "cli").glob("*.py")):
        for node in syntax.nodes(syntax.source(path)):
            if isinstance(node, ast.Call) and called(node) in ("Option", "optional"):
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and str(arg.value).startswith("--"):
                        found[str(arg.value)].add(path.stem)
            if isinstance(node, ast.FunctionDef):
                args = node.args.args[len(node.args.args) - len(node.args.defaults) :]
                for param, default in zip(args, node.args.defaults, strict=True):
                    if called(default) == "Option" and not any(
                        isinstance(a, ast.Constant) and str(a.value).startswith("-")
                        for a in getattr(default, "args", ())
                    ):
                        found["--" + param.arg.strip("_").replace("_", "-")].add(path.stem)
    return found


# Options still defined in several cli modules, each with why: none is left. Every shared
# option is defined once in cli/options.py (the population filters' in cli/filter_options.py,
# made by options.py's factories); an option that meant something else under a shared name
# has a name of its own (the renames below), the old name refused there.
SEVERAL: dict[str, str] = {}


def test_an_option_of_several_modules_is_defined_once_or_says_why():
    several = {name for name, mods in _defined().items() if len(mods - {"options"}) > 1}
    assert several <= set(SEVERAL), (
        f"defined in several cli modules: {sorted(several - set(SEVERAL))}"
    )
    gone = set(SEVERAL) - several
    assert not gone, f"now defined once: take {sorted(gone)} off SEVERAL"
    assert SEVERAL == {}


@pytest.mark.parametrize(
    "args,use",
    [
        (("runs", "eval", "-c", "robust04", "--run", "InexpC2"), "--run-tag InexpC2"),
        (("runs", "delete", "-c", "robust04", "--all"), "--whole-archive"),
        (("reuse", "agreement", "-c", "robust03", "--baseline", "10"), "--baseline-topics 10"),
        (("reuse", "verdict", "-c", "robust03", "--topics", "601-650"), "--topic-ids 601-650"),
        (("audit", "matrix", "x.csv", "-m", "AP", "--format", "csv"), "--input-format csv"),
        (("audit", "ranks", "-m", "AP", "--format", "trec_eval"), "--input-format trec_eval"),
        (("collections", "depth", "robust04", "100", "--source", "TREC"), "--citation TREC"),
    ],
)
def test_an_option_given_another_meaning_is_refused_naming_its_new_name(cli, args, use):
    """One meaning per long name: where a command's option meant something else under a
    name other commands share, the command refuses the old name, naming its own."""
    res = cli(*args)
    assert res.exit_code == 2, res.output
    assert f"use {use}" in " ".join(res.output.replace("│", "").split())
    assert not cli.db.exists()


def test_a_renamed_option_is_gone_from_its_command_and_its_new_name_is_there():
    longs: dict[str, set[str]] = collections.defaultdict(set)
    for words, _shorts, names in _options():
        longs[words].update(names)
    renamed = {
        "runs eval": ("--run", "--run-tag"),
        "runs delete": ("--all", "--whole-archive"),
        "reuse agreement": ("--baseline", "--baseline-topics"),
        "reuse verdict": ("--topics", "--topic-ids"),
        "audit matrix": ("--format", "--input-format"),
        "audit ranks": ("--format", "--input-format"),
        "collections depth": ("--source", "--citation"),
    }
    for words, (old, new) in renamed.items():
        assert old not in longs[words] and new in longs[words], words
