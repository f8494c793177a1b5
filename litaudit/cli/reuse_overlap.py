"""`litaudit reuse rao`, `lou` (Voorhees, Lin, Efron, SIGIR 2014) and `subcollections`
(Sanderson, Turpin, Zhang, Scholer, CIKM 2012). Each saves its result as an audit; the
verdict that joins them is `reuse verdict` (cli/reuse_verdict.py).
"""

from __future__ import annotations

import typer

from litaudit import defaults
from litaudit.cli.common import open_write
from litaudit.cli.options import (
    CollectionOpt,
    Json,
    OldSplitSeed,
    PermOpt,
    SplitOpt,
    SplitSeed,
    WorkersOpt,
    workers_of,
)

DepthOpt = typer.Option(
    defaults.REUSE_DEPTH,
    "--depth",
    "-k",
    min=1,
    help="Pool depth K: a run 'retrieves' its top K documents per topic.",
)


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
            progress=bar,
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

    loaded = load_ranged(store.con, collection, progress=bar)
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

    loaded = load_coded(store.con, collection, bar)
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
            progress=bar,
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
            workers=workers_of(workers),
            loaded=loaded,
            progress=bar,
        )
    emit(done, json_out)
