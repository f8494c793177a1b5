"""`litaudit runs ...`: TREC run archives (import, list, show, delete, eval)."""

from __future__ import annotations

import typer

app = typer.Typer(help="Import TREC run archives and evaluate them as trec_eval does.",
                  no_args_is_help=True)
