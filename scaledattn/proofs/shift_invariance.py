"""Softmax sees only differences of scores: adding a constant to every score changes nothing.

    softmax(s + a) = softmax(s)   for every real a
    pᵢ = e^{sᵢ − s_w} / Σⱼ e^{sⱼ − s_w}   for every index w

Main results
------------
- ``shift_invariance``: softmax(s + a)ᵢ = softmax(s)ᵢ; the factor e^a leaves every
  term of the sum and cancels.
- ``softmax_of_differences``: the weights depend on the scores only through the
  differences sⱼ − s_w. With w the largest score every exponent is ≤ 0, which is why
  a stable implementation subtracts the maximum before exponentiating.
- ``softmax_of_scaled_differences``: for scores divided by c, the weights depend only
  on (sⱼ − s_w)/c: the scale of the differences is what c controls.
- ``score_difference_variance``: for one query and two independent keys,
  Var(q·k − q·k') = 2·d_k: the differences softmax sees spread like √(2d_k).
- ``scaled_score_difference_variance``: divided by √d_k they have variance 2 whatever
  d_k is, which is why c = √d_k keeps softmax out of saturation at every width.

Assumptions
-----------
``r = s + a`` (every score shifted by the same real a) for ``shift_invariance``;
``r = s/c`` with c > 0 for the scaled form; none for ``softmax_of_differences``; for
the variances, q, k, k' with all components independent, mean 0, variance 1.

References
----------
Goodfellow, Bengio, Courville, *Deep Learning* (2016), §4.1 (softmax(x) =
softmax(x + c), used to stabilise it). Lesson 000, §3 ("减最大值 3.2 得 …").

Examples
--------
>>> from scaledattn.derive import prove
>>> print(prove(shift_invariance).statement)
p'_i = p_i
"""

from __future__ import annotations

from collections.abc import Callable

from sympy import Expr, S, Symbol, exp, sqrt

from scaledattn.definitions import Shift
from scaledattn.derive import calc, group
from scaledattn.kernel import (
    CrossSum,
    Dot,
    E,
    Entries,
    IndependentComponents,
    IndexSum,
    RandomVector,
    RealVector,
    SoftmaxVector,
    UnitVariance,
    Var,
    ZeroMean,
    as_written,
    dimension,
    index,
)
from scaledattn.kernel.calculus import entries_def, softmax_def
from scaledattn.kernel.rules import (
    count_terms,
    dot_def,
    expectation_linear,
    expectation_mul_of_indep,
    ring,
    split_diagonal,
    substitute_moment,
    sum_linear,
    sum_mul_sum,
    variance_const_mul,
    variance_def,
)
from scaledattn.render import run

n = dimension("n")
i, j, w = index("i"), index("j"), index("w")
a = Symbol("a", real=True)
c = Symbol("c", positive=True)
s, r = RealVector("s", n), RealVector("r", n)
p, p_shifted, p_scaled = SoftmaxVector(s, "p"), SoftmaxVector(r, "p'"), SoftmaxVector(r, "p'")

with as_written():
    shift_invariance = (
        calc("shift_invariance", p_shifted[i], p[i], assuming=[Shift(r, s, a)],
             title="softmax(s + a) = softmax(s)")
        .eq(exp(r[i]) / IndexSum(exp(r[j]), j, n),                            by=softmax_def)
        .eq(exp(s[i] + a) / IndexSum(exp(s[j] + a), j, n),                    by=entries_def)
        .eq(exp(a) * exp(s[i]) / (exp(a) * IndexSum(exp(s[j]), j, n)),       by=sum_linear,
            note="e^{sⱼ + a} = e^a·e^{sⱼ}; e^a leaves the sum")
        .eq(exp(s[i]) / IndexSum(exp(s[j]), j, n),                            by=ring,
            note="e^a cancels")
        .eq(p[i],                                                             by=softmax_def)
        .qed()
    )

    softmax_of_differences = (
        calc("softmax_of_differences", p[i],
             exp(s[i] - s[w]) / IndexSum(exp(s[j] - s[w]), j, n),
             title="only differences of scores matter")
        .eq(exp(s[i]) / IndexSum(exp(s[j]), j, n),                            by=softmax_def)
        .eq(exp(s[i] - s[w]) / IndexSum(exp(s[j] - s[w]), j, n),             by=sum_linear,
            note="e^{−s_w} leaves the sum and cancels")
        .qed()
    )

    softmax_of_scaled_differences = (
        calc("softmax_of_scaled_differences", p_scaled[i],
             exp((s[i] - s[w]) / c) / IndexSum(exp((s[j] - s[w]) / c), j, n),
             assuming=[Entries(r, s[j] / c, j, "scores divided by c")],
             title="scores divided by c: only (sⱼ − s_w)/c matters")
        .eq(exp(r[i]) / IndexSum(exp(r[j]), j, n),                            by=softmax_def)
        .eq(exp(s[i] / c) / IndexSum(exp(s[j] / c), j, n),                    by=entries_def)
        .eq(exp((s[i] - s[w]) / c) / IndexSum(exp((s[j] - s[w]) / c), j, n), by=sum_linear,
            note="e^{−s_w/c} leaves the sum and cancels")
        .qed()
    )

