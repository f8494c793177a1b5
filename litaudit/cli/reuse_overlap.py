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
    depth_option,
    measure_option,
    workers_of,
)

DepthOpt = depth_option(defaults.REUSE_DEPTH, "a run 'retrieves' its top K documents")


def rao_cmd(
    ctx: typer.Context,
    collection: str = CollectionOpt,
    depth: int = DepthOpt,
    measure: str = measure_option(
        defaults.RAO_MEASURE, "the effectiveness shown beside RAO (default: the paper's)"
    ),
    json_out: Json = False,
):
    """Run Average Overlap of every run at depth K (Voorhees et al. SIGIR 2014)."""
    from litaudit.analyses.reuse.archive_requests import RaoRequest, answer_rao
    from litaudit.render.audits import emit
    from litaudit.render.progress import progress_bar

    req = RaoRequest(collection=collection, depth=depth, measure=measure)
    with open_write(ctx) as store, progress_bar("RAO", quiet=json_out) as bar:
        done = answer_rao(store.con, req, progress=bar)
    emit(done, json_out)


def lou_cmd(
    ctx: typer.Context,
    collection: str = CollectionOpt,
    depth: int = DepthOpt,
    measure: str = measure_option(defaults.LOU_MEASURE, "re-evaluated (default: the paper's)"),
    min_map: float = typer.Option(
        defaults.LOU_MIN_MAP, "--min-map", help="Table 2 includes automatic runs above this."
    ),
    noise: float = typer.Option(
        defaults.LOU_NOISE_PCT, "--noise-pct", help="A |% difference| above this is not noise."
    ),
    json_out: Json = False,
):
    """Unique relevant documents per participant and leave-out-uniques (SIGIR 2014)."""
    from litaudit.analyses.reuse.archive_requests import LouRequest, answer_lou
    from litaudit.render.audits import emit
    from litaudit.render.progress import progress_bar

    req = LouRequest(
        collection=collection, depth=depth, measure=measure, min_map=min_map, noise_pct=noise
    )
    with open_write(ctx) as store, progress_bar("LOU", quiet=json_out) as bar:
        done = answer_lou(store.con, req, progress=bar)
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
    from litaudit.analyses.reuse.archive_requests import (
        SubcollectionsRequest,
        answer_subcollections,
    )
    from litaudit.analyses.reuse.subcollection_tau import SUBCOLLECTION_BOTTOM, SubcollectionTest
    from litaudit.render.audits import emit
    from litaudit.render.progress import progress_bar

    test = SubcollectionTest(
        split=split,
        permutations=permutations,
        seed=defaults.SUBCOLLECTION_SEED if seed is None else seed,
        automatic_only=not all_types,
        drop_bottom=0.0 if keep_bottom else SUBCOLLECTION_BOTTOM,
    )
    req = SubcollectionsRequest(collection=collection, test=test, workers=workers_of(workers))
    with open_write(ctx) as store, progress_bar("sub-collections", quiet=json_out) as bar:
        done = answer_subcollections(store.con, req, progress=bar)
    emit(done, json_out)
