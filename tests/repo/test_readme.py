"""README.md names every command of the CLI (read from the Typer app, not from a list)."""

from __future__ import annotations

from pathlib import Path

from typer.main import get_command

from litaudit.cli.main import app

README = Path(__file__).resolve().parents[2] / "README.md"


def _commands(group, path: tuple[str, ...] = ()) -> list[str]:
    """Every leaf command, as typed: 'audit best', 'init', ..."""
    subs = getattr(group, "commands", None)
    if not subs:
        return [" ".join(path)]
    return [c for name in list(subs.keys()) for c in _commands(subs[name], (*path, name))]


def test_the_readme_lists_every_command():
    commands = _commands(get_command(app))
    assert len(commands) > 30  # the walk reached the sub-apps' commands
    text = README.read_text(encoding="utf-8")
    missing = [c for c in commands if f"`litaudit {c}`" not in text]
    assert missing == []
