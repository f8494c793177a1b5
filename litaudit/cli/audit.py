"""`litaudit audit ...`: extreme-value audits of published results (Carterette 2015).

Every command stores its audit (parameters, method, seed, input fingerprint, version,
result) unless ``--no-save``; with ``--no-save`` the database is opened read-only.
Rendering (litaudit.render.audits) works on the typed report, the same type a stored
audit decodes into, so `audit show` prints a stored audit exactly as the command that
made it did. The stored audits' commands (list, show, matrix) are in cli/audit_store.py,
`audit resolution` in cli/audit_records.py; cli/main.py's _COMMANDS lists them all.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from litaudit import defaults
from litaudit.cli.common import open_read, open_write
from litaudit.cli.options import (
    Alpha,
    CollectionOpt,
    Json,
    OldResampleSeed,
    PInterval,
    ResampleSeed,
    Seed,
    Trials,
)

if TYPE_CHECKING:
    from litaudit.curation.filters import Filters


def _optional(flag: str, text: str) -> Any:
    """An option left unset by default, its default said in its help ("(default: all)")."""
    return typer.Option(None, flag, help=text, show_default=False)


MeasureOpt = typer.Option(..., "--measure", "-m", help="Measure (AP, MAP, P@10, P_10, ...).")
SourceOpt = _optional("--source", "papers | official (default: both).")
RoleOpt = _optional(
    "--role",
    "proposed | baseline | official | reproduction | leaderboard (repeatable) (default: all).",
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
    "Who reported the value: authors, nist, leaderboard, mteb, pyserini, unknown (repeatable) "
    "(default: all).",
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
ZeroShotOpt = typer.Option(
    False,
    "--zero-shot",
    help="Only results of models whose declared training data leave out the collection "
    "(MTEB's model metadata; undeclared ones left out).",
)
NonstandardOpt = typer.Option(
    False, "--include-nonstandard", help="Include results flagged non-standard."
)
MethodOpt = typer.Option("exact", "--method", help="exact | montecarlo (the paper's sampling).")
NoSaveOpt = typer.Option(False, "--no-save", help="Do not store the audit (read-only).")
SeOpt = _optional(
    "--se",
    "Standard error of one result: measured (from a stored run archive's per-topic scores, "
    "else the store's reference noise; 'interaction' is its older name), bound "
    "(sqrt(m(1-m)/n) of a measure between 0 and 1), model (sd/sqrt(n)), or a value such as 0.0059 "
    "(default: measured where stored, else bound, else model).",
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
    "zero_shot": (bool, ZeroShotOpt),
}


class _FilterOptions(tuple):
    """A command parameter's default that stands for these filter options (see _command)."""


def _filter_options(*names: str) -> Any:
    """The default of a command parameter that stands for these filter options."""
    return _FilterOptions(names)


POPULATION = _filter_options(
    "source", "role", "run_type", "years", "topics", "include_retracted", "include_nonstandard"
)
WINDOW = _filter_options("since", "until", "reporter", "track", "zero_shot")


def _filters(role=None, run_type=None, reporter=None, **given):
    """The Filters of the filter options given (the others at Filters.parse's defaults)."""
    from litaudit.curation.filters import Filters

    roles, run_types, reporters = role or (), run_type or (), reporter or ()
    return Filters.parse(roles=roles, run_types=run_types, reporters=reporters, **given)


def _resolved(fn, q: inspect.Parameter) -> inspect.Parameter:
    """The parameter with its annotation evaluated (a shared option of cli/common, an
    ``Annotated`` alias, is what typer reads); a type named only for type checkers (the
    Filters a marked parameter receives) stays a string."""
    if not isinstance(q.annotation, str):
        return q
    try:
        return q.replace(annotation=eval(q.annotation, fn.__globals__))  # noqa: S307
    except NameError:
        return q


def with_filters(fn):
    """``fn`` as a command whose parameters with a _filter_options(...) default stand for
    those options, in that place of its --help (one --help order, said in its signature);
    the function gets one Filters of them all in the first such parameter, parsed before
    it runs (a bad --years fails before the store opens). `report` takes them so too."""
    sig = inspect.signature(fn)
    sig = sig.replace(parameters=[_resolved(fn, q) for q in sig.parameters.values()])
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


def _model(alpha: float, p: float, method: str, trials, seed, se: str | None):
    """The AuditModel of the model options (the Monte Carlo defaults filled in)."""
    from litaudit.analyses.extreme.best import AuditModel
    from litaudit.analyses.extreme.noise import parse_se
    from litaudit.stats.extreme import Sampling

    sampling = Sampling(method=method, trials=trials, seed=seed)
    return AuditModel(alpha=alpha, p=p, se=parse_se(se), sampling=sampling)


def _result_id(ctx: typer.Context, text: str) -> int:
    """A result's local id from its id or its uid (the same in every clone)."""
    from litaudit.store.results import resolve_id

    if text.strip().isdigit():
        return int(text)
    with open_read(ctx) as store:
        return resolve_id(store.con, text)


