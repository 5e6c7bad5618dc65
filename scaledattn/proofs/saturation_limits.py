"""Saturation: as one score's lead grows, which gradient vanishes and which does not.

    scores r = s + λ·e_w (score w leads by λ),  p = softmax(r),  y = eₜ with t ≠ w:
    lim_{λ→∞} pᵢ = δᵢw                          p tends to one-hot at the leader
    lim_{λ→∞} ‖diag(p) − ppᵀ‖² = 0              the softmax Jacobian vanishes
    lim_{λ→∞} Σᵢ gᵢ ∂pᵢ/∂rₘ = 0  (g fixed)       so does every gradient sent back through it
    lim_{λ→∞} ‖p − y‖ = √2                      but the cross-entropy gradient does not

Main results
------------
- ``saturation_limits``: lim pᵢ = δᵢw, for any n and any scores s.
- ``jacobian_vanishes``: the squared Frobenius norm of diag(p) − ppᵀ tends to 0 (so
  does the norm), from the exact identity ``jacobian_norm_sq``: ‖diag(p) − ppᵀ‖² = Σpᵢ² − 2Σpᵢ³ + (Σpᵢ²)².
- ``backward_vanishes``: for an upstream gradient g = ∂L/∂p that does not grow with
  λ, the gradient reaching the scores, Σᵢ gᵢ(pᵢδᵢₘ − pᵢpₘ), tends to 0. This is the
  case in attention, where g = V·∂L/∂o: there, "the gradient vanishes" (articles 002
  and 004) is right.
- ``p_minus_y_limit``: with cross-entropy and a target t that is not the leader,
  ∂L/∂r = p − y tends to e_w − eₜ, of norm √2, from ``p_minus_y_norm_sq``:
  ‖p − y‖² = Σpᵢ² − 2pₜ + 1. Here g = −y/p is not fixed: gₜ = −1/pₜ grows exactly
  as fast as the Jacobian shrinks, so this gradient does not vanish (lesson 000, §4).

So both texts are right about different gradients: a saturated softmax passes
almost nothing back to its scores from a loss on its output (the Jacobian → 0), while
the cross-entropy gradient on a wrong, confident prediction is as large as it gets.

Assumptions
-----------
``rⱼ = sⱼ + λδⱼw`` (score w leads by λ, the other scores fixed), ``w ∈ 1..n``; for
the cross-entropy limit ``y = eₜ``, ``t ∈ 1..n`` and ``t ≠ w``. The sums
Σⱼ e^{k·sⱼ} are fixed positive numbers; the lemmas ``lead_power_sum_k`` write
Σⱼ e^{k·rⱼ} with them, so that every limit is one of a ratio of polynomials in e^λ.

References
----------
Vaswani et al. 2017, §3.2.1: "pushing the softmax function into regions where it
has extremely small gradients". Lesson 000, §4 (‖p − y‖ → √2); articles 002 and 004
("梯度消失").

Examples
--------
>>> from scaledattn.derive import prove
>>> print(prove(p_minus_y_limit).statement)
lim[lambda→∞](sqrt(Sum((-y_i + p_i)**2, (i, 1, n)))) = sqrt(2)
"""

from __future__ import annotations

from sympy import Expr, KroneckerDelta, S, Symbol, exp, sqrt

from scaledattn.definitions import Lead, OneHot
from scaledattn.derive import abbrev, calc
from scaledattn.kernel import (
    Derivation,
    Distinct,
    IndexRange,
    IndexSum,
    Lim,
    RealVector,
    SoftmaxVector,
    as_written,
    dimension,
    index,
)
from scaledattn.kernel.calculus import (
    delta_distinct,
    delta_eq,
    entries_def,
    exp_of_delta,
    limit_at_infinity,
    softmax_def,
    sum_delta,
)
from scaledattn.kernel.rules import ring, sum_linear
from scaledattn.render import run

