"""README.md names every command of the CLI (read from the Typer app, not from a list), and
its transcripts are what the commands print."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.main import get_command

from litaudit.cli.main import app
from tests.conftest import copy_db

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


# ------------------------------------------------------------------ the transcripts
# README transcripts a stranger reads cold, run on the seeded store with the robust03
# run archive (as the README's own steps build it): each README line of a transcript
# before its first "..." (table rows apart: their widths follow the terminal) must be
# in the command's output, the audit numbers aside.
TRANSCRIPTS = (
    "litaudit audit best -c trec7 -m MAP --source official --se model",
    "litaudit audit claim -c robust04 -m AP --value 0.3720",
    "litaudit audit claim -c msmarco-passage/dev -m MRR@10 --value 0.440",
    "litaudit audit claim -c robust03 -m AP --system pircRBa1 --run runs/robust03/input.pircRBa1.gz",
    "litaudit audit claim -c robust04 -m AP --value 37.2",
    "litaudit audit claim -c dl19 -m nDCG@10 --value 0.745",
    "litaudit audit claim -c msmarco-passage/dev -m recip_rank --value 0.397",
    "litaudit audit baselines -c msmarco-passage/dev -m RR@10 --baseline 0.187 --baseline-system BM25",
)


def _transcript(command: str) -> list[str]:
    """The README's lines after ``$ command`` up to its first '...' or the next command."""
    lines = README.read_text(encoding="utf-8").splitlines()
    start = lines.index(f"$ {command}") + 1
    out = []
    for line in lines[start:]:
        if line.startswith(("$ ", "```")) or line == "...":
            break
        out.append(line)
    return out


def _flat(text: str) -> str:
    return " ".join(re.sub(r"\[audit #\d+\]", "[audit #N]", text).split())


def test_readme_transcript_lines_are_found():
    assert len(_transcript(TRANSCRIPTS[1])) >= 5
    assert _transcript(TRANSCRIPTS[4]) == [
        "Error: claimed AP 37.2 is not a fraction; did you mean 0.372? (AP lies between 0 and 1)",
        "",
    ]


@pytest.mark.slow
def test_readme_transcripts_match_the_commands(cli, robust03_db_file, shared_data, tmp_path):
    db = tmp_path / "readme.duckdb"
    copy_db(robust03_db_file, db)
    trec = shared_data / "trec"
    stale = []
    for command in TRANSCRIPTS:
        args = [
            str(trec / a) if a.startswith(("runs/", "qrels/")) else a
            for a in shlex.split(command)[1:]
        ]
        res = cli(*args, db=db)
        got = _flat(res.stdout + res.stderr)
        want = [x for x in _transcript(command) if x.strip() and x[:1] not in "┃│┏┡└"]
        assert want, command
        stale += [f"{command}: {w}" for w in want if _flat(w) not in got]
    assert stale == []
