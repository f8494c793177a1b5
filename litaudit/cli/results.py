"""`litaudit results ...`."""

from __future__ import annotations

import typer

app = typer.Typer(help="results", no_args_is_help=True)
