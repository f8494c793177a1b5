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


def _pct(x: float | None) -> float | None:
    return None if x is None else 100.0 * x


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


def _print_rao(rep, aid) -> None:
    from litaudit.render.console import out, table

    rows = [(r.tag, r.participant, r.run_type or "-", r.rao, r.effectiveness, r.topics)
            for r in rep.runs]
    out.print(table(f"Run Average Overlap, {rep.collection_id}, depth {rep.depth} "
                    "(Voorhees et al. 2014)",
                    ["run", "participant", "type", "RAO", rep.measure, "topics"], rows))
    out.print(f"{rep.n_runs} runs, P = {rep.n_participants} participants: RAO range "
              f"[1/P = {rep.lower_bound:.4f}, 1]; mean {rep.mean_rao:.4f}, "
              f"min {rep.min_rao:.4f}, max {rep.max_rao:.4f}")
    if aid is not None:
        out.print(f"saved as audit {aid}")


def _print_lou(rep, aid) -> None:
    from litaudit.render.console import out, table

    prow = [(p.participant, p.runs, p.unique_relevant, _pct(p.share_of_relevant),
             _pct(p.share_of_uniques)) for p in rep.participants]
    out.print(table(f"Unique relevant documents, {rep.collection_id}, depth {rep.depth}",
                    ["participant", "runs", "unique", "% of relevant", "% of uniques"], prow,
                    digits=2))
    rrow = [(r.tag, r.participant, r.run_type or "-", r.before, r.after, r.pct_change,
             r.considered) for r in rep.runs]
    m = "MAP" if rep.measure == "AP" else rep.measure
    out.print(table("Leave-out-uniques", ["run", "participant", "type", f"{m} before",
                                          f"{m} after", "% change", "in Table 2"], rrow))
    t2 = [
        ("% of relevant documents that are unique", _pct(rep.unique_fraction)),
        ("largest % of uniques from one participant", _pct(rep.largest_share)),
        ("mean |% difference|", rep.mean_abs_pct),
        ("max |% difference|", rep.max_abs_pct),
        (f"runs with |% difference| > {rep.noise_pct:g}%", f"{rep.n_above} of "
                                                           f"{rep.n_considered}"),
    ]
    out.print(table(f"Table 2 statistics (automatic runs with {m} >= {rep.min_map:g})",
                    ["statistic", "value"], t2, digits=2))
    out.print(f"{rep.n_unique} unique of {rep.n_relevant} relevant documents "
              f"({rep.n_retrieved_relevant} in some run's top {rep.depth}); largest: "
              f"{rep.largest_participant or '-'}")
    if aid is not None:
        out.print(f"saved as audit {aid}")


def _print_sub(rep, aid) -> None:
    from litaudit.render.console import out, table

    srow = [(s.name, s.documents, s.relevant, s.topics) for s in rep.subcollections]
    out.print(table(f"Sub-collections of {rep.collection_id} (split {rep.split})",
                    ["sub-collection", "documents", "relevant", "topics"], srow))
    names = [s.name for s in rep.subcollections]
    rrow = [(r.tag, r.full_map, *r.maps) for r in rep.runs]
    out.print(table("MAP per sub-collection", ["run", "all", *names], rrow))
    prow = [(f"{p.a}-{p.b}", p.tau,
             "-" if p.random_min is None else f"{p.random_min:.2f}-{p.random_max:.2f}",
             p.p_value) for p in rep.pairs]
    out.print(table(f"Kendall's tau per pair and randomization test ({rep.permutations} "
                    f"random splits, seed {rep.seed}; Sanderson et al. 2012, Tables 3-4)",
                    ["pair", "tau", "random tau range", "p"], prow, digits=3))
    sig = ", ".join(f"{n} at {lvl:g}" for lvl, n in rep.significant)
    excl = "; ".join(f"{t} ({why})" for t, why in rep.excluded) or "none"
    out.print(f"{len(rep.runs)} runs ranked; excluded: {excl}")
    out.print(f"pairs significant: {sig} (of {len(rep.pairs)}); mean tau "
              f"{'-' if rep.mean_tau is None else f'{rep.mean_tau:.3f}'}; smallest possible "
              f"p = 1/{rep.permutations + 1}")
    if aid is not None:
        out.print(f"saved as audit {aid}")


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
        out.print(f"saved as audit {aid}")


def register(app: typer.Typer) -> None:
    """Add this module's commands to the `reuse` sub-app."""

    @app.command("rao")
    def rao(ctx: typer.Context, collection: str = CollectionOpt, depth: int = DepthOpt,
            measure: str = typer.Option("Rprec", "--measure", "-m",
                                        help="Effectiveness shown beside RAO (paper: Rprec)."),
            as_json: bool = JsonOpt):
        """Run Average Overlap of every run at depth K (Voorhees et al. SIGIR 2014)."""
        from litaudit.analyses.reuse import run_rao
        from litaudit.render.console import print_json

        with open_write(ctx) as store:
            rep, aid = run_rao(store.con, collection, depth=depth, measure=measure)
        print_json({"audit_id": aid, "result": rep}) if as_json else _print_rao(rep, aid)

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
        from litaudit.render.console import print_json

        with open_write(ctx) as store:
            rep, aid = run_lou(store.con, collection, depth=depth, measure=measure,
                               min_map=min_map, noise_pct=noise)
        print_json({"audit_id": aid, "result": rep}) if as_json else _print_lou(rep, aid)

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
        from litaudit.render.console import print_json

        prog, advance = _progress_bar(permutations, "random splits")
        with open_write(ctx) as store, prog:
            rep, aid = run_subcollections(
                store.con, collection, split=split, permutations=permutations, seed=seed,
                automatic_only=not all_types,
                drop_bottom=0.0 if keep_bottom else SUBCOLLECTION_BOTTOM,
                workers=_workers(workers), progress=advance)
        print_json({"audit_id": aid, "result": rep}) if as_json else _print_sub(rep, aid)

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
