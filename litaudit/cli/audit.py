"""`litaudit audit ...`: extreme-value audits of published results (Carterette 2015).

Every command stores its audit (parameters, method, seed, input fingerprint, version,
result) unless ``--no-save``; with ``--no-save`` the database is opened read-only.
Rendering (litaudit.render.audits) works on the typed report, the same type a stored
audit decodes into, so `audit show` prints a stored audit exactly as the command that
made it did.
"""

from __future__ import annotations

from pathlib import Path

import typer

from litaudit import defaults
from litaudit.cli.common import JsonOpt, open_read, open_write

app = typer.Typer(
    help="Published results against the record and against chance (Carterette, SIGIR 2015)",
    no_args_is_help=True,
)

CollectionOpt = typer.Option(..., "--collection", "-c", help="Collection id or alias.")
MeasureOpt = typer.Option(..., "--measure", "-m", help="Measure (AP, MAP, P@10, P_10, ...).")
SourceOpt = typer.Option(
    None, "--source", help="papers | official (default: both).", show_default=False
)
RoleOpt = typer.Option(
    None,
    "--role",
    help="proposed | baseline | official | reproduction (repeatable) (default: all).",
    show_default=False,
)
RunTypeOpt = typer.Option(
    None, "--run-type", help="automatic | manual (repeatable) (default: all).", show_default=False
)
YearsOpt = typer.Option(None, "--years", help="YEAR or FROM-TO.")
SinceOpt = typer.Option(
    None,
    "--since",
    help="Results dated on or after YYYY, YYYY-MM or YYYY-MM-DD (undated results by their year).",
)
UntilOpt = typer.Option(
    None,
    "--until",
    help="Results dated on or before YYYY, YYYY-MM or YYYY-MM-DD (undated results by their year).",
)
ReporterOpt = typer.Option(
    None,
    "--reporter",
    help="Who reported the value: authors, nist, "
    "leaderboard, mteb, unknown (repeatable) (default: all).",
    show_default=False,
)
TrackOpt = typer.Option(
    None,
    "--track",
    help="A track or leaderboard, or a prefix ending in "
    "'/' (msmarco-passage/leaderboard/full-ranking).",
    show_default=False,
)
TopicsOpt = typer.Option(
    None,
    "--topics",
    help="Topic count (50) or topic-set name "
    "(default: the only one, else the collection's default set).",
    show_default=False,
)
RetractedOpt = typer.Option(False, "--include-retracted", help="Include retracted results.")
NonstandardOpt = typer.Option(
    False, "--include-nonstandard", help="Include results flagged non-standard."
)
AlphaOpt = typer.Option(
    defaults.ALPHA, "--alpha", help="Level of the thresholds of the max and min (0 < alpha < 1)."
)
POpt = typer.Option(
    defaults.P_INTERVAL,
    "--p",
    help="Probability defining mu0 and the lower bound (0 < p < 0.5; interval coverage 1-2p).",
)
MethodOpt = typer.Option("exact", "--method", help="exact | montecarlo (the paper's sampling).")
TrialsOpt = typer.Option(
    None,
    "--trials",
    help=f"Monte Carlo trials (default: {defaults.MONTECARLO_TRIALS}).",
    show_default=False,
)
SeedOpt = typer.Option(
    None,
    "--seed",
    help=f"Monte Carlo seed (default: {defaults.MONTECARLO_SEED}).",
    show_default=False,
)
NoSaveOpt = typer.Option(False, "--no-save", help="Do not store the audit (read-only).")


def _filters(
    source,
    role,
    run_type,
    years,
    topics,
    include_retracted,
    include_nonstandard,
    since=None,
    until=None,
    reporter=None,
    track=None,
):
    from litaudit.curation.filters import Filters

    return Filters.parse(
        source=source,
        roles=role or (),
        run_types=run_type or (),
        years=years,
        topics=topics,
        include_retracted=include_retracted,
        include_nonstandard=include_nonstandard,
        since=since,
        until=until,
        reporters=reporter or (),
        track=track,
    )


def _run(ctx: typer.Context, no_save: bool, fn):
    """Call fn(con) on a read-only store (--no-save) or inside a write transaction."""
    if no_save:
        with open_read(ctx) as store:
            return fn(store.con)
    with open_write(ctx) as store, store.transaction() as con:
        return fn(con)


def _print(renderable) -> None:
    from litaudit.render.audits import wide

    wide(renderable)


def _emit(rep, json_out: bool, kind: str) -> None:
    """--json: the report itself (its ``audit_id`` inside); else its kind's renderer."""
    from litaudit.render.console import print_json

    if json_out:
        print_json(rep)
        return
    from litaudit.render.audits import render_result, render_summary

    if kind == "summary":
        render_summary(rep)
    else:
        render_result(kind, rep)


