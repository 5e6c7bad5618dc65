"""The variance of a score between projected tokens: the theorem a real model's init obeys.

    q = W_q x,  k = W_k y,  W_q, W_k independent d_k × d_model matrices with i.i.d.
    entries of mean 0 and variances σ_q², σ_k²,  x, y ∈ ℝ^{d_model} fixed:
    Var(q·k) = d_k·σ_q²·σ_k²·‖x‖²·‖y‖²

Main results
------------
- ``projected_component_variance_q`` (and ``_k``): one component of q is a row
  w = (W_q)_{i,·} times x, and Var(Σₐ wₐxₐ) = σ_q²·Σₐ xₐ² (= σ_q²‖x‖²): the d_model
  diagonal terms give σ_q²xₐ², the cross terms E[wₐ]E[w_b] vanish.
- ``projected_score_variance``: Var(q·k) = d_k·σ_q²‖x‖²·σ_k²‖y‖². The dot-product
  chain of ``dot_product_variance`` with each component's variance Var(qᵢ) = Var(w·x)
  rewritten by the lemma above (a proved theorem used as a rule).
- ``projected_score_variance_same_token``: x = y gives d_k·σ_q²σ_k²‖x‖⁴. W_q and W_k
  are still independent, so nothing else changes (with W_q = W_k it would:
  E[q·q] = d_kσ²‖x‖² ≠ 0).
- ``projected_score_variance_with_bias``: q = W_q x + b_q, k = W_k y + b_k with fixed
  biases: Var(q·k) = d_k·σ_q²σ_k²‖x‖²‖y‖² + σ_q²‖x‖²‖b_k‖² + σ_k²‖y‖²‖b_q‖². The
  cross terms i ≠ j no longer vanish; they cancel against E[q·k]² = (Σᵢ b_{q,i}b_{k,i})².
  With zero biases (the usual init) the plain formula holds.

Assumptions
-----------
The row w of W_q (and v of W_k): ``IndependentComponents(w)``, mean 0, variance σ_q²
(σ_k²). The components of q are declared independent of each other and of k's
(``IndependentComponents(q, k)``): qᵢ is a function of row i of W_q alone, kᵢ of
row i of W_k, and functions of disjoint blocks of independent entries are
independent; this transfer, and "every qᵢ has the law of w·x", are what the
assumptions Var(qᵢ) = Var(w·x), E[qᵢ] = 0 (or b_{q,i}) declare. The kernel checks
every step from there, including the lemma that computes Var(w·x).

References
----------
Vaswani et al. 2017, §3.2.1 and footnote 4 (the unit-variance case this generalises).
The init stds of GPT-2 (0.02) and T5 ((d_model·d_kv)^-1/2 for W_q, d_model^-1/2 for
W_k) are read off the models' configs by ``scaledattn audit MODEL``, which measures
this theorem layer by layer (docs/attention-at-init.md).

Examples
--------
GPT-2's init (σ = 0.02) and LayerNorm'd tokens (‖x‖² = d_model = 768), one head of 64:

>>> from scaledattn.derive import prove
>>> rhs = prove(projected_score_variance).statement.rhs
>>> values = {d: 64, sigma_q: 0.02, sigma_k: 0.02, norm_sq(x): 768, norm_sq(y): 768}
>>> round(float(rhs.xreplace(values)), 4)
6.0398
"""

from __future__ import annotations

from sympy import Expr, S, Symbol

from scaledattn.derive import Builder, calc, group
from scaledattn.kernel import (
    Assumption,
    CrossSum,
    Derivation,
    Dot,
    E,
    IndependentComponents,
    IndexSum,
    Mean,
    RandomVector,
    RealVector,
    Var,
    Variance,
    ZeroMean,
    as_written,
    dimension,
    index,
)
from scaledattn.kernel.rules import (
    count_terms,
    expectation_linear,
    expectation_mul_of_indep,
    ring,
    split_diagonal,
    substitute_moment,
    sum_linear,
    sum_mul_sum,
    variance_def,
)
from scaledattn.proofs.dot_product_variance import d, diagonal_and_cross, i, j, k, q
from scaledattn.render import run

m = dimension("d_model")
a, b = index("a"), index("b")
w, v = RandomVector("w", m), RandomVector("v", m)
x, y = RealVector("x", m), RealVector("y", m)
b_q, b_k = RealVector("b_q", d), RealVector("b_k", d)
sigma_q, sigma_k = Symbol("sigma_q", positive=True), Symbol("sigma_k", positive=True)
zero = S.Zero


