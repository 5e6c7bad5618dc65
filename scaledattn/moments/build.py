"""Automation: build the derivations of E[q·k], Var(q·k) and the scale c for a setting.

The functions here are *untrusted*: they write derivations, in the same shape as the
theorems of ``scaledattn.proofs.dot_product_variance`` (whose variance expansion,
:mod:`scaledattn.moments.expansion`, they share) and ``scaledattn.proofs.unique_scale``,
for the moments of a given setting. Nothing is decided here; the kernel checks
every step when the derivation is proved (:func:`scaledattn.derive.prove`).

The routes:

- **q independent of k** (``IndependentComponents(q, k)``; distribution-free): the
  definition of variance, q·k = Σᵢ qᵢkᵢ, the square of the sum as a double sum, its
  split into d_k diagonal and d_k(d_k − 1) cross terms, independence to factor every
  term, E[X²] = Var X + E[X]², the declared moments, counting the terms.
- **(qᵢ, kᵢ) correlated** (``IndependentPairs(q, k)``; jointly Gaussian pairs): the same
  split, but independence factors only the cross terms; E[qᵢkᵢ] = Cov(qᵢ, kᵢ) +
  E[qᵢ]E[kᵢ] by the definition of covariance; E[qᵢ²kᵢ²] is a declared joint moment
  whose value :mod:`scaledattn.moments.gaussian` computes.
- **the scale**: Var(q·k / c) = (1/c)²·Var(q·k); Var(q·k) written as sums of known
  terms (a lemma); multiply by c² > 0; the two square roots; count the terms inside
  them; c > 0 excludes the negative root. The count comes after the square roots so
  that the rule ``square_roots`` sees c as the only unknown: in d_k(1 + ρ²) − c² = 0,
  ρ would otherwise be a second candidate.

One of three automations that write derivations, apart on purpose: this one writes
the lesson's fixed routes, in the shape of the theorems, for a setting;
:mod:`scaledattn.automation.rewrite` decides an arbitrary identity by a normal form
(citing these derivations as lemmas), and :mod:`scaledattn.prooffile.search` fills the
gaps of a learner's step with the rewriter's chains.

Examples
--------
>>> from scaledattn.moments.setting import setting
>>> from scaledattn.derive import prove
>>> print(prove(variance_derivation(setting(var_q=4, var_k=4))).statement)
Var(q·k) = 16*d_k
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy
from sympy import Eq, Expr, Or, Symbol
from sympy.core.parameters import evaluate

from scaledattn.derive import Builder, calc, equivalence, group
from scaledattn.kernel import (
    Assumption,
    Context,
    Cov,
    Derivation,
    Dot,
    E,
    IndependentComponents,
    IndependentPairs,
    IndexSum,
    Mean,
    Moment,
    Positive,
    RandomVector,
    Std,
    Var,
    Variance,
    as_written,
    index,
)
from scaledattn.kernel.rules import (
    clear_denominator,
    count_terms,
    covariance_def,
    dot_def,
    exclude_by_sign,
    expectation_linear,
    expectation_mul_of_indep,
    ring,
    sqrt_mul,
    square_roots,
    std_def,
    substitute_moment,
    variance_const_mul,
)
from scaledattn.moments import expansion
from scaledattn.moments.gaussian import JointMoments, joint_moments
from scaledattn.moments.setting import AttentionSetting

__all__ = [
    "SCALE",
    "PerIndex",
    "mean_derivation",
    "per_index",
    "root_of",
    "scale_derivation",
    "scaled_mean_derivation",
    "scaled_std_derivation",
    "sums_lemma",
    "variance_derivation",
]

#: The scale's symbol: a real constant, declared positive in the derivation.
SCALE = Symbol("c", real=True)
i, j = index("i"), index("j")


@dataclass(frozen=True)
class PerIndex:
    """What one index contributes: E[qᵢkᵢ] and E[qᵢ²kᵢ²], and their Gaussian provenance."""

    product: Expr
    product_square: Expr
    joint: JointMoments | None

    @property
    def cross(self) -> Expr:
        """E[qᵢkᵢqⱼkⱼ] = E[qᵢkᵢ]² for i ≠ j (independent pairs)."""
        with evaluate(True):
            return self.product**2

    @property
    def variance(self) -> Expr:
        """Var(qᵢkᵢ) = E[qᵢ²kᵢ²] − E[qᵢkᵢ]² (the per-index share of Var(q·k))."""
        with evaluate(True):
            return sympy.expand(self.product_square - self.product**2)


def per_index(s: AttentionSetting) -> PerIndex:
    """The per-index moments the automation aims for (the kernel re-derives them)."""
    with evaluate(True):
        return _per_index(s)


def _per_index(s: AttentionSetting) -> PerIndex:
    if s.corr is None:
        product = s.mean_q * s.mean_k
        square = (s.var_q + s.mean_q**2) * (s.var_k + s.mean_k**2)
        return PerIndex(product, square, None)
    joint = joint_moments(s.mean_q, s.mean_k, s.var_q, s.var_k, s.corr)
    return PerIndex(joint.product, joint.product_square, joint)


def vectors(s: AttentionSetting) -> tuple[RandomVector, RandomVector]:
    """The random vectors q and k of dimension d_k."""
    return RandomVector("q", s.d), RandomVector("k", s.d)


def closed_variance(s: AttentionSetting) -> Expr:
    """The closed form the variance derivation ends at: d_k · Var(qᵢkᵢ)."""
    with evaluate(True):
        return s.d * per_index(s).variance


def closed_mean(s: AttentionSetting) -> Expr:
    """The closed form the mean derivation ends at: d_k · E[qᵢkᵢ]."""
    with evaluate(True):
        return s.d * per_index(s).product


# --------------------------------------------------------------- assumptions


def _covariance(s: AttentionSetting) -> Expr:
    assert s.corr is not None
    with evaluate(True):
        return s.corr * sympy.sqrt(s.var_q) * sympy.sqrt(s.var_k)


def mean_assumptions(s: AttentionSetting) -> list[Assumption]:
    """The first moments; q ⊥ k, or under correlation Cov(qᵢ, kᵢ) (linearity needs no more)."""
    q, k = vectors(s)
    means: list[Assumption] = [Mean(q, s.mean_q), Mean(k, s.mean_k)]
    if s.corr is None:
        return [IndependentComponents(q, k), *means]
    return [*means, Moment(Cov(q[i], k[i]), _covariance(s))]


def variance_assumptions(s: AttentionSetting) -> list[Assumption]:
    """The assumptions the variance derivation uses (and nothing it does not use)."""
    q, k = vectors(s)
    if s.corr is None:
        return [*mean_assumptions(s), Variance(q, s.var_q), Variance(k, s.var_k)]
    square = per_index(s).product_square
    return [IndependentPairs(q, k), *mean_assumptions(s), Moment(E(q[i] ** 2 * k[i] ** 2), square)]


def provenance(s: AttentionSetting) -> tuple[str, ...]:
    """Where declared joint moments come from, one line each (empty when q ⊥ k)."""
    if s.corr is None:
        return ()
    joint = per_index(s).joint
    assert joint is not None
    return (
        f"Cov(q_i, k_i) = rho*sigma_q*sigma_k = {sympy.sstr(_covariance(s))}"
        " (the definition of the correlation rho)",
        f"E[q_i**2*k_i**2] = {sympy.sstr(joint.product_square)}, computed: {joint.provenance}",
    )


# ------------------------------------------------------------------- helpers


def _times(count: Expr, body: Expr) -> Expr:
    """``count·body`` as written, the body in parentheses when it is a sum."""
    if isinstance(body, sympy.Add):
        return sympy.Mul(count, group(body))
    if body.is_Number and not count.is_Number:
        return sympy.Mul(body, count)
    return sympy.Mul(count, body)


def _sums(s: AttentionSetting, diagonal: Expr, cross: Expr, mean: Expr) -> Expr:
    """Σᵢ diagonal + Σ_{i≠j} cross − (Σᵢ mean)², as written."""
    return expansion.sums(diagonal, cross, mean, i, j, s.d)


def _sums_evaluated(s: AttentionSetting) -> Expr:
    """The sums with every term evaluated: Σᵢ E[qᵢ²kᵢ²] + Σ_{i≠j} E[qᵢkᵢ]² − (Σᵢ E[qᵢkᵢ])²."""
    m = per_index(s)
    return _sums(s, m.product_square, m.cross, m.product)


def _variance_to_sums(s: AttentionSetting, proof: Builder) -> Builder:
    """Steps from Var(q·k) to Σᵢ D + Σ_{i≠j} C − (Σᵢ M)² with D, C, M known numbers.

    The expansion itself is :mod:`scaledattn.moments.expansion`, the chain the
    theorems of ``scaledattn.proofs.dot_product_variance`` write too.
    """
    q, k = vectors(s)
    qk_i, qk_j = q[i] * k[i], q[j] * k[j]
    mq, mk, vq, vk = s.mean_q, s.mean_k, s.var_q, s.var_k
    proof = expansion.to_sums(proof, q, k, i, j)
    if s.corr is None:
        proof = expansion.factored(proof, q, k, i, j).eq(
            _sums(
                s,
                group(vq + mq**2) * group(vk + mk**2),
                mq * mk * mq * mk,
                mq * mk,
            ),
            by=substitute_moment,
        )
    else:
        cov = _covariance(s)
        square = per_index(s).product_square

        def split(a: Expr, b: Expr) -> Expr:
            return group(Cov(a, b) + E(a) * E(b))

        proof = (
            proof.eq(
                _sums(s, E(q[i] ** 2 * k[i] ** 2), E(qk_i) * E(qk_j), E(qk_i)),
                by=expectation_mul_of_indep,
                note="pairs with different indices are independent",
            )
            .eq(
                _sums(
                    s,
                    E(q[i] ** 2 * k[i] ** 2),
                    split(q[i], k[i]) * split(q[j], k[j]),
                    split(q[i], k[i]),
                ),
                by=covariance_def,
                note="E[XY] = Cov(X, Y) + E[X]E[Y]",
            )
            .eq(
                _sums(
                    s,
                    square,
                    group(cov + mq * mk) * group(cov + mq * mk),
                    group(cov + mq * mk),
                ),
                by=substitute_moment,
                note="declared moments; E[qᵢ²kᵢ²] from q = μ_q + σ_q·a,"
                " k = μ_k + σ_k(ρa + √(1 − ρ²)b), a, b i.i.d. N(0, 1) (Isserlis)",
            )
        )
    return proof.eq(_sums_evaluated(s), by=ring, note="evaluate each term")


def _count_and_close(s: AttentionSetting, proof: Builder) -> Builder:
    m, d = per_index(s), s.d
    counted = _times(d, m.product_square) + _times(d * (d - 1), m.cross) - _times(d, m.product) ** 2
    note = "d_k(d_k − 1) cross terms" + (
        " vanish" if m.product == 0 else " do not vanish: E[qᵢkᵢ] ≠ 0"
    )
    return proof.eq(counted, by=count_terms, note=note).eq(
        closed_variance(s),
        by=ring,
        note="" if m.product == 0 else "d_k²·E[qᵢkᵢ]² cancels against E[q·k]²",
    )


# --------------------------------------------------------------- derivations


def _pairs(s: AttentionSetting) -> str:
    """Title suffix naming the joint law when q and k are correlated."""
    return "" if s.corr is None else f", (qᵢ, kᵢ) Gaussian with correlation {sympy.sstr(s.corr)}"


def mean_derivation(s: AttentionSetting, name: str = "", title: str = "") -> Derivation:
    """E[q·k] = d_k·E[qᵢkᵢ]: d_k·μ_q·μ_k when q ⊥ k, d_k(μ_qμ_k + ρσ_qσ_k) when correlated.

    Unnamed, it is called as the Python call that answers it (``mean(corr=rho)``).
    """
    name = name or s.call("mean")
    q, k, d = *vectors(s), s.d
    mq, mk = s.mean_q, s.mean_k
    target = closed_mean(s)
    with as_written():
        proof = (
            calc(name, E(Dot(q, k)), target, assuming=mean_assumptions(s),
                 title=title or "the mean of the score q·k" + _pairs(s))
            .eq(E(IndexSum(q[i] * k[i], i, d)), by=dot_def)
            .eq(IndexSum(E(q[i] * k[i]), i, d), by=expectation_linear)
        )  # fmt: skip
        if s.corr is None:
            body = mq * mk
            proof = proof.eq(
                IndexSum(E(q[i]) * E(k[i]), i, d),
                by=expectation_mul_of_indep,
                note="q independent of k",
            ).eq(IndexSum(body, i, d), by=substitute_moment)
        else:
            body = group(_covariance(s) + mq * mk)
            proof = proof.eq(
                IndexSum(group(Cov(q[i], k[i]) + E(q[i]) * E(k[i])), i, d),
                by=covariance_def,
                note="E[XY] = Cov(X, Y) + E[X]E[Y]",
            ).eq(IndexSum(body, i, d), by=substitute_moment)
        proof = proof.eq(_times(d, body), by=count_terms)
        return proof.eq(target, by=ring).qed()


def variance_derivation(s: AttentionSetting, name: str = "", title: str = "") -> Derivation:
    """Var(q·k) = d_k·Var(qᵢkᵢ), derived for the setting's moments (named as its Python call)."""
    name = name or s.call("variance")
    q, k = vectors(s)
    with as_written():
        proof = calc(
            name,
            Var(Dot(q, k)),
            closed_variance(s),
            assuming=variance_assumptions(s),
            title=title or "the variance of the score q·k" + _pairs(s),
        )
        return _count_and_close(s, _variance_to_sums(s, proof)).qed()


