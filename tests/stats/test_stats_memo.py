"""The memo of repeated seeded simulations (litaudit.stats.memo): a kept answer is the
one a fresh computation gives, kept under every input it depends on, the least recently
used dropped first."""

from __future__ import annotations

import numpy as np
import pytest

from litaudit.stats import calibrated_max, noise
from litaudit.stats.memo import Memo


def test_memo_makes_once_a_key_and_drops_the_least_recently_used():
    made: list[str] = []
    memo: Memo[str] = Memo(2)

    def make(k: str):
        def made_now() -> str:
            made.append(k)
            return k.upper()

        return made_now

    assert memo.get("a", make("a")) == "A"
    assert memo.get("b", make("b")) == "B"
    assert memo.get("a", make("a")) == "A"  # kept; now the most recently used
    assert memo.get("c", make("c")) == "C"  # drops b, not a
    assert memo.get("a", make("a")) == "A"
    assert memo.get("b", make("b")) == "B"
    assert made == ["a", "b", "c", "b"]
    memo.clear()
    memo.get("a", make("a"))
    assert made[-1] == "a"


def _bias(v, se=0.02, *, weight=0.7, run_ses=(0.01, 0.02, 0.03), trials=300, seed=5):
    return noise.winners_bias(v, se, weight=weight, run_ses=run_ses, trials=trials, seed=seed)


def test_a_kept_winners_bias_is_a_fresh_ones_and_keyed_by_each_input(monkeypatch):
    monkeypatch.setattr(noise, "_BIAS_KEPT", Memo())
    v = [0.30, 0.31, 0.28, 0.35]
    first = _bias(v)
    calls: list[int] = []
    fresh = noise._winners_bias

    def counted(*args):
        calls.append(1)
        return fresh(*args)

    monkeypatch.setattr(noise, "_winners_bias", counted)
    assert _bias(np.array(v)) == first and not calls
    noise._BIAS_KEPT.clear()
    assert _bias(v) == first and len(calls) == 1
    # every input is part of the key: each change is computed, and answers differently
    changed = [
        _bias([*v[:3], 0.36]),
        _bias(v, weight=0.5),
        _bias(v, run_ses=(0.01, 0.02)),
        _bias(v, run_ses=()),
        _bias(v, 0.025, run_ses=()),
        _bias(v, trials=301),
        _bias(v, seed=6),
    ]
    assert len(calls) == 1 + len(changed)
    assert len({w.bias for w in [first, *changed]}) == 1 + len(changed)


def _max(value, mu, n_draws=20, ses=(0.01, 0.02, 0.04), *, trials=400, seed=3):
    return calibrated_max.mixed_noise_max(
        value, mu, n_draws, ses, alpha=0.05, trials=trials, seed=seed
    )


def test_kept_maxima_serve_every_value_and_mean_as_fresh_ones_do(monkeypatch):
    monkeypatch.setattr(calibrated_max, "_MAXIMA_KEPT", Memo())
    kept = [_max(0.3, 0.2), _max(0.4, 0.25)]
    (mx,) = calibrated_max._MAXIMA_KEPT.kept()
    assert not mx.flags.writeable
    calibrated_max._MAXIMA_KEPT.clear()
    fresh = _max(0.4, 0.25)
    assert fresh == kept[1] and kept[0].threshold - kept[1].threshold == pytest.approx(-0.05)
    other = [
        _max(0.4, 0.25, 21),
        _max(0.4, 0.25, ses=(0.01, 0.02)),
        _max(0.4, 0.25, seed=4),
        _max(0.4, 0.25, trials=401),
    ]
    assert len(calibrated_max._MAXIMA_KEPT.kept()) == 1 + len(other)
    assert len({m.threshold for m in [fresh, *other]}) == 1 + len(other)
