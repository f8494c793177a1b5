"""litaudit.stats.signtest: the exact two-sided sign test."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats as sps

from litaudit.errors import ParameterError
from litaudit.stats.signtest import sign_test


def test_closed_forms():
    # 9 wins of 10: 2 (C(10,9) + C(10,10)) / 2^10 = 22 / 1024
    assert sign_test(9, 1).p_value == pytest.approx(22 / 1024, abs=1e-15)
    # 13 of 13 datasets: 2 / 2^13
    assert sign_test(13, 0).p_value == pytest.approx(2 / 8192, abs=1e-15)
    assert sign_test(5, 5).p_value == 1.0
    assert sign_test(0, 0).p_value is None


@given(st.integers(0, 60), st.integers(0, 60))
def test_equals_scipys_binomial_test(w, m):
    r = sign_test(w, m)
    if w + m:
        assert r.p_value == pytest.approx(sps.binomtest(w, w + m, 0.5).pvalue, rel=1e-9)
        assert r.p_value == sign_test(m, w).p_value  # symmetric


def test_negative_counts_are_refused():
    with pytest.raises(ParameterError, match=">= 0"):
        sign_test(-1, 3)
