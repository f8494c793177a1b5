"""Commands registered on `litaudit reuse` (see litaudit/cli/reuse.py): the held-out-site
design of Carterette, Kanoulas, Pavlu and Fang, SIGIR 2010 (`design`, `holdout`) and its
agreement-in-significance analysis (`agreement`)."""

from __future__ import annotations

from pathlib import Path

import typer

from litaudit.cli.common import JsonOpt
from litaudit.errors import ParameterError

CORRECTION_HELP = "Multiple-comparison correction of the pairwise p-values: none, holm, bonferroni."


def _sites_option(sites: int | None, names: str | None) -> list[str]:
    if names:
        out = [s.strip() for s in names.split(",") if s.strip()]
        if sites is not None and sites != len(out):
            raise ParameterError(f"--sites {sites} but --site-names lists {len(out)} sites")
        return out
    if sites is None:
        raise ParameterError("give --sites M or --site-names A,B,...")
    width = len(str(sites))
    return [f"S{i:0{width}d}" if width > 1 else f"S{i}" for i in range(1, sites + 1)]


def design_cmd(
    sites: int = typer.Option(..., "--sites", "-m", help="Number of sites m."),
    topics: int = typer.Option(..., "--topics", "-N", help="Total number of topics N."),
    baseline_min: int = typer.Option(..., "--baseline-min", help="Minimum all-site baseline n0."),
    held_out: int = typer.Option(None, "--held-out", "-k",
                                 help="Sites held out of each topic (default: table only)."),
    partial: bool = typer.Option(False, "--partial",
                                 help="Exactly --baseline-min all-site topics; every other "
                                      "topic holds out k sites, the last cycle partial "
                                      "(Section 4.3; what `reuse agreement --baseline` uses)."),
    json_out: bool = JsonOpt,
):
    """b, n and the topic-set sizes of the held-out-site design (Carterette et al. 2010, Table 2)."""
    from litaudit.render.console import out, print_json, table
    from litaudit.stats.design import design, design_table, partial_design

    if partial:
        if held_out is None:
            raise ParameterError("--partial needs --held-out K")
        d = partial_design(sites, topics, baseline_min, held_out)
        if json_out:
            print_json({"design": d})
            return
        out.print(f"m={d.sites} sites, N={d.topics} topics, n={d.baseline} all-site "
                  f"baseline, k={d.held_out} held out of every other topic")
        out.print(f"{d.full_cycles} full cycle(s) of C({d.sites},{d.held_out})={d.blocks} "
                  f"topics and a partial cycle of {d.partial}"
                  + ("" if d.partial else " (balanced: Table 2's sizes)"))

        def span(v):
            return str(v[0]) if v[0] == v[1] else f"{v[0]}-{v[1]}"

        out.print(table("Topic sets (min-max over sites or site pairs)", ["set", "topics"], [
            ["within-site baseline", span(d.within_site_baseline)],
            ["within-site reuse", span(d.within_site_reuse)],
            ["between-site baseline", span(d.between_site_baseline)],
            ["between-site reuse", span(d.between_site_reuse)],
            ["participant comparison", span(d.participant_comparison)]]))
        return

    chosen = design(sites, topics, baseline_min, held_out) if held_out is not None else None
    rows = design_table(sites, topics, baseline_min)
    if json_out:
        print_json({"design": chosen, "table": rows})
        return
    cols = ["k", "b", "n", "w/in base", "w/in reuse", "btw base", "btw reuse", "partic."]

    def row(d):
        return [d.held_out, d.subsets, d.baseline, d.within_site_baseline, d.within_site_reuse,
                d.between_site_baseline, d.between_site_reuse, d.participant_comparison]

    if chosen is not None:
        d = chosen
        out.print(f"m={d.sites} sites, N={d.topics} topics, n0={d.baseline_min}, "
                  f"k={d.held_out} held out per topic")
        out.print(f"b={d.subsets} subsets of C({d.sites},{d.held_out})={d.blocks} topics, "
                  f"all-site baseline n={d.baseline}")
        out.print(table("Topic sets (Table 2)", ["set", "topics"], [
            ["within-site baseline", d.within_site_baseline],
            ["within-site reuse", d.within_site_reuse],
            ["between-site baseline", d.between_site_baseline],
            ["between-site reuse", d.between_site_reuse],
            ["participant comparison", d.participant_comparison]]))
    out.print(table(f"Feasible k for m={sites}, N={topics}, n0={baseline_min}", cols,
                    [row(d) for d in rows]))
    if not rows:
        out.print("no k is feasible: N - n0 is smaller than every C(m, k)")