@app.command("best")
def best(
    ctx: typer.Context,
    collection: str = CollectionOpt,
    measure: str = MeasureOpt,
    source: str = SourceOpt,
    role: list[str] = RoleOpt,
    run_type: list[str] = RunTypeOpt,
    years: str = YearsOpt,
    topics: str = TopicsOpt,
    include_retracted: bool = RetractedOpt,
    include_nonstandard: bool = NonstandardOpt,
    alpha: float = AlphaOpt,
    p: float = POpt,
    method: str = MethodOpt,
    trials: int = TrialsOpt,
    seed: int = SeedOpt,
    no_save: bool = NoSaveOpt,
    since: str = SinceOpt,
    until: str = UntilOpt,
    reporter: list[str] = ReporterOpt,
    track: str = TrackOpt,
    json_out: bool = JsonOpt,
):
    """The population, the thresholds of its max and min, and the candidate best systems
    (Tables 2-3)."""
    from litaudit.analyses.best import run_best

    f = _filters(
        source,
        role,
        run_type,
        years,
        topics,
        include_retracted,
        include_nonstandard,
        since,
        until,
        reporter,
        track,
    )
    rep = _run(
        ctx,
        no_save,
        lambda con: run_best(
            con,
            collection,
            measure,
            filters=f,
            alpha=alpha,
            p=p,
            method=method,
            trials=trials,
            seed=seed,
            save=not no_save,
        ),
    )
    _emit(rep, json_out, "best")


def _run_claim(ctx: typer.Context, no_save: bool, f, collection, measure, value, **kw):
    """`audit claim`'s analysis: run_claim on the store (saved unless --no-save)."""
    from litaudit.analyses.best import run_claim

    return _run(
        ctx,
        no_save,
        lambda con: run_claim(con, collection, measure, value, filters=f, save=not no_save, **kw),
    )


@app.command("claim")
def claim(
    ctx: typer.Context,
    collection: str = CollectionOpt,
    measure: str = MeasureOpt,
    value: float = typer.Option(
        None,
        "--value",
        help="A new claimed value (judged as one more draw besides the N published).",
        show_default=False,
    ),
    result: int = typer.Option(
        None,
        "--result",
        help="A published result's id (judged as one of the N).",
        show_default=False,
    ),
    system: str = typer.Option(
        None,
        "--system",
        help="A published result by its system name (judged as one of the N).",
        show_default=False,
    ),
    n: int = typer.Option(
        None,
        "--n",
        help="Experiments besides the claim (default: N for --value, N - 1 for --result/--system).",
        show_default=False,
    ),
    hidden_multiplier: float = typer.Option(
        1.0, "--hidden-multiplier", help="Experiments run per experiment published."
    ),
    source: str = SourceOpt,
    role: list[str] = RoleOpt,
    run_type: list[str] = RunTypeOpt,
    years: str = YearsOpt,
    topics: str = TopicsOpt,
    include_retracted: bool = RetractedOpt,
    include_nonstandard: bool = NonstandardOpt,
    alpha: float = AlphaOpt,
    p: float = POpt,
    method: str = MethodOpt,
    trials: int = TrialsOpt,
    seed: int = SeedOpt,
    no_save: bool = NoSaveOpt,
    since: str = SinceOpt,
    until: str = UntilOpt,
    reporter: list[str] = ReporterOpt,
    track: str = TrackOpt,
    json_out: bool = JsonOpt,
):
    """A claim against the record, against chance (the max of N+1, or of N for a published
    result) and its own mu0 and interval."""
    ft = (source, role, run_type, years, topics, include_retracted, include_nonstandard)
    f = _filters(*ft, since, until, reporter, track)
    rep = _run_claim(
        ctx,
        no_save,
        f,
        collection,
        measure,
        value,
        result_id=result,
        system=system,
        n=n,
        hidden_multiplier=hidden_multiplier,
        alpha=alpha,
        p=p,
        method=method,
        trials=trials,
        seed=seed,
    )
    _emit(rep, json_out, "claim")


@app.command("history")
def history(
    ctx: typer.Context,
    collection: str = CollectionOpt,
    measure: str = MeasureOpt,
    reference: str = typer.Option(
        "final", "--reference", help="final (all results) | running (so far)."
    ),
    source: str = SourceOpt,
    role: list[str] = RoleOpt,
    run_type: list[str] = RunTypeOpt,
    years: str = YearsOpt,
    topics: str = TopicsOpt,
    include_retracted: bool = RetractedOpt,
    include_nonstandard: bool = NonstandardOpt,
    alpha: float = AlphaOpt,
    no_save: bool = NoSaveOpt,
    since: str = SinceOpt,
    until: str = UntilOpt,
    reporter: list[str] = ReporterOpt,
    track: str = TrackOpt,
    every: bool = typer.Option(
        False, "--all", help="Show every step, not only the ones that set a record."
    ),
    by: str = typer.Option(
        "auto", "--by", help="Steps: date, year, or auto (by date when every result has one)."
    ),
    json_out: bool = JsonOpt,
):
    """The record over time against the expected max and its threshold for the N so far."""
    from litaudit.analyses.best import run_history

    f = _filters(
        source,
        role,
        run_type,
        years,
        topics,
        include_retracted,
        include_nonstandard,
        since,
        until,
        reporter,
        track,
    )
    rep = _run(
        ctx,
        no_save,
        lambda con: run_history(
            con,
            collection,
            measure,
            filters=f,
            alpha=alpha,
            reference=reference,
            by=by,
            save=not no_save,
        ),
    )
    if json_out or not every:
        _emit(rep, json_out, "history")
    else:
        from litaudit.render.audits import render_history

        render_history(rep, every=True)


