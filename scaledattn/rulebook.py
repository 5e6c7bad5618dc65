"""What each primitive rule is, for readers: figure, when it does nothing, Mathlib name.

The inference figure, HOL Light's FAILURE section, and the matching Mathlib lemma.

Documentation only, so it lives outside the trusted kernel; the kernel's ``Rule``
keeps its name, its one-line law and its rewrite. ``tests/kernel`` checks that every
registered rule has an entry here.
"""

from __future__ import annotations

from dataclasses import dataclass

from scaledattn.kernel.rules import MAX_UNROLL

__all__ = ["RULEBOOK", "RuleDoc"]


@dataclass(frozen=True)
class RuleDoc:
    """A rule's inference figure, when it does nothing (``fails``) and its Mathlib name."""

    figure: str = ""
    fails: str = ""
    mathlib: str = ""


RULEBOOK: dict[str, RuleDoc] = {
    "ring": RuleDoc(
        figure="a = b as polynomials  ⟹  Γ ⊢ a = b",
        fails="Fails unless the two sides have the same normal form under sympy.expand.",
    ),
    "variance_def": RuleDoc(
        figure="Γ ⊢ Var(Z) = E[Z²] − E[Z]²",
        fails="Does nothing where no Var(·) occurs.",
        mathlib="variance_def'",
    ),
    "covariance_def": RuleDoc(
        figure="Γ ⊢ Cov(Y, Z) = E[YZ] − E[Y]E[Z]",
        fails="Does nothing where no Cov(·,·) occurs.",
        mathlib="covariance_def (ProbabilityTheory.covariance)",
    ),
    "std_def": RuleDoc(
        figure="Γ ⊢ Std(Z) = √Var(Z)",
        fails="Does nothing where no Std(·) occurs.",
        mathlib="ProbabilityTheory.evariance / Real.sqrt",
    ),
    "expectation_linear": RuleDoc(
        figure="Γ ⊢ E[Σ aₜZₜ + c] = Σ aₜE[Zₜ] + c",
        fails="Does nothing to E[·] of a single random product.",
        mathlib="integral_add, integral_mul_left, integral_finset_sum",
    ),
    "expectation_mul_of_indep": RuleDoc(
        figure="Γ ⊢ Independent(U, V)  ⟹  Γ ⊢ E[UV] = E[U]E[V]",
        fails="Does nothing unless one declared independence family covers every factor"
        " and separates them; pairwise independence of three factors is not enough.",
        mathlib="IndepFun.integral_mul",
    ),
    "variance_const_mul": RuleDoc(
        figure="Γ ⊢ a ≠ 0 for every denominator of a  ⟹  Γ ⊢ Var(aZ) = a²Var(Z)",
        fails="Does nothing unless the argument is a non-random factor times a random one,"
        " and refuses a denominator not provably non-zero.",
        mathlib="ProbabilityTheory.variance_mul",
    ),
    "substitute_moment": RuleDoc(
        figure="Γ ⊢ m = v  (declared)  ⟹  Γ ⊢ …m… = …v…",
        fails="Does nothing for a moment that no declared assumption gives.",
    ),
    "dot_def": RuleDoc(
        figure="Γ ⊢ q·k = Σᵢ qᵢkᵢ",
        fails="Does nothing where no dot product occurs.",
        mathlib="Matrix.dotProduct",
    ),
    "sum_mul_sum": RuleDoc(
        figure="Γ ⊢ (Σᵢ aᵢ)(Σⱼ bⱼ) = Σᵢ Σⱼ aᵢbⱼ",
        fails="Does nothing unless two single-index sums are multiplied.",
        mathlib="Finset.sum_mul_sum",
    ),
    "split_diagonal": RuleDoc(
        figure="Γ ⊢ Σᵢ Σⱼ f(i,j) = Σᵢ f(i,i) + Σ_{i≠j} f(i,j)",
        fails="Does nothing unless a double sum has both indices over the same range.",
        mathlib="Finset.sum_product, Finset.offDiag",
    ),
    "count_terms": RuleDoc(
        figure="Γ ⊢ Σᵢ₌₁ⁿ c = n·c,   Γ ⊢ Σ_{i≠j} c = n(n−1)·c",
        fails="Does nothing to a sum whose summand depends on its indices.",
        mathlib="Finset.sum_const, Finset.offDiag_card",
    ),
    "sum_unroll": RuleDoc(
        figure="Γ ⊢ Σᵢ₌₁ᴺ f(i) = f(1) + … + f(N)",
        fails=f"Does nothing to a sum with a symbolic bound or a bound above {MAX_UNROLL}.",
        mathlib="Finset.sum_range_succ",
    ),
    "sum_linear": RuleDoc(
        figure="Γ ⊢ Σᵢ (a fᵢ + gᵢ) = a Σᵢ fᵢ + Σᵢ gᵢ",
        fails="Does nothing to a sum already split and with no factor to pull out.",
        mathlib="Finset.sum_add_distrib, Finset.mul_sum",
    ),
    "sqrt_mul": RuleDoc(
        figure="Γ ⊢ a ≥ 0,  Γ ⊢ b ≥ 0  ⟹  Γ ⊢ √(ab) = √a·√b",
        fails="Does nothing unless the radicand factors (sympy.factor, checked by expand)"
        " into parts each provably non-negative under the declared assumptions.",
        mathlib="Real.sqrt_mul",
    ),
    "clear_denominator": RuleDoc(
        figure="Γ ⊢ b > 0  ⟹  Γ ⊢ (a/b = c ⇔ a − bc = 0)",
        fails="Does nothing unless the equation has a denominator provably positive"
        " under the declared assumptions.",
        mathlib="div_eq_iff",
    ),
    "square_roots": RuleDoc(
        figure="x real  ⟹  Γ ⊢ (ax² + b = 0 ⇔ x = √(−b/a) ∨ x = −√(−b/a))",
        fails="Does nothing unless exactly one real constant x makes the equation"
        " a·x² + b = 0 with a ≠ 0 and a, b free of x (among several, the one declared positive).",
        mathlib="sq_eq_sq_iff_eq_or_eq_neg",
    ),
    "exclude_by_sign": RuleDoc(
        figure="Γ ⊢ x > 0,  Γ ⊢ r < 0  ⟹  Γ ⊢ (P ∨ x = r ⇔ P)",
        fails="Does nothing unless x > 0 is declared and r < 0 follows from the declarations.",
    ),
    "softmax_def": RuleDoc(
        figure="Γ ⊢ softmax(s)ᵢ = e^{sᵢ} / Σⱼ₌₁ⁿ e^{sⱼ}",
        fails="Does nothing where no softmax weight occurs.",
    ),
    "entries_def": RuleDoc(
        figure="Γ ⊢ ∀j. rⱼ = f(j)  ⟹  Γ ⊢ rᵢ = f(i)",
        fails="Does nothing for an entry of a vector whose entries no assumption declares,"
        " nor inside a sum that binds a symbol of the definition (w in rⱼ = sⱼ + λδⱼw).",
    ),
    "deriv_linear": RuleDoc(
        figure="Γ ⊢ ∂(Σ aₜfₜ + c)/∂x = Σ aₜ ∂fₜ/∂x",
        fails="Does nothing to the derivative of a product of two or more factors that vary"
        " with x, of e^f, log f or f^c, or when x's vector is itself defined by an assumption.",
        mathlib="deriv_add, deriv_const_mul, deriv_const, deriv_sum",
    ),
    "deriv_mul": RuleDoc(
        figure="Γ ⊢ ∂(f₁⋯fₖ)/∂x = Σₜ f₁⋯(∂fₜ/∂x)⋯fₖ",
        fails="Does nothing unless at least two factors of a product vary with x.",
        mathlib="deriv_mul",
    ),
    "deriv_chain": RuleDoc(
        figure="Γ ⊢ ∂g(f)/∂x = g'(f)·∂f/∂x   for g = exp, log (f > 0), (·)^c",
        fails="Does nothing to log f unless f > 0 follows from its form, to f^c with c"
        " depending on x, to f^c with c a negative integer unless f ≠ 0 follows, or with c"
        " not an integer unless f > 0 follows.",
        mathlib="deriv_exp, deriv_log, deriv_pow",
    ),
    "deriv_entry": RuleDoc(
        figure="Γ ⊢ ∂sᵢ/∂sₘ = δᵢₘ",
        fails="Does nothing unless an entry of s is differentiated with respect to an entry of s.",
        mathlib="Pi.single, deriv_id",
    ),
    "sum_delta": RuleDoc(
        figure="Γ ⊢ m ∈ 1..n  ⟹  Γ ⊢ Σⱼ₌₁ⁿ δⱼₘ f(j) = f(m)",
        fails="Does nothing unless the summand is a product with a factor δⱼₘ, m free of j,"
        " and 1 ≤ m ≤ n follows: m bound by a sum over 1..n, a declared IndexRange(m, n),"
        " or a number in range; nor when the summand binds m again.",
        mathlib="Finset.sum_ite_eq",
    ),
    "delta_eq": RuleDoc(
        figure="Γ ⊢ δₐᵦ·f(b) = δₐᵦ·f(a)",
        fails="Does nothing unless a product has a factor δₐᵦ and another factor mentions b.",
        mathlib="Pi.single_apply, ite_eq",
    ),
    "delta_distinct": RuleDoc(
        figure="Γ ⊢ t ≠ w  ⟹  Γ ⊢ δₜw = 0",
        fails="Does nothing unless Distinct(t, w) is declared for the delta's two indices,"
        " nor inside a sum that binds t or w (there the bound index takes every value).",
    ),
    "exp_of_delta": RuleDoc(
        figure="Γ ⊢ e^{f(δ)} = e^{f(0)} + (e^{f(1)} − e^{f(0)})·δ",
        fails="Does nothing unless an exponent contains a Kronecker delta and no sum,"
        " derivative or limit.",
    ),
    "limit_at_infinity": RuleDoc(
        figure="Γ ⊢ lc(Q) ≠ 0, deg P ≤ deg Q"
        "  ⟹  Γ ⊢ lim_{λ→∞} P(e^λ)/Q(e^λ) = [deg P = deg Q]·lc(P)/lc(Q)",
        fails="Does nothing unless the body is built by +, ×, integer powers, e^{kλ + c}"
        " (k an integer) and one outer √ (or roots in a body positive by its form, which is"
        " then squared) from parts free of λ (no derivative, no λ inside a sum, no entry whose"
        " declared definition involves λ), and the leading coefficient of the denominator in"
        " u = e^λ is non-zero by its form, and deg P ≤ deg Q.",
        mathlib="Polynomial.div_tendsto_leadingCoeff_div_of_degree_eq",
    ),
}
