"""`litaudit audit resolution`: what a collection can resolve (issue 34, item 3).

Listed in cli/main.py's _COMMANDS, after cli/audit.py's commands.
"""

from __future__ import annotations

from pathlib import Path

import typer

from litaudit import defaults
from litaudit.cli.common import open_for_audit
from litaudit.cli.options import Alpha, Json, MeasureOpt, NoSave, OptCollection


def resolution(
    ctx: typer.Context,
    collection: OptCollection = None,
    measure: str = MeasureOpt,
    gap: float = typer.Option(
        None,
        "--gap",
        help="A difference to size the collection for: the topics (datasets) it needs.",
        show_default=False,
    ),
    top: int = typer.Option(10, "--top", help="The top systems whose paired spread is used."),
    power: float = typer.Option(0.8, "--power", help="The power asked of the paired t-test."),
    alpha: Alpha = defaults.ALPHA,
    matrix: Path = typer.Option(
        None,
        "--matrix",
        help="A topic-by-run CSV to read instead of the store (stored with --collection).",
        show_default=False,
    ),
    no_save: NoSave = False,
    json_out: Json = False,
):
    """The smallest difference between systems like the top ones that a paired t-test
    detects with 80% power, and the topics a gap needs (Sakai's topic set size design),
    from per-topic (run archive, --matrix) or per-dataset scores (BEIR's means)."""
    from litaudit.analyses.extreme.resolution import ResolutionSettings, run_resolution
    from litaudit.render.audits import emit

    settings = ResolutionSettings(top=top, alpha=alpha, power=power, gap=gap)
    with open_for_audit(ctx, not no_save) as con:
        done = run_resolution(
            con, collection, measure, matrix=matrix, settings=settings, save=not no_save
        )
    emit(done, json_out)
