"""What `reuse design` prints: the held-out-site design of Carterette, Kanoulas, Pavlu
and Fang (SIGIR 2010, Table 2 and Section 4.3), computed by litaudit.stats.design."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from litaudit.analyses.agreement.design_request import DesignAnswer, HoldoutPlan
from litaudit.analyses.agreement.input import HoldoutFile
from litaudit.analyses.agreement.tables import PowerRow, TableTest
from litaudit.files import write_files
from litaudit.render.console import out, print_json, table
from litaudit.stats.design import Design, PartialDesign


def print_design(done: DesignAnswer, json_out: bool) -> None:
    """`reuse design`: the partial-cycle design, or the chosen k's design and the table of
    feasible k (text, or JSON: ``design``, and ``table`` but with --partial)."""
    if done.partial is not None:
        if json_out:
            print_json({"design": done.partial})
        else:
            render_partial_design(done.partial)
        return
    if json_out:
        print_json({"design": done.chosen, "table": done.table})
        return
    req = done.request
    render_design_table(done.chosen, done.table, req.sites, req.topics, req.baseline_min)


def print_holdout(plan: HoldoutPlan, json_out: bool) -> None:
    """`reuse holdout`: the CSV written to its file (all or nothing, never over the
    database) and what was written said, or JSON; with ``-o -`` the CSV on standard output
    and nothing else."""
    req = plan.request
    if req.to_stdout:
        sys.stdout.write(plan.text)
        return
    write_files({req.output: plan.text}, [req.database])
    if json_out:
        print_json(HoldoutFile(str(req.output), plan.rows, plan.design, req.seed, plan.topic_order))
        return
    d = plan.design
    out.print(
        f"wrote {req.output}: {len(req.topic_ids)} topics, {d.baseline} all-site baseline, "
        f"b={d.subsets} subsets of {d.blocks}, k={req.held_out} of {len(req.names)} sites held "
        f"out ({plan.rows} rows; topic order {plan.topic_order})"
    )


def render_partial_design(d: PartialDesign) -> None:
    """`reuse design --partial`: the partial-cycle design and its topic-set sizes."""
    out.print(
        f"m={d.sites} sites, N={d.topics} topics, n={d.baseline} all-site "
        f"baseline, k={d.held_out} held out of every other topic"
    )
    out.print(
        f"{d.full_cycles} full cycle(s) of C({d.sites},{d.held_out})={d.blocks} "
        f"topics and a partial cycle of {d.partial}"
        + ("" if d.partial else " (balanced: Table 2's sizes)")
    )

    def span(v):
        return str(v[0]) if v[0] == v[1] else f"{v[0]}-{v[1]}"

    out.print(
        table(
            "Topic sets (min-max over sites or site pairs)",
            ["set", "topics"],
            [
                ["within-site baseline", span(d.within_site_baseline)],
                ["within-site reuse", span(d.within_site_reuse)],
                ["between-site baseline", span(d.between_site_baseline)],
                ["between-site reuse", span(d.between_site_reuse)],
                ["participant comparison", span(d.participant_comparison)],
            ],
        )
    )


def render_design_table(
    chosen: Design | None, rows: tuple[Design, ...], sites: int, topics: int, baseline_min: int
) -> None:
    """`reuse design`: the chosen k's design (with --held-out) and the table of feasible k."""
    cols = ["k", "b", "n", "w/in base", "w/in reuse", "btw base", "btw reuse", "partic."]

    def row(d):
        return [
            d.held_out,
            d.subsets,
            d.baseline,
            d.within_site_baseline,
            d.within_site_reuse,
            d.between_site_baseline,
            d.between_site_reuse,
            d.participant_comparison,
        ]

    if chosen is not None:
        c = chosen
        out.print(
            f"m={c.sites} sites, N={c.topics} topics, n0={c.baseline_min}, "
            f"k={c.held_out} held out per topic"
        )
        out.print(
            f"b={c.subsets} subsets of C({c.sites},{c.held_out})={c.blocks} topics, "
            f"all-site baseline n={c.baseline}"
        )
        out.print(
            table(
                "Topic sets (Table 2)",
                ["set", "topics"],
                [
                    ["within-site baseline", c.within_site_baseline],
                    ["within-site reuse", c.within_site_reuse],
                    ["between-site baseline", c.between_site_baseline],
                    ["between-site reuse", c.between_site_reuse],
                    ["participant comparison", c.participant_comparison],
                ],
            )
        )
    out.print(
        table(
            f"Feasible k for m={sites}, N={topics}, n0={baseline_min}", cols, [row(d) for d in rows]
        )
    )
    if not rows:
        out.print("no k is feasible: N - n0 is smaller than every C(m, k)")


def print_power(rows: Sequence[PowerRow], json_out: bool) -> None:
    """`reuse power`: the power of each effect and topic count (a table, or JSON)."""
    if json_out:
        print_json(rows)
        return
    out.print(
        table(
            "Power of the two-sided paired t-test (noncentral t)",
            ["effect", "topics", "alpha", "power"],
            [[r.effect, r.topics, r.alpha, r.power] for r in rows],
        )
    )


def print_table_test(res: TableTest, json_out: bool) -> None:
    """`reuse table`: observed / expected counts and the chi-square p-values."""
    if json_out:
        print_json(res)
        return
    o, e = res.observed, res.expected
    out.print(
        table(
            "Observed / expected (rows: baseline p < alpha, p >= alpha)",
            ["", "reuse p < alpha", "reuse p >= alpha"],
            [
                ["baseline p < alpha", f"{o[0]} / {e[0]:.3f}", f"{o[1]} / {e[1]:.3f}"],
                ["baseline p >= alpha", f"{o[2]} / {e[2]:.3f}", f"{o[3]} / {e[3]:.3f}"],
            ],
        )
    )
    exact = "-" if res.p_exact is None else f"{res.p_exact:.4f}"
    out.print(
        f"chi-square {res.statistic:.4f}, df {res.df}: exact p {exact} "
        f"({res.outcomes} outcomes), asymptotic p {res.p_asymptotic:.4g}"
    )
    if res.note:
        out.print(f"note: {res.note}")
    out.print("the p-values treat the pairs as independent (as the paper does)")
