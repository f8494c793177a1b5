"""`litaudit audit ...`: extreme-value audits of published results (Carterette 2015)."""

from __future__ import annotations

import typer

app = typer.Typer(help="Is the best published result beyond chance? (Carterette, SIGIR 2015)",
                  no_args_is_help=True)
