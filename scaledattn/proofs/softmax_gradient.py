"""The gradient of softmax, and of cross-entropy through it, for any number n of scores.

    p = softmax(s),  pᵢ = e^{sᵢ} / Σⱼ e^{sⱼ}:
    ∂pᵢ/∂sₘ = pᵢδᵢₘ − pᵢpₘ,  i.e. the Jacobian is diag(p) − ppᵀ
    L = −Σᵢ yᵢ log pᵢ with y one-hot:   ∂L/∂sₘ = pₘ − yₘ,  i.e. ∇ₛL = p − y

Main results
------------
- ``softmax_gradient``: the Jacobian ∂pᵢ/∂sₘ = pᵢδᵢₘ − pᵢpₘ, entry (i, m) of
  diag(p) − ppᵀ, by the quotient (product and chain) rule; the Kronecker delta
  δᵢₘ = ∂sᵢ/∂sₘ is where the diagonal comes from.
- ``cross_entropy_gradient``: ∂L/∂sₘ = pₘ − yₘ. The 1/pᵢ of ∂log pᵢ cancels the pᵢ
  of the Jacobian; Σᵢ yᵢ = 1 turns −yₘ + pₘΣᵢyᵢ into pₘ − yₘ.
- ``softmax_backward``: for any loss, with g = ∂L/∂p the gradient that reaches the
  scores is Σᵢ gᵢ ∂pᵢ/∂sₘ = pₘ(gₘ − Σᵢ gᵢpᵢ) (the vector-Jacobian product).
  In attention g = V·∂L/∂o does not grow when p saturates; see ``saturation_limits``.

Assumptions
-----------
``m ∈ 1..n`` (the index differentiated against), and for cross-entropy the target
``y = eₜ`` (one-hot at t ∈ 1..n).

References
----------
Goodfellow, Bengio, Courville, *Deep Learning* (2016), §6.2.2.3 (softmax units).
Lesson 000, §4: "loss 对分数的梯度有闭式 ∂L/∂s = p − y".

Examples
--------
>>> from scaledattn.derive import prove
>>> print(prove(softmax_gradient).statement)
∂(p_i)/∂s_m = KroneckerDelta(i, m)*p_i - p_i*p_m
"""

from __future__ import annotations

from sympy import KroneckerDelta, exp, log

from scaledattn.definitions import OneHot
from scaledattn.derive import calc
from scaledattn.kernel import (
    Deriv,
    IndexRange,
    IndexSum,
    RealVector,
    SoftmaxVector,
    as_written,
    dimension,
    index,
)
from scaledattn.kernel.calculus import (
    deriv_chain,
    deriv_entry,
    deriv_linear,
    deriv_mul,
    entries_def,
    softmax_def,
    sum_delta,
)
from scaledattn.kernel.rules import ring, sum_linear
from scaledattn.render import run

n = dimension("n")
i, j, m, t = index("i"), index("j"), index("m"), index("t")
s, y, g = RealVector("s", n), RealVector("y", n), RealVector("g", n)
p = SoftmaxVector(s, "p")
Z = IndexSum(exp(s[j]), j, n)
delta = KroneckerDelta

