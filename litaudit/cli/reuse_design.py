"""`litaudit reuse power`, `table`, `design`, `holdout`, `agreement`: the held-out-site
design of Carterette, Kanoulas, Pavlu and Fang, SIGIR 2010 (`design`, `holdout`) and its
agreement-in-significance analysis (`agreement`)."""

from __future__ import annotations

from pathlib import Path

import typer

from litaudit import defaults
from litaudit.cli.options import (
    Json,
    OldBaselineTopics,
    OldHeldOutFlag,
    OldObservedFlag,
    OldSitesFlag,
    OldTopicSeed,
    PseudoSitesOpt,
    RunSitesOpt,
    ScoresOpt,
    TopicSeed,
    alpha_option,
    collection_option,
    depth_option,
    measure_option,
    output_option,
    qrels_option,
    run_option,
    topics_option,
)

CORRECTION_HELP = "Multiple-comparison correction of the pairwise p-values: none, holm, bonferroni."


def design_cmd(
    sites: int = typer.Option(..., "--sites", help="Number of sites m."),
    topics: int = topics_option(..., "N, the total", "-N"),
    baseline_min: int = typer.Option(..., "--baseline-min", help="Minimum all-site baseline n0."),
    held_out: int = typer.Option(
        None, "--held-out", help="Sites held out of each topic (default: table only)."
    ),
    partial: bool = typer.Option(
        False,
        "--partial",
        help="Exactly --baseline-min all-site topics; every other "
        "topic holds out k sites, the last cycle partial "
        "(Section 4.3; what `reuse agreement --baseline-topics` uses).",
    ),
    _old_sites: OldSitesFlag = None,
    _old_held_out: OldHeldOutFlag = None,
    json_out: Json = False,
):
    """b, n and the topic-set sizes of the held-out-site design (Carterette et al. 2010, Table 2)."""
    from litaudit.analyses.agreement.design_request import DesignRequest, answer_design
    from litaudit.render.design import print_design

    req = DesignRequest(
        sites=sites, topics=topics, baseline_min=baseline_min, held_out=held_out, partial=partial
    ).checked()
    print_design(answer_design(req), json_out)


def holdout_cmd(
    ctx: typer.Context,
    output: Path = output_option(..., "the CSV (topic,held_out_site); - for standard output"),
    sites: int = typer.Option(None, "--sites", help="Number of sites m (named S1..Sm)."),
    site_names: str = typer.Option(None, "--site-names", help="Comma-separated site names."),
    topics: int = topics_option(None, "N (topics named 1..N)", "-N"),
    topic_file: Path = typer.Option(
        None, "--topic-file", help="Topic ids, one per line (instead of --topics)."
    ),
    baseline_min: int = typer.Option(0, "--baseline-min", help="Minimum all-site baseline n0."),
    held_out: int = typer.Option(
        defaults.AGREEMENT_K, "--held-out", help="Sites held out of each topic."
    ),
    seed: TopicSeed = None,
    _old_seed: OldTopicSeed = None,
    _old_sites: OldSitesFlag = None,
    _old_held_out: OldHeldOutFlag = None,
    json_out: Json = False,
):
    """Write the round-robin assignment of held-out sites to topics (Table 1) as CSV."""
    from litaudit.analyses.agreement.design_request import HoldoutRequest, answer_holdout
    from litaudit.cli.common import db_path
    from litaudit.render.design import print_holdout

    req = HoldoutRequest(
        output=output,
        sites=sites,
        site_names=site_names,
        topics=topics,
        topic_file=topic_file,
        baseline_min=baseline_min,
        held_out=held_out,
        seed=seed,
        database=db_path(ctx),
    ).checked()
    print_holdout(answer_holdout(req), json_out)


