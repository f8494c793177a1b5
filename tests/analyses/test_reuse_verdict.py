"""The rebuilt reusability verdict (issue 11, items 4-6): its deciding test, the paper's
agreement analysis over assignments, calibration, stability, wording, and the 2010
tables from the CLI.

Numbers from the papers: Carterette, Kanoulas, Pavlu, Fang (SIGIR 2010): the APL example
(Section 3.2.1: effect 0.260, power 0.964 over 210 topics and 0.354 over 39; observed
[[6,3],[0,1]] against expected [[7.098,2.043],[0.073,0.786]], p = 0.88 by a randomized
exact test), Tables 3-5 (p 0.58, 0.74, 0), and Section 4.3's Robust 2004 design (249
topics, 14 sites, 2 held out: "39 for within-site, only 3 for between-site").
"""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from litaudit.analyses import agreement_tables as T
from litaudit.analyses import reuse_calibration as cal
from litaudit.analyses import verdict as V
from litaudit.analyses.agreement_randomization import _held_matrix, _shift, matrix_agreement
from litaudit.stats.agreement_null import (
    fast_power,
    pair_sets,
    randomization_pvalue,
    signflip_pvalue,
)
from litaudit.stats.design import assign_holdouts, design, partial_design, round_robin
from litaudit.stats.holdout_shift import HoldoutShift, holdout_shift, round_robin_counts
from litaudit.stats.power import paired_t_power

# ------------------------------------------------------------------ the deciding test


def _table(rng, n_t=30, m=4, runs=8, bias=0.0):
    """(topics, subsets, runs) scores: a run loses ``bias`` when its site is held out."""
    site = np.arange(runs) % m
    subsets = ((),) + tuple(combinations(range(m), 2))
    base = rng.uniform(0.1, 0.6, size=(n_t, runs))
    table = np.repeat(base[:, None, :], len(subsets), axis=1)
    for n, s in enumerate(subsets):
        table[:, n, np.isin(site, s)] -= bias
    index = {s: n for n, s in enumerate(subsets)}
    order = [index[tuple(sorted(s))] for s in round_robin(tuple(range(m)), 2)]
    return table, site, subsets, order


def test_shift_is_zero_when_scores_ignore_the_holdouts():
    table, site, subsets, order = _table(np.random.default_rng(1))
    r = holdout_shift(table, round_robin_counts(subsets, 30, 0, order), site, subsets)
    assert abs(r.shift) < 1e-12 and r.p_value == 1.0 and r.t is None


def test_shift_is_the_expectation_over_random_assignments():
    # the exact expectation equals the mean of the Monte Carlo shift over many random
    # assignments (topic order shuffled, round robin) within 4 standard errors
    rng = np.random.default_rng(7)
    table, site, subsets, order = _table(rng, bias=0.02)
    table = table + rng.normal(0, 0.03, size=table.shape)  # depends on the hold-outs
    exact = holdout_shift(table, round_robin_counts(subsets, 30, 0, order), site, subsets)
    index = {s: n for n, s in enumerate(subsets)}
    topics = [str(t) for t in range(30)]
    pos = {t: i for i, t in enumerate(topics)}
    draws = []
    for _ in range(3000):
        a = assign_holdouts(topics, [str(s) for s in range(4)], 2, 0, rng=rng)
        h = _held_matrix(zip(a.topics, a.held_out, strict=True), pos, 4)
        sub = [index[tuple(np.flatnonzero(h[:, t]).tolist())] for t in range(30)]
        draws.append(_shift(table[np.arange(30), sub].T, h[site])[0])
    se = np.std(draws) / np.sqrt(len(draws))
    assert exact.shift == pytest.approx(np.mean(draws), abs=4 * se)
    assert exact.shift < 0 and exact.p_value < 0.05


def _fake(p):
    return HoldoutShift(50, 10, 0.25, -0.01, -4.0, 0.001, -3.0, p, ())


