"""The joint moments the calculator declares for correlated Gaussian pairs, against Isserlis.

The kernel takes a declared moment on trust, so these values are checked here
against closed forms derived by hand: for (X, Y) jointly Gaussian with means μ_x, μ_y,
variances σ_x², σ_y² and covariance c = ρσ_xσ_y,

    E[XY]   = c + μ_xμ_y,
    E[X²Y²] = σ_x²σ_y² + 2c² + μ_x²σ_y² + μ_y²σ_x² + 4μ_xμ_y·c + μ_x²μ_y².
"""

from __future__ import annotations

import sympy
from sympy import Symbol

import scaledattn
from scaledattn.moments.gaussian import joint_moments, standard_normal_moment


def test_the_moments_of_a_standard_normal_are_the_double_factorials() -> None:
    # E[z^n] = (n − 1)!! for even n, 0 for odd n.
    expected = [1, 0, 1, 0, 3, 0, 15, 0, 105, 0, 945]
    assert [standard_normal_moment(n) for n in range(11)] == expected


def test_the_joint_moments_match_isserlis_for_symbolic_parameters() -> None:
    mx, my = Symbol("mu_x", real=True), Symbol("mu_y", real=True)
    sx, sy = Symbol("sigma_x", positive=True), Symbol("sigma_y", positive=True)
    rho = Symbol("rho", real=True)
    m = joint_moments(mx, my, sx**2, sy**2, rho)
    c = rho * sx * sy
    product_square = (
        sx**2 * sy**2 + 2 * c**2 + mx**2 * sy**2 + my**2 * sx**2 + 4 * mx * my * c + mx**2 * my**2
    )
    assert sympy.expand(m.covariance - c) == 0
    assert sympy.expand(m.product - (c + mx * my)) == 0
    assert sympy.expand(m.product_square - product_square) == 0


def test_the_correlated_answers_scale_with_both_standard_deviations() -> None:
    # Cov(q_i, k_i) = ρσ_qσ_k = 1/2 · 2 · 3 = 3 when Var q_i = 4 and Var k_i = 9.
    d = Symbol("d_k", integer=True, positive=True)
    assert sympy.simplify(scaledattn.mean(corr="1/2", var_q=4, var_k=9).expr - 3 * d) == 0
    # Var(q_i k_i) = σ_q²σ_k²(1 + ρ²) = 36 · 5/4 = 45 for zero means.
    assert sympy.simplify(scaledattn.variance(corr="1/2", var_q=4, var_k=9).expr - 45 * d) == 0