# ------------------------------------------- the spread of a difference of scores

d = dimension("d_k")
q, k, k2 = RandomVector("q", d), RandomVector("k", d), RandomVector("k'", d)
A, B = IndexSum(q[i] * k[i], i, d), IndexSum(q[i] * k2[i], i, d)
TWO_KEYS = [IndependentComponents(q, k, k2), ZeroMean(q), ZeroMean(k), ZeroMean(k2),
            UnitVariance(q), UnitVariance(k), UnitVariance(k2)]
zero, one = S.Zero, S.One


def blocks(f: Callable[[RandomVector, RandomVector], Expr]) -> Expr:
    """f(k, k) − 2·f(k, k2) + f(k2, k2): the three blocks of (q·k − q·k2)²."""
    return f(k, k) - 2 * f(k, k2) + f(k2, k2)


def mean_sq(f: Callable[[RandomVector], Expr]) -> Expr:
    """(Σᵢ f(k) − Σᵢ f(k2))²: the square of E[q·k − q·k2], term by term."""
    return (IndexSum(f(k), i, d) - IndexSum(f(k2), i, d)) ** 2


def diagonal(a: RandomVector, b: RandomVector) -> Expr:
    """aᵢbᵢ on the diagonal: aᵢ² for one key."""
    return a[i] ** 2 if a == b else a[i] * b[i]


def moment2(a: RandomVector, b: RandomVector) -> Expr:
    """E[aᵢbᵢ] factored: E[aᵢ²] for one key, E[aᵢ]E[bᵢ] for two independent keys."""
    return E(a[i] ** 2) if a == b else E(a[i]) * E(b[i])


def as_variance(a: RandomVector, b: RandomVector) -> Expr:
    """moment2 with each E[X²] written Var(X) + E[X]²."""
    return group(Var(a[i]) + E(a[i]) ** 2) if a == b else E(a[i]) * E(b[i])


def cross(a: RandomVector, b: RandomVector) -> Expr:
    """E[qᵢ]E[aᵢ]E[qⱼ]E[bⱼ], a cross term factored by independence."""
    return E(q[i]) * E(a[i]) * E(q[j]) * E(b[j])


