"""The winner's score corrected for selection (litaudit.stats.winner; issue 34, item 2):
closed forms, and honestboard 0.6.1 as oracle on the shared per-topic matrices (the same
methods: equal to the last digits of their root finding; the same random draws)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from litaudit.errors import ParameterError
from litaudit.stats import winner as W
from tests.conftest import SHARED_DATA
from tests.kept_oracle import kept
from tests.typed import some

PERTOPIC = SHARED_DATA / "pertopic"


def _matrix(name: str) -> np.ndarray:
    from litaudit.runs.pertopic import read_pertopic_csv

    path = PERTOPIC / name
    if not path.is_file():
        pytest.skip(f"{path} not present (../shared/data)")
    x = np.asarray(read_pertopic_csv(path).scores, dtype=np.float64)
    return x[:, np.isfinite(x).all(axis=0)]


def test_independent_means_truncate_at_the_runner_up():
    x = np.array([0.30, 0.25, 0.20])
    sigma = np.eye(3) * 0.01**2
    assert W.truncation(x, sigma, 0) == (0.25, math.inf)
    # far above the runner-up (5 se), the conditional law is the plain Normal
    cond, _ = W.conditional(x, sigma, 0, 0.05)
    assert some(cond.estimate) == pytest.approx(0.30, abs=1e-5)
    assert some(cond.lower) == pytest.approx(0.30 - 1.96 * 0.01, abs=2e-4)
    # at a margin of 0.1 se the estimate falls well below the observed score
    near, _ = W.conditional(np.array([0.301, 0.300]), np.eye(2) * 0.01**2, 0, 0.05)
    assert some(near.estimate) < 0.295 and some(near.lower) < 0.25


def test_truncated_cdf_closed_form():
    # Normal(0, 1) truncated to [0, inf): P(X <= 1) = (Phi(1) - 1/2) / (1/2)
    assert W.truncated_cdf(1.0, 0.0, 1.0, 0.0, math.inf) == pytest.approx(2 * sps.norm.cdf(1) - 1)
    assert W.truncated_cdf(-1.0, 0.0, 1.0, 0.0, math.inf) == 0.0


def test_simultaneous_quantile_of_independent_means_is_exact():
    c = W.simultaneous_quantile(np.eye(50) * 4.0, 0.05, draws=1000, seed=1)
    assert (2 * sps.norm.cdf(c) - 1) ** 50 == pytest.approx(0.95)
    # the Monte Carlo quantile of a correlated matrix lies between one mean's and Bonferroni's
    r = np.full((5, 5), 0.5) + 0.5 * np.eye(5)
    mc = W.simultaneous_quantile(r, 0.05, draws=20_000, seed=1)
    assert sps.norm.isf(0.025) < mc < sps.norm.isf(0.025 / 5)


def test_bad_inputs():
    with pytest.raises(ParameterError):
        W.correct_winner([0.3], np.eye(1))
    with pytest.raises(ParameterError, match="no standard error"):
        W.correct_winner([0.3, 0.2], np.zeros((2, 2)))
    with pytest.raises(ParameterError):
        W.mean_covariance(np.array([[0.1, np.nan], [0.2, 0.3]]))


def _their_winner(y: np.ndarray, p: np.ndarray, s: np.ndarray) -> dict:
    """honestboard's four winner corrections of ``y`` (JSON: kept across runs)."""
    hb = pytest.importorskip("honestboard")
    from honestboard import selective

    board = hb.Board([f"r{i}" for i in range(y.shape[0])], y)
    keep = ("winner", "estimate", "ci", "projection_ci")
    calls = {
        "adjusted": lambda: selective.winner_adjusted(p, s),
        "hybrid": lambda: selective.winner_hybrid(p, s, seed=0),
        "bootstrap": lambda: board.winner_bootstrap(B=2000, seed=0),
        "iterated": lambda: board.winner_bootstrap(
            B=500, seed=0, iterate=True, B_outer=40, B_inner=40
        ),
    }
    out = {}
    for what, call in calls.items():
        got = call()
        out[what] = {
            k: int(v) if k == "winner" else [float(x) for x in v] if k.endswith("ci") else float(v)
            for k, v in got.items()
            if k in keep
        }
    return out


@pytest.mark.parametrize(
    "name",
    [
        # honestboard's answers kept (tests/kept_oracle.py): ~0.1 s each but robust04's
        "adhoc7_ap.csv",
        pytest.param("robust2004_ap.csv", marks=pytest.mark.slow),
        "web2010_ndcg20.csv",
        "adhoc5_p10.csv",
    ],
)
def test_equal_to_honestboard(pytestconfig, name):
    hb = pytest.importorskip("honestboard")

    y = _matrix(name)
    p, s = W.mean_covariance(y)
    board = hb.Board([f"r{i}" for i in range(y.shape[0])], y)
    assert np.allclose(s, board.sigma(), rtol=1e-12, atol=0)
    wc = W.correct_winner(p, s, scores=y, seed=0, resamples=2000)
    cond, hyb, boot = (some(wc.get(m)) for m in ("conditional", "hybrid", "bootstrap"))
    # honestboard's corrections depend on honestboard, numpy and the matrix alone: kept
    # across runs under their digest (tests/kept_oracle.py); ours are computed every run
    their = kept(
        pytestconfig, "honestboard", "winner corrections", (y, p, s), lambda: _their_winner(y, p, s)
    )
    a, h, b = their["adjusted"], their["hybrid"], their["bootstrap"]
    assert wc.winner == a["winner"] == h["winner"] == b["winner"]
    assert (some(cond.estimate), some(cond.lower), some(cond.upper)) == pytest.approx(
        (a["estimate"], *a["ci"]), abs=1e-9
    )
    assert (some(hyb.estimate), some(hyb.lower), some(hyb.upper)) == pytest.approx(
        (h["estimate"], *h["ci"]), abs=1e-9
    )
    assert wc.projection == pytest.approx(h["projection_ci"], abs=1e-12)
    assert (some(boot.estimate), some(boot.lower), some(boot.upper)) == pytest.approx(
        (b["estimate"], *b["ci"]), abs=1e-12
    )
    # the iterated bootstrap draws its second level from the same stream too
    bi = W.bootstrap(y, wc.winner, 0.05, resamples=500, seed=0, iterate=True, inner=40)
    assert some(bi.estimate) == pytest.approx(their["iterated"]["estimate"], abs=1e-12)


def test_the_correction_removes_most_of_the_winners_curse():
    """A small simulation with a known truth (the full claim is bench/bench_records.py):
    10 systems, 3 of them tied at the top, 30 topics; over 60 resamples the observed
    winner is biased upwards and the hybrid estimate much less."""
    rng = np.random.default_rng(5)
    truth = np.array([0.30, 0.30, 0.30, 0.27, 0.26, 0.25, 0.24, 0.23, 0.22, 0.21])
    topic = rng.normal(0, 0.1, 30)
    topic -= topic.mean()  # the truth is the mean over these topics
    obs_err, hyb_err = [], []
    for i in range(60):
        y = truth[:, None] + topic[None, :] + rng.normal(0, 0.08, (10, 30))
        p, s = W.mean_covariance(y)
        wc = W.correct_winner(p, s, seed=i, draws=4000)
        obs_err.append(wc.observed - truth[wc.winner])
        hyb_err.append(some(some(wc.get("hybrid")).estimate) - truth[wc.winner])
    assert np.mean(obs_err) > 0.01
    assert abs(np.mean(hyb_err)) < np.mean(obs_err) / 2
