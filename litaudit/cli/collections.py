"""`litaudit collections ...`."""

from __future__ import annotations

import typer

app = typer.Typer(help="collections", no_args_is_help=True)