def test_holm_across_the_verdict_tests():
    tests = [(10, _fake(0.01), ()), (20, _fake(0.04), ()), (50, _fake(0.03), ())]
    outcome, headline, out = V.decide(tests, 0.05, "holm")
    # Holm: 0.01 x 3 = 0.03, then max(0.03, 0.03 x 2) = 0.06, then max(0.06, 0.04) = 0.06
    assert [t.p_adjusted for t in out] == pytest.approx([0.03, 0.06, 0.06])
    assert [t.evidence for t in out] == [True, False, False]
    assert outcome == V.EVIDENCE and "depth 10" in headline and "depth 20" not in headline
    outcome, _, out = V.decide(tests, 0.05, "none")
    assert all(t.evidence for t in out) and outcome == V.EVIDENCE
    outcome, headline, _ = V.decide([(10, _fake(0.2), ())], 0.05, "holm")
    assert outcome == V.NO_EVIDENCE and headline.startswith(V.NO_EVIDENCE)
    assert V.decide([], 0.05, "holm")[0] == V.NOT_ENOUGH


def test_outcomes_claim_no_proof():
    assert V.OUTCOMES == (
        "evidence against reuse",
        "no evidence against reuse in these data",
        "not enough data",
    )
    assert not any("reusable" in o.lower().replace("reuse", "") for o in V.OUTCOMES)


# ------------------------------------------------------------------ the agreement analysis


def test_each_pair_counted_once():
    sets = {p.analysis: p for p in pair_sets([0, 0, 1, 1, 2])}
    within = sets["within-site"]
    assert sorted(zip(within.i.tolist(), within.j.tolist(), strict=True)) == [(0, 1), (2, 3)]
    for name in ("between-site", "participant-comparison"):
        ps = sets[name]
        pairs = [frozenset(x) for x in zip(ps.i.tolist(), ps.j.tolist(), strict=True)]
        assert len(pairs) == len(set(pairs)) == 8  # 2x2 + 2x1 + 2x1
        assert np.all(ps.a < ps.b)  # the earlier site is the new one


def test_single_within_site_pair_is_not_enough_data():
    # 5 sites, one of them with two runs: within-site has a single pair
    rng = np.random.default_rng(3)
    x = rng.uniform(0, 1, size=(6, 60))
    res = matrix_agreement(x, [0, 0, 1, 2, 3, 4], assignments=3, seed=1)
    within = next(p for p in res.parts if p.analysis == "within-site")
    assert within.status == "not enough data" and within.p_value is None
    assert "fewer than 10" in within.reason
    part = next(p for p in res.parts if p.analysis == "participant-comparison")
    assert part.status == "tested" and 0 < part.p_value <= 1


def test_fast_power_matches_the_noncentral_t():
    d = np.linspace(0, 3, 61)
    for n in (5, 12, 39, 210):
        assert (
            np.max(np.abs(fast_power(d, np.full(d.size, n), 0.05) - paired_t_power(d, n, 0.05)))
            < 1e-4
        )


@given(st.lists(st.floats(-5, 5), min_size=1, max_size=50), st.floats(-5, 5))
def test_randomization_p_is_never_zero(null, obs):
    p = randomization_pvalue(obs, null)
    assert 1 / (len(null) + 1) <= p <= 1


def test_signflip_is_calibrated_on_symmetric_differences():
    rng = np.random.default_rng(11)
    ps = [signflip_pvalue(rng.normal(size=30), 199, rng) for _ in range(300)]
    assert 0.02 <= np.mean(np.array(ps) <= 0.05) <= 0.09


# ------------------------------------------------------------------ design (Section 4.3)


def test_partial_design_robust2004():
    d = partial_design(14, 249, 0, 2)
    assert (d.full_cycles, d.partial) == (2, 67)
    assert d.within_site_reuse[1] == 39 and d.between_site_reuse[1] == 3  # the paper's
    assert d.within_site_baseline[0] == 210  # Figure 1: 210