def sums_lemma(s: AttentionSetting, name: str = "") -> Derivation:
    """Var(q·k) = Σᵢ E[qᵢ²kᵢ²] + Σ_{i≠j} E[qᵢkᵢ]² − (Σᵢ E[qᵢkᵢ])², every term evaluated."""
    name = name or s.call("variance_as_sums")
    q, k = vectors(s)
    with as_written():
        proof = calc(
            name,
            Var(Dot(q, k)),
            _sums_evaluated(s),
            assuming=variance_assumptions(s),
            title="Var(q·k) as sums of known terms",
        )
        return _variance_to_sums(s, proof).qed()


def root_of(value: Expr, divisor: Expr = sympy.S.One) -> Expr:
    """√(value/divisor) with the radicand expanded, the form ``ring`` reaches.

    The scale derivation then splits it with the kernel's ``sqrt_mul`` where the
    radicand factors into non-negative parts: √(d_k·ρ² + d_k) = √d_k·√(ρ² + 1).
    """
    with evaluate(True):
        return sympy.sqrt(sympy.expand(value / divisor))


def scale_derivation(
    s: AttentionSetting, name: str = "", lemma: Derivation | None = None, title: str = ""
) -> Derivation:
    """(Var(q·k/c) = t) ⇔ (c = √(Var(q·k)/t)) for c > 0: the unique positive scale."""
    q, k, d, c, t = *vectors(s), s.d, SCALE, s.target_var
    name = name or s.call("scale")
    lemma = lemma or sums_lemma(s)
    m = per_index(s)
    root = root_of(closed_variance(s), t)
    positives = [Positive(x) for x in s.positive_symbols() if x in root.free_symbols]
    assuming = [*variance_assumptions(s), Positive(c), *positives]
    with as_written():
        sums = _sums_evaluated(s)
        counted = (
            _times(d, m.product_square) + _times(d * (d - 1), m.cross) - _times(d, m.product) ** 2
        )
        scaled = c**2 if t == 1 else t * c**2

        def roots(value: Expr) -> Or:
            r = sympy.sqrt(group(value)) if t == 1 else sympy.sqrt(group(value) / t)
            return Or(Eq(c, r), Eq(c, -r), evaluate=False)

        split = sqrt_mul.apply(root, Context.of(assuming))[0]
        proof = (
            equivalence(name, Eq(Var(Dot(q, k) / c), t), Eq(c, split), assuming=assuming,
                        title=title or "the unique positive scale c")
            .iff(Eq((1 / c) ** 2 * Var(Dot(q, k)), t), by=variance_const_mul,
                 note="Var(aZ) = a²Var(Z) with a = 1/c, c ≠ 0")
            .iff(Eq((1 / c) ** 2 * group(sums), t), by=lemma)
            .iff(Eq(sums - scaled, 0), by=clear_denominator, note="multiply by c² > 0")
            .iff(roots(sums), by=square_roots, note="two real roots")
            .iff(roots(counted), by=count_terms)
            .iff(Or(Eq(c, root), Eq(c, -root), evaluate=False), by=ring)
            .iff(Eq(c, root), by=exclude_by_sign, note="c > 0 excludes the negative root")
        )  # fmt: skip
        if split != root:
            proof = proof.iff(Eq(c, split), by=sqrt_mul, note="√(ab) = √a·√b for a, b ≥ 0")
        return proof.qed()


