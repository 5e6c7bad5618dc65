"""The variance of a dot product of random vectors.

    q, k ∈ ℝ^{d_k} with i.i.d. components, mean 0, variance 1, q independent of k:
    E[q·k] = 0   and   Var(q·k) = d_k

Main results
------------
- ``dot_product_mean``: E[q·k] = 0.
- ``dot_product_variance``: Var(q·k) = d_k, for a symbolic d_k. E[(q·k)²] splits
  into d_k diagonal terms E[qᵢ²]E[kᵢ²] = 1 and d_k(d_k − 1) cross terms
  E[qᵢ]E[kᵢ]E[qⱼ]E[kⱼ] = 0.
- ``dot_product_variance_general``: component variances σ_q², σ_k² give σ_q²σ_k²·d_k.
- ``dot_product_variance_with_means``: means μ_q, μ_k give
  d_k(σ_q²σ_k² + σ_q²μ_k² + μ_q²σ_k²); here the d_k(d_k − 1) cross terms do not vanish.
- ``dot_product_second_moment_d3``: the concrete d_k = 3 case, all nine products
  qᵢkᵢqⱼkⱼ listed, three diagonal and six cross.

Assumptions
-----------
``IndependentComponents(q, k)`` (all 2·d_k components mutually independent) and the
moments of the components, the same for every index i.

References
----------
Vaswani et al. 2017, "Attention Is All You Need", §3.2.1 and its footnote 4:
"assume that the components of q and k are independent random variables with mean
0 and variance 1. Then their dot product has mean 0 and variance d_k."
Lesson 000, §2; article 002 ("以d_k=3为例点积平方展开后有9项").

Examples
--------
>>> from scaledattn.derive import prove
>>> print(prove(dot_product_variance).statement)
Var(q·k) = d_k
"""

from __future__ import annotations

from collections.abc import Callable

from sympy import Add, Expr, Mul, S, Symbol

from scaledattn.derive import Builder, calc, group
from scaledattn.kernel import (
    CrossSum,
    Dot,
    E,
    IndependentComponents,
    IndexSum,
    Mean,
    RandomVector,
    UnitVariance,
    Var,
    Variance,
    ZeroMean,
    as_written,
    dimension,
    index,
)
from scaledattn.kernel.rules import (
    count_terms,
    dot_def,
    expectation_linear,
    expectation_mul_of_indep,
    ring,
    substitute_moment,
    sum_unroll,
    variance_def,
)
from scaledattn.moments import expansion
from scaledattn.render import run

d = dimension("d_k")
q, k = RandomVector("q", d), RandomVector("k", d)
i, j = index("i"), index("j")
sigma_q, sigma_k = Symbol("sigma_q", positive=True), Symbol("sigma_k", positive=True)
mu_q, mu_k = Symbol("mu_q", real=True), Symbol("mu_k", real=True)
zero, one = S.Zero, S.One

LESSON = [IndependentComponents(q, k), ZeroMean(q), ZeroMean(k), UnitVariance(q), UnitVariance(k)]


def diagonal_and_cross(proof: Builder) -> Builder:
    """Var(q·k) → Σᵢ E[qᵢ²]E[kᵢ²] + Σ_{i≠j} E[qᵢ]E[kᵢ]E[qⱼ]E[kⱼ] − (Σᵢ E[qᵢ]E[kᵢ])².

    The steps every variance derivation below shares: the definition of variance,
    the square of the sum as a double sum, and its split into the diagonal i = j
    and the cross terms i ≠ j, each factored by independence. The chain has one
    home, :func:`scaledattn.moments.expansion.diagonal_and_cross`, which the
    calculator's derivations for a setting write too.
    """
    return expansion.diagonal_and_cross(proof, q, k, i, j)