def test_partial_design_agrees_with_table_2_and_the_assignment():
    full = design(9, 564, 200, 2)  # Section 4.2: b = 10, n = 204
    p = partial_design(9, 564, full.baseline, 2)
    assert p.partial == 0 and p.within_site_reuse == (full.within_site_reuse,) * 2
    assert p.between_site_reuse == (full.between_site_reuse,) * 2
    assert p.participant_comparison == (full.participant_comparison,) * 2
    # the sizes are those of the assignment `reuse agreement` makes, in any topic order
    sites = [f"S{i}" for i in range(1, 15)]
    a = assign_holdouts([str(t) for t in range(249)], sites, 2, 0, rng=np.random.default_rng(5))
    per_site = [sum(s in h for h in a.held_out) for s in sites]
    d = partial_design(14, 249, 0, 2)
    assert (min(per_site), max(per_site)) == d.within_site_reuse


# ------------------------------------------------------------------ 2010 tables from the CLI


def test_cli_power_reproduces_the_apl_example(cli):
    res = cli("reuse", "power", "-e", "0.2604", "-n", "210", "-n", "39", "--json")
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    assert [round(r["power"], 3) for r in rows] == [0.964, 0.354]


def test_cli_table_reproduces_the_apl_example(cli):
    res = cli("reuse", "table", "-o", "6,3,0,1", "--expected", "7.098,2.043,0.073,0.786")
    assert res.exit_code == 0, res.output
    # exact enumeration 0.8928; the paper's randomized exact test printed 0.88
    assert "exact p 0.8928 (286 outcomes), asymptotic p 0.8615" in res.output
    # the expected table from the pair's effect size (one APL pair: 0.341, 0.623, ...)
    t = T.table_test([1, 0, 0, 0], pairs=[T.parse_pair("0.2604:210:39", 0.05)])
    assert np.round(t.expected, 3).tolist() == [0.341, 0.623, 0.013, 0.023]


