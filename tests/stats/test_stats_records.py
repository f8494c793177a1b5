"""The record audit's statistics (litaudit.stats.records; issue 34, item 1): the selective
sign-flip test against closed forms and against honestboard 0.6.1 (the peer, as
pytrec_eval is for trec_eval), the record chain, the step correction and the online
levels."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from scipy import stats as sps

from litaudit.errors import ParameterError
from litaudit.stats import records as R
from litaudit.stats.holm import holm
from tests.conftest import SHARED_DATA, examples
from tests.kept_oracle import kept

PERTOPIC = SHARED_DATA / "pertopic"


def _matrix(name: str) -> np.ndarray:
    """runs x topics"""
    from litaudit.runs.pertopic import read_pertopic_csv

    path = PERTOPIC / name
    if not path.is_file():
        pytest.skip(f"{path} not present (../shared/data)")
    return np.asarray(read_pertopic_csv(path).scores, dtype=np.float64)


# ------------------------------------------------------------------- closed forms
def test_signs_only_give_the_selective_sign_test():
    # all |d| equal: S counts wins, so P(S >= s | S > 0) is the binomial
    # P(X >= w) / P(X > n/2), X ~ Bin(n, 1/2): 9 wins of 13 -> 0.1334 / 0.5
    d = np.array([1.0] * 9 + [-1.0] * 4)
    sf = R.selective_signflip(d)
    tail = sps.binom.sf(8, 13, 0.5)
    assert sf.exact and (sf.wins, sf.losses, sf.ties) == (9, 4, 0)
    assert sf.p_one_sided == pytest.approx(tail, abs=1e-15)
    assert sf.p_selective == pytest.approx(tail / 0.5, abs=1e-15)
    assert sf.p_two_sided == pytest.approx(2 * tail, abs=1e-15)


def test_all_wins_reach_the_smallest_p():
    # 1, 2, ..., 10, all wins: only the observed pattern reaches S = 55; the total is odd,
    # so no pattern sums to 0 and half the 2^10 have S > 0: p = 1 / 2^9
    d = np.arange(1.0, 11.0)
    sf = R.selective_signflip(d)
    assert sf.p_one_sided == pytest.approx(1 / 2**10)
    assert sf.p_selective == pytest.approx(1 / 2**9)
    # 1, ..., 11 sums to 66: the patterns splitting it into halves sum to 0 and are not
    # in the event, so the selective p is above 1 / 2^10
    d = np.arange(1.0, 12.0)
    pos = int(((R._patterns(11) @ d) > 0).sum())
    assert pos < 2**10 and R.selective_signflip(d).p_selective == pytest.approx(1 / pos)


def test_a_loss_is_not_a_record():
    sf = R.selective_signflip([-0.1, 0.05, -0.02])
    assert sf.p_selective == 1.0 and sf.mean_difference < 0


def test_monte_carlo_needs_a_seed_and_states_its_error():
    d = np.linspace(-0.1, 0.3, 40)
    with pytest.raises(ParameterError, match="needs a seed"):
        R.selective_signflip(d)
    sf = R.selective_signflip(d, rng=np.random.default_rng(3), draws=20_000)
    assert not sf.exact and sf.draws == 20_000 and sf.mc_error is not None
    assert 0 < sf.p_selective < 0.01


@hsettings(max_examples=examples(60), deadline=None)
@given(st.lists(st.floats(-1, 1, allow_nan=False), min_size=2, max_size=10))
def test_selective_p_is_the_tail_over_the_event(xs):
    d = np.asarray(xs)
    sf = R.selective_signflip(d)
    null = R._patterns(d.size) @ d
    if d.sum() <= R.TOL or not (null > R.TOL).any():
        assert sf.p_selective == 1.0
    else:
        assert sf.p_selective == pytest.approx(
            min(1.0, (null >= d.sum() - R.TOL).sum() / (null > R.TOL).sum())
        )
        # given the event, the selective p is at least the one-sided p
        assert sf.p_selective >= sf.p_one_sided - 1e-15


@pytest.mark.slow
def test_selective_p_is_valid_given_the_record_event():
    # null differences (symmetric): among draws with S > 0, P(p_selective <= 0.05) <= 0.05
    rng = np.random.default_rng(11)
    ps: list[float] = []
    while len(ps) < 2000:
        d = rng.normal(0, 0.1, 12)
        if d.sum() > 0:
            ps.append(R.selective_signflip(d).p_selective)
    rate = np.mean(np.asarray(ps) <= 0.05)
    assert rate <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / 2000)
    assert rate > 0.03  # and not empty: the test has power to be wrong


def test_normal_step_closed_form():
    z, p = R.normal_selective_p(0.0054, math.sqrt(2) * 0.0027)
    assert z == pytest.approx(0.0054 / (math.sqrt(2) * 0.0027))
    assert p == pytest.approx(2 * sps.norm.sf(z))
    assert R.normal_selective_p(-0.01, 0.01)[1] == 1.0
    with pytest.raises(ParameterError):
        R.normal_selective_p(0.01, 0.0)


def test_step_adjusted_is_bonferroni_over_the_step():
    assert R.step_adjusted(0.01, 3) == pytest.approx(0.03)
    assert R.step_adjusted(0.4, 3) == 1.0
    with pytest.raises(ParameterError):
        R.step_adjusted(0.1, 0)


def test_record_chain_best_first_within_a_step():
    values = [0.20, 0.25, 0.22, 0.30, 0.30, 0.28, 0.31]
    times = [1, 2, 2, 3, 3, 3, 4]
    chain, groups = R.record_chain(values, times)
    # step 2: 0.25 beats 0.20 (0.22 is not a record: best first); step 3: one 0.30 takes
    # it (the tie at 0.30 does not); step 4: 0.31
    assert chain == (0, 1, 3, 6)
    assert groups == (1, 2, 3, 1)


def test_online_levels_spending_and_lord():
    levels, cert = R.online_levels([0.001, 0.5, 0.001], 0.05, "spending")
    assert levels == pytest.approx(tuple(0.05 * 6 / (math.pi**2 * i**2) for i in (1, 2, 3)))
    assert cert == (True, False, True)
    g = [0.0] + [6 / (math.pi**2 * j**2) for j in range(1, 5)]
    levels, cert = R.online_levels([0.001, 0.5, 0.004], 0.05, "lord")
    assert levels[0] == pytest.approx(g[1] * 0.025)
    assert levels[1] == pytest.approx(g[2] * 0.025 + 0.025 * g[1])  # earned back at t=1
    assert levels[2] == pytest.approx(g[3] * 0.025 + 0.025 * g[2])
    assert cert == (True, False, True)
    with pytest.raises(ParameterError, match="certify"):
        R.online_levels([0.1], 0.05, "bonferroni")


# ------------------------------------------------------------ honestboard as oracle
def _board(x: np.ndarray, per_date: int):
    hb = pytest.importorskip("honestboard")
    names = [f"r{i}" for i in range(x.shape[0])]
    dates = [f"2020{i // per_date:04d}" for i in range(x.shape[0])]
    return hb, hb.Board(names, x, dates)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["adhoc7_ap.csv", "web2012_ndcg20.csv"])
def test_record_audit_equals_honestboard(pytestconfig, name):
    """The record chain, each step's selective p-value and Holm's verdicts equal
    honestboard's Board.record_audit (sided='selective', date correction, Holm): the same
    method, and the same sign patterns (its seed convention 7 b + a of the pair)."""
    x = _matrix(name)
    x = x[:, np.isfinite(x).all(axis=0)]
    _, board = _board(x, per_date=3)

    def audit() -> dict:
        steps = board.record_audit(alpha=0.05)["steps"]
        return {
            "steps": [
                {
                    "new": str(step["new"]),
                    "p_selective": float(step["p_selective"]),
                    "date_group": int(step["date_group"]),
                    "p": float(step["p"]),
                    "significant_holm": bool(step["significant_holm"]),
                }
                for step in steps
            ]
        }

    # honestboard's chain depends on honestboard, numpy and the matrix alone: kept across
    # runs under their digest (tests/kept_oracle.py); ours is computed every run
    theirs = kept(
        pytestconfig, "honestboard", "record_audit alpha=0.05", (x, board.names, board.dates), audit
    )
    means = x.mean(axis=1)
    chain, groups = R.record_chain(means, board.dates)
    assert [board.names[k] for k in chain[1:]] == [s["new"] for s in theirs["steps"]]
    ours = []
    pairs = list(zip(chain[:-1], chain[1:], strict=True))
    for (a, b), g, s in zip(pairs, groups[1:], theirs["steps"], strict=True):
        sf = R.selective_signflip(x[b] - x[a], rng=np.random.default_rng(7 * b + a))
        assert sf.p_selective == s["p_selective"]
        assert g == s["date_group"]
        ours.append(R.step_adjusted(sf.p_selective, g))
        assert ours[-1] == pytest.approx(s["p"], abs=1e-15)
    adj = holm(ours)
    assert [p <= 0.05 for p in adj] == [s["significant_holm"] for s in theirs["steps"]]


def test_exact_enumeration_agrees_with_honestboards_monte_carlo():
    """On 13 units (BEIR-13's datasets) we enumerate the 8,192 patterns; honestboard
    draws 200,000: equal within its Monte Carlo error."""
    hb = pytest.importorskip("honestboard")
    from honestboard.chain import signflip_pvalues

    x = _matrix("adhoc7_ap.csv")
    d = x[10, :13] - x[4, :13]
    sf = R.selective_signflip(d)
    _, _, ps = signflip_pvalues(d, np.random.default_rng(0))
    assert hb.__version__ == "0.6.1"
    assert abs(sf.p_selective - ps) < 4 * math.sqrt(ps * (1 - ps) / 100_000)


def test_online_levels_equal_honestboards_certify_chain():
    hb = pytest.importorskip("honestboard")
    from honestboard.chain import alpha_spending_level, lord_level

    ps = [0.001, 0.2, 0.003, 0.0001, 0.4]
    for rule in ("spending", "lord"):
        levels, cert = R.online_levels(ps, 0.05, rule)
        rej: list[int] = []
        for t, (p, lv, c) in enumerate(zip(ps, levels, cert, strict=True), start=1):
            theirs = (
                alpha_spending_level(t, 0.05)
                if rule == "spending"
                else lord_level(t, 0.05, 0.025, rej)
            )
            assert lv == pytest.approx(theirs, rel=1e-12)
            assert c == (p <= theirs)
            if c:
                rej.append(t)
    assert hb.__version__ == "0.6.1"
