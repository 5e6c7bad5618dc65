"""The scale √d_k is the unique positive c that gives the scores variance 1.

    Var(q·k / c) = d_k / c²,   and for c > 0:   Var(q·k / c) = 1  ⇔  c = √d_k

Main results
------------
- ``scaled_variance``: dividing the score by c divides its variance by c².
- ``unique_scale``: over c > 0 the equation d_k / c² = 1 has exactly one solution,
  c = √d_k; the other root −√d_k is excluded by the domain c > 0.
- ``scale_by_d_k``: dividing by d_k instead leaves the standard deviation 1/√d_k
  (1/8 at d_k = 64): the scores are squeezed towards 0 as d_k grows.

Assumptions
-----------
Those of ``dot_product_variance`` (i.i.d. components, mean 0, variance 1, q
independent of k) and ``c > 0``.

References
----------
Vaswani et al. 2017, §3.2.1: "we scale the dot products by 1/√d_k".
Lesson 000, §5 ("要 σ 归一，就得 c = √d_k——唯一解") and exercise 2.

Examples
--------
>>> from scaledattn.derive import prove
>>> print(prove(unique_scale).statement)
(Eq(Var((q·k)/c), 1)) ⇔ (Eq(c, sqrt(d_k)))
"""

from __future__ import annotations

from sympy import Eq, Or, S, Symbol, sqrt

from scaledattn.derive import calc, equivalence
from scaledattn.kernel import Dot, Positive, Std, Var, as_written
from scaledattn.kernel.rules import (
    clear_denominator,
    exclude_by_sign,
    ring,
    square_roots,
    std_def,
    variance_const_mul,
)
from scaledattn.proofs.dot_product_variance import LESSON, d, dot_product_variance, k, q
from scaledattn.render import run

c = Symbol("c", real=True)
one = S.One

with as_written():
    scaled_variance = (
        calc("scaled_variance", Var(Dot(q, k) / c), d / c**2,
             assuming=[*LESSON, Positive(c)],
             title="dividing by c divides the variance by c²")
        .eq((1 / c) ** 2 * Var(Dot(q, k)),         by=variance_const_mul,
            note="Var(aZ) = a²Var(Z) with a = 1/c, c ≠ 0")
        .eq((1 / c) ** 2 * d,                      by=dot_product_variance)
        .eq(d / c**2,                              by=ring)
        .qed()
    )

    unique_scale = (
        equivalence("unique_scale", Eq(Var(Dot(q, k) / c), one), Eq(c, sqrt(d)),
                    assuming=[*LESSON, Positive(c)],
                    title="c = √d_k is the only positive scale giving variance 1")
        .iff(Eq(d / c**2, one),                                  by=scaled_variance)
        .iff(Eq(d - c**2, 0),                                    by=clear_denominator,
             note="multiply by c² > 0")
        .iff(Or(Eq(c, sqrt(d)), Eq(c, -sqrt(d))),               by=square_roots,
             note="two real roots")
        .iff(Eq(c, sqrt(d)),                                     by=exclude_by_sign,
             note="c > 0 excludes the negative root −√d_k")
        .qed()
    )

    scale_by_d_k = (
        calc("scale_by_d_k", Std(Dot(q, k) / d), 1 / sqrt(d),
             assuming=LESSON,
             title="dividing by d_k instead leaves σ = 1/√d_k")
        .eq(sqrt(Var(Dot(q, k) / d)),               by=std_def)
        .eq(sqrt((1 / d) ** 2 * Var(Dot(q, k))),    by=variance_const_mul)
        .eq(sqrt((1 / d) ** 2 * d),                 by=dot_product_variance)
        .eq(sqrt(1 / d),                            by=ring)
        .eq(1 / sqrt(d),                            by=ring,
            note="d_k > 0; at d_k = 64 this is 1/8")
        .qed()
    )

derivations = (unique_scale, scaled_variance, scale_by_d_k)


def evidence() -> dict[str, tuple[dict[str, object], ...]]:
    """Concrete models on which ``scaledattn check`` evaluates every step.

    ``unique_scale`` is an equivalence: at d_k = 4, c = 2 both sides hold, at
    d_k = 3, c = 2 both fail (Var(q·k/c) = 3/4), and the numbers must agree on which.
    """
    return {
        "scaled_variance": (
            {"q": "coin", "k": "coin", "d_k": 16, "c": 2},
            {"q": "gaussian", "k": "coin", "d_k": 64, "c": 8},
        ),
        "unique_scale": (
            {"q": "coin", "k": "coin", "d_k": 4, "c": 2},
            {"q": "coin", "k": "coin", "d_k": 3, "c": 2},
            {"q": "gaussian", "k": "gaussian", "d_k": 16, "c": 4},
        ),
        "scale_by_d_k": (
            {"q": "coin", "k": "coin", "d_k": 64},
            {"q": "gaussian", "k": "coin", "d_k": 16},
        ),
    }

if __name__ == "__main__":
    raise SystemExit(run(derivations))