@pytest.mark.parametrize(
    "obs, exp, paper_p, exact",
    [
        ("196,57,2,45", "189.5,62.1,4.3,44.1", 0.58, 0.5936),  # Table 3
        ("130,127,17,160", "135.4,121.6,13.9,163.1", 0.74, None),  # Table 4
    ],
)
def test_cli_table_3_and_4(cli, obs, exp, paper_p, exact):
    res = cli("reuse", "table", "-o", obs, "--expected", exp, "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    # the expected cells are printed to 0.1: p within 0.02 of the paper's
    assert out["p_asymptotic"] == pytest.approx(paper_p, abs=0.02)
    if exact is not None:
        assert out["p_exact"] == pytest.approx(exact, abs=1e-4)


def test_cli_table_5(cli):
    res = cli(
        "reuse", "table", "-o", "257,133,41,100", "--expected", "302.5,85.1,26.2,117.2", "--json"
    )
    out = json.loads(res.output)
    assert out["statistic"] == pytest.approx(44.69, abs=0.01) and out["p_asymptotic"] < 1e-8
    assert out["p_exact"] is None and "asymptotic only" in out["note"]


@pytest.mark.parametrize(
    "args, message",
    [
        (("reuse", "table", "-o", "6,3,0"), "expected four numbers"),
        (("reuse", "table", "-o", "6,3,0,1"), "give the expected table or the pairs"),
        (("reuse", "table", "-o", "6,3,0,1", "--pair", "0.2:10"), "effect:baseline_topics"),
        (
            ("reuse", "design", "-m", "14", "-N", "249", "--baseline-min", "0", "--partial"),
            "--partial needs --held-out",
        ),
    ],
)
def test_cli_table_bad_input(cli, args, message):
    res = cli(*args)
    assert res.exit_code == 1 and message in res.output


# ------------------------------------------------------------------ real data


@pytest.fixture(scope="module")
def robust03(tmp_path_factory):
    from pathlib import Path

    data = Path(__file__).resolve().parents[2].parent / "shared" / "data"
    if not (data / "trec" / "runs" / "robust03").is_dir():
        pytest.skip(f"{data} is absent: the robust03 archive is needed")
    from litaudit.analyses.coded_archive import load_coded
    from litaudit.curation.seed import load_seeds
    from litaudit.runs.ingest import import_archive
    from litaudit.store.db import open_store

    path = tmp_path_factory.mktemp("r03") / "r03.duckdb"
    with open_store(path) as store:
        load_seeds(store)
        import_archive(
            store,
            "trec-robust-2003",
            [data / "trec" / "runs" / "robust03"],
            qrels_path=data / "trec" / "qrels" / "qrels.robust03.txt",
        )
        coded = load_coded(store.con, "trec-robust-2003")[1]
    return path, coded, data


@pytest.mark.slow
def test_pool_scores_equal_the_pooling_simulation(robust03):
    from litaudit.analyses.agreement_input import simulate_pooling
    from litaudit.analyses.holdout_pools import pool_scores
    from litaudit.runs.archive import load_archive
    from litaudit.store.db import open_store

    path, c, _ = robust03
    ps = pool_scores(c, c.participant_of_run, k=2, depth=20)
    with open_store(path, read_only=True) as store:
        arch = load_archive(store.con, "trec-robust-2003")
    sim = simulate_pooling(
        arch.qrels, arch.runs, c.participants, k=2, depth=20, rng=np.random.default_rng(5)
    )
    held = dict(zip(sim.assignment.topics, sim.assignment.held_out, strict=True))
    names = c.participant_names
    sub = [ps.index(tuple(names.index(x) for x in held[t])) for t in c.topic_names]
    cols = [c.topic_names.index(t) for t in sim.design.topics]
    np.testing.assert_allclose(ps.scores(np.array(sub))[:, cols], sim.design.scores, atol=1e-12)
    np.testing.assert_allclose(ps.full[:, cols], sim.true_scores, atol=1e-12)


@pytest.mark.slow
def test_calibration_smoke(robust03):
    # a small version of each family of bench/bench_calibration.py
    from litaudit.analyses.agreement_input import read_score_matrix

    _, c, data = robust03
    _, _, r04 = read_score_matrix(data / "pertopic" / "robust2004_ap.csv")
    r = cal.run_family("r04", 6, lambda rng: cal.matrix_case(r04[:40], rng, sites=6), seed=1)
    assert r.rejections == 0 and r.rate == 0 and 0 < r.upper95 < 1
    assert abs(r.mean_shift_pct) < 1e-9
    r = cal.run_family(
        "noise", 6, lambda rng: cal.matrix_case(r04[:40], rng, sites=6, noise=0.02), seed=2
    )
    assert r.cases == 6 and 0 <= r.rate <= 1 and abs(r.mean_shift_pct) < 5
    r = cal.run_family(
        "r03 full", 4, lambda rng: cal.archive_case(c, rng, depth=None, sites=5, topics=50), seed=3
    )
    assert r.rejections == 0
    r = cal.run_family(
        "r03 shallow", 4, lambda rng: cal.archive_case(c, rng, depth=10, sites=5, topics=50), seed=4
    )
    assert r.rejections == 4 and r.mean_shift_pct < -1


@pytest.mark.slow
def test_robust04_verdict_is_stable_across_20_seeds(robust03):
    from litaudit.analyses.agreement_input import pseudo_sites, read_score_matrix

    data = robust03[2]
    tags, _, x = read_score_matrix(data / "pertopic" / "robust2004_ap.csv")
    sites = pseudo_sites(tags, 14)
    seen = {V.matrix_verdict(x, sites, seed=s, assignments=1).headline for s in range(20)}
    assert len(seen) == 1 and next(iter(seen)).startswith(V.NO_EVIDENCE)


@pytest.mark.slow
def test_robust03_verdict_cli_and_stability(robust03, tmp_path):
    import shutil

    from typer.testing import CliRunner

    from litaudit.analyses.audits import list_audits
    from litaudit.cli.main import app
    from litaudit.store.db import open_store

    path = tmp_path / "r03.duckdb"
    shutil.copy(robust03[0], path)
    res = CliRunner().invoke(
        app, ["--db", str(path), "reuse", "verdict", "-c", "robust03", "--assignments", "5"]
    )
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "verdict: evidence against reuse" in text
    assert "the archive holds 17 of the 78 official runs" in text
    assert "hold-out design unbalanced" in text and "fewer topics than subsets" in text
    line = next(x for x in res.output.splitlines() if x.startswith("verdict:"))
    assert "reusable" not in line.lower() and "proof" not in line.lower()
    # the decision does not depend on the seed of the (descriptive) assignments
    with open_store(path) as store:
        runs = [
            V.run_verdict(store.con, "robust03", seed=s, assignments=1, save=False).result
            for s in (1, 2, 3)
        ]
        stored = list_audits(store.con, kind=V.KIND)[-1].result
    assert len({v.headline for v in runs}) == 1 and runs[0].tests == runs[2].tests
    # the stored audit decodes back into the same typed verdict (registered kind)
    from litaudit.codec import decode, to_jsonable

    assert isinstance(stored, V.Verdict) and stored.outcome == V.EVIDENCE
    assert to_jsonable(decode(V.Verdict, to_jsonable(stored))) == to_jsonable(stored)
    assert [t.depth for t in stored.tests] == [10, 20, 50, 100, 1000]


def test_randomization_test_of_a_design():
    from litaudit.analyses import agreement_input as agin
    from litaudit.analyses.agreement_run import randomization_test
    from litaudit.errors import ParameterError

    rng = np.random.default_rng(2)
    sites = tuple(f"S{i}" for i in range(6) for _ in range(3))  # 6 sites x 3 runs
    runs = tuple(f"r{i}" for i in range(18))
    topics = tuple(str(t) for t in range(60))
    a = assign_holdouts(topics, sorted(set(sites)), 2, 0, rng=rng)
    held = dict(zip(a.topics, a.held_out, strict=True))
    x = rng.uniform(0.1, 0.6, size=(18, 60)) + np.linspace(0, 0.2, 18)[:, None]
    fair = agin.design_from_scores(runs, sites, topics, x, held)
    r = randomization_test(fair, assignments=49, seed=1)
    assert r.k == 2 and r.baseline == 0 and r.assignments == 49
    assert all(1 / 50 <= v.p_value <= 1 for v in r.analyses if v.pairs)
    # held-out runs lose 0.3 on the topics their site was held out of: X^2 far out
    y = x.copy()
    for i, s in enumerate(sites):
        y[i, [t for t, tp in enumerate(topics) if s in held[tp]]] -= 0.3
    unfair = agin.design_from_scores(runs, sites, topics, y, held)
    part = {v.analysis: v for v in randomization_test(unfair, assignments=49, seed=1).analyses}
    # (within a site every run loses the same: within-site pairs cannot see it)
    assert part["participant-comparison"].p_value == pytest.approx(1 / 50)
    with pytest.raises(ParameterError, match="same number of held-out"):
        odd = dict(held)
        odd[topics[0]] = (sites[0],)
        randomization_test(
            agin.design_from_scores(runs, sites, topics, x, odd), assignments=5, seed=1
        )


def test_verdict_renderer_escapes_stored_text():
    """Stored names (collection, sites) print as text: no markup, no control characters."""
    import dataclasses

    from litaudit.render.audits import render_result
    from litaudit.render.console import out

    rng = np.random.default_rng(4)
    sites = ("[bold]s1[/bold]", "s2\x1b[31m", "s3", "s4")
    x = rng.uniform(0.1, 0.6, size=(8, 24))
    v = V.matrix_verdict(x, tuple(sites[i % 4] for i in range(8)), assignments=3, seed=1)
    assert v.tests and v.tests[0].most_affected
    v = dataclasses.replace(v, collection_id="c\x1b]0;title\x07[red]x[/red]")
    width = out.width
    out.width = 300  # no cell cut short
    try:
        with out.capture() as cap:
            render_result(v)
    finally:
        out.width = width
    text = cap.get()
    assert "\x1b" not in text and "\x07" not in text
    assert "[red]x[/red]" in text and "[bold]s1[/bold] +0.0%" in text
