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
  on (sⱼ − s_w)/c: the scale of the differences is what c = √d_k controls
  (``unique_scale``: Var(q·k/c) = 1 exactly when c = √d_k).

Assumptions
-----------
``r = s + a`` (every score shifted by the same real a) for ``shift_invariance``;
``r = s/c`` with c > 0 for the scaled form; none for ``softmax_of_differences``.

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

from sympy import Symbol, exp

from scaledattn.derive import calc, run
from scaledattn.kernel import (
    Entries,
    IndexSum,
    RealVector,
    Shift,
    SoftmaxVector,
    as_written,
    dimension,
    index,
)
from scaledattn.kernel.calculus import entries_def, softmax_def
from scaledattn.kernel.rules import ring, sum_linear

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

derivations = (shift_invariance, softmax_of_differences, softmax_of_scaled_differences)

if __name__ == "__main__":
    raise SystemExit(run(derivations))
