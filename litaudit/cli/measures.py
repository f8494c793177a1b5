"""`litaudit measures ...`."""

from __future__ import annotations

import typer

app = typer.Typer(help="measures", no_args_is_help=True)