def agreement_cmd(
    ctx: typer.Context,
    collection: str = collection_option(
        None, "its stored run archive to simulate on (saves an audit)"
    ),
    qrels: Path = qrels_option("for a simulation from files"),
    runs: list[Path] = run_option("for --qrels (repeat)"),
    runs_dir: Path = typer.Option(None, "--runs-dir", help="Directory of run files for --qrels."),
    scores: Path = ScoresOpt,
    design_csv: Path = typer.Option(
        None, "--design", help="Hold-out CSV (topic,held_out_site) for --scores."
    ),
    run_sites: Path = RunSitesOpt,
    pseudo: int = PseudoSitesOpt,
    held_out: int = typer.Option(
        defaults.AGREEMENT_K, "--held-out", help="Sites held out of each topic."
    ),
    baseline: int = typer.Option(
        0, "--baseline-topics", help="All-site baseline topics (generated)."
    ),
    _old_baseline: OldBaselineTopics = None,
    depth: int = depth_option(defaults.AGREEMENT_DEPTH, "of the simulation", "-d"),
    measure: str = measure_option("AP", "of the simulation only"),
    alpha: float = alpha_option(defaults.REUSE_ALPHA, "of the t-tests"),
    correction: str = typer.Option("none", "--correction", help=CORRECTION_HELP),
    min_topics: int = typer.Option(
        defaults.AGREEMENT_MIN_TOPICS,
        "--min-topics",
        help="Skip pairs with fewer baseline or reuse topics.",
    ),
    seed: TopicSeed = None,
    _old_seed: OldTopicSeed = None,
    pairs: bool = typer.Option(
        False, "--pairs", help="Also list every tested pair (--json always has them)."
    ),
    randomize: int = typer.Option(
        0,
        "--randomize",
        min=0,
        help="Also test each analysis's X^2 against R random "
        "assignments of the same design (keeps the pairs' "
        "dependence; see docs).",
    ),
    randomize_seed: int = typer.Option(None, "--randomize-seed", help="Seed of those assignments."),
    _old_held_out: OldHeldOutFlag = None,
    json_out: Json = False,
):
    """Agreement in significance, tau and RMSE between baseline and reuse topics
    (Carterette et al. 2010, Section 3.2)."""
    from contextlib import nullcontext

    from litaudit import defaults
    from litaudit.analyses.agreement.run import AgreementRequest, run_agreement
    from litaudit.cli.common import open_write
    from litaudit.render.audits import emit
    from litaudit.render.progress import progress_bar

    req = AgreementRequest(
        collection=collection,
        qrels=qrels,
        runs=tuple(runs or ()),
        runs_dir=runs_dir,
        scores=scores,
        design=design_csv,
        run_sites=run_sites,
        pseudo_sites=pseudo,
        held_out=held_out,
        baseline=baseline,
        depth=depth,
        measure=measure,
        alpha=alpha,
        correction=correction,
        min_topics=min_topics,
        seed=seed,
        randomize=randomize,
        randomize_seed=(
            defaults.AGREEMENT_RANDOMIZATION_SEED if randomize_seed is None else randomize_seed
        ),
    )
    req.check()
    with (
        open_write(ctx) if req.collection is not None else nullcontext() as store,
        progress_bar("reuse agreement", quiet=json_out) as bar,
    ):
        done = run_agreement(req, store=store, progress=bar)
    emit(done, json_out, every=pairs)


def power_cmd(
    effect: list[float] = typer.Option(
        ..., "--effect", "-e", help="Effect size mean/sd of the paired differences (repeat)."
    ),
    topics: list[int] = topics_option(..., "n (repeat)", "-n"),
    alpha: float = alpha_option(defaults.REUSE_ALPHA, "of the t-test"),
    json_out: Json = False,
):
    """Power of the two-sided paired t-test (Carterette et al. 2010, Section 3.2.1)."""
    from litaudit import defaults
    from litaudit.analyses.agreement.tables import power_rows
    from litaudit.render.design import print_power

    rows = power_rows(effect, topics, defaults.REUSE_ALPHA if alpha is None else alpha)
    print_power(rows, json_out)


def table_cmd(
    observed: str = typer.Option(
        ...,
        "--observed",
        help="Observed counts a,b,c,d: both significant, baseline only, reuse only, neither.",
    ),
    expected: str = typer.Option(
        None, "--expected", help="Expected counts a,b,c,d (as the paper prints them)."
    ),
    pair: list[str] = typer.Option(
        None,
        "--pair",
        help="Instead of --expected: a pair as effect:baseline_topics:reuse_topics (repeat).",
    ),
    alpha: float = alpha_option(defaults.REUSE_ALPHA, "of the t-tests"),
    _old_observed: OldObservedFlag = None,
    json_out: Json = False,
):
    """Observed against expected agreement in significance: expected table, exact and
    asymptotic chi-square p (Carterette et al. 2010, Section 3.2.1, Tables 3-5)."""
    from litaudit import defaults
    from litaudit.analyses.agreement.tables import table_of_options
    from litaudit.render.design import print_table_test

    a = defaults.REUSE_ALPHA if alpha is None else alpha
    res = table_of_options(observed, expected, pair or (), a)
    print_table_test(res, json_out)
