"""Joint moments of a correlated Gaussian pair (q, k), computed from independent normals.

Write q = μ_q + σ_q·a and k = μ_k + σ_k·(ρ·a + √(1 − ρ²)·b) with a, b independent
standard normals: (q, k) is then jointly Gaussian with means μ_q, μ_k, variances
σ_q², σ_k² and correlation ρ. Any moment E[q^m k^n] is a polynomial in a and b;
independence of a and b and the moments of a standard normal (E[a^{2n}] = (2n − 1)!!,
odd moments 0 — the one-variable case of Isserlis' theorem) give its value.

These values are *declared* to the kernel as ``Moment`` assumptions of a derivation;
this module is untrusted, and its provenance text travels with the derivation.

Examples
--------
>>> rho = sympy.Symbol("rho", real=True)
>>> m = joint_moments(0, 0, 1, 1, rho)
>>> m.product, m.product_square
(rho, 2*rho**2 + 1)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy
from sympy import Expr

__all__ = ["JointMoments", "joint_moments", "standard_normal_moment"]


def standard_normal_moment(n: int) -> Expr:
    """E[zⁿ] for a standard normal z: 0 for odd n, (n − 1)!! for even n.

    >>> [standard_normal_moment(n) for n in range(5)]
    [1, 0, 1, 0, 3]
    """
    if n % 2:
        return sympy.S.Zero
    return sympy.factorial2(n - 1) if n else sympy.S.One


@dataclass(frozen=True)
class JointMoments:
    """E[q], E[k], Var(q), Var(k), Cov(q, k), E[qk] and E[q²k²] of the Gaussian pair."""

    mean_q: Expr
    mean_k: Expr
    var_q: Expr
    var_k: Expr
    covariance: Expr
    product: Expr
    product_square: Expr
    provenance: str


def _expectation(poly_expr: Expr, a: sympy.Symbol, b: sympy.Symbol) -> Expr:
    """E of a polynomial in independent standard normals a, b, term by term."""
    poly = sympy.Poly(sympy.expand(poly_expr), a, b)
    total: Expr = sympy.S.Zero
    for (m, n), coeff in poly.terms():
        total += coeff * standard_normal_moment(m) * standard_normal_moment(n)
    return sympy.expand(total)


def joint_moments(mean_q: Expr, mean_k: Expr, var_q: Expr, var_k: Expr, rho: Expr) -> JointMoments:
    """The joint moments of (q, k), jointly Gaussian with these means, variances and ρ."""
    return _joint_moments(*(sympy.sympify(x) for x in (mean_q, mean_k, var_q, var_k, rho)))


@lru_cache(maxsize=256)
def _joint_moments(mq: Expr, mk: Expr, vq: Expr, vk: Expr, r: Expr) -> JointMoments:
    a, b = sympy.Dummy("a"), sympy.Dummy("b")
    sq, sk = sympy.sqrt(vq), sympy.sqrt(vk)
    q = mq + sq * a
    k = mk + sk * (r * a + sympy.sqrt(1 - r**2) * b)
    mean_q_model = _expectation(q, a, b)
    mean_k_model = _expectation(k, a, b)
    product = _expectation(q * k, a, b)
    moments = JointMoments(
        mean_q=mean_q_model,
        mean_k=mean_k_model,
        var_q=_expectation(q**2, a, b) - mean_q_model**2,
        var_k=_expectation(k**2, a, b) - mean_k_model**2,
        covariance=sympy.expand(product - mean_q_model * mean_k_model),
        product=product,
        product_square=_expectation(q**2 * k**2, a, b),
        provenance=(
            "(q_i, k_i) jointly Gaussian: q_i = mu_q + sigma_q*a, "
            "k_i = mu_k + sigma_k*(rho*a + sqrt(1 - rho**2)*b) with a, b independent N(0, 1); "
            "E[a**2] = E[b**2] = 1, E[a**4] = E[b**4] = 3, odd moments 0 (Isserlis)"
        ),
    )
    # The model must reproduce the moments it was built from.
    for got, want in ((moments.mean_q, mq), (moments.mean_k, mk)):
        assert sympy.expand(got - want) == 0
    for got, want in ((moments.var_q, vq), (moments.var_k, vk)):
        assert sympy.expand(got - want) == 0
    assert sympy.expand(moments.covariance - r * sq * sk) == 0
    return moments