def holdout_cmd(
    ctx: typer.Context,
    output: Path = typer.Option(..., "--output", "-o", help="CSV to write (topic,held_out_site)."),
    sites: int = typer.Option(None, "--sites", "-m", help="Number of sites m (named S1..Sm)."),
    site_names: str = typer.Option(None, "--site-names", help="Comma-separated site names."),
    topics: int = typer.Option(None, "--topics", "-N", help="Number of topics (named 1..N)."),
    topic_file: Path = typer.Option(None, "--topic-file",
                                    help="Topic ids, one per line (instead of --topics)."),
    baseline_min: int = typer.Option(0, "--baseline-min", help="Minimum all-site baseline n0."),
    held_out: int = typer.Option(2, "--held-out", "-k", help="Sites held out of each topic."),
    seed: int = typer.Option(None, "--seed",
                             help="Shuffle the topic order first (randomized design)."),
    json_out: bool = JsonOpt,
):
    """Write the round-robin assignment of held-out sites to topics (Table 1) as CSV."""
    import numpy as np

    from litaudit.analyses.agreement_input import write_holdouts
    from litaudit.cli.common import db_path
    from litaudit.errors import InputError
    from litaudit.files import check_target
    from litaudit.render.console import out, print_json
    from litaudit.stats.design import assign_holdouts, design

    check_target(output, [db_path(ctx)])     # never the database, a directory or a FIFO
    names = _sites_option(sites, site_names)
    if topic_file is not None:
        if not topic_file.is_file():
            raise InputError(str(topic_file), None, "no such file")
        ids = []
        for i, line in enumerate(topic_file.read_text(encoding="utf-8").splitlines(), 1):
            t = line.strip()
            if not t:
                continue
            if t in ids:
                raise InputError(str(topic_file), i, f"topic {t!r} appears twice")
            ids.append(t)
        if topics is not None and topics != len(ids):
            raise ParameterError(f"--topics {topics} but {topic_file} lists {len(ids)} topics")
    elif topics is not None:
        ids = [str(i) for i in range(1, topics + 1)]
    else:
        raise ParameterError("give --topics N or --topic-file FILE")
    d = design(len(names), len(ids), baseline_min, held_out)
    rng = np.random.default_rng(seed) if seed is not None else None
    a = assign_holdouts(ids, names, held_out, d.baseline, rng=rng)
    n_rows = write_holdouts(output, a)
    summary = {"output": str(output), "rows": n_rows, "design": d, "seed": seed,
               "topic_order": "shuffled" if seed is not None else "as given"}
    if json_out:
        print_json(summary)
        return
    out.print(f"wrote {output}: {len(ids)} topics, {d.baseline} all-site baseline, "
              f"b={d.subsets} subsets of {d.blocks}, k={held_out} of {len(names)} sites held out "
              f"({n_rows} rows; topic order {summary['topic_order']})")


def agreement_cmd(
    ctx: typer.Context,
    collection: str = typer.Option(None, "--collection", "-c",
                                   help="Stored run archive to simulate on (saves an audit)."),
    qrels: Path = typer.Option(None, "--qrels", help="Qrels file for a simulation from files."),
    runs: list[Path] = typer.Option(None, "--run", help="Run file (repeat) for --qrels."),
    runs_dir: Path = typer.Option(None, "--runs-dir", help="Directory of run files for --qrels."),
    scores: Path = typer.Option(None, "--scores",
                                help="Per-topic score matrix CSV (topics x runs) instead."),
    design_csv: Path = typer.Option(None, "--design",
                                    help="Hold-out CSV (topic,held_out_site) for --scores."),
    run_sites: Path = typer.Option(None, "--run-sites", help="CSV run,site."),
    pseudo: int = typer.Option(None, "--pseudo-sites",
                               help="Group --scores runs into M pseudo-sites of adjacent runs."),
    held_out: int = typer.Option(2, "--held-out", "-k", help="Sites held out of each topic."),
    baseline: int = typer.Option(0, "--baseline", help="All-site baseline topics (generated)."),
    depth: int = typer.Option(100, "--depth", "-d", help="Pool depth of the simulation."),
    measure: str = typer.Option("AP", "--measure", help="Measure (simulation only)."),
    alpha: float = typer.Option(0.05, "--alpha", help="Significance level of the t-tests."),
    correction: str = typer.Option("none", "--correction", help=CORRECTION_HELP),
    min_topics: int = typer.Option(5, "--min-topics",
                                   help="Skip pairs with fewer baseline or reuse topics."),
    seed: int = typer.Option(None, "--seed", help="Shuffle topics before assigning hold-outs."),
    pairs: bool = typer.Option(False, "--pairs", help="Also list every tested pair."),
    randomize: int = typer.Option(0, "--randomize", min=0,
                                  help="Also test each analysis's X^2 against R random "
                                       "assignments of the same design (keeps the pairs' "
                                       "dependence; see docs)."),
    randomize_seed: int = typer.Option(None, "--randomize-seed",
                                       help="Seed of those assignments."),
    json_out: bool = JsonOpt,
):
    """Agreement in significance, tau and RMSE between baseline and reuse topics
    (Carterette et al. 2010, Section 3.2)."""
    from contextlib import nullcontext

    from litaudit import defaults
    from litaudit.analyses.agreement_run import AgreementRequest, run_agreement
    from litaudit.cli.common import open_write
    from litaudit.render.console import err

    req = AgreementRequest(
        collection=collection, qrels=qrels, runs=tuple(runs or ()), runs_dir=runs_dir,
        scores=scores, design=design_csv, run_sites=run_sites, pseudo_sites=pseudo,
        held_out=held_out, baseline=baseline, depth=depth, measure=measure, alpha=alpha,
        correction=correction, min_topics=min_topics, seed=seed, randomize=randomize,
        randomize_seed=(defaults.AGREEMENT_RANDOMIZATION_SEED if randomize_seed is None
                        else randomize_seed))
    req.check()
    with open_write(ctx) if collection is not None else nullcontext() as store:
        result, audit_id, rand = run_agreement(req, store=store, status=err.status)
    _render(result, audit_id, seed, json_out, pairs, rand)