def scaled_std_derivation(
    s: AttentionSetting, divisor: Expr, variance: Derivation, name: str, title: str = ""
) -> Derivation:
    """Std(q·k / a) = √((1/a)²·Var(q·k)), using a proved variance derivation."""
    q, k = vectors(s)
    value = closed_variance(s)
    with evaluate(True):
        result = sympy.sqrt(value / divisor**2)
    with as_written():
        return (
            calc(name, Std(Dot(q, k) / divisor), result, assuming=variance_assumptions(s),
                 title=title or f"the spread of q·k / {sympy.sstr(divisor)}")
            .eq(sympy.sqrt(Var(Dot(q, k) / divisor)), by=std_def)
            .eq(sympy.sqrt((1 / divisor) ** 2 * Var(Dot(q, k))), by=variance_const_mul)
            .eq(sympy.sqrt((1 / divisor) ** 2 * group(value)), by=variance)
            .eq(result, by=ring)
            .qed()
        )  # fmt: skip


def scaled_mean_derivation(
    s: AttentionSetting, divisor: Expr, mean: Derivation, name: str, title: str = ""
) -> Derivation:
    """E[q·k / a] = (1/a)·E[q·k], using a proved mean derivation."""
    q, k = vectors(s)
    value = closed_mean(s)
    result = value / divisor
    with as_written():
        return (
            calc(name, E(Dot(q, k) / divisor), result, assuming=mean_assumptions(s),
                 title=title or f"the mean of q·k / {sympy.sstr(divisor)}")
            .eq((1 / divisor) * E(Dot(q, k)), by=expectation_linear)
            .eq((1 / divisor) * group(value), by=mean)
            .eq(result, by=ring)
            .qed()
        )  # fmt: skip
