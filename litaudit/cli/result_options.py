"""The options naming a published result's (or a paper's) fields, each defined once: a
command that sets the field (`results add`, `papers add`) and one that filters by it
(`results list`/`export`, the population filters of cli/filter_options.py) take the same
option, with its default and what the command does with it (its help's tail).

Light: typer only (imported by the command modules).
"""

from __future__ import annotations

from typing import Any

import typer

ROLES = "proposed | baseline | official | reproduction | leaderboard"


def _option(default: Any, name: str, meaning: str, use: str) -> Any:
    text = meaning + (f" ({use})" if use else "") + "."
    return typer.Option(default, name, help=text, show_default=False)


def role_option(default: Any, use: str) -> Any:
    """`--role`: a result's role in its source."""
    return _option(default, "--role", f"A result's role: {ROLES}", use)


def source_option(default: Any, use: str) -> Any:
    """`--source`: a result's source, papers | official (a pool depth's is `--citation`)."""
    return _option(default, "--source", "A result's source: papers | official", use)


def track_option(default: Any, use: str) -> Any:
    """`--track`: a TREC track or a leaderboard."""
    return _option(default, "--track", "A TREC track or leaderboard, e.g. trec7/adhoc", use)


def paper_option(default: Any, use: str) -> Any:
    """`--paper`: a paper by its bibkey."""
    return _option(default, "--paper", "Paper bibkey", use)


def year_option(default: Any, use: str) -> Any:
    """`--year`: a result's or a paper's year (a range of years is `--years`)."""
    return _option(default, "--year", "Year", use)


def reason_option(default: Any, use: str) -> Any:
    """`--reason`: why a change is made, kept in its history."""
    return _option(default, "--reason", "Why, kept in the history", use)


def citation_option(default: Any, use: str) -> Any:
    """`--citation`: a short citation of a work (a paper, a track overview)."""
    return _option(default, "--citation", "A short citation", use)


def url_option(default: Any, use: str) -> Any:
    """`--url`: a web address (http(s))."""
    return _option(default, "--url", "Its web address (http(s))", use)


def value_option(default: Any, use: str) -> Any:
    """`--value`: a result's value exactly as printed (its digits kept)."""
    return _option(default, "--value", "A value exactly as printed, e.g. 0.2531", use)


def system_option(default: Any, use: str) -> Any:
    """`--system`: a result's system, by its label or run id."""
    return _option(default, "--system", "A system, by its label or run id", use)


def run_type_option(default: Any, use: str) -> Any:
    """`--run-type`: automatic | manual (TREC's run types)."""
    return _option(default, "--run-type", "Run type: automatic | manual", use)


def title_option(default: Any, use: str) -> Any:
    """`--title`: a work's title (a paper's, a collection's)."""
    return _option(default, "--title", "Title", use)
