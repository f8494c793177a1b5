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
        return lambda: made.append(k) or k.upper()

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


def test_a_kept_winners_bias_is_a_fresh_ones_and_keyed_by_each_input(monkeypatch):
    monkeypatch.setattr(noise, "_BIAS_KEPT", Memo())
    v, ses = [0.30, 0.31, 0.28, 0.35], [0.01, 0.02, 0.03]
    kw = dict(weight=0.7, run_ses=ses, trials=300, seed=5)
    first = noise.winners_bias(v, 0.02, **kw)
    calls: list[int] = []
    fresh = noise._winners_bias

    def counted(*args):
        calls.append(1)
        return fresh(*args)

    monkeypatch.setattr(noise, "_winners_bias", counted)
    assert noise.winners_bias(np.array(v), 0.02, **kw) == first and not calls
    noise._BIAS_KEPT.clear()
    assert noise.winners_bias(v, 0.02, **kw) == first and len(calls) == 1
    # every input is part of the key: each change is computed, and answers differently
    changed = [
        noise.winners_bias(v[:3] + [0.36], 0.02, **kw),
        noise.winners_bias(v, 0.02, **{**kw, "weight": 0.5}),
        noise.winners_bias(v, 0.02, **{**kw, "run_ses": ses[:2]}),
        noise.winners_bias(v, 0.02, **{**kw, "run_ses": ()}),
        noise.winners_bias(v, 0.025, **{**kw, "run_ses": ()}),
        noise.winners_bias(v, 0.02, **{**kw, "trials": 301}),
        noise.winners_bias(v, 0.02, **{**kw, "seed": 6}),
    ]
    assert len(calls) == 1 + len(changed)
    assert len({w.bias for w in [first, *changed]}) == 1 + len(changed)


def test_kept_maxima_serve_every_value_and_mean_as_fresh_ones_do(monkeypatch):
    monkeypatch.setattr(calibrated_max, "_MAXIMA_KEPT", Memo())
    ses = [0.01, 0.02, 0.04]
    kw = dict(alpha=0.05, trials=400, seed=3)
    kept = [
        calibrated_max.mixed_noise_max(x, m, 20, ses, **kw) for x, m in ((0.3, 0.2), (0.4, 0.25))
    ]
    (mx,) = calibrated_max._MAXIMA_KEPT.kept()
    assert not mx.flags.writeable
    calibrated_max._MAXIMA_KEPT.clear()
    fresh = calibrated_max.mixed_noise_max(0.4, 0.25, 20, ses, **kw)
    assert fresh == kept[1] and kept[0].threshold - kept[1].threshold == pytest.approx(-0.05)
    other = [
        calibrated_max.mixed_noise_max(0.4, 0.25, 21, ses, **kw),
        calibrated_max.mixed_noise_max(0.4, 0.25, 20, ses[:2], **kw),
        calibrated_max.mixed_noise_max(0.4, 0.25, 20, ses, **{**kw, "seed": 4}),
        calibrated_max.mixed_noise_max(0.4, 0.25, 20, ses, **{**kw, "trials": 401}),
    ]
    assert len(calibrated_max._MAXIMA_KEPT.kept()) == 1 + len(other)
    assert len({m.threshold for m in [fresh, *other]}) == 1 + len(other)
