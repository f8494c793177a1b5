"""`litaudit papers ...`."""

from __future__ import annotations

import typer

app = typer.Typer(help="papers", no_args_is_help=True)
