"""The gradients against central finite differences, and the identities they obey.

Central differences with step h = 1e-6 on float64 scores in [−5, 5]: truncation
error O(h²·|f‴|) ≈ 1e-12 and rounding error O(eps/h) ≈ 1e-10, so an absolute
tolerance of 1e-7 has a wide margin.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from scaledattn.attention import (
    cross_entropy,
    cross_entropy_grad,
    one_hot,
    softmax,
    softmax_jacobian,
)
from scaledattn.attention.training import gradients, loss
from tests.strategies import logit_vectors, score_batches

H, TOL = 1e-6, 1e-7


def numeric_gradient(f, s: np.ndarray) -> np.ndarray:  # type: ignore[no-untyped-def]
    """∂f/∂s by central differences, one coordinate at a time (f: array → array)."""
    out = []
    for k in range(s.size):
        e = np.zeros(s.size)
        e[k] = H
        e = e.reshape(s.shape)
        out.append((f(s + e) - f(s - e)) / (2 * H))
    return np.stack(out, axis=-1)


@given(score_batches(), st.data())
def test_cross_entropy_gradient_is_p_minus_y(s: np.ndarray, data: st.DataObject) -> None:
    target = np.array(
        data.draw(
            st.lists(st.integers(0, s.shape[1] - 1), min_size=s.shape[0], max_size=s.shape[0])
        )
    )
    for row in range(s.shape[0]):
        f = lambda x, r=row: cross_entropy(x[None, :], target[r : r + 1])[0]  # noqa: E731
        numeric = numeric_gradient(f, s[row])
        np.testing.assert_allclose(cross_entropy_grad(s[row], target[row]), numeric, atol=TOL)
    np.testing.assert_allclose(
        cross_entropy_grad(s, target), softmax(s) - one_hot(target, s.shape[1]), atol=1e-15
    )


@given(logit_vectors(np.float64, bound=5.0, max_len=12))
def test_softmax_jacobian_is_diag_p_minus_p_p_transpose(s: np.ndarray) -> None:
    numeric = numeric_gradient(softmax, s)  # numeric[i, m] = ∂p_i/∂s_m
    np.testing.assert_allclose(softmax_jacobian(softmax(s)), numeric, atol=TOL)


@given(logit_vectors(np.float64, bound=50.0))
def test_the_jacobian_is_symmetric_with_rows_summing_to_zero(s: np.ndarray) -> None:
    jac = softmax_jacobian(softmax(s))
    np.testing.assert_allclose(jac, jac.T, atol=0)
    np.testing.assert_allclose(jac.sum(axis=1), 0, atol=1e-15)
    assert np.linalg.eigvalsh(jac).min() >= -1e-15  # positive semi-definite


@given(logit_vectors(np.float64), st.data())
def test_the_cross_entropy_gradient_norm_never_exceeds_root_two(
    s: np.ndarray, data: st.DataObject
) -> None:
    t = data.draw(st.integers(0, len(s) - 1))
    assert float(np.linalg.norm(cross_entropy_grad(s, np.array(t)))) <= math.sqrt(2) + 1e-12


def test_the_saturation_limits_hold_numerically() -> None:
    # Theorems jacobian_vanishes and p_minus_y_limit: as score w's lead λ grows,
    # ‖diag(p) − ppᵀ‖ → 0 while ‖p − y‖ → √2 (target t ≠ w); both deviations
    # shrink like e^{−λ}, so at λ = 40 they are at rounding level.
    rng = np.random.default_rng(0)
    s = rng.standard_normal(16)
    w, t = 3, 7

    def norms(lam: float) -> tuple[float, float]:
        r = s.copy()
        r[w] += lam
        jac = float(np.linalg.norm(softmax_jacobian(softmax(r))))
        grad = float(np.linalg.norm(cross_entropy_grad(r, np.array(t))))
        return jac, grad

    jac0, grad0 = norms(0.0)
    jac, grad = norms(40.0)
    assert jac0 > 0.05
    assert abs(grad0 - math.sqrt(2)) > 0.01
    assert jac < 1e-12
    assert abs(grad - math.sqrt(2)) < 1e-12


def test_the_training_gradients_match_finite_differences() -> None:
    rng = np.random.default_rng(3)
    d, c = 4, 2.0
    x = rng.standard_normal((1, 64, d))
    wq, wk = rng.standard_normal((1, d, d)) / 2, rng.standard_normal((1, d, d)) / 2
    _, gq, gk = gradients(x, wq, wk, c)
    num_q = numeric_gradient(lambda w: loss(x, w, wk, c)[0], wq).reshape(1, d, d)
    num_k = numeric_gradient(lambda w: loss(x, wq, w, c)[0], wk).reshape(1, d, d)
    np.testing.assert_allclose(gq, num_q, atol=TOL)
    np.testing.assert_allclose(gk, num_k, atol=TOL)
