"""`litaudit audit ...`: extreme-value audits of published results (Carterette 2015).

Every command stores its audit (parameters, method, seed, input fingerprint, version,
result) unless ``--no-save``; with ``--no-save`` the database is opened read-only.
Rendering (litaudit.render.audits) works on the typed report, the same type a stored
audit decodes into, so `audit show` prints a stored audit exactly as the command that
made it did. The stored audits' commands (list, show, matrix) are in cli/audit_store.py,
`audit resolution` in cli/audit_records.py; cli/main.py's _COMMANDS lists them all. The
population filters' options (and `with_filters`, which turns them into one Filters) are in
cli/filter_options.py, shared with `report`.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from litaudit import defaults
from litaudit.cli.common import open_for_audit
from litaudit.cli.filter_options import POPULATION, WINDOW, filter_options, optional, with_filters
from litaudit.cli.options import (
    Alpha,
    BaselineOpt,
    BaselineSystemOpt,
    CollectionOpt,
    InputFormatOpt,
    Json,
    MeasureOpt,
    MethodOpt,
    NoSave,
    OldInputFormat,
    OldResampleSeed,
    PInterval,
    ResampleSeed,
    Seed,
    SeOpt,
    Trials,
    against_option,
    all_option,
    claim_option,
    collection_option,
    reproductions_option,
    run_option,
)
from litaudit.cli.result_options import system_option, value_option

if TYPE_CHECKING:
    from litaudit.curation.filters import Filters


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
    no_save: NoSave = False,
    _window: None = WINDOW,
    json_out: Json = False,
):
    """The population, the thresholds of its max and min, and the candidate best systems
    (Tables 2-3)."""
    from litaudit.analyses.extreme.requests import BestRequest, ModelOptions, answer_best
    from litaudit.render.audits import emit

    options = ModelOptions(alpha=alpha, p=p, method=method, trials=trials, seed=seed, se=se)
    req = BestRequest(
        collection=collection, measure=measure, filters=filters, options=options, save=not no_save
    ).checked()
    with open_for_audit(ctx, req.save) as con:
        done = answer_best(con, req)
    emit(done, json_out)


@with_filters
def claim(
    ctx: typer.Context,
    collection: str = CollectionOpt,
    measure: str = MeasureOpt,
    value: str = value_option(
        None, "a new claimed value, judged as one more draw besides the N published"
    ),
    result: str = optional(
        "--result", "A published result's id or uid, r-... (judged as one of the N)."
    ),
    system: str = system_option(None, "a published result's, judged as one of the N"),
    n: int = optional(
        "--n",
        "Experiments besides the claim (default: N for --value, N - 1 for --result/--system).",
    ),
    hidden_multiplier: float = typer.Option(
        1.0, "--hidden-multiplier", help="Experiments run per experiment published."
    ),
    run: str = run_option(
        "the claim's, evaluated on the stored qrels, checked against the claimed value (its "
        "value when none is given) and compared topic by topic"
    ),
    against: list[str] = against_option(
        "default: the record's run when stored and the archive's best run"
    ),
    baseline: str = BaselineOpt,
    baseline_system: str = BaselineSystemOpt,
    permutations: int = typer.Option(
        defaults.RANDOMIZATION_PERMUTATIONS,
        "--permutations",
        help="Random sign assignments of the randomization test (exact when few enough).",
    ),
    permutation_seed: int = typer.Option(
        defaults.RANDOMIZATION_SEED, "--permutation-seed", help="Seed of those assignments."
    ),
    per_dataset: Path = optional(
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
    no_save: NoSave = False,
    _window: None = WINDOW,
    json_out: Json = False,
):
    """A claim against the record, against chance (the max of N+1, or of N for a published
    result) and its own mu0 and interval; with its run, the same-topic comparison; with
    its baseline, the baseline's strength."""
    from litaudit.analyses.extreme.best import Claim
    from litaudit.analyses.extreme.claim_evidence import Asked
    from litaudit.analyses.extreme.requests import ClaimRequest, ModelOptions, answer_claim
    from litaudit.render.audits import emit

    req = ClaimRequest(
        collection=collection,
        measure=measure,
        claim=Claim(
            value=value,
            system=system,
            n=n,
            hidden_multiplier=hidden_multiplier,
            per_dataset=None if per_dataset is None else str(per_dataset),
        ),
        result=result,
        evidence=dataclasses.replace(
            Asked(run, tuple(against or ()), baseline, baseline_system, permutations),
            seed=permutation_seed,
        ),
        filters=filters,
        options=ModelOptions(alpha=alpha, p=p, method=method, trials=trials, seed=seed, se=se),
        save=not no_save,
    ).checked()
    with open_for_audit(ctx, req.save) as con:
        done = answer_claim(con, req)
    emit(done, json_out)