@app.command("summary")
def summary(
    ctx: typer.Context,
    min_n: int = typer.Option(
        defaults.MIN_N, "--min-n", help=f"Smallest population audited (at least {defaults.MIN_N})."
    ),
    alpha: float = AlphaOpt,
    p: float = POpt,
    include_retracted: bool = RetractedOpt,
    include_nonstandard: bool = NonstandardOpt,
    no_save: bool = NoSaveOpt,
    since: str = SinceOpt,
    until: str = UntilOpt,
    reporter: list[str] = ReporterOpt,
    json_out: bool = JsonOpt,
):
    """`audit best` (exact) for every collection, measure and source; one table."""
    from litaudit.render.progress import progress_bar

    f = _filters(
        None, None, None, None, None, include_retracted, include_nonstandard, since, until, reporter
    )
    with progress_bar("audit best", unit="groups", quiet=json_out) as bar:
        from litaudit.analyses.summary import run_summary

        rep = _run(
            ctx,
            no_save,
            lambda con: run_summary(
                con, min_n=min_n, alpha=alpha, p=p, filters=f, save=not no_save, progress=bar
            ),
        )
    _emit(rep, json_out, "summary")


@app.command("list")
def list_(
    ctx: typer.Context,
    kind: str = typer.Option(None, "--kind", help="best | claim | history | ..."),
    collection: str = typer.Option(None, "--collection", "-c", help="Collection id or alias."),
    measure: str = typer.Option(None, "--measure", "-m", help="Measure."),
    json_out: bool = JsonOpt,
):
    """List stored audits (all kinds unless --kind)."""
    from litaudit.analyses.audits import list_audits
    from litaudit.render.console import print_json, table
    from litaudit.store.refdata import resolve_collection, resolve_measure

    with open_read(ctx) as store:
        cid = resolve_collection(store.con, collection).id if collection else None
        meas = resolve_measure(store.con, measure) if measure else None
        rows = list_audits(store.con, kind=kind, collection_id=cid, measure=meas)
    if json_out:
        print_json([{k: v for k, v in a.__dict__.items() if k != "result"} for a in rows])
        return
    _print(
        table(
            f"{len(rows)} stored audits",
            [
                "id",
                "kind",
                "collection",
                "measure",
                "method",
                "seed",
                "trials",
                "input",
                "version",
                "created",
            ],
            [
                (
                    a.id,
                    a.kind,
                    a.collection_id,
                    a.measure or "-",
                    a.method,
                    a.seed,
                    a.trials,
                    a.input_fingerprint[:12],
                    a.software_version,
                    a.created_at[:19],
                )
                for a in rows
            ],
        )
    )


@app.command("show")
def show(
    ctx: typer.Context,
    audit_id: int = typer.Argument(..., help="Audit id."),
    json_out: bool = JsonOpt,
):
    """Show a stored audit as its command printed it (or its full record with --json)."""
    from litaudit.analyses.audits import get_audit
    from litaudit.render.audits import render_stored
    from litaudit.render.console import print_json

    with open_read(ctx) as store:
        a = get_audit(store.con, audit_id)
    if json_out:
        print_json(a)
        return
    render_stored(a)


@app.command("matrix")
def matrix(
    ctx: typer.Context,
    files: list[Path] = typer.Argument(
        ..., help="A topic-by-run CSV, or trec_eval -q outputs (one run per file)."
    ),
    measure: str = typer.Option(
        ..., "--measure", "-m", help="Measure of the scores (picks the trec_eval rows)."
    ),
    collection: str = typer.Option(
        None, "--collection", "-c", help="Collection the runs were evaluated on (to store)."
    ),
    fmt: str = typer.Option("csv", "--format", help="csv | trec_eval"),
    alpha: float = AlphaOpt,
    p: float = POpt,
    method: str = typer.Option("exact", help="exact | montecarlo"),
    trials: int = TrialsOpt,
    seed: int = SeedOpt,
    no_save: bool = typer.Option(False, "--no-save", help="Do not store the audit."),
    json_out: bool = JsonOpt,
):
    """Extreme-value audit of run means from a per-topic score matrix (N runs, n topics)."""
    from litaudit.analyses.matrix import KIND, run_matrix
    from litaudit.render.audits import emit

    opener = open_read if no_save else open_write
    with opener(ctx) as store:
        done = run_matrix(
            store.con,
            files,
            measure=measure,
            collection=collection,
            fmt=fmt,
            alpha=alpha,
            p=p,
            method=method,
            trials=trials,
            seed=seed,
            save=not no_save,
        )
    emit(KIND, done, json_out)