def _run(ctx: typer.Context, no_save: bool, analysis, *args, **kw):
    """analysis(con, *args, save=not no_save, **kw) on a read-only store (--no-save) or
    inside a write transaction; a run archive it must evaluate shows a bar, as `runs eval`."""
    from litaudit.render.progress import progress_bar
    from litaudit.runs.archive_eval import evaluation_progress

    quiet = bool(ctx.params.get("json_out"))

    def bar(n_runs: int):
        return progress_bar(
            "evaluating the run archive", n_runs, unit="runs", counts=("lines",), quiet=quiet
        )

    with evaluation_progress(bar):
        if no_save:
            with open_read(ctx) as store:
                return analysis(store.con, *args, save=False, **kw)
        with open_write(ctx) as store, store.transaction() as con:
            return analysis(con, *args, save=True, **kw)


@with_filters
def best(
    ctx: typer.Context,
    collection: str = CollectionOpt,
    measure: str = MeasureOpt,
    filters: Filters = POPULATION,
    alpha: Alpha = defaults.ALPHA,
    p: PInterval = defaults.P_INTERVAL,
    method: str = MethodOpt,
    trials: Trials = None,
    seed: Seed = None,
    se: str = SeOpt,
    no_save: bool = NoSaveOpt,
    _window: None = WINDOW,
    json_out: Json = False,
):
    """The population, the thresholds of its max and min, and the candidate best systems
    (Tables 2-3)."""
    from litaudit.analyses.extreme.best import run_best

    model = _model(alpha, p, method, trials, seed, se)
    done = _run(ctx, no_save, run_best, collection, measure, filters=filters, model=model)
    from litaudit.render.audits import emit

    emit(done, json_out)


@with_filters
def claim(
    ctx: typer.Context,
    collection: str = CollectionOpt,
    measure: str = MeasureOpt,
    value: str = _optional(
        "--value",
        "A new claimed value, as printed (judged as one more draw besides the N published).",
    ),
    result: str = _optional(
        "--result", "A published result's id or uid, r-... (judged as one of the N)."
    ),
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
    run: str = _optional(
        "--run",
        "The claim's TREC run: evaluated on the stored qrels, checked against the claimed "
        "value (its value when none is given) and compared topic by topic.",
    ),
    against: list[str] = _optional(
        "--against",
        "Archive run to compare with on the same topics (repeatable) (default: the "
        "record's run when stored and the archive's best run).",
    ),
    baseline: str = _optional("--baseline", "The paper's baseline value, as printed."),
    baseline_system: str = _optional(
        "--baseline-system", "The baseline's model (BM25, ...), to find its reproductions."
    ),
    permutations: int = typer.Option(
        defaults.RANDOMIZATION_PERMUTATIONS,
        "--permutations",
        help="Random sign assignments of the randomization test (exact when few enough).",
    ),
    permutation_seed: int = typer.Option(
        defaults.RANDOMIZATION_SEED, "--permutation-seed", help="Seed of those assignments."
    ),
    per_dataset: Path = _optional(
        "--per-dataset",
        "The claim's value on each dataset of the benchmark (CSV or JSON: dataset, value as "
        "printed), paired with the record holder's: wins, ties, losses, paired t and sign tests.",
    ),
    filters: Filters = POPULATION,
    alpha: Alpha = defaults.ALPHA,
    p: PInterval = defaults.P_INTERVAL,
    method: str = MethodOpt,
    trials: Trials = None,
    seed: Seed = None,
    se: str = SeOpt,
    no_save: bool = NoSaveOpt,
    _window: None = WINDOW,
    json_out: Json = False,
):
    """A claim against the record, against chance (the max of N+1, or of N for a published
    result) and its own mu0 and interval; with its run, the same-topic comparison; with
    its baseline, the baseline's strength."""
    from litaudit.analyses.extreme.best import Claim, run_claim
    from litaudit.analyses.extreme.claim_evidence import Asked

    asked = Asked(run, tuple(against or ()), baseline, baseline_system, permutations)
    claimed = Claim(
        value=value,
        result_id=None if result is None else _result_id(ctx, result),
        system=system,
        n=n,
        hidden_multiplier=hidden_multiplier,
    )
    if per_dataset is not None:
        claimed = dataclasses.replace(claimed, per_dataset=str(per_dataset))
    kw = dict(filters=filters, model=_model(alpha, p, method, trials, seed, se))
    kw.update(evidence=dataclasses.replace(asked, seed=permutation_seed))
    done = _run(ctx, no_save, run_claim, collection, measure, claimed, **kw)
    from litaudit.render.audits import emit

    emit(done, json_out)


def baselines(
    ctx: typer.Context,
    collection: str = CollectionOpt,
    measure: str = MeasureOpt,
    baseline: str = _optional("--baseline", "A paper's baseline value, as printed."),
    baseline_system: str = _optional(
        "--baseline-system", "Its model (BM25, ...), to find its reproductions."
    ),
    claim_value: str = _optional("--claim", "The claimed value, as printed, for its gains."),
    no_save: bool = NoSaveOpt,
    json_out: Json = False,
):
    """A baseline against the published baselines, the same model's reproductions and the
    best official run (Armstrong et al., CIKM 2009)."""
    from litaudit.analyses.extreme.baselines import run_baselines
    from litaudit.analyses.extreme.printed import printed
    from litaudit.render.audits import emit

    kw = dict(value=baseline, model=baseline_system, claim=printed(claim_value, "--claim")[0])
    done = _run(ctx, no_save, run_baselines, collection, measure, **kw)
    emit(done, json_out)


