"""Commands registered on `litaudit reuse` (see litaudit/cli/reuse.py)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this module's commands to the `reuse` sub-app."""