def _render(result, audit_id, seed, json_out: bool, show_pairs: bool, rand=None) -> None:
    from litaudit.analyses.agreement import checks_for
    from litaudit.render.console import out, print_json, table

    checks = checks_for(result)
    if json_out:
        payload = {"audit_id": audit_id, "seed": seed, "checks": checks, "result": result,
                   "randomization": rand}
        if not show_pairs:
            payload["result"] = _without_pairs(result)
        print_json(payload)
        return
    out.print(f"{result.source}")
    out.print(f"{result.runs} runs, {result.sites} sites, {result.topics} topics "
              f"({result.baseline_topics} all-site baseline); {result.measure}; "
              f"alpha {result.alpha:g}; multiple-comparison correction: {result.correction}; "
              f"seed: {seed if seed is not None else 'none (topic order as given)'}")
    for a in result.analyses:
        t = a.aggregate
        head = f"{a.analysis}: {a.pairs_tested} pairs ({a.pairs_skipped} skipped)"
        if t is None:
            out.print(f"{head}: no pair has {result.min_topics} baseline and reuse topics")
            continue
        (o11, o12), (o21, o22) = t.observed
        (e11, e12), (e21, e22) = t.expected
        out.print(table(f"{head}, observed / expected, aggregated over sites",
                        ["", "reuse p < a", "reuse p >= a"],
                        [["baseline p < a", f"{o11} / {e11:.1f}", f"{o12} / {e12:.1f}"],
                         ["baseline p >= a", f"{o21} / {e21:.1f}", f"{o22} / {e22:.1f}"]]))
        out.print(f"chi2 = {t.fit.statistic:.3f}, df {t.fit.df}, p = {t.fit.p_value:.4f} "
                  f"({t.fit.method}){'; ' + t.fit.note if t.fit.note else ''}")
    for a in result.analyses:
        if a.groups:
            out.print(table(f"{a.analysis} per site (cells: both, omission, commission, "
                            "neither)", ["site", "pairs", "observed", "expected", "p",
                                         "method"],
                            [[g.group, g.table.pairs,
                              " ".join(str(v) for r in g.table.observed for v in r),
                              " ".join(f"{v:.1f}" for r in g.table.expected for v in r),
                              g.table.fit.p_value, g.table.fit.method] for g in a.groups]))
    if show_pairs:
        for a in result.analyses:
            if a.pairs:
                out.print(table(f"{a.analysis} pairs", [
                    "group", "run a", "run b", "n base", "n reuse", "effect", "p base",
                    "p reuse", "power base", "power reuse"],
                    [[p.group, p.run_a, p.run_b, p.n_baseline, p.n_reuse, p.effect,
                      p.p_baseline, p.p_reuse, p.power_baseline, p.power_reuse]
                     for p in a.pairs]))
    tau_rows = [["all runs", result.runs, result.tau.tau if result.tau else None, "Kendall"]]
    tau_rows += [[s.site, s.runs, s.tau.tau, "within site"] for s in result.site_tau]
    tau_rows += [[s.site, s.runs, s.tau.tau, "participant"] for s in result.participant_tau]
    out.print(table("Ordering: baseline vs reuse mean scores", ["site", "runs", "tau", "kind"],
                    tau_rows, digits=3))
    out.print(f"RMSE baseline vs reuse: {result.rmse:.4f}" if result.rmse is not None
              else "RMSE: -")
    if result.true_tau is not None:
        out.print(f"reuse vs full-judgment means: tau {result.true_tau.tau:.3f}, "
                  f"RMSE {result.true_rmse:.4f}")
    out.print(table("Checks (the chi-square p treats the pairs as independent)",
                    ["check", "value", "rule", "passed", "note"],
                    [[c.name, c.value, c.rule, c.passed, c.note] for c in checks]))
    if rand is not None:
        out.print(table(
            f"Randomization test: X^2 against {rand.assignments} random assignments of the "
            f"same design (k = {rand.k}, {rand.baseline} all-site topics; seed {rand.seed}); "
            "p = (1 + #{X^2_r >= X^2}) / (1 + R)",
            ["analysis", "pairs", "X^2", "mean X^2 random", "p"],
            [[x.analysis, x.pairs, x.x2, x.x2_null_mean, x.p_value] for x in rand.analyses]))
    if audit_id is not None:
        out.print(f"saved audit {audit_id}")


