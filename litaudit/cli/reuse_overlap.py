"""Commands registered on `litaudit reuse` (see litaudit/cli/reuse.py).

`rao` and `lou` (Voorhees, Lin, Efron, SIGIR 2014), `subcollections` (Sanderson, Turpin,
Zhang, Scholer, CIKM 2012) and `verdict` (all of them, and the significance agreement of
Carterette et al. 2010 when available). Each saves its result as an audit.
"""

from __future__ import annotations

import os

import typer

from litaudit.cli.common import JsonOpt, open_write

CollectionOpt = typer.Option(..., "--collection", "-c",
                             help="Collection id or alias (e.g. robust03).")
DepthOpt = typer.Option(100, "--depth", "-k", min=1,
                        help="Pool depth K: a run 'retrieves' its top K documents per topic.")
SplitOpt = typer.Option(
    "prefix", "--split",
    help="Sub-collections: 'prefix' (docno's leading letters), 'prefix:FBIS,FR94,FT,LA' "
         "(listed prefixes) or a FILE of 'docno sub-collection' lines.")
PermOpt = typer.Option(1000, "--permutations", "-R", min=1,
                       help="Random splits for the randomization test.")
SeedOpt = typer.Option(20120101, "--seed", help="Seed of the random splits.")
WorkersOpt = typer.Option(0, "--workers", min=0,
                          help="Threads for the randomization test (0: one per core, max 2).")


def _workers(n: int) -> int:
    return n or max(1, min(2, os.cpu_count() or 1))


def _progress_bar(total: int, label: str):
    """A rich progress bar on stderr; returns (context manager, advance callback)."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from litaudit.render.console import err

    prog = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TimeRemainingColumn(), console=err, transient=True)
    task = prog.add_task(label, total=total)
    return prog, (lambda k: prog.advance(task, k))


def _print_verdict(v, aid) -> None:
    from litaudit.render.console import fmt, out, table

    rows = [(c.component, c.name, fmt(c.value), c.rule,
             "-" if c.passed is None else ("pass" if c.passed else "FAIL"), c.note)
            for c in v.checks]
    out.print(table(f"Reusability verdict, {v.collection_id}",
                    ["component", "number", "value", "threshold", "result", "note"], rows))
    for s in v.skipped:
        out.print(f"skipped: {s}")
    word = {True: "REUSABLE", False: "NOT SHOWN REUSABLE", None: "NO DECISION"}[v.passed]
    out.print(f"verdict: {word} ({v.n_failed} of {v.n_checks} checks failed)")
    if aid is not None:
        from litaudit.render.audits import saved_footer

        out.print(saved_footer(aid), markup=False)


def register(app: typer.Typer) -> None:
    """Add this module's commands to the `reuse` sub-app."""

    @app.command("rao")
    def rao(ctx: typer.Context, collection: str = CollectionOpt, depth: int = DepthOpt,
            measure: str = typer.Option("Rprec", "--measure", "-m",
                                        help="Effectiveness shown beside RAO (paper: Rprec)."),
            as_json: bool = JsonOpt):
        """Run Average Overlap of every run at depth K (Voorhees et al. SIGIR 2014)."""
        from litaudit.analyses.reuse import run_rao
        from litaudit.render.audits import emit

        with open_write(ctx) as store:
            done = run_rao(store.con, collection, depth=depth, measure=measure)
        emit("reuse-rao", done, as_json)

    @app.command("lou")
    def lou(ctx: typer.Context, collection: str = CollectionOpt, depth: int = DepthOpt,
            measure: str = typer.Option("AP", "--measure", "-m",
                                        help="Measure re-evaluated (paper: MAP)."),
            min_map: float = typer.Option(0.1, "--min-map",
                                          help="Table 2 includes automatic runs above this."),
            noise: float = typer.Option(1.0, "--noise-pct",
                                        help="A |% difference| above this is not noise."),
            as_json: bool = JsonOpt):
        """Unique relevant documents per participant and leave-out-uniques (SIGIR 2014)."""
        from litaudit.analyses.reuse import run_lou
        from litaudit.render.audits import emit

        with open_write(ctx) as store:
            done = run_lou(store.con, collection, depth=depth, measure=measure,
                           min_map=min_map, noise_pct=noise)
        emit("reuse-lou", done, as_json)

    @app.command("subcollections")
    def subcollections(
        ctx: typer.Context, collection: str = CollectionOpt, split: str = SplitOpt,
        permutations: int = PermOpt, seed: int = SeedOpt,
        all_types: bool = typer.Option(False, "--all-types",
                                       help="Rank manual runs too (paper: automatic only)."),
        keep_bottom: bool = typer.Option(False, "--keep-bottom",
                                         help="Keep the bottom 25% of runs by MAP."),
        workers: int = WorkersOpt, as_json: bool = JsonOpt,
    ):
        """Kendall's tau between sub-collection rankings, randomization test (CIKM 2012)."""
        from litaudit.analyses.subcollection_tau import SUBCOLLECTION_BOTTOM, run_subcollections
        from litaudit.render.audits import emit

        prog, advance = _progress_bar(permutations, "random splits")
        with open_write(ctx) as store, prog:
            done = run_subcollections(
                store.con, collection, split=split, permutations=permutations, seed=seed,
                automatic_only=not all_types,
                drop_bottom=0.0 if keep_bottom else SUBCOLLECTION_BOTTOM,
                workers=_workers(workers), progress=advance)
        emit("reuse-subcollections", done, as_json)

    @app.command("verdict")
    def verdict(ctx: typer.Context, collection: str = CollectionOpt, depth: int = DepthOpt,
                split: str = SplitOpt, permutations: int = PermOpt, seed: int = SeedOpt,
                alpha: float = typer.Option(0.05, "--alpha",
                                            help="Level of the sub-collection test."),
                no_agreement: bool = typer.Option(False, "--no-agreement",
                                                  help="Leave out significance agreement."),
                workers: int = WorkersOpt, as_json: bool = JsonOpt):
        """One reusability verdict: every number with its threshold and pass/fail."""
        from litaudit.analyses.verdict import run_verdict
        from litaudit.render.console import print_json

        prog, advance = _progress_bar(permutations, "random splits")
        with open_write(ctx) as store, prog:
            v, aid = run_verdict(store.con, collection, depth=depth, split=split,
                                 permutations=permutations, seed=seed, alpha=alpha,
                                 workers=_workers(workers), agreement=not no_agreement,
                                 progress=advance)
        print_json({"audit_id": aid, "result": v}) if as_json else _print_verdict(v, aid)