with as_written():
    score_difference_variance = (
        calc("score_difference_variance", Var(Dot(q, k) - Dot(q, k2)), 2 * d, assuming=TWO_KEYS,
             title="two keys: the score difference has variance 2·d_k")
        .eq(E((Dot(q, k) - Dot(q, k2)) ** 2) - E(Dot(q, k) - Dot(q, k2)) ** 2,     by=variance_def)
        .eq(E((A - B) ** 2) - E(A - B) ** 2,                                      by=dot_def)
        .eq(E(A**2 - 2 * A * B + B**2) - E(A - B) ** 2,                           by=ring)
        .eq(E(blocks(lambda a, b: IndexSum(IndexSum(q[i] * a[i] * q[j] * b[j], j, d), i, d)))
            - E(A - B) ** 2,                                                      by=sum_mul_sum,
            note="each square or product of sums is a double sum")
        .eq(blocks(lambda a, b: IndexSum(IndexSum(E(q[i] * a[i] * q[j] * b[j]), j, d), i, d))
            - mean_sq(lambda a: E(q[i] * a[i])),                                  by=expectation_linear)
        .eq(blocks(lambda a, b: IndexSum(E(q[i] ** 2 * diagonal(a, b)), i, d)
                   + CrossSum(E(q[i] * a[i] * q[j] * b[j]), i, j, d))
            - mean_sq(lambda a: E(q[i] * a[i])),                                  by=split_diagonal,
            note="diagonal i = j and cross terms i ≠ j")
        .eq(blocks(lambda a, b: IndexSum(E(q[i] ** 2) * moment2(a, b), i, d)
                   + CrossSum(cross(a, b), i, j, d))
            - mean_sq(lambda a: E(q[i]) * E(a[i])),                               by=expectation_mul_of_indep)
        .eq(blocks(lambda a, b: IndexSum(group(Var(q[i]) + E(q[i]) ** 2) * as_variance(a, b), i, d)
                   + CrossSum(cross(a, b), i, j, d))
            - mean_sq(lambda a: E(q[i]) * E(a[i])),                               by=variance_def)
        .eq(blocks(lambda a, b: IndexSum(one if a == b else zero, i, d) + CrossSum(zero, i, j, d))
            - mean_sq(lambda a: zero),                                            by=substitute_moment,
            note="mean 0, variance 1: only the diagonal of the k·k and k2·k2 blocks is 1")
        .eq(blocks(lambda a, b: (d if a == b else d * zero) + d * (d - 1) * zero)
            - (d * zero - d * zero) ** 2,                                         by=count_terms)
        .eq(2 * d,                                                                by=ring)
        .qed()
    )

    scaled_score_difference_variance = (
        calc("scaled_score_difference_variance", Var((Dot(q, k) - Dot(q, k2)) / sqrt(d)), S(2),
             assuming=TWO_KEYS,
             title="divided by √d_k, the score difference has variance 2 for every d_k")
        .eq((1 / sqrt(d)) ** 2 * Var(Dot(q, k) - Dot(q, k2)),                by=variance_const_mul)
        .eq((1 / sqrt(d)) ** 2 * (2 * d),                                   by=score_difference_variance)
        .eq(S(2),                                                           by=ring)
        .qed()
    )

derivations = (
    shift_invariance,
    softmax_of_differences,
    softmax_of_scaled_differences,
    score_difference_variance,
    scaled_score_difference_variance,
)

#: Three scores, and the same scores shifted by 7/2 and divided by 8.
SCORES = ["1/2", -1, 2]


def evidence() -> dict[str, tuple[dict[str, object], ...]]:
    """Concrete scores and laws on which ``scaledattn check`` evaluates every step.

    The shifted and scaled vectors r are listed, so each setting is checked
    against its definition (r = s + a, r = s/c). The variances get a finite law
    (measured exactly) and a Gaussian one (Monte Carlo).
    """
    two_keys = (
        {"q": "coin", "k": "coin", "k'": "finite:values=-1|1", "d_k": 4},
        {"q": "gaussian", "k": "gaussian", "k'": "gaussian", "d_k": 16},
    )
    return {
        "shift_invariance": (
            {"n": 3, "i": 2, "a": "7/2", "s": SCORES, "r": [4, "5/2", "11/2"]},
            {"n": 8, "i": 8, "a": -20, "s": {"seed": 7, "scale": 3}},
        ),
        "softmax_of_differences": (
            {"n": 3, "i": 2, "w": 2, "s": SCORES},
            {"n": 3, "i": 1, "w": 3, "s": SCORES},
            {"n": 8, "i": 4, "w": 6, "s": {"seed": 8, "scale": 3}},
        ),
        "softmax_of_scaled_differences": (
            {"n": 3, "i": 1, "w": 3, "c": 8, "s": SCORES, "r": ["1/16", "-1/8", "1/4"]},
            {"n": 8, "i": 3, "w": 3, "c": "1/2", "s": {"seed": 9, "scale": 3}},
        ),
        "score_difference_variance": two_keys,
        "scaled_score_difference_variance": two_keys,
    }


if __name__ == "__main__":
    raise SystemExit(run(derivations))
