"""Commands registered on `litaudit reuse` (see litaudit/cli/reuse.py).

`rao` and `lou` (Voorhees, Lin, Efron, SIGIR 2014), `subcollections` (Sanderson, Turpin,
Zhang, Scholer, CIKM 2012) and `verdict` (all of them, and the significance agreement of
Carterette et al. 2010 when available). Each saves its result as an audit.
"""

from __future__ import annotations

import os

import typer

from litaudit import defaults
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
SeedOpt = typer.Option(defaults.SUBCOLLECTION_SEED, "--seed",
                       help="Seed of the random splits.")
# the verdict's own options are in `verdict` below (defaults in litaudit.defaults)
WorkersOpt = typer.Option(0, "--workers", min=0,
                          help="Threads for the randomization test (0: one per core, max 2).")


def _workers(n: int) -> int:
    return n or max(1, min(2, os.cpu_count() or 1))


def _pct(x: float | None) -> float | None:
    return None if x is None else 100.0 * x


def _progress_bar(total: int, label: str, quiet: bool = False):
    """A rich progress bar on stderr (off when ``quiet``: --json or not a terminal);
    returns (context manager, advance callback)."""
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
                    TimeElapsedColumn(), TimeRemainingColumn(), console=err, transient=True, disable=quiet)
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

    name = v.collection_id or "score matrix"
    c = v.coverage
    out.print(f"Reusability verdict, {name}: {c.runs} runs, {c.participants} participants "
              f"(sites), {c.topics} topics; {c.note}")
    if v.tests:
        rows = [("-" if t.depth is None else t.depth, f"{t.result.shift_pct:+.2f}%",
                 fmt(t.result.shift), fmt(t.result.se), fmt(t.result.p_value, 3),
                 fmt(t.p_adjusted, 3), "yes" if t.evidence else "no",
                 ", ".join(f"{s.site} {s.shift_pct:+.1f}%" for s in t.most_affected))
                for t in v.tests]
        out.print(table(
            f"Tests entering the verdict: shift of held-out runs (Carterette et al. 2010, "
            f"pooling simulation, k = 2, expected over the design's assignments), "
            f"{v.correction} at alpha {v.alpha:g}",
            ["pool depth", "shift", "AP points", "se", "p", "adjusted p", "evidence",
             "sites losing most"], rows))
    a = v.agreement
    if a is not None:
        rows = []
        for p in a.parts:
            if p.status != "tested":
                rows.append((p.analysis, f"{p.pairs_min}-{p.pairs_max}", "-", "-", "-",
                             "-", p.reason))
                continue
            rows.append((p.analysis, f"{p.pairs_min}-{p.pairs_max}",
                         f"{100 * p.disagreement_real:.1f}% / {100 * p.disagreement_null:.1f}%",
                         f"{p.paper_p.median:.3f}",
                         f"{p.paper_rejections} of {a.assignments}", fmt(p.p_value, 3), ""))
        out.print(table(
            f"Descriptive, not a gate: agreement in significance over {a.assignments} random "
            f"assignments ({a.source}; seed {a.seed}, sign flips seed {a.flip_seed})",
            ["analysis", "pairs", "disagree real / random", "paper's p (median)",
             "paper's p < alpha", "dependence-kept p", "note"], rows))
    if v.lou:
        out.print(table("Descriptive: leave-out-uniques by pool depth (Voorhees et al. 2014, "
                        "Table 2; automatic runs with MAP >= 0.1)",
                        ["depth", "unique / relevant", "runs", "mean |% change|",
                         "max |% change|", "above 1%"],
                        [(x.depth, fmt(x.unique_fraction), x.considered, fmt(x.mean_abs_pct, 2),
                          fmt(x.max_abs_pct, 2), x.above_noise) for x in v.lou]))
    if v.rao is not None:
        r = v.rao
        out.print(f"Descriptive: run average overlap at depth {r.depth}: mean {fmt(r.mean_rao)}, "
                  f"max {fmt(r.max_rao)}, range [1/P = {r.lower_bound:.4f}, 1]")
    if v.subcollections is not None:
        sc = v.subcollections
        out.print(f"Descriptive: sub-collection pairs with p < {v.alpha:g}: {sc.significant} of "
                  f"{sc.pairs} ({sc.significant_holm} after Holm); mean tau {fmt(sc.mean_tau, 3)} "
                  f"({sc.permutations} random splits, seed {sc.seed})")
    if v.references:
        out.print(table("Beside the papers' reference values (shown, not enforced)",
                        ["quantity", "here", "paper", "source"],
                        [(r.quantity, r.ours, r.paper, r.source) for r in v.references]))
    for n in v.notes:
        out.print(f"note: {n}")
    out.print(f"verdict: {v.headline}")
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
    def verdict(ctx: typer.Context,
                collection: str = typer.Option(None, "--collection", "-c",
                                               help="Collection id or alias (e.g. robust03)."),
                scores: str = typer.Option(None, "--scores",
                                           help="Per-topic score matrix CSV (topics x runs) "
                                                "instead of a stored archive."),
                pseudo_sites: int = typer.Option(None, "--pseudo-sites",
                                                 help="With --scores: group runs into M sites."),
                run_sites: str = typer.Option(None, "--run-sites",
                                              help="With --scores: CSV run,site."),
                depth: int = typer.Option(None, "--depth", "-k", min=1,
                                          help="Pool depth added to the depths tried "
                                               "(default: the paper's, see docs)."),
                split: str = SplitOpt, permutations: int = PermOpt,
                split_seed: int = typer.Option(None, "--split-seed",
                                               help="Seed of the sub-collection random splits."),
                seed: int = typer.Option(None, "--seed",
                                         help="Seed of the random hold-out assignments."),
                assignments: int = typer.Option(None, "--assignments", min=1,
                                                help="Random hold-out assignments of the "
                                                     "agreement analysis."),
                alpha: float = typer.Option(None, "--alpha",
                                            help="Family-wise level of the verdict's tests."),
                with_sub: bool = typer.Option(False, "--subcollections",
                                              help="Also show sub-collection tau "
                                                   "(descriptive; R random splits)."),
                workers: int = WorkersOpt, as_json: bool = JsonOpt):
        """One reusability verdict: evidence against reuse, none in these data, or not
        enough data (docs/STATISTICS.md, reusability)."""
        from litaudit import defaults
        from litaudit.analyses import verdict as V
        from litaudit.errors import ParameterError
        from litaudit.render.console import err, print_json

        seed = defaults.AGREEMENT_SEED if seed is None else seed
        assignments = assignments or defaults.AGREEMENT_ASSIGNMENTS
        alpha = defaults.REUSE_ALPHA if alpha is None else alpha
        quiet = as_json or not err.is_terminal
        if (collection is None) == (scores is None):
            raise ParameterError("give --collection or --scores")
        if scores is not None:
            from pathlib import Path

            from litaudit.analyses import agreement_input as agin

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
            prog, advance = _progress_bar(assignments, "hold-out assignments", quiet)
            with prog:
                v = V.matrix_verdict(matrix, sites, names=tuple(sorted(set(sites))),
                                     source=Path(scores).name, seed=seed,
                                     assignments=assignments, alpha=alpha, progress=advance)
            aid = None
        else:
            depth = depth or defaults.AGREEMENT_DEPTH
            total = V.verdict_steps(V._depths(depth), assignments, permutations,
                                    with_sub)
            prog, advance = _progress_bar(total, "reusability", quiet)
            with open_write(ctx) as store, prog:
                v, aid = V.run_verdict(
                    store.con, collection, depth=depth, split=split,
                    permutations=permutations,
                    split_seed=V.SUBCOLLECTION_SEED if split_seed is None else split_seed,
                    seed=seed, assignments=assignments, alpha=alpha,
                    workers=_workers(workers), subcollections=with_sub,
                    progress=advance)
        print_json({"audit_id": aid, "result": v}) if as_json else _print_verdict(v, aid)
