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
    OptCollection,
    PermOpt,
    SplitOpt,
    SplitSeed,
    WorkersOpt,
    workers_of,
)


def verdict_cmd(
    ctx: typer.Context,
    collection: OptCollection = None,
    scores: str = typer.Option(
        None,
        "--scores",
        help="Per-topic score matrix CSV (topics x runs) instead of a stored archive.",
    ),
    pseudo_sites: int = typer.Option(
        None, "--pseudo-sites", help="With --scores: group runs into M sites."
    ),
    run_sites: str = typer.Option(None, "--run-sites", help="With --scores: CSV run,site."),
    depth: int = typer.Option(
        None,
        "--depth",
        "-k",
        min=1,
        help="Pool depth to decide at (default: the collection's recorded one; when "
        "unknown, one row per depth and no decision).",
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
    alpha: float = typer.Option(
        None, "--alpha", help="Level of each one-sided test (intervals at 1 - 2 alpha)."
    ),
    with_sub: bool = typer.Option(
        False,
        "--subcollections",
        help="Also show sub-collection tau (descriptive; R random splits).",
    ),
    topics: str = typer.Option(
        None,
        "--topics",
        help="Decide on these topics only: ids and ranges, e.g. 601-650 or 303,310-320.",
    ),
    workers: int = WorkersOpt,
    json_out: Json = False,
):
    """Would a new system's score be off by more than evaluation noise? Reusable within
    1%, new systems lose more than 1%, or inconclusive (docs/STATISTICS.md, reusability)."""
    from litaudit import defaults
    from litaudit.render.audits import emit
    from litaudit.render.console import err

    seed = defaults.AGREEMENT_SEED if seed is None else seed
    assignments = assignments or defaults.AGREEMENT_ASSIGNMENTS
    alpha, margin = _decision_options(alpha, margin, collection, scores, depth)
    if scores is not None and topics is not None:
        from litaudit.errors import ParameterError

        raise ParameterError("--topics applies to a stored archive (--collection), not --scores")
    quiet = json_out or not err.is_terminal
    if scores is not None:
        done = _scores_verdict(
            scores, run_sites, pseudo_sites, seed, assignments, alpha, margin, quiet
        )
    else:
        done = _stored_verdict(
            ctx,
            collection,
            depth,
            margin,
            split,
            permutations,
            split_seed,
            seed,
            assignments,
            alpha,
            workers,
            with_sub,
            quiet,
            topics,
        )
    emit(done, json_out)


def _decision_options(alpha, margin, collection, scores, depth) -> tuple[float, float]:
    """--alpha and --margin, checked, with their defaults; the input options checked."""
    from litaudit import defaults
    from litaudit.errors import ParameterError

    if (collection is None) == (scores is None):
        raise ParameterError("give --collection or --scores")
    if scores is not None and depth is not None:
        raise ParameterError("--depth applies to a stored archive (--collection), not --scores")

    alpha = defaults.REUSE_ALPHA if alpha is None else alpha
    margin = defaults.REUSE_MARGIN_PCT if margin is None else margin
    if not margin > 0:
        raise ParameterError(f"--margin must be a positive percentage, got {margin}")
    if not 0 < alpha < 0.5:
        raise ParameterError(f"--alpha must be in (0, 0.5), got {alpha}")
    return alpha, margin


def _scores_verdict(scores: str, run_sites, pseudo_sites, seed, assignments, alpha, margin, quiet):
    """`reuse verdict --scores`: the verdict of a per-topic score matrix (not stored)."""
    from pathlib import Path

    from litaudit.analyses.agreement import input as agin
    from litaudit.analyses.audits import Audited
    from litaudit.analyses.reuse import verdict
    from litaudit.errors import ParameterError
    from litaudit.render.progress import progress_bar

    tags, _, matrix = agin.read_score_matrix(Path(scores))
    if run_sites is not None:
        mapping = agin.read_run_sites(Path(run_sites))
        missing = [t for t in tags if t not in mapping]
        if missing:
            raise ParameterError(f"{run_sites}: no site for run {missing[0]!r}")
        sites = tuple(mapping[t] for t in tags)
    elif pseudo_sites is not None:
        sites = agin.pseudo_sites(tags, pseudo_sites)
    else:
        raise ParameterError("--scores needs --run-sites FILE or --pseudo-sites M")
    with progress_bar("hold-out assignments", assignments, quiet=quiet) as bar:
        v = verdict.matrix_verdict(
            matrix,
            sites,
            names=tuple(sorted(set(sites))),
            source=Path(scores).name,
            margin_pct=margin,
            seed=seed,
            assignments=assignments,
            alpha=alpha,
            progress=bar,
        )
    return Audited(v, None)


def _stored_verdict(
    ctx: typer.Context,
    collection: str,
    depth: int | None,
    margin: float,
    split,
    permutations,
    split_seed,
    seed,
    assignments,
    alpha,
    workers,
    with_sub: bool,
    quiet: bool,
    topics: str | None = None,
):
    """`reuse verdict --collection`: the verdict of a stored run archive, saved as an audit."""
    from litaudit.analyses.reuse import verdict
    from litaudit.analyses.reuse.subcollection_tau import SubcollectionTest
    from litaudit.render.progress import progress_bar

    total = verdict.verdict_steps(
        verdict.verdict_depths(depth), assignments, permutations, with_sub
    )
    with open_write(ctx) as store, progress_bar("reusability", total, quiet=quiet) as bar:
        test = SubcollectionTest(
            split=split,
            permutations=permutations,
            seed=verdict.SUBCOLLECTION_SEED if split_seed is None else split_seed,
        )
        asked = verdict.VerdictSettings(
            depth=depth,
            margin_pct=margin,
            alpha=alpha,
            assignments=assignments,
            seed=seed,
            subcollections=with_sub,
            splits=test,
            topics=topics,
        )
        return verdict.run_verdict(
            store.con, collection, asked, workers=workers_of(workers), progress=bar
        )
