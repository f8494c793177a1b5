"""Commands registered on `litaudit reuse` (see litaudit/cli/reuse.py).

`rao` and `lou` (Voorhees, Lin, Efron, SIGIR 2014), `subcollections` (Sanderson, Turpin,
Zhang, Scholer, CIKM 2012) and `verdict` (all of them, and the significance agreement of
Carterette et al. 2010 when available). Each saves its result as an audit.
"""

from __future__ import annotations

import os

import typer

from litaudit import defaults
from litaudit.cli.common import open_write
from litaudit.cli.options import (
    AssignmentSeed,
    CollectionOpt,
    Json,
    OldAssignmentSeed,
    OldSplitSeed,
    OptCollection,
    SplitSeed,
)

DepthOpt = typer.Option(
    defaults.REUSE_DEPTH,
    "--depth",
    "-k",
    min=1,
    help="Pool depth K: a run 'retrieves' its top K documents per topic.",
)
SplitOpt = typer.Option(
    "prefix",
    "--split",
    help="Sub-collections: 'prefix' (docno's leading letters), 'prefix:FBIS,FR94,FT,LA' "
    "(listed prefixes) or a FILE of 'docno sub-collection' lines.",
)
PermOpt = typer.Option(
    defaults.SUBCOLLECTION_PERMUTATIONS,
    "--permutations",
    "-R",
    min=1,
    help="Random splits for the randomization test.",
)
# the verdict's own options are in `verdict` below (defaults in litaudit.defaults)
WorkersOpt = typer.Option(
    0, "--workers", min=0, help="Threads for the randomization test (0: one per core, max 2)."
)


def _workers(n: int) -> int:
    return n or max(1, min(2, os.cpu_count() or 1))


def rao_cmd(
    ctx: typer.Context,
    collection: str = CollectionOpt,
    depth: int = DepthOpt,
    measure: str = typer.Option(
        defaults.RAO_MEASURE,
        "--measure",
        "-m",
        help="Effectiveness shown beside RAO (default: the paper's).",
    ),
    json_out: Json = False,
):
    """Run Average Overlap of every run at depth K (Voorhees et al. SIGIR 2014)."""
    from litaudit.analyses.reuse.overlap import run_rao
    from litaudit.render.audits import emit

    with open_write(ctx) as store, _archive_bar("RAO", json_out) as bar:
        loaded = _load(store, collection, bar, "RAO")
        done = run_rao(
            store.con,
            collection,
            depth=depth,
            measure=measure,
            loaded=loaded,
            progress=bar.advance,
        )
    emit(done, json_out)


def _archive_bar(what: str, quiet: bool):
    """The bar of an audit of a whole stored archive: its load, then its topic ranges."""
    from litaudit.render.progress import progress_bar

    return progress_bar(f"{what}: reading the archive", 1, unit="ranges", quiet=quiet)


def _load(store, collection: str, bar, what: str):
    """The archive read by topic ranges
    (:func:`~litaudit.analyses.reuse.archive_ranges.load_ranged`), the bar advanced through its
    load, then expecting the audit's pass over its ranges."""
    from litaudit.analyses.reuse.archive_ranges import load_ranged

    loaded = load_ranged(store.con, collection, progress=bar.advance)
    bar.expect(len(loaded[1].ranges))
    bar.update(description=f"{what} of {loaded[1].n_lines:,} ranked documents, by topic ranges")
    return loaded


def _whole_archive_bar(what: str, quiet: bool):
    """The bar of an audit of a whole archive in memory: its load's steps, then the audit."""
    from litaudit.analyses.reuse.coded_archive import LOAD_STEPS
    from litaudit.render.progress import progress_bar

    return progress_bar(f"{what}: loading the archive", LOAD_STEPS + 1, quiet=quiet)


def _load_whole(store, collection: str, bar, what: str):
    """The coded archive (:func:`~litaudit.analyses.reuse.coded_archive.load_coded`), the bar
    advanced through its steps, then labelled for the audit."""
    from litaudit.analyses.reuse.coded_archive import load_coded

    loaded = load_coded(store.con, collection, bar.advance)
    bar.update(description=f"{what} of {len(loaded[1].run):,} ranked documents")
    return loaded