@with_filters
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
    alpha: Alpha = defaults.ALPHA,
    se: str = SeOpt,
    no_save: bool = NoSaveOpt,
    _window: None = WINDOW,
    every: bool = typer.Option(
        False, "--all", help="Show every step, not only the ones that set a record."
    ),
    by: str = typer.Option(
        "auto", "--by", help="Steps: date, year, or auto (by date when every result has one)."
    ),
    certify: str = _optional(
        "--certify",
        "Also certify the record steps online as they came: spending (alpha-spending) "
        "or lord (LORD++) (default: Holm over the steps only).",
    ),
    step_seed: int = typer.Option(
        0, "--step-seed", help="Seed of the sign patterns of record steps on many topics."
    ),
    with_reproductions: bool = typer.Option(
        False, "--with-reproductions", help="Replay the reproductions too (default: published)."
    ),
    json_out: Json = False,
):
    """The record over time against the expected max and its threshold for the N so far;
    each record step tested against the record it replaced."""
    from litaudit.analyses.extreme.history import run_history
    from litaudit.analyses.extreme.noise import parse_se
    from litaudit.analyses.extreme.record_steps import StepSettings

    kw = dict(filters=filters, alpha=alpha, reference=reference, se=parse_se(se))
    steps = StepSettings(by=by, certify=certify, seed=step_seed, reproductions=with_reproductions)
    kw.update(steps=steps)
    done = _run(ctx, no_save, run_history, collection, measure, **kw)
    from litaudit.render.audits import emit, render_history

    if json_out or not every:
        emit(done, json_out)
    else:
        render_history(done.result, done.audit_id, every=True)


@with_filters
def summary(
    ctx: typer.Context,
    min_n: int = typer.Option(
        defaults.MIN_N, "--min-n", help=f"Smallest population audited (at least {defaults.MIN_N})."
    ),
    alpha: Alpha = defaults.ALPHA,
    p: PInterval = defaults.P_INTERVAL,
    filters: Filters = _filter_options("include_retracted", "include_nonstandard"),
    no_save: bool = NoSaveOpt,
    _window: None = _filter_options("since", "until", "reporter", "zero_shot"),
    json_out: Json = False,
):
    """`audit best` (exact) for every collection, measure and source; one table."""
    from litaudit.render.progress import progress_bar

    with progress_bar("audit best", unit="groups", quiet=json_out) as bar:
        from litaudit.analyses.extreme.summary import run_summary

        kw = dict(min_n=min_n, alpha=alpha, p=p, filters=filters, progress=bar)
        rep = _run(ctx, no_save, run_summary, **kw)
    if json_out:  # not an audit: each row carries the id of its stored 'best' audit
        from litaudit.render.console import print_json

        print_json(rep)
        return
    from litaudit.render.audits import render_summary

    render_summary(rep)


@with_filters
def ranks(
    ctx: typer.Context,
    files: list[Path] = typer.Argument(
        None,
        help="A topic-by-run CSV, or trec_eval -q outputs (one run per file) (default: the "
        "store's shared scores of --collection).",
        show_default=False,
    ),
    measure: str = MeasureOpt,
    collection: str = typer.Option(
        None,
        "--collection",
        "-c",
        show_default=False,
        help="Collection: its datasets' published values (a benchmark such as beir-13) or its "
        "run archive's per-topic scores; with FILES, the collection to store the audit under.",
    ),
    fmt: str = typer.Option("csv", "--format", help="csv | trec_eval (for FILES)."),
    filters: Filters = POPULATION,
    alpha: Alpha = defaults.ALPHA,
    resamples: int = typer.Option(
        defaults.RANKS_RESAMPLES, "--resamples", help="Bootstrap resamples of the units."
    ),
    seed: ResampleSeed = defaults.RANKS_SEED,
    _old_seed: OldResampleSeed = None,
    noise: str = typer.Option(
        "bound",
        "--noise",
        help="Per-dataset values: bound (add each dataset's bound se sqrt(v(1-v)/n) of its "
        "query count) | none.",
    ),
    no_save: bool = NoSaveOpt,
    _window: None = WINDOW,
    json_out: Json = False,
):
    """Which systems cannot be told apart from the top: the confidence set of the best
    (multiple comparisons with the best), simultaneous rank intervals (Mogstad et al. 2024)
    and P(first), on shared topics or datasets."""
    from litaudit.analyses.extreme.ranks import RankSettings, run_ranks
    from litaudit.render.audits import emit

    settings = RankSettings(alpha=alpha, resamples=resamples, seed=seed, noise=noise)
    kw = dict(measure=measure, collection=collection, files=files or None, fmt=fmt)
    done = _run(ctx, no_save, run_ranks, filters=filters, settings=settings, **kw)
    emit(done, json_out)