def projection(row: RandomVector, token: RealVector) -> Expr:
    """One component of W·x: Σₐ wₐxₐ for the row w and the fixed token x."""
    return IndexSum(row[a] * token[a], a, m)


def norm_sq(token: RealVector) -> Expr:
    """‖x‖² = Σₐ xₐ²."""
    return IndexSum(token[a] ** 2, a, m)


def row_assumptions(row: RandomVector, sigma: Symbol) -> list[Assumption]:
    """The entries of a row: independent, mean 0, variance σ²."""
    return [IndependentComponents(row), ZeroMean(row), Variance(row, sigma**2)]


def component_variance(name: str, row: RandomVector, token: RealVector, sigma: Symbol) -> Derivation:
    """Var(Σₐ wₐxₐ) = σ²·Σₐ xₐ²: d_model diagonal terms xₐ²E[wₐ²], cross terms 0."""
    wx = projection(row, token)
    with as_written():
        derivation: Derivation = (
            calc(name, Var(wx), sigma**2 * norm_sq(token), assuming=row_assumptions(row, sigma),
                 title=f"one component of W·{token}: a row times the fixed token")
            .eq(E(wx ** 2) - E(wx) ** 2,                                       by=variance_def)
            .eq(E(IndexSum(IndexSum(row[a] * token[a] * row[b] * token[b], b, m), a, m))
                - E(wx) ** 2,                                                  by=sum_mul_sum)
            .eq(IndexSum(IndexSum(token[a] * token[b] * E(row[a] * row[b]), b, m), a, m)
                - IndexSum(token[a] * E(row[a]), a, m) ** 2,                   by=expectation_linear,
                note=f"the entries of {token} are fixed numbers")
            .eq(IndexSum(token[a] ** 2 * E(row[a] ** 2), a, m)
                + CrossSum(token[a] * token[b] * E(row[a] * row[b]), a, b, m)
                - IndexSum(token[a] * E(row[a]), a, m) ** 2,                   by=split_diagonal)
            .eq(IndexSum(token[a] ** 2 * E(row[a] ** 2), a, m)
                + CrossSum(token[a] * token[b] * E(row[a]) * E(row[b]), a, b, m)
                - IndexSum(token[a] * E(row[a]), a, m) ** 2,                   by=expectation_mul_of_indep)
            .eq(IndexSum(token[a] ** 2 * group(Var(row[a]) + E(row[a]) ** 2), a, m)
                + CrossSum(token[a] * token[b] * E(row[a]) * E(row[b]), a, b, m)
                - IndexSum(token[a] * E(row[a]), a, m) ** 2,                   by=variance_def)
            .eq(IndexSum(token[a] ** 2 * group(sigma**2 + zero**2), a, m)
                + CrossSum(token[a] * token[b] * zero * zero, a, b, m)
                - IndexSum(token[a] * zero, a, m) ** 2,                        by=substitute_moment)
            .eq(IndexSum(sigma**2 * token[a] ** 2, a, m) + CrossSum(zero, a, b, m)
                - IndexSum(zero, a, m) ** 2,                                   by=ring)
            .eq(IndexSum(sigma**2 * token[a] ** 2, a, m) + m * (m - 1) * zero
                - (m * zero) ** 2,                                             by=count_terms)
            .eq(sigma**2 * norm_sq(token) + m * (m - 1) * zero - (m * zero) ** 2,
                                                                               by=sum_linear)
            .eq(sigma**2 * norm_sq(token),                                     by=ring)
            .qed()
        )
    return derivation


projected_component_variance_q = component_variance(
    "projected_component_variance_q", w, x, sigma_q)
projected_component_variance_k = component_variance(
    "projected_component_variance_k", v, y, sigma_k)
projected_component_variance_same_token = component_variance(
    "projected_component_variance_same_token", v, x, sigma_k)