def baselines(
    ctx: typer.Context,
    collection: str = CollectionOpt,
    measure: str = MeasureOpt,
    baseline: str = BaselineOpt,
    baseline_system: str = BaselineSystemOpt,
    claim_value: str = claim_option("for its gains over the baseline"),
    no_save: NoSave = False,
    json_out: Json = False,
):
    """A baseline against the published baselines, the same model's reproductions and the
    best official run (Armstrong et al., CIKM 2009)."""
    from litaudit.analyses.extreme.requests import BaselinesRequest, answer_baselines
    from litaudit.render.audits import emit

    req = BaselinesRequest(
        collection=collection,
        measure=measure,
        value=baseline,
        model=baseline_system,
        claim=claim_value,
        save=not no_save,
    ).checked()
    with open_for_audit(ctx, req.save) as con:
        done = answer_baselines(con, req)
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
    no_save: NoSave = False,
    _window: None = WINDOW,
    every: bool = all_option("every step, not only the ones that set a record"),
    by: str = typer.Option(
        "auto", "--by", help="Steps: date, year, or auto (by date when every result has one)."
    ),
    certify: str = optional(
        "--certify",
        "Also certify the record steps online as they came: spending (alpha-spending) "
        "or lord (LORD++) (default: Holm over the steps only).",
    ),
    step_seed: int = typer.Option(
        0, "--step-seed", help="Seed of the sign patterns of record steps on many topics."
    ),
    with_reproductions: bool = reproductions_option("replayed"),
    json_out: Json = False,
):
    """The record over time against the expected max and its threshold for the N so far;
    each record step tested against the record it replaced."""
    from litaudit.analyses.extreme.record_steps import StepSettings
    from litaudit.analyses.extreme.requests import HistoryRequest, answer_history
    from litaudit.render.audits import emit

    req = HistoryRequest(
        collection=collection,
        measure=measure,
        reference=reference,
        filters=filters,
        alpha=alpha,
        se=se,
        steps=StepSettings(
            by=by, certify=certify, seed=step_seed, reproductions=with_reproductions
        ),
        save=not no_save,
    ).checked()
    with open_for_audit(ctx, req.save) as con:
        done = answer_history(con, req)
    emit(done, json_out, every=every)


@with_filters
def summary(
    ctx: typer.Context,
    min_n: int = typer.Option(
        defaults.MIN_N, "--min-n", help=f"Smallest population audited (at least {defaults.MIN_N})."
    ),
    alpha: Alpha = defaults.ALPHA,
    p: PInterval = defaults.P_INTERVAL,
    filters: Filters = filter_options("include_retracted", "include_nonstandard"),
    no_save: NoSave = False,
    _window: None = filter_options("since", "until", "reporter", "zero_shot"),
    json_out: Json = False,
):
    """`audit best` (exact) for every collection, measure and source; one table."""
    from litaudit.analyses.extreme.requests import SummaryRequest, answer_summary
    from litaudit.render.audits import emit_summary
    from litaudit.render.progress import progress_bar

    req = SummaryRequest(min_n=min_n, alpha=alpha, p=p, filters=filters, save=not no_save)
    with (
        progress_bar("audit best", unit="groups", quiet=json_out) as bar,
        open_for_audit(ctx, req.save) as con,
    ):
        rep = answer_summary(con, req, progress=bar)
    emit_summary(rep, json_out)


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
    collection: str = collection_option(
        None,
        "its datasets' published values (a benchmark such as beir-13) or its run archive's "
        "per-topic scores; with FILES, the collection to store the audit under",
    ),
    fmt: str = InputFormatOpt,
    _old_format: OldInputFormat = None,
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
    no_save: NoSave = False,
    _window: None = WINDOW,
    json_out: Json = False,
):
    """Which systems cannot be told apart from the top: the confidence set of the best
    (multiple comparisons with the best), simultaneous rank intervals (Mogstad et al. 2024)
    and P(first), on shared topics or datasets."""
    from litaudit.analyses.extreme.ranks import RankSettings
    from litaudit.analyses.extreme.requests import RanksRequest, answer_ranks
    from litaudit.render.audits import emit

    req = RanksRequest(
        measure=measure,
        collection=collection,
        files=tuple(files or ()),
        fmt=fmt,
        filters=filters,
        settings=RankSettings(alpha=alpha, resamples=resamples, seed=seed, noise=noise),
        save=not no_save,
    )
    with open_for_audit(ctx, req.save) as con:
        done = answer_ranks(con, req)
    emit(done, json_out)
