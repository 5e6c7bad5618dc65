"""Properties of the stable softmax, with tolerances stated by dtype.

Tolerances (n ≤ 64 entries, |sᵢ| ≤ 1e4):
- Σp = 1: float64 within 1e-12, float32 within 1e-5 (n rounding errors of eps).
- agreement with a float64 log-sum-exp reference computed with math.fsum:
  float64 rtol 1e-9 (the exponent sᵢ − max s carries |z|·eps ≤ 2e-12 relative error),
  float32 rtol 1e-4 (|z| ≤ 104 before exp underflows, |z|·2⁻²⁴ ≤ 6e-6, plus the sum),
  with atol 1e-300 / 1e-35 for weights that underflow.
- shift invariance: bit-for-bit for integer scores and shifts (s + a is exact, and so
  is s + a − max); for float64 scores within 8·eps·(max|s| + |a| + 1) absolutely.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scaledattn.attention import entropy, log_softmax, mask_scores, softmax, softmax_jacobian
from scaledattn.errors import InvalidArgument
from tests.strategies import BOUND, dtypes, integer_logit_vectors, logit_vectors, shifts

SUM_TOL = {np.float32: 1e-5, np.float64: 1e-12}
RTOL = {np.float32: 1e-4, np.float64: 1e-9}
ATOL = {np.float32: 1e-35, np.float64: 1e-300}


def reference(s: np.ndarray) -> np.ndarray:
    """exp(s − log Σ e^s) in float64, the sum taken exactly rounded (math.fsum)."""
    x = s.astype(np.float64)
    m = float(x.max())
    lse = m + math.log(math.fsum(math.exp(v - m) for v in x))
    return np.exp(x - lse)


@given(st.data())
def test_softmax_sums_to_one_and_stays_in_the_unit_interval(data: Any) -> None:
    dtype = data.draw(dtypes())
    s = data.draw(logit_vectors(dtype))
    p = softmax(s)
    assert p.dtype == dtype
    assert np.all(np.isfinite(p))
    assert np.all((p >= 0) & (p <= 1))
    assert abs(float(p.astype(np.float64).sum()) - 1.0) <= SUM_TOL[dtype]


@given(st.data())
def test_softmax_agrees_with_a_float64_log_sum_exp_reference(data: Any) -> None:
    dtype = data.draw(dtypes())
    s = data.draw(logit_vectors(dtype))
    np.testing.assert_allclose(softmax(s), reference(s), rtol=RTOL[dtype], atol=ATOL[dtype])


@given(integer_logit_vectors(np.float32), st.integers(-(2**20), 2**20))
def test_softmax_is_exactly_shift_invariant_for_integer_scores(s: np.ndarray, a: int) -> None:
    np.testing.assert_array_equal(softmax(s + np.float32(a)), softmax(s))


@given(logit_vectors(np.float64), shifts())
def test_softmax_is_shift_invariant_for_float64_scores(s: np.ndarray, a: float) -> None:
    tol = 8 * np.finfo(np.float64).eps * (float(np.abs(s).max()) + abs(a) + 1)
    np.testing.assert_allclose(softmax(s + a), softmax(s), rtol=0, atol=tol)


@given(logit_vectors(np.float64, bound=50.0), st.data())
def test_raising_one_score_raises_its_weight_and_lowers_the_others(
    s: np.ndarray, data: Any
) -> None:
    i = data.draw(st.integers(0, len(s) - 1))
    up = s.copy()
    up[i] += data.draw(st.floats(1e-3, 50.0))
    before, after = softmax(s), softmax(up)
    # Each computed weight is within (2B + n + 3)·eps of its value relatively (B = 50 + 50
    # bounds the raised scores: the shift, exp, the n-term sum, the division).
    rel = (2 * 100 + len(s) + 3) * np.finfo(np.float64).eps
    tol = rel * (before + after)
    assert after[i] >= before[i] - tol[i]
    others = np.arange(len(s)) != i
    assert np.all(after[others] <= before[others] + tol[others])


@given(logit_vectors(np.float64))
def test_log_softmax_is_the_log_of_softmax_and_entropy_is_between_0_and_ln_n(s: np.ndarray) -> None:
    p, logp = softmax(s), log_softmax(s)
    big = p > 1e-200
    # log pᵢ carries an absolute error of about |sᵢ − max s|·eps ≤ 2e4·eps ≈ 4.4e-12, so
    # e^{log pᵢ} is pᵢ within that relatively (plus pᵢ's own (2B + n + 3)·eps).
    np.testing.assert_allclose(np.exp(logp[big]), p[big], rtol=1e-9)
    h = float(entropy(p))
    # Every term −pᵢ·log pᵢ is ≥ 0 in floating point (pᵢ ≤ 1 gives log pᵢ ≤ 0), so h ≥ 0
    # exactly; h ≤ ln n up to the weights' relative error and the n-term sum, both
    # below (2B + 2n + 4)·eps·(1 + ln n) with B = 1e4.
    n = len(s)
    assert (
        0 <= h <= math.log(n) + (2 * 1e4 + 2 * n + 4) * np.finfo(np.float64).eps * (1 + math.log(n))
    )


@given(st.data())
def test_scores_of_plus_minus_1e4_give_a_one_hot_in_both_precisions(data: Any) -> None:
    dtype = data.draw(dtypes())
    n = data.draw(st.integers(2, 64))
    s = np.full(n, -BOUND, dtype=dtype)
    k = data.draw(st.integers(0, n - 1))
    s[k] = BOUND
    p = softmax(s)
    assert p[k] == 1.0
    assert np.all(np.delete(p, k) == 0.0)
    assert np.isfinite(log_softmax(s)).all()


def test_the_lesson_hand_example_is_reproduced() -> None:
    # Lesson 000, §3: (3.2, 0.1, −2.5, 0.4) → (0.90, 0.041, 0.003, 0.055).
    p = softmax([3.2, 0.1, -2.5, 0.4])
    np.testing.assert_allclose(p, reference(np.array([3.2, 0.1, -2.5, 0.4])), rtol=1e-12)
    assert p.round(2).tolist()[0] == 0.90


def test_a_masked_key_gets_weight_zero_and_the_rest_renormalise() -> None:
    p = softmax(mask_scores([1.0, 5.0, 2.0], [True, False, True]))
    assert p[1] == 0.0
    np.testing.assert_allclose(p[[0, 2]], softmax([1.0, 2.0]))
    assert float(entropy(p)) == pytest.approx(float(entropy(softmax([1.0, 2.0]))))


@pytest.mark.parametrize(
    ("scores", "message"),
    [
        ([1.0, float("nan")], "NaN"),
        ([1.0, float("inf")], r"\+inf"),
        ([-np.inf, -np.inf], "fully masked"),
        ([[1.0, 2.0], [-np.inf, -np.inf]], "row 1 is fully masked"),
        ([], "at least one"),
        (["a", "b"], "numbers"),
        ([1 + 2j], "real"),
    ],
)
def test_bad_scores_are_refused_with_a_clear_error(scores: Any, message: str) -> None:
    with pytest.raises(InvalidArgument, match=message):
        softmax(scores)


def test_a_mask_must_be_boolean_and_fit_the_scores() -> None:
    with pytest.raises(InvalidArgument, match="boolean"):
        mask_scores([1.0, 2.0], [1, 0])
    with pytest.raises(InvalidArgument, match="does not fit"):
        mask_scores([1.0, 2.0], [True, False, True])
    with pytest.raises(InvalidArgument, match="fully masked"):
        mask_scores([1.0, 2.0], [False, False])


def test_entropy_refuses_negative_or_non_finite_probabilities() -> None:
    with pytest.raises(InvalidArgument):
        entropy([0.5, -0.5])
    with pytest.raises(InvalidArgument):
        entropy([np.nan, 1.0])


def test_integer_scores_become_float64_and_float32_stays_float32() -> None:
    assert softmax([1, 2, 3]).dtype == np.float64
    assert softmax(np.array([1, 2], dtype=np.float32)).dtype == np.float32
    assert softmax_jacobian(np.array([0.5, 0.5], dtype=np.float32)).dtype == np.float32
