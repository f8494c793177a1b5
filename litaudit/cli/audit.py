"""`litaudit audit ...`: extreme-value audits of published results (Carterette 2015).

Every command stores its audit (parameters, method, seed, input fingerprint, version,
result) unless ``--no-save``; with ``--no-save`` the database is opened read-only.
Rendering (litaudit.render.audits) works on the typed report, the same type a stored
audit decodes into, so `audit show` prints a stored audit exactly as the command that
made it did. The stored audits' commands (list, show, matrix) are in cli/audit_store.py,
registered on the same app.
"""

from __future__ import annotations

import functools
import inspect
from typing import TYPE_CHECKING, Any

import typer

from litaudit import defaults
from litaudit.cli.common import JsonOpt, open_read, open_write

if TYPE_CHECKING:
    from litaudit.curation.filters import Filters

app = typer.Typer(
    help="Published results against the record and against chance (Carterette, SIGIR 2015)",
    no_args_is_help=True,
)


def _optional(flag: str, text: str) -> Any:
    """An option left unset by default, its default said in its help ("(default: all)")."""
    return typer.Option(None, flag, help=text, show_default=False)


CollectionOpt = typer.Option(..., "--collection", "-c", help="Collection id or alias.")
MeasureOpt = typer.Option(..., "--measure", "-m", help="Measure (AP, MAP, P@10, P_10, ...).")
SourceOpt = _optional("--source", "papers | official (default: both).")
RoleOpt = _optional(
    "--role", "proposed | baseline | official | reproduction (repeatable) (default: all)."
)
RunTypeOpt = _optional("--run-type", "automatic | manual (repeatable) (default: all).")
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
ReporterOpt = _optional(
    "--reporter",
    "Who reported the value: authors, nist, leaderboard, mteb, unknown (repeatable) (default: all).",
)
TrackOpt = _optional(
    "--track",
    "A track or leaderboard, or a prefix ending in '/' (msmarco-passage/leaderboard/full-ranking).",
)
TopicsOpt = _optional(
    "--topics",
    "Topic count (50) or topic-set name (default: the only one, else the collection's default set).",
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
TrialsOpt = _optional("--trials", f"Monte Carlo trials (default: {defaults.MONTECARLO_TRIALS}).")
SeedOpt = _optional("--seed", f"Monte Carlo seed (default: {defaults.MONTECARLO_SEED}).")
NoSaveOpt = typer.Option(False, "--no-save", help="Do not store the audit (read-only).")
SeOpt = _optional(
    "--se",
    "Standard error of one result: model (sd/sqrt(n)), interaction (measured from stored "
    "per-topic scores), or a value such as 0.0059 (default: interaction when stored, else model).",
)


# the population filters' options, as best/claim/history/summary take them:
# parameter -> (its type, its option); _filters turns them into one Filters
_FILTER_OPTIONS: dict[str, tuple[Any, Any]] = {
    "source": (str, SourceOpt),
    "role": (list[str], RoleOpt),
    "run_type": (list[str], RunTypeOpt),
    "years": (str, YearsOpt),
    "topics": (str, TopicsOpt),
    "include_retracted": (bool, RetractedOpt),
    "include_nonstandard": (bool, NonstandardOpt),
    "since": (str, SinceOpt),
    "until": (str, UntilOpt),
    "reporter": (list[str], ReporterOpt),
    "track": (str, TrackOpt),
}


class _FilterOptions(tuple):
    """A command parameter's default that stands for these filter options (see _command)."""


def _filter_options(*names: str) -> Any:
    """The default of a command parameter that stands for these filter options."""
    return _FilterOptions(names)


POPULATION = _filter_options(
    "source", "role", "run_type", "years", "topics", "include_retracted", "include_nonstandard"
)
WINDOW = _filter_options("since", "until", "reporter", "track")


def _filters(role=None, run_type=None, reporter=None, **given):
    """The Filters of the filter options given (the others at Filters.parse's defaults)."""
    from litaudit.curation.filters import Filters

    roles, run_types, reporters = role or (), run_type or (), reporter or ()
    return Filters.parse(roles=roles, run_types=run_types, reporters=reporters, **given)


def with_filters(fn):
    """``fn`` as a command whose parameters with a _filter_options(...) default stand for
    those options, in that place of its --help (one --help order, said in its signature);
    the function gets one Filters of them all in the first such parameter, parsed before
    it runs (a bad --years fails before the store opens). `report` takes them so too."""
    sig = inspect.signature(fn)
    marks = [q for q in sig.parameters.values() if isinstance(q.default, _FilterOptions)]
    params: list[inspect.Parameter] = []
    for q in sig.parameters.values():
        if q not in marks:
            params.append(q)
            continue
        for n in q.default:
            kind, opt = _FILTER_OPTIONS[n]
            params.append(inspect.Parameter(n, q.kind, default=opt, annotation=kind))
    names = [n for m in marks for n in m.default]

    @functools.wraps(fn)
    def command(**kw):
        kw[marks[0].name] = _filters(**{n: kw.pop(n) for n in names})
        return fn(**kw)  # the other marked parameters keep their (unused) default

    command.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    command.__annotations__ = {q.name: q.annotation for q in params}  # what typer reads
    return command


def _command(name: str):
    """app.command(name) of :func:`with_filters` (fn)."""

    def register(fn):
        return app.command(name)(with_filters(fn))

    return register


def _run(ctx: typer.Context, no_save: bool, analysis, *args, **kw):
    """analysis(con, *args, save=not no_save, **kw) on a read-only store (--no-save) or
    inside a write transaction."""
    if no_save:
        with open_read(ctx) as store:
            return analysis(store.con, *args, save=False, **kw)
    with open_write(ctx) as store, store.transaction() as con:
        return analysis(con, *args, save=True, **kw)


@_command("best")
def best(
    ctx: typer.Context,
    collection: str = CollectionOpt,
    measure: str = MeasureOpt,
    filters: Filters = POPULATION,
    alpha: float = AlphaOpt,
    p: float = POpt,
    method: str = MethodOpt,
    trials: int = TrialsOpt,
    seed: int = SeedOpt,
    se: str = SeOpt,
    no_save: bool = NoSaveOpt,
    _window: None = WINDOW,
    json_out: bool = JsonOpt,
):
    """The population, the thresholds of its max and min, and the candidate best systems
    (Tables 2-3)."""
    from litaudit.analyses.best import run_best
    from litaudit.analyses.noise import parse_se

    kw = dict(alpha=alpha, p=p, method=method, trials=trials, seed=seed, se=parse_se(se))
    done = _run(ctx, no_save, run_best, collection, measure, filters=filters, **kw)
    from litaudit.render.audits import emit

    emit(done, json_out)


@_command("claim")
def claim(
    ctx: typer.Context,
    collection: str = CollectionOpt,
    measure: str = MeasureOpt,
    value: float = _optional(
        "--value", "A new claimed value (judged as one more draw besides the N published)."
    ),
    result: int = _optional("--result", "A published result's id (judged as one of the N)."),
    system: str = _optional(
        "--system", "A published result by its system name (judged as one of the N)."
    ),
    n: int = _optional(
        "--n",
        "Experiments besides the claim (default: N for --value, N - 1 for --result/--system).",
    ),
    hidden_multiplier: float = typer.Option(
        1.0, "--hidden-multiplier", help="Experiments run per experiment published."
    ),
    filters: Filters = POPULATION,
    alpha: float = AlphaOpt,
    p: float = POpt,
    method: str = MethodOpt,
    trials: int = TrialsOpt,
    seed: int = SeedOpt,
    se: str = SeOpt,
    no_save: bool = NoSaveOpt,
    _window: None = WINDOW,
    json_out: bool = JsonOpt,
):
    """A claim against the record, against chance (the max of N+1, or of N for a published
    result) and its own mu0 and interval."""
    from litaudit.analyses.best import run_claim
    from litaudit.analyses.noise import parse_se

    kw = dict(result_id=result, system=system, n=n, hidden_multiplier=hidden_multiplier)
    kw.update(alpha=alpha, p=p, method=method, trials=trials, seed=seed, se=parse_se(se))
    done = _run(ctx, no_save, run_claim, collection, measure, value, filters=filters, **kw)
    from litaudit.render.audits import emit

    emit(done, json_out)


@_command("history")
def history(
    ctx: typer.Context,
    collection: str = CollectionOpt,
    measure: str = MeasureOpt,
    reference: str = typer.Option(
        "running",
        "--reference",
        help="running (the results so far: no later result used) | final (all results, "
        "later ones included: a look-ahead).",
    ),
    filters: Filters = POPULATION,
    alpha: float = AlphaOpt,
    se: str = SeOpt,
    no_save: bool = NoSaveOpt,
    _window: None = WINDOW,
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
    from litaudit.analyses.noise import parse_se

    kw = dict(filters=filters, alpha=alpha, reference=reference, by=by, se=parse_se(se))
    done = _run(ctx, no_save, run_history, collection, measure, **kw)
    from litaudit.render.audits import emit, render_history

    if json_out or not every:
        emit(done, json_out)
    else:
        render_history(done.result, done.audit_id, every=True)


@_command("summary")
def summary(
    ctx: typer.Context,
    min_n: int = typer.Option(
        defaults.MIN_N, "--min-n", help=f"Smallest population audited (at least {defaults.MIN_N})."
    ),
    alpha: float = AlphaOpt,
    p: float = POpt,
    filters: Filters = _filter_options("include_retracted", "include_nonstandard"),
    no_save: bool = NoSaveOpt,
    _window: None = _filter_options("since", "until", "reporter"),
    json_out: bool = JsonOpt,
):
    """`audit best` (exact) for every collection, measure and source; one table."""
    from litaudit.render.progress import progress_bar

    with progress_bar("audit best", unit="groups", quiet=json_out) as bar:
        from litaudit.analyses.summary import run_summary

        kw = dict(min_n=min_n, alpha=alpha, p=p, filters=filters, progress=bar)
        rep = _run(ctx, no_save, run_summary, **kw)
    if json_out:  # not an audit: each row carries the id of its stored 'best' audit
        from litaudit.render.console import print_json

        print_json(rep)
        return
    from litaudit.render.audits import render_summary

    render_summary(rep)


from litaudit.cli import audit_store  # noqa: E402, F401  (registers list, show, matrix on app)