with as_written():
    softmax_gradient = (
        calc("softmax_gradient", Deriv(p[i], s[m]), p[i] * delta(i, m) - p[i] * p[m],
             assuming=[IndexRange(m, n)],
             title="the softmax Jacobian is diag(p) − ppᵀ")
        .eq(Deriv(exp(s[i]) / Z, s[m]),                                    by=softmax_def)
        .eq(Deriv(exp(s[i]), s[m]) / Z + exp(s[i]) * Deriv(Z**-1, s[m]),   by=deriv_mul,
            note="product rule")
        .eq(exp(s[i]) * Deriv(s[i], s[m]) / Z
            - exp(s[i]) * Deriv(Z, s[m]) / Z**2,                           by=deriv_chain,
            note="chain rule for e^x and 1/x")
        .eq(exp(s[i]) * Deriv(s[i], s[m]) / Z
            - exp(s[i]) * IndexSum(Deriv(exp(s[j]), s[m]), j, n) / Z**2,   by=deriv_linear)
        .eq(exp(s[i]) * Deriv(s[i], s[m]) / Z
            - exp(s[i]) * IndexSum(exp(s[j]) * Deriv(s[j], s[m]), j, n) / Z**2,
            by=deriv_chain)
        .eq(exp(s[i]) * delta(i, m) / Z
            - exp(s[i]) * IndexSum(exp(s[j]) * delta(j, m), j, n) / Z**2,  by=deriv_entry,
            note="∂sᵢ/∂sₘ = δᵢₘ: the diagonal")
        .eq(exp(s[i]) * delta(i, m) / Z - exp(s[i]) * exp(s[m]) / Z**2,   by=sum_delta,
            note="only j = m survives")
        .eq((exp(s[i]) / Z) * delta(i, m)
            - (exp(s[i]) / Z) * (exp(s[m]) / Z),                           by=ring)
        .eq(p[i] * delta(i, m) - p[i] * p[m],                              by=softmax_def,
            note="(diag(p) − ppᵀ)ᵢₘ")
        .qed()
    )

    cross_entropy_gradient = (
        calc("cross_entropy_gradient", Deriv(-IndexSum(y[i] * log(p[i]), i, n), s[m]),
             p[m] - y[m],
             assuming=[IndexRange(m, n), OneHot(y, t), IndexRange(t, n)],
             title="cross-entropy with a one-hot target: ∂L/∂s = p − y")
        .eq(-IndexSum(y[i] * Deriv(log(p[i]), s[m]), i, n),                by=deriv_linear,
            note="y does not depend on s")
        .eq(-IndexSum(y[i] * Deriv(p[i], s[m]) / p[i], i, n),              by=deriv_chain,
            note="∂log pᵢ = ∂pᵢ / pᵢ  (pᵢ > 0)")
        .eq(-IndexSum(y[i] * (p[i] * delta(i, m) - p[i] * p[m]) / p[i], i, n),
            by=softmax_gradient)
        .eq(-IndexSum(y[i] * delta(i, m) - y[i] * p[m], i, n),             by=ring,
            note="the 1/pᵢ cancels the pᵢ of the Jacobian")
        .eq(-IndexSum(y[i] * delta(i, m), i, n) + p[m] * IndexSum(y[i], i, n),
            by=sum_linear)
        .eq(-y[m] + p[m] * IndexSum(y[i], i, n),                           by=sum_delta)
        .eq(-delta(m, t) + p[m] * IndexSum(delta(i, t), i, n),             by=entries_def,
            note="y = eₜ")
        .eq(-delta(m, t) + p[m],                                           by=sum_delta,
            note="Σᵢ yᵢ = 1")
        .eq(p[m] - y[m],                                                   by=entries_def)
        .qed()
    )

    softmax_backward = (
        calc("softmax_backward", IndexSum(g[i] * Deriv(p[i], s[m]), i, n),
             p[m] * (g[m] - IndexSum(g[i] * p[i], i, n)),
             assuming=[IndexRange(m, n)],
             title="the gradient a loss sends back through softmax, for g = ∂L/∂p")
        .eq(IndexSum(g[i] * (p[i] * delta(i, m) - p[i] * p[m]), i, n),    by=softmax_gradient)
        .eq(IndexSum(g[i] * p[i] * delta(i, m), i, n)
            - p[m] * IndexSum(g[i] * p[i], i, n),                          by=sum_linear)
        .eq(g[m] * p[m] - p[m] * IndexSum(g[i] * p[i], i, n),              by=sum_delta)
        .eq(p[m] * (g[m] - IndexSum(g[i] * p[i], i, n)),                   by=ring)
        .qed()
    )

derivations = (softmax_gradient, cross_entropy_gradient, softmax_backward)

#: Three scores whose softmax is far from uniform: p ≈ (0.18, 0.04, 0.78).
SCORES = ["1/2", -1, 2]


def evidence() -> dict[str, tuple[dict[str, object], ...]]:
    """Concrete scores on which ``scaledattn check`` evaluates every step.

    Both entries of the Jacobian are exercised, the diagonal (i = m: pᵢ(1 − pᵢ))
    and off it (i ≠ m: −pᵢpₘ), and both cases of the cross-entropy gradient
    (m = t: pₜ − 1; m ≠ t: pₘ). The one-hot y is listed, so the setting is checked
    against its definition yⱼ = δⱼₜ. At n = 8 the scores are seeded draws.
    """
    return {
        "softmax_gradient": (
            {"n": 3, "i": 1, "m": 1, "s": SCORES},
            {"n": 3, "i": 1, "m": 3, "s": SCORES},
            {"n": 8, "i": 5, "m": 2, "s": {"seed": 1, "scale": 3}},
        ),
        "cross_entropy_gradient": (
            {"n": 3, "m": 2, "t": 2, "s": SCORES, "y": [0, 1, 0]},
            {"n": 3, "m": 3, "t": 2, "s": SCORES, "y": [0, 1, 0]},
            {"n": 8, "m": 7, "t": 3, "s": {"seed": 2, "scale": 3}},
        ),
        "softmax_backward": (
            {"n": 3, "m": 2, "s": SCORES, "g": [1, "-1/2", 3]},
            {"n": 8, "m": 4, "s": {"seed": 3, "scale": 3}, "g": {"seed": 4}},
        ),
    }


if __name__ == "__main__":
    raise SystemExit(run(derivations))