n = dimension("n")
i, j, m, t, w = index("i"), index("j"), index("m"), index("t"), index("w")
lam = Symbol("lambda", real=True)
s, r, y, g = (RealVector(name, n) for name in ("s", "r", "y", "g"))
p = SoftmaxVector(r, "p")
delta = KroneckerDelta

LEAD = [Lead(r, s, w, lam), IndexRange(w, n)]
TARGET = [OneHot(y, t), IndexRange(t, n)]


def times(k: int, x: Expr) -> Expr:
    """k·x, written without a factor 1."""
    return x if k == 1 else k * x


def power_sum(v: RealVector, k: int) -> IndexSum:
    """Σⱼ e^{k·vⱼ}."""
    return IndexSum(exp(times(k, v[j])), j, n)


def lead_power_sum(k: int) -> Derivation:
    """The lemma Σⱼ e^{k·rⱼ} = Σⱼ e^{k·sⱼ} + (e^{kλ} − 1)·e^{k·s_w}."""
    with as_written():
        return (
            calc(f"lead_power_sum_{k}", power_sum(r, k),
                 power_sum(s, k) + (exp(times(k, lam)) - 1) * exp(times(k, s[w])), assuming=LEAD,
                 title=f"Σⱼ e^({'' if k == 1 else k}rⱼ) with the lead written out")
            .eq(IndexSum(exp(times(k, s[j] + lam * delta(j, w))), j, n),         by=entries_def)
            .eq(IndexSum(exp(times(k, s[j])) + (exp(times(k, s[j]) + times(k, lam))
                                                 - exp(times(k, s[j]))) * delta(j, w), j, n),
                by=exp_of_delta, note="δⱼw is 0 or 1")
            .eq(power_sum(s, k) + (exp(times(k, lam)) - 1)
                * IndexSum(exp(times(k, s[j])) * delta(j, w), j, n),              by=sum_linear)
            .eq(power_sum(s, k) + (exp(times(k, lam)) - 1) * exp(times(k, s[w])), by=sum_delta)
            .qed()
        )


lead_power_sum_1, lead_power_sum_2, lead_power_sum_3 = (lead_power_sum(k) for k in (1, 2, 3))
Z1, Z2, Z3 = (power_sum(r, k) for k in (1, 2, 3))

with as_written():
    #: Σⱼ e^{k·rⱼ}, e^{rₘ} and Σᵢ gᵢe^{rᵢ} with the lead written out, shown by name.
    D1, D2, D3 = (
        abbrev(power_sum(s, k) + (exp(times(k, lam)) - 1) * exp(times(k, s[w])), f"D_{k}")
        for k in (1, 2, 3)
    )
    Em = abbrev(exp(s[m]) + (exp(s[m] + lam) - exp(s[m])) * delta(m, w), "E_m")
    G = abbrev(IndexSum(g[i] * exp(s[i]), i, n) + (exp(lam) - 1) * g[w] * exp(s[w]), "G")

    lead_weighted_sum = (
        calc("lead_weighted_sum", IndexSum(g[i] * exp(r[i]), i, n), G.inner, assuming=LEAD,
             title="Σᵢ gᵢe^(rᵢ) with the lead written out")
        .eq(IndexSum(g[i] * exp(s[i] + lam * delta(i, w)), i, n),             by=entries_def)
        .eq(IndexSum(g[i] * (exp(s[i]) + (exp(s[i] + lam) - exp(s[i])) * delta(i, w)), i, n),
            by=exp_of_delta)
        .eq(IndexSum(g[i] * exp(s[i]), i, n)
            + (exp(lam) - 1) * IndexSum(g[i] * exp(s[i]) * delta(i, w), i, n), by=sum_linear)
        .eq(G.inner,                                                           by=sum_delta)
        .qed()
    )