with as_written():
    dot_product_mean = (
        calc("dot_product_mean", E(Dot(q, k)), zero, assuming=LESSON,
             title="the score q·k has mean 0")
        .eq(E(IndexSum(q[i] * k[i], i, d)),                  by=dot_def)
        .eq(IndexSum(E(q[i] * k[i]), i, d),                  by=expectation_linear)
        .eq(IndexSum(E(q[i]) * E(k[i]), i, d),               by=expectation_mul_of_indep)
        .eq(IndexSum(zero * zero, i, d),                     by=substitute_moment)
        .eq(d * (zero * zero),                               by=count_terms)
        .eq(zero,                                            by=ring)
        .qed()
    )

    dot_product_variance = (
        diagonal_and_cross(
            calc("dot_product_variance", Var(Dot(q, k)), d, assuming=LESSON,
                 title="the score q·k has variance d_k"))
        .eq(IndexSum(group(one + zero**2) * group(one + zero**2), i, d)
            + CrossSum(zero * zero * zero * zero, i, j, d)
            - IndexSum(zero * zero, i, d) ** 2,              by=substitute_moment,
            note="mean 0, variance 1")
        .eq(IndexSum(one, i, d) + CrossSum(zero, i, j, d)
            - IndexSum(zero, i, d) ** 2,                     by=ring,
            note="each diagonal term is 1, each cross term 0")
        .eq(d * one + d * (d - 1) * zero - (d * zero) ** 2,  by=count_terms)
        .eq(d,                                               by=ring)
        .qed()
    )

    dot_product_variance_general = (
        diagonal_and_cross(
            calc("dot_product_variance_general", Var(Dot(q, k)), sigma_q**2 * sigma_k**2 * d,
                 assuming=[IndependentComponents(q, k), ZeroMean(q), ZeroMean(k),
                           Variance(q, sigma_q**2), Variance(k, sigma_k**2)],
                 title="component variances σ_q², σ_k²"))
        .eq(IndexSum(group(sigma_q**2 + zero**2) * group(sigma_k**2 + zero**2), i, d)
            + CrossSum(zero * zero * zero * zero, i, j, d)
            - IndexSum(zero * zero, i, d) ** 2,              by=substitute_moment)
        .eq(IndexSum(sigma_q**2 * sigma_k**2, i, d) + CrossSum(zero, i, j, d)
            - IndexSum(zero, i, d) ** 2,                     by=ring)
        .eq(d * sigma_q**2 * sigma_k**2 + d * (d - 1) * zero
            - (d * zero) ** 2,                               by=count_terms)
        .eq(sigma_q**2 * sigma_k**2 * d,                     by=ring)
        .qed()
    )

    dot_product_variance_with_means = (
        diagonal_and_cross(
            calc("dot_product_variance_with_means", Var(Dot(q, k)),
                 d * (sigma_q**2 * sigma_k**2 + sigma_q**2 * mu_k**2 + mu_q**2 * sigma_k**2),
                 assuming=[IndependentComponents(q, k), Mean(q, mu_q), Mean(k, mu_k),
                           Variance(q, sigma_q**2), Variance(k, sigma_k**2)],
                 title="non-zero means μ_q, μ_k"))
        .eq(IndexSum(group(sigma_q**2 + mu_q**2) * group(sigma_k**2 + mu_k**2), i, d)
            + CrossSum(mu_q * mu_k * mu_q * mu_k, i, j, d)
            - IndexSum(mu_q * mu_k, i, d) ** 2,              by=substitute_moment)
        .eq(d * group(sigma_q**2 + mu_q**2) * group(sigma_k**2 + mu_k**2)
            + d * (d - 1) * mu_q**2 * mu_k**2
            - (d * mu_q * mu_k) ** 2,                        by=count_terms,
            note="the d_k(d_k − 1) cross terms do not vanish")
        .eq(d * (sigma_q**2 * sigma_k**2 + sigma_q**2 * mu_k**2
                 + mu_q**2 * sigma_k**2),                    by=ring,
            note="d_k²μ_q²μ_k² cancels against E[q·k]²")
        .qed()
    )


# ------------------------------------------------------------ d_k = 3, listed

q3, k3 = RandomVector("q", 3), RandomVector("k", 3)
PAIRS = [(a, b) for a in (1, 2, 3) for b in (1, 2, 3)]
DIAGONAL = [(a, b) for a, b in PAIRS if a == b]
CROSS = [(a, b) for a, b in PAIRS if a != b]


def listed(terms: list[tuple[int, int]], term: Callable[[int, int], Expr]) -> Expr:
    """The sum of ``term(a, b)`` over the listed index pairs, kept as written."""
    return group(Add(*(term(a, b) for a, b in terms)))


def product(a: int, b: int) -> Expr:
    """The product q_a k_a q_b k_b, kept as written."""
    return Mul(q3[a], k3[a], q3[b], k3[b])


