"""`litaudit audit list/show/matrix`: the stored audits, and the audit of a score matrix.

Listed in cli/main.py's _COMMANDS, after cli/audit.py's commands.
"""

from __future__ import annotations

from pathlib import Path

import typer

from litaudit import defaults
from litaudit.cli.common import open_for_audit, open_read
from litaudit.cli.options import (
    Alpha,
    InputFormatOpt,
    Json,
    MeasureFilter,
    MethodOpt,
    NoSave,
    OldInputFormat,
    OptCollection,
    PInterval,
    Seed,
    Trials,
    collection_option,
    measure_option,
    se_option,
)


def list_(
    ctx: typer.Context,
    kind: str = typer.Option(None, "--kind", help="best | claim | history | ..."),
    collection: OptCollection = None,
    measure: str = MeasureFilter,
    json_out: Json = False,
):
    """List stored audits (all kinds unless --kind)."""
    from litaudit.analyses.stored_audits import stored_audits
    from litaudit.render.audits import print_audit_list

    with open_read(ctx) as store:
        rows = stored_audits(store.con, kind=kind, collection=collection, measure=measure)
    print_audit_list(rows, json_out)


def show(
    ctx: typer.Context,
    audit_id: int = typer.Argument(..., help="Audit id."),
    json_out: Json = False,
):
    """Show a stored audit as its command printed it (or its full record with --json)."""
    from litaudit.analyses.audits import get_audit
    from litaudit.render.audits import show_stored

    with open_read(ctx) as store:
        a = get_audit(store.con, audit_id)
    show_stored(a, json_out)


def matrix(
    ctx: typer.Context,
    files: list[Path] = typer.Argument(
        ..., help="A topic-by-run CSV, or trec_eval -q outputs (one run per file)."
    ),
    measure: str = measure_option(..., "of the scores (picks the trec_eval rows)"),
    collection: str = collection_option(None, "the one the runs were evaluated on (to store)"),
    fmt: str = InputFormatOpt,
    _old_format: OldInputFormat = None,
    alpha: Alpha = defaults.ALPHA,
    p: PInterval = defaults.P_INTERVAL,
    method: str = MethodOpt,
    trials: Trials = None,
    seed: Seed = None,
    se: str = se_option(
        "interaction (measured from the matrix), model (sd/sqrt(n)) or a value (default: "
        "interaction)."
    ),
    no_save: NoSave = False,
    json_out: Json = False,
):
    """Extreme-value audit of run means from a per-topic score matrix (N runs, n topics),
    with the standard error measured from its system x topic interaction."""
    from litaudit.analyses.extreme.requests import MatrixRequest, ModelOptions, answer_matrix
    from litaudit.render.audits import emit

    req = MatrixRequest(
        files=tuple(files),
        measure=measure,
        collection=collection,
        fmt=fmt,
        options=ModelOptions(alpha=alpha, p=p, method=method, trials=trials, seed=seed, se=se),
        save=not no_save,
    ).checked()
    with open_for_audit(ctx, req.save) as con:
        done = answer_matrix(con, req)
    emit(done, json_out)