def projected(name: str, key_token: RealVector, lemma_k: Derivation, title: str) -> Derivation:
    """Var(q·k) = d_k·σ_q²‖x‖²·σ_k²‖key_token‖², through the component lemmas."""
    wx, vy = projection(w, x), projection(v, key_token)
    assumptions: list[Assumption] = [
        IndependentComponents(q, k), ZeroMean(q), ZeroMean(k),
        Variance(q, Var(wx)), Variance(k, Var(vy)),
        *row_assumptions(w, sigma_q), *row_assumptions(v, sigma_k),
    ]
    rhs = d * sigma_q**2 * sigma_k**2 * norm_sq(x) * norm_sq(key_token)
    proof: Builder = calc(name, Var(Dot(q, k)), rhs, assuming=assumptions, title=title)
    with as_written():
        derivation: Derivation = (
            diagonal_and_cross(proof)
            .eq(IndexSum(group(Var(wx) + zero**2) * group(Var(vy) + zero**2), i, d)
                + CrossSum(zero * zero * zero * zero, i, j, d)
                - IndexSum(zero * zero, i, d) ** 2,                            by=substitute_moment,
                note="each qᵢ has the variance of a row of W_q times x")
            .eq(IndexSum(Var(wx) * Var(vy), i, d) + CrossSum(zero, i, j, d)
                - IndexSum(zero, i, d) ** 2,                                   by=ring)
            .eq(d * Var(wx) * Var(vy) + d * (d - 1) * zero - (d * zero) ** 2,  by=count_terms)
            .eq(d * group(sigma_q**2 * norm_sq(x)) * Var(vy)
                + d * (d - 1) * zero - (d * zero) ** 2,                        by=projected_component_variance_q)
            .eq(d * group(sigma_q**2 * norm_sq(x)) * group(sigma_k**2 * norm_sq(key_token))
                + d * (d - 1) * zero - (d * zero) ** 2,                        by=lemma_k)
            .eq(rhs,                                                           by=ring)
            .qed()
        )
    return derivation


projected_score_variance = projected(
    "projected_score_variance", y, projected_component_variance_k,
    "q = W_q x, k = W_k y: the score's variance from the init and the input norms")
projected_score_variance_same_token = projected(
    "projected_score_variance_same_token", x, projected_component_variance_same_token,
    "the same token (x = y) with independent W_q, W_k")


def bias_norm_sq(bias: RealVector) -> Expr:
    """‖b‖² = Σᵢ bᵢ² over the d_k components."""
    return IndexSum(bias[i] ** 2, i, d)


def _with_bias() -> Derivation:
    """Var(q·k) with fixed biases: qᵢ = (W_q x)ᵢ + b_{q,i}, kᵢ = (W_k y)ᵢ + b_{k,i}."""
    wx, vy = projection(w, x), projection(v, y)
    assumptions: list[Assumption] = [
        IndependentComponents(q, k), Mean(q, b_q[i]), Mean(k, b_k[i]),
        Variance(q, Var(wx)), Variance(k, Var(vy)),
        *row_assumptions(w, sigma_q), *row_assumptions(v, sigma_k),
    ]
    sx, sy = sigma_q**2 * norm_sq(x), sigma_k**2 * norm_sq(y)
    rhs = d * sx * sy + sx * bias_norm_sq(b_k) + sy * bias_norm_sq(b_q)
    bb = b_q[i] * b_k[i]
    bb_j = b_q[j] * b_k[j]
    proof = calc("projected_score_variance_with_bias", Var(Dot(q, k)), rhs,
                 assuming=assumptions, title="biases b_q, b_k: the cross terms return")
    with as_written():
        derivation: Derivation = (
            diagonal_and_cross(proof)
            .eq(IndexSum(group(Var(wx) + b_q[i] ** 2) * group(Var(vy) + b_k[i] ** 2), i, d)
                + CrossSum(bb * bb_j, i, j, d)
                - IndexSum(bb, i, d) ** 2,                                     by=substitute_moment,
                note="E[qᵢ] = b_{q,i}; the bias does not change the variance")
            .eq(IndexSum(group(Var(wx) + b_q[i] ** 2) * group(Var(vy) + b_k[i] ** 2), i, d)
                + CrossSum(bb * bb_j, i, j, d)
                - IndexSum(IndexSum(bb * bb_j, j, d), i, d),                   by=sum_mul_sum,
                note="E[q·k]² as a double sum")
            .eq(IndexSum(group(Var(wx) + b_q[i] ** 2) * group(Var(vy) + b_k[i] ** 2), i, d)
                + CrossSum(bb * bb_j, i, j, d)
                - IndexSum(bb**2, i, d) - CrossSum(bb * bb_j, i, j, d),        by=split_diagonal)
            .eq(IndexSum(group(Var(wx) + b_q[i] ** 2) * group(Var(vy) + b_k[i] ** 2), i, d)
                - IndexSum(bb**2, i, d),                                       by=ring,
                note="the cross terms cancel against those of E[q·k]²")
            .eq(Var(wx) * Var(vy) * IndexSum(S.One, i, d)
                + Var(wx) * bias_norm_sq(b_k) + Var(vy) * bias_norm_sq(b_q)
                + IndexSum(bb**2, i, d) - IndexSum(bb**2, i, d),               by=sum_linear)
            .eq(d * Var(wx) * Var(vy)
                + Var(wx) * bias_norm_sq(b_k) + Var(vy) * bias_norm_sq(b_q),   by=count_terms)
            .eq(d * group(sx) * Var(vy)
                + group(sx) * bias_norm_sq(b_k) + Var(vy) * bias_norm_sq(b_q), by=projected_component_variance_q)
            .eq(d * group(sx) * group(sy)
                + group(sx) * bias_norm_sq(b_k) + group(sy) * bias_norm_sq(b_q),
                                                                               by=projected_component_variance_k)
            .eq(rhs,                                                           by=ring)
            .qed()
        )
    return derivation