def lou_cmd(
    ctx: typer.Context,
    collection: str = CollectionOpt,
    depth: int = DepthOpt,
    measure: str = typer.Option(
        defaults.LOU_MEASURE, "--measure", "-m", help="Measure re-evaluated (default: the paper's)."
    ),
    min_map: float = typer.Option(
        defaults.LOU_MIN_MAP, "--min-map", help="Table 2 includes automatic runs above this."
    ),
    noise: float = typer.Option(
        defaults.LOU_NOISE_PCT, "--noise-pct", help="A |% difference| above this is not noise."
    ),
    json_out: Json = False,
):
    """Unique relevant documents per participant and leave-out-uniques (SIGIR 2014)."""
    from litaudit.analyses.reuse.overlap import run_lou
    from litaudit.render.audits import emit

    with open_write(ctx) as store, _archive_bar("LOU", json_out) as bar:
        loaded = _load(store, collection, bar, "LOU")
        done = run_lou(
            store.con,
            collection,
            depth=depth,
            measure=measure,
            min_map=min_map,
            noise_pct=noise,
            loaded=loaded,
            progress=bar.advance,
        )
    emit(done, json_out)


def subcollections_cmd(
    ctx: typer.Context,
    collection: str = CollectionOpt,
    split: str = SplitOpt,
    permutations: int = PermOpt,
    seed: SplitSeed = None,
    _old_seed: OldSplitSeed = None,
    all_types: bool = typer.Option(
        False, "--all-types", help="Rank manual runs too (paper: automatic only)."
    ),
    keep_bottom: bool = typer.Option(
        False, "--keep-bottom", help="Keep the bottom 25% of runs by MAP."
    ),
    workers: int = WorkersOpt,
    json_out: Json = False,
):
    """Kendall's tau between sub-collection rankings, randomization test (CIKM 2012)."""
    from litaudit.analyses.reuse.subcollection_tau import (
        SUBCOLLECTION_BOTTOM,
        SubcollectionTest,
        run_subcollections,
    )
    from litaudit.render.audits import emit

    with open_write(ctx) as store, _whole_archive_bar("sub-collections", json_out) as bar:
        loaded = _load_whole(store, collection, bar, "sub-collections")
        bar.update(total=permutations)
        bar.restart("random splits")
        test = SubcollectionTest(
            split=split,
            permutations=permutations,
            seed=defaults.SUBCOLLECTION_SEED if seed is None else seed,
            automatic_only=not all_types,
            drop_bottom=0.0 if keep_bottom else SUBCOLLECTION_BOTTOM,
        )
        done = run_subcollections(
            store.con,
            collection,
            test,
            workers=_workers(workers),
            loaded=loaded,
            progress=bar.advance,
        )
    emit(done, json_out)


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
    from litaudit.analyses.reuse import verdict as V
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
        v = V.matrix_verdict(
            matrix,
            sites,
            names=tuple(sorted(set(sites))),
            source=Path(scores).name,
            margin_pct=margin,
            seed=seed,
            assignments=assignments,
            alpha=alpha,
            progress=bar.advance,
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
    from litaudit.analyses.reuse import verdict as V
    from litaudit.analyses.reuse.subcollection_tau import SubcollectionTest
    from litaudit.render.progress import progress_bar

    total = V.verdict_steps(V.verdict_depths(depth), assignments, permutations, with_sub)
    with open_write(ctx) as store, progress_bar("reusability", total, quiet=quiet) as bar:
        test = SubcollectionTest(
            split=split,
            permutations=permutations,
            seed=V.SUBCOLLECTION_SEED if split_seed is None else split_seed,
        )
        asked = V.VerdictSettings(
            depth=depth,
            margin_pct=margin,
            alpha=alpha,
            assignments=assignments,
            seed=seed,
            subcollections=with_sub,
            splits=test,
            topics=topics,
        )
        return V.run_verdict(
            store.con, collection, asked, workers=_workers(workers), progress=bar.advance
        )


def register(app: typer.Typer) -> None:
    """Add this module's commands to the `reuse` sub-app."""
    app.command("rao")(rao_cmd)
    app.command("lou")(lou_cmd)
    app.command("subcollections")(subcollections_cmd)
    app.command("verdict")(verdict_cmd)
