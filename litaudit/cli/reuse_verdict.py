"""`litaudit reuse verdict`: would a new system's score be off by more than evaluation
noise? It joins RAO and leave-out-uniques (Voorhees, Lin, Efron, SIGIR 2014), sub-collection
tau (Sanderson et al., CIKM 2012) and the significance agreement of Carterette et al. (SIGIR
2010) into one decision (docs/STATISTICS.md, reusability), saved as an audit.
"""

from __future__ import annotations

import typer

from litaudit.cli.common import open_write
from litaudit.cli.options import (
    AssignmentSeed,
    Json,
    OldAssignmentSeed,
    OldTopicIds,
    OptCollection,
    PermOpt,
    PseudoSitesOpt,
    RunSitesOpt,
    ScoresOpt,
    SplitOpt,
    SplitSeed,
    WorkersOpt,
    alpha_option,
    depth_option,
    subcollections_option,
    workers_of,
)


def verdict_cmd(
    ctx: typer.Context,
    collection: OptCollection = None,
    scores: str = ScoresOpt,
    pseudo_sites: int = PseudoSitesOpt,
    run_sites: str = RunSitesOpt,
    depth: int = depth_option(
        None,
        "to decide at (default: the collection's recorded one; when unknown, one row per "
        "depth and no decision)",
    ),
    margin: float = typer.Option(
        None,
        "--margin",
        help="Evaluation noise, % of the mean score (default 1, Voorhees et al. 2014).",
    ),
    split: str = SplitOpt,
    permutations: int = PermOpt,
    split_seed: SplitSeed = None,
    seed: AssignmentSeed = None,
    _old_seed: OldAssignmentSeed = None,
    assignments: int = typer.Option(
        None, "--assignments", min=1, help="Random hold-out assignments of the agreement analysis."
    ),
    alpha: float = alpha_option(None, "of each one-sided test (intervals at 1 - 2 alpha)"),
    with_sub: bool = subcollections_option("also show its tau (descriptive; R random splits)"),
    topics: str = typer.Option(
        None,
        "--topic-ids",
        help="Decide on these topics only: ids and ranges, e.g. 601-650 or 303,310-320.",
    ),
    _old_topics: OldTopicIds = None,
    workers: int = WorkersOpt,
    json_out: Json = False,
):
    """Would a new system's score be off by more than evaluation noise? Reusable within
    1%, new systems lose more than 1%, or inconclusive (docs/STATISTICS.md, reusability)."""
    from contextlib import nullcontext

    from litaudit.analyses.reuse.verdict_request import VerdictRequest, answer_verdict
    from litaudit.render.audits import emit
    from litaudit.render.console import err
    from litaudit.render.progress import progress_bar

    req = VerdictRequest(
        collection=collection,
        scores=scores,
        pseudo_sites=pseudo_sites,
        run_sites=run_sites,
        depth=depth,
        margin=margin,
        alpha=alpha,
        split=split,
        permutations=permutations,
        split_seed=split_seed,
        seed=seed,
        assignments=assignments,
        subcollections=with_sub,
        topics=topics,
        workers=workers_of(workers),
    ).checked()
    label, total = req.steps()
    quiet = json_out or not err.is_terminal
    with (
        open_write(ctx) if req.collection is not None else nullcontext() as store,
        progress_bar(label, total, quiet=quiet) as bar,
    ):
        done = answer_verdict(None if store is None else store.con, req, progress=bar)
    emit(done, json_out)