projected_score_variance_with_bias = _with_bias()

#: Mean 0, variance 1, finite: ±2 with probability 1/8 each, 0 otherwise.
THREE_POINT = "finite:values=-2|0|2,probs=1/8|3/4|1/8"
#: Mean 0, variance 2, finite.
VARIANCE_2 = "finite:values=-2|0|2,probs=1/4|1/2|1/4"


def evidence() -> dict[str, tuple[dict[str, object], ...]]:
    """Concrete rows, tokens and laws on which ``scaledattn check`` evaluates every step.

    The tokens are listed (x = (1, 1) has ‖x‖² = 2, so a row of coins gives
    Var(w·x) = 2 and q gets a law of variance 2). Finite laws are measured exactly,
    Gaussian ones by Monte Carlo. The laws of q and k must have the variance the
    assumptions declare (σ²‖x‖²), and with biases the means b_{q,i}, b_{k,i}.
    """
    return {
        "projected_component_variance_q": (
            {"w": "coin", "x": [1, 2, -1], "d_model": 3, "sigma_q": 1},
            {"w": "gaussian:var=4", "x": ["1/2", 3], "d_model": 2, "sigma_q": 2},
        ),
        "projected_component_variance_k": (
            {"v": THREE_POINT, "y": [2, -1], "d_model": 2, "sigma_k": 1},
            {"v": "gaussian:var=1/4", "y": [1, 1, 1, 1], "d_model": 4, "sigma_k": "1/2"},
        ),
        "projected_component_variance_same_token": (
            {"v": "finite:values=-3|3", "x": [1, 0, 2], "d_model": 3, "sigma_k": 3},
        ),
        "projected_score_variance": (
            {"q": VARIANCE_2, "k": "coin", "w": "coin", "v": "coin", "x": [1, 1], "y": [1, 0],
             "d_k": 3, "d_model": 2, "sigma_q": 1, "sigma_k": 1},
            {"q": "gaussian:var=6", "k": "gaussian:var=4", "w": "gaussian:var=1/4",
             "v": "gaussian", "x": [2, 2, 0, 4], "y": [1, 1, 1, 1],
             "d_k": 8, "d_model": 4, "sigma_q": "1/2", "sigma_k": 1},
        ),
        "projected_score_variance_same_token": (
            {"q": VARIANCE_2, "k": VARIANCE_2, "w": "coin", "v": "coin", "x": [1, 1],
             "d_k": 2, "d_model": 2, "sigma_q": 1, "sigma_k": 1},
            {"q": "gaussian:var=6", "k": "gaussian:var=24", "w": "gaussian:var=1/4",
             "v": "gaussian", "x": [2, 2, 0, 4], "d_k": 4, "d_model": 4,
             "sigma_q": "1/2", "sigma_k": 1},
        ),
        "projected_score_variance_with_bias": (
            {"q": "finite:values=-1|3", "k": "finite:values=1|3", "w": "coin", "v": "coin",
             "x": [1, 1, 1, 1], "y": [1, 0, 0, 0], "b_q": [1, 1], "b_k": [2, 2],
             "d_k": 2, "d_model": 4, "sigma_q": 1, "sigma_k": 1},
            {"q": "gaussian:mean=-1,var=5", "k": "gaussian:mean=1/2,var=4", "w": "gaussian",
             "v": "gaussian:var=4", "x": [1, 2], "y": [1, 0], "b_q": [-1, -1, -1],
             "b_k": ["1/2", "1/2", "1/2"], "d_k": 3, "d_model": 2, "sigma_q": 1, "sigma_k": 2},
        ),
    }


derivations = (
    projected_score_variance,
    projected_component_variance_q,
    projected_component_variance_k,
    projected_component_variance_same_token,
    projected_score_variance_same_token,
    projected_score_variance_with_bias,
)

if __name__ == "__main__":
    raise SystemExit(run(derivations))