with as_written():
    dot_product_second_moment_d3 = (
        calc("dot_product_second_moment_d3", E(Dot(q3, k3) ** 2), S(3),
             assuming=[IndependentComponents(q3, k3), ZeroMean(q3), ZeroMean(k3),
                       UnitVariance(q3), UnitVariance(k3)],
             title="d_k = 3: nine terms, three diagonal and six cross")
        .eq(E(IndexSum(q3[i] * k3[i], i, 3) ** 2),                       by=dot_def)
        .eq(E((q3[1] * k3[1] + q3[2] * k3[2] + q3[3] * k3[3]) ** 2),      by=sum_unroll)
        .eq(E(listed(PAIRS, product)),                                    by=ring,
            note=f"{len(PAIRS)} products qᵢkᵢqⱼkⱼ for i, j = 1..3")
        .eq(listed(DIAGONAL, lambda a, b: E(product(a, b)))
            + listed(CROSS, lambda a, b: E(product(a, b))),               by=expectation_linear,
            note=f"{len(DIAGONAL)} diagonal terms (i = j) + {len(CROSS)} cross terms (i ≠ j)")
        .eq(listed(DIAGONAL, lambda a, b: E(q3[a] ** 2) * E(k3[a] ** 2))
            + listed(CROSS, lambda a, b: E(q3[a]) * E(k3[a]) * E(q3[b]) * E(k3[b])),
            by=expectation_mul_of_indep)
        .eq(listed(DIAGONAL, lambda a, b: group(Var(q3[a]) + E(q3[a]) ** 2)
                   * group(Var(k3[a]) + E(k3[a]) ** 2))
            + listed(CROSS, lambda a, b: E(q3[a]) * E(k3[a]) * E(q3[b]) * E(k3[b])),
            by=variance_def)
        .eq(listed(DIAGONAL, lambda a, b: group(one + zero**2) * group(one + zero**2))
            + listed(CROSS, lambda a, b: zero * zero * zero * zero),      by=substitute_moment)
        .eq(listed(DIAGONAL, lambda a, b: one) + listed(CROSS, lambda a, b: zero),
            by=ring)
        .eq(S(3),                                                         by=ring)
        .qed()
    )

#: Mean 0, variance 1 and finite: ±2 with probability 1/8 each, 0 otherwise.
THREE_POINT = "finite:values=-2|0|2,probs=1/8|3/4|1/8"


def evidence() -> dict[str, tuple[dict[str, object], ...]]:
    """Concrete models on which ``scaledattn check`` evaluates every step.

    Finite laws are measured exactly (the law of q·k by convolution), the others
    by Monte Carlo. The lesson's settings appear: the coin at d_k = 2 (exercise 1)
    and d_k = 64 (variance 64), and component variance 4 (exercise 3: 16·d_k).
    """
    return {
        "dot_product_mean": (
            {"q": "coin", "k": THREE_POINT, "d_k": 3},
            {"q": "gaussian", "k": "coin", "d_k": 64},
        ),
        "dot_product_variance": (
            {"q": "coin", "k": "coin", "d_k": 2},
            {"q": "coin", "k": "coin", "d_k": 64},
            {"q": "gaussian", "k": THREE_POINT, "d_k": 16},
        ),
        "dot_product_variance_general": (
            {"q": "finite:values=-2|2", "k": "coin", "d_k": 16, "sigma_q": 2, "sigma_k": 1},
            {"q": "gaussian:var=4", "k": "gaussian:var=4", "d_k": 8, "sigma_q": 2, "sigma_k": 2},
        ),
        "dot_product_variance_with_means": (
            {"q": "finite:values=0|2", "k": "finite:values=-5/2|3/2", "d_k": 8,
             "sigma_q": 1, "sigma_k": 2, "mu_q": 1, "mu_k": "-1/2"},
            {"q": "gaussian:mean=1,var=1", "k": "gaussian:mean=-1/2,var=4", "d_k": 8,
             "sigma_q": 1, "sigma_k": 2, "mu_q": 1, "mu_k": "-1/2"},
        ),
        "dot_product_second_moment_d3": (
            {"q": "coin", "k": THREE_POINT},
            {"q": "gaussian", "k": "gaussian"},
        ),
    }


derivations = (
    dot_product_variance,
    dot_product_mean,
    dot_product_variance_general,
    dot_product_variance_with_means,
    dot_product_second_moment_d3,
)

if __name__ == "__main__":
    raise SystemExit(run(derivations))