with as_written():
    saturation_limits = (
        calc("saturation_limits", Lim(p[i], lam), delta(i, w), assuming=LEAD,
             title="as score w's lead grows, p tends to one-hot at w")
        .eq(Lim(exp(r[i]) / Z1, lam),                                          by=softmax_def)
        .eq(Lim(exp(r[i]) / D1, lam),                                          by=lead_power_sum_1)
        .eq(Lim(exp(s[i] + lam * delta(i, w)) / D1, lam),                      by=entries_def)
        .eq(Lim((exp(s[i]) + (exp(s[i] + lam) - exp(s[i])) * delta(i, w)) / D1, lam),
            by=exp_of_delta)
        .eq(exp(s[i] - s[w]) * delta(i, w),                                    by=limit_at_infinity,
            note="in u = e^λ: (e^{sᵢ}δᵢw·u + …)/(e^{s_w}·u + …)")
        .eq(delta(i, w),                                                       by=delta_eq,
            note="δᵢw ≠ 0 only when i = w")
        .qed()
    )

    jacobian_norm_sq = (
        calc("jacobian_norm_sq",
             IndexSum(IndexSum((p[i] * delta(i, m) - p[i] * p[m]) ** 2, m, n), i, n),
             IndexSum(p[i] ** 2, i, n) - 2 * IndexSum(p[i] ** 3, i, n)
             + IndexSum(p[i] ** 2, i, n) ** 2,
             title="‖diag(p) − ppᵀ‖² (Frobenius) in power sums of p")
        .eq(IndexSum(IndexSum(p[i] ** 2 * delta(i, m) - 2 * p[i] ** 2 * p[m] * delta(i, m)
                              + p[i] ** 2 * p[m] ** 2, m, n), i, n),           by=ring,
            note="δᵢₘ² = δᵢₘ")
        .eq(IndexSum(p[i] ** 2 * IndexSum(delta(i, m), m, n), i, n)
            - 2 * IndexSum(p[i] ** 2 * IndexSum(p[m] * delta(i, m), m, n), i, n)
            + IndexSum(p[m] ** 2, m, n) * IndexSum(p[i] ** 2, i, n),         by=sum_linear)
        .eq(IndexSum(p[i] ** 2, i, n) - 2 * IndexSum(p[i] ** 3, i, n)
            + IndexSum(p[i] ** 2, i, n) ** 2,                                  by=sum_delta)
        .qed()
    )

    jacobian_vanishes = (
        calc("jacobian_vanishes",
             Lim(IndexSum(IndexSum((p[i] * delta(i, m) - p[i] * p[m]) ** 2, m, n), i, n), lam),
             S.Zero, assuming=LEAD,
             title="the softmax Jacobian diag(p) − ppᵀ tends to 0 (its squared norm does)")
        .eq(Lim(IndexSum(p[i] ** 2, i, n) - 2 * IndexSum(p[i] ** 3, i, n)
                + IndexSum(p[i] ** 2, i, n) ** 2, lam),                        by=jacobian_norm_sq)
        .eq(Lim(IndexSum((exp(r[i]) / Z1) ** 2, i, n)
                - 2 * IndexSum((exp(r[i]) / Z1) ** 3, i, n)
                + IndexSum((exp(r[i]) / Z1) ** 2, i, n) ** 2, lam),           by=softmax_def)
        .eq(Lim(Z2 / Z1**2 - 2 * Z3 / Z1**3 + Z2**2 / Z1**4, lam),            by=sum_linear)
        .eq(Lim(Z2 / D1**2 - 2 * Z3 / D1**3 + Z2**2 / D1**4, lam),            by=lead_power_sum_1)
        .eq(Lim(D2 / D1**2 - 2 * Z3 / D1**3 + D2**2 / D1**4, lam),            by=lead_power_sum_2)
        .eq(Lim(D2 / D1**2 - 2 * D3 / D1**3 + D2**2 / D1**4, lam),            by=lead_power_sum_3)
        .eq(S.Zero,                                                            by=limit_at_infinity,
            note="the e^{4λ} terms cancel: e^{4s_w}(1 − 2 + 1) = 0")
        .qed()
    )

    backward_vanishes = (
        calc("backward_vanishes",
             Lim(IndexSum(g[i] * (p[i] * delta(i, m) - p[i] * p[m]), i, n), lam),
             S.Zero, assuming=[*LEAD, IndexRange(m, n)],
             title="with g = ∂L/∂p fixed (attention), the gradient to the scores tends to 0")
        .eq(Lim(IndexSum(g[i] * p[i] * delta(i, m), i, n)
                - p[m] * IndexSum(g[i] * p[i], i, n), lam),                    by=sum_linear)
        .eq(Lim(g[m] * p[m] - p[m] * IndexSum(g[i] * p[i], i, n), lam),        by=sum_delta,
            note="= pₘ(gₘ − Σᵢ gᵢpᵢ), as in softmax_backward")
        .eq(Lim(g[m] * exp(r[m]) / Z1
                - exp(r[m]) / Z1 * IndexSum(g[i] * exp(r[i]) / Z1, i, n), lam), by=softmax_def)
        .eq(Lim(g[m] * exp(r[m]) / Z1
                - exp(r[m]) * IndexSum(g[i] * exp(r[i]), i, n) / Z1**2, lam),  by=sum_linear)
        .eq(Lim(g[m] * exp(r[m]) / D1
                - exp(r[m]) * IndexSum(g[i] * exp(r[i]), i, n) / D1**2, lam),  by=lead_power_sum_1)
        .eq(Lim(g[m] * exp(r[m]) / D1 - exp(r[m]) * G / D1**2, lam),          by=lead_weighted_sum)
        .eq(Lim(g[m] * exp(s[m] + lam * delta(m, w)) / D1
                - exp(s[m] + lam * delta(m, w)) * G / D1**2, lam),             by=entries_def)
        .eq(Lim(g[m] * Em / D1 - Em * G / D1**2, lam),                         by=exp_of_delta)
        .eq(exp(s[m] - s[w]) * delta(m, w) * (g[m] - g[w]),                     by=limit_at_infinity,
            note="the e^{2λ} terms leave only δₘw(gₘ − g_w)")
        .eq(S.Zero,                                                             by=delta_eq,
            note="gₘ − g_w = 0 where δₘw ≠ 0")
        .qed()
    )

    p_minus_y_norm_sq = (
        calc("p_minus_y_norm_sq", IndexSum((p[i] - y[i]) ** 2, i, n),
             IndexSum(p[i] ** 2, i, n) - 2 * p[t] + 1, assuming=TARGET,
             title="‖p − y‖² for a one-hot y = eₜ")
        .eq(IndexSum((p[i] - delta(i, t)) ** 2, i, n),                         by=entries_def)
        .eq(IndexSum(p[i] ** 2, i, n) - 2 * IndexSum(p[i] * delta(i, t), i, n)
            + IndexSum(delta(i, t), i, n),                                     by=sum_linear,
            note="δᵢₜ² = δᵢₜ")
        .eq(IndexSum(p[i] ** 2, i, n) - 2 * p[t] + 1,                          by=sum_delta)
        .qed()
    )

    p_minus_y_limit = (
        calc("p_minus_y_limit", Lim(sqrt(IndexSum((p[i] - y[i]) ** 2, i, n)), lam), sqrt(2),
             assuming=[*LEAD, *TARGET, Distinct(t, w)],
             title="the cross-entropy gradient p − y does not vanish: its norm tends to √2")
        .eq(Lim(sqrt(IndexSum(p[i] ** 2, i, n) - 2 * p[t] + 1), lam),          by=p_minus_y_norm_sq)
        .eq(Lim(sqrt(IndexSum((exp(r[i]) / Z1) ** 2, i, n) - 2 * exp(r[t]) / Z1 + 1), lam),
            by=softmax_def)
        .eq(Lim(sqrt(Z2 / Z1**2 - 2 * exp(r[t]) / Z1 + 1), lam),              by=sum_linear)
        .eq(Lim(sqrt(Z2 / D1**2 - 2 * exp(r[t]) / D1 + 1), lam),              by=lead_power_sum_1)
        .eq(Lim(sqrt(D2 / D1**2 - 2 * exp(r[t]) / D1 + 1), lam),              by=lead_power_sum_2)
        .eq(Lim(sqrt(D2 / D1**2 - 2 * exp(s[t] + lam * delta(t, w)) / D1 + 1), lam),
            by=entries_def)
        .eq(Lim(sqrt(D2 / D1**2 - 2 * exp(s[t]) / D1 + 1), lam),              by=delta_distinct,
            note="the target is not the leader")
        .eq(sqrt(2),                                                           by=limit_at_infinity,
            note="Σpᵢ² → 1 and pₜ → 0: 1 − 0 + 1")
        .qed()
    )

