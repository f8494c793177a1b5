"""One meaning per option name (issue 37): `--seed` is the Monte Carlo seed of the
extreme-value audits; the other seeds have their own names, and a command whose seed had
another name refuses `--seed` with its new one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

CLI = Path(__file__).resolve().parents[2] / "litaudit" / "cli"


@pytest.mark.parametrize(
    "args, new",
    [
        (("audit", "ranks", "-c", "beir-13", "-m", "nDCG@10"), "--resample-seed"),
        (("reuse", "subcollections", "-c", "robust03"), "--split-seed"),
        (("reuse", "verdict", "-c", "robust03"), "--assignment-seed"),
        (("reuse", "agreement", "-c", "robust03"), "--topic-seed"),
        (("reuse", "holdout", "--sites", "3", "--topics", "6", "-o", "-"), "--topic-seed"),
    ],
)
def test_a_renamed_seed_is_refused_with_its_new_name(cli, args, new):
    r = cli(*args, "--seed", "5")
    assert r.exit_code == 2, r.output
    said = " ".join(r.output.replace("│", " ").split())
    assert f"use {new} 5" in said and "--seed is the Monte Carlo seed" in said
    # the new name is in the command's help, the old one is not
    shown = " ".join(cli(*args[:2], "--help").output.replace("│", " ").split())
    assert new in shown and "--seed " not in shown


def test_each_shared_option_is_defined_once():
    """`--seed`, `--json`, `--collection` and the extreme-value model's options are
    spelled only in cli/options.py (the commands take their Annotated types)."""
    for path in sorted(CLI.glob("*.py")):
        if path.name == "options.py":
            continue
        text = path.read_text(encoding="utf-8")
        for flag in ("--seed", "--json", "--trials", "--p"):
            assert not re.search(rf'Option\([^)]*"{flag}"', text), (path.name, flag)