def _without_pairs(result):
    import dataclasses

    return dataclasses.replace(result, analyses=tuple(
        dataclasses.replace(a, pairs=()) for a in result.analyses))


def power_cmd(
    effect: list[float] = typer.Option(..., "--effect", "-e",
                                       help="Effect size mean/sd of the paired differences "
                                            "(repeat)."),
    topics: list[int] = typer.Option(..., "--topics", "-n", help="Number of topics (repeat)."),
    alpha: float = typer.Option(None, "--alpha", help="Level of the t-test (default 0.05)."),
    json_out: bool = JsonOpt,
):
    """Power of the two-sided paired t-test (Carterette et al. 2010, Section 3.2.1)."""
    from litaudit import defaults
    from litaudit.analyses.agreement_tables import power_rows
    from litaudit.render.console import out, print_json, table

    rows = power_rows(effect, topics, defaults.REUSE_ALPHA if alpha is None else alpha)
    if json_out:
        print_json(rows)
        return
    out.print(table("Power of the two-sided paired t-test (noncentral t)",
                    ["effect", "topics", "alpha", "power"],
                    [[r.effect, r.topics, r.alpha, r.power] for r in rows]))


def table_cmd(
    observed: str = typer.Option(..., "--observed", "-o",
                                 help="Observed counts a,b,c,d: both significant, baseline "
                                      "only, reuse only, neither."),
    expected: str = typer.Option(None, "--expected",
                                 help="Expected counts a,b,c,d (as the paper prints them)."),
    pair: list[str] = typer.Option(None, "--pair",
                                   help="Instead of --expected: a pair as "
                                        "effect:baseline_topics:reuse_topics (repeat)."),
    alpha: float = typer.Option(None, "--alpha", help="Level of the t-tests (default 0.05)."),
    json_out: bool = JsonOpt,
):
    """Observed against expected agreement in significance: expected table, exact and
    asymptotic chi-square p (Carterette et al. 2010, Section 3.2.1, Tables 3-5)."""
    from litaudit import defaults
    from litaudit.analyses import agreement_tables as T
    from litaudit.render.console import out, print_json, table

    a = defaults.REUSE_ALPHA if alpha is None else alpha
    pairs = tuple(T.parse_pair(p, a) for p in pair or ())
    res = T.table_test(T.parse_cells(observed, "--observed"),
                       T.parse_cells(expected, "--expected") if expected else None, pairs)
    if json_out:
        print_json(res)
        return
    o, e = res.observed, res.expected
    out.print(table("Observed / expected (rows: baseline p < alpha, p >= alpha)",
                    ["", "reuse p < alpha", "reuse p >= alpha"],
                    [["baseline p < alpha", f"{o[0]} / {e[0]:.3f}", f"{o[1]} / {e[1]:.3f}"],
                     ["baseline p >= alpha", f"{o[2]} / {e[2]:.3f}", f"{o[3]} / {e[3]:.3f}"]]))
    exact = "-" if res.p_exact is None else f"{res.p_exact:.4f}"
    out.print(f"chi-square {res.statistic:.4f}, df {res.df}: exact p {exact} "
              f"({res.outcomes} outcomes), asymptotic p {res.p_asymptotic:.4g}")
    if res.note:
        out.print(f"note: {res.note}")
    out.print("the p-values treat the pairs as independent (as the paper does)")


def register(app: typer.Typer) -> None:
    """Add this module's commands to the `reuse` sub-app."""
    app.command("power")(power_cmd)
    app.command("table")(table_cmd)
    app.command("design")(design_cmd)
    app.command("holdout")(holdout_cmd)
    app.command("agreement")(agreement_cmd)