derivations = (
    saturation_limits,
    jacobian_norm_sq,
    jacobian_vanishes,
    backward_vanishes,
    p_minus_y_norm_sq,
    p_minus_y_limit,
    lead_power_sum_1,
    lead_power_sum_2,
    lead_power_sum_3,
    lead_weighted_sum,
)

#: Three scores whose largest is not the one that will lead (w = 3).
SCORES = [2, "1/2", -1]


def evidence() -> dict[str, tuple[dict[str, object], ...]]:
    """Concrete scores on which ``scaledattn check`` evaluates every step.

    The leader w starts as the smallest score, so the lead λ must overcome the
    others. Limits are sampled at λ = 16, 32, 64, 128; the weight tending to 1
    (i = w) and to 0 (i ≠ w) are both exercised, as are m = w and m ≠ w for the
    gradient sent back, and a target t that is the initial argmax but not the
    leader for ‖p − y‖ → √2. The lemmas are identities for every λ, checked at a
    positive and a negative one.
    """
    seeded = {"seed": 5, "scale": 3}
    return {
        "saturation_limits": (
            {"n": 3, "i": 3, "w": 3, "s": SCORES},
            {"n": 3, "i": 1, "w": 3, "s": SCORES},
            {"n": 8, "i": 2, "w": 6, "s": seeded},
        ),
        "jacobian_norm_sq": (
            {"n": 3, "r": SCORES},
            {"n": 8, "r": seeded},
        ),
        "jacobian_vanishes": (
            {"n": 3, "w": 3, "s": SCORES},
            {"n": 8, "w": 1, "s": seeded},
        ),
        "backward_vanishes": (
            {"n": 3, "m": 3, "w": 3, "s": SCORES, "g": [1, -2, "1/2"]},
            {"n": 3, "m": 1, "w": 3, "s": SCORES, "g": [1, -2, "1/2"]},
            {"n": 8, "m": 2, "w": 7, "s": seeded, "g": {"seed": 6}},
        ),
        "p_minus_y_norm_sq": (
            {"n": 3, "t": 1, "r": SCORES, "y": [1, 0, 0]},
            {"n": 8, "t": 5, "r": seeded},
        ),
        "p_minus_y_limit": (
            {"n": 3, "t": 1, "w": 3, "s": SCORES, "y": [1, 0, 0]},
            {"n": 8, "t": 4, "w": 2, "s": seeded},
        ),
        **{
            f"lead_power_sum_{k}": (
                {"n": 3, "w": 3, "lambda": "5/2", "s": SCORES},
                {"n": 8, "w": 8, "lambda": -3, "s": seeded},
            )
            for k in (1, 2, 3)
        },
        "lead_weighted_sum": (
            {"n": 3, "w": 3, "lambda": "5/2", "s": SCORES, "g": [1, -2, "1/2"]},
            {"n": 8, "w": 8, "lambda": -3, "s": seeded, "g": {"seed": 6}},
        ),
    }


if __name__ == "__main__":
    raise SystemExit(run(derivations))
