"""The gradients against central finite differences, and the identities they obey.

Central differences with step h = 1e-6 on float64 scores in [−5, 5]: truncation
error O(h²·|f‴|) ≈ 1e-12 and rounding error O(eps/h) ≈ 1e-10, so an absolute
tolerance of 1e-7 has a wide margin.

The identities of the Jacobian J = diag(p) − ppᵀ are checked to the rounding error of
computing it, from the standard bounds (Higham, *Accuracy and Stability of Numerical
Algorithms*, §3): with ε the float64 unit roundoff and n entries, each computed weight
has a relative error below (2B + n + 3)ε for scores in [−B, B] (the shift s − max s,
exp, an n-term sum, a division), so Σₘ pₘ is 1 within (n + 2)ε·(2B + n + 3); an n-term
sum of products adds (n + 1)ε of the sum of magnitudes.
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
EPS = float(np.finfo(np.float64).eps)


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
    # The same floating-point operations in the same order: equal, bit for bit.
    np.testing.assert_array_equal(
        cross_entropy_grad(s, target), softmax(s) - one_hot(target, s.shape[1])
    )


@given(logit_vectors(np.float64, bound=5.0, max_len=12))
def test_softmax_jacobian_is_diag_p_minus_p_p_transpose(s: np.ndarray) -> None:
    numeric = numeric_gradient(softmax, s)  # numeric[i, m] = ∂p_i/∂s_m
    np.testing.assert_allclose(softmax_jacobian(softmax(s)), numeric, atol=TOL)


@given(logit_vectors(np.float64, bound=50.0))
def test_the_jacobian_is_symmetric_with_rows_summing_to_zero(s: np.ndarray) -> None:
    p = softmax(s)
    jac = softmax_jacobian(p)
    n = len(s)
    # Jᵢₘ = −pᵢ·pₘ and Jₘᵢ = −pₘ·pᵢ: one rounded product each, and a product rounds
    # the same whatever the order of its factors: symmetric bit for bit.
    np.testing.assert_array_equal(jac, jac.T)
    # Row i sums to pᵢ(1 − Σₘ pₘ) in exact arithmetic on the computed p, and |1 − Σ p|
    # is at most (n + 2)(2B + n + 3)ε; the entries' own rounding (2ε each) and the
    # n-term sum ((n + 1)ε of Σₘ|Jᵢₘ| ≤ 2pᵢ) add (2n + 4)ε·pᵢ. The floor counts the
    # products pᵢpₘ that underflow (each off by at most the smallest subnormal).
    row_bound = ((n + 2) * (2 * 50 + n + 3) + 2 * n + 4) * EPS * p
    floor = n * float(np.finfo(np.float64).smallest_subnormal)
    assert np.all(np.abs(jac.sum(axis=1)) <= row_bound + floor)
    # Positive semi-definite: J's eigenvalues lie in [0, max p] up to that same defect
    # of Σ p (xᵀJx with x = 1 is (Σp)(1 − Σp)) and LAPACK's backward error, below
    # 4nε‖J‖₂ ≤ 4nε·max p for the symmetric eigensolver.
    lowest = np.linalg.eigvalsh(jac).min()
    assert lowest >= -(float(row_bound.max()) * n + 4 * n * EPS * float(p.max()) + floor)


@given(logit_vectors(np.float64), st.data())
def test_the_cross_entropy_gradient_norm_never_exceeds_root_two(
    s: np.ndarray, data: st.DataObject
) -> None:
    t = data.draw(st.integers(0, len(s) - 1))
    n = len(s)
    # ‖p − y‖² = Σp² − 2pₜ + 1 ≤ 2 exactly; the computed weights (relative error below
    # (2B + n + 3)ε, B = 1e4) and the norm's n-term sum and root ((n + 2)ε) move it by
    # at most (2B + 2n + 5)ε relatively.
    bound = math.sqrt(2) * (1 + (2 * 1e4 + 2 * n + 5) * EPS)
    assert float(np.linalg.norm(cross_entropy_grad(s, np.array(t)))) <= bound


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
