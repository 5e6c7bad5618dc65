"""Each rule of the softmax calculus accepts what is true and rejects what is not.

A rejection must name the step and the rule. Every rule has at least one accepting
and one rejecting test; the side conditions (ranges, positivity, hidden dependence,
capture of bound indices) each have a test that fails without them.
"""

from __future__ import annotations

from typing import Any

import pytest
from sympy import KroneckerDelta, S, Symbol, exp, log, sqrt

from scaledattn.definitions import Lead, OneHot, Shift
from scaledattn.derive import audit_of, calc
from scaledattn.errors import InvalidArgument, ProofError
from scaledattn.kernel import (
    Audit,
    Context,
    Deriv,
    Distinct,
    Entries,
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
    deriv_chain,
    deriv_entry,
    deriv_linear,
    deriv_mul,
    entries_def,
    exp_of_delta,
    limit_at_infinity,
    softmax_def,
    sum_delta,
)
from scaledattn.kernel.rules import RULES, count_terms
from scaledattn.kernel.vectors import positive
from scaledattn.rulebook import RULEBOOK

n, N = dimension("n"), dimension("N")
i, j, k, m, t, w = (index(x) for x in "ijkmtw")
lam = Symbol("lambda", real=True)
x = Symbol("x", real=True)
s, y, r = RealVector("s", n), RealVector("y", n), RealVector("r", n)
p = SoftmaxVector(s, "p")
delta = KroneckerDelta


def one_step(lhs: Any, claim: Any, rule: Any, assuming: tuple[Any, ...] = ()) -> Audit:
    """Audit the one-step derivation lhs = claim by rule."""
    with as_written():
        d = calc("t", lhs, claim, assuming=assuming).eq(claim, by=rule).qed()
    return audit_of(d)


def accepted(lhs: Any, claim: Any, rule: Any, assuming: tuple[Any, ...] = ()) -> bool:
    return one_step(lhs, claim, rule, assuming).verified


def rejection(lhs: Any, claim: Any, rule: Any, assuming: tuple[Any, ...] = ()) -> ProofError:
    result = one_step(lhs, claim, rule, assuming)
    assert not result.verified
    error = result.steps[0].error
    assert error is not None
    assert error.step == 1
    assert error.rule == rule.name
    return error


def test_the_new_rules_are_in_the_one_rule_table() -> None:
    for rule in (
        softmax_def,
        entries_def,
        deriv_linear,
        deriv_mul,
        deriv_chain,
        deriv_entry,
        sum_delta,
        delta_eq,
        delta_distinct,
        exp_of_delta,
        limit_at_infinity,
    ):
        assert RULES[rule.name] is rule
        assert RULEBOOK[rule.name].fails
        assert RULEBOOK[rule.name].figure


# ------------------------------------------------------------------ softmax_def


def test_softmax_def_accepts_the_definition() -> None:
    assert accepted(p[i], exp(s[i]) / IndexSum(exp(s[j]), j, n), softmax_def)


def test_softmax_def_never_names_its_sum_index_after_the_dimension() -> None:
    # Over a dimension called j, the normaliser is Σ_{k=1..j}, not the captured Σ_{j=1..j}.
    size = dimension("j")
    scores = RealVector("s", size)
    weights = SoftmaxVector(scores, "p")
    k = index("k")
    normaliser = IndexSum(exp(scores[k]), k, size)
    assert accepted(weights[i], exp(scores[i]) / normaliser, softmax_def)


def test_softmax_def_rejects_a_wrong_normaliser() -> None:
    rejection(p[i], exp(s[i]) / IndexSum(exp(2 * s[j]), j, n), softmax_def)


def test_softmax_def_rejects_a_missing_exponential() -> None:
    rejection(p[i], s[i] / IndexSum(s[j], j, n), softmax_def)


# ------------------------------------------------------------------ entries_def


def test_entries_def_accepts_a_declared_one_hot_target() -> None:
    assert accepted(y[i], delta(i, t), entries_def, (OneHot(y, t),))


def test_entries_def_rejects_an_undeclared_vector() -> None:
    rejection(y[i], delta(i, t), entries_def)


def test_entries_def_does_not_unfold_under_a_sum_that_binds_a_symbol_of_the_definition() -> None:
    # r_j = s_j + λδ_jw leads at the free w; Σ_w r_w = Σ_w s_w + λ, but unfolding r_w
    # inside Σ_w would capture w and give Σ_w (s_w + λ).
    declared = (Lead(r, s, w, lam), IndexRange(w, n))
    rejection(IndexSum(r[w], w, n), IndexSum(s[w] + lam, w, n), entries_def, declared)
    assert accepted(
        IndexSum(r[i], i, n), IndexSum(s[i] + lam * delta(i, w), i, n), entries_def, declared
    )


def test_the_rules_that_see_the_whole_expression_act_on_both_sides_of_an_equation() -> None:
    # y = e_t: (y_i = 1) ⇔ (δ_it = 1), and Σ_j δ_jm s_j = s_m on either side.
    from sympy import Eq

    from scaledattn.derive import equivalence

    def step(lhs: Any, claim: Any, rule: Any, assuming: tuple[Any, ...]) -> bool:
        with as_written():
            d = equivalence("e", lhs, claim, assuming=assuming).iff(claim, by=rule).qed()
        return audit_of(d).verified

    target = (OneHot(y, t),)
    assert step(Eq(y[i], 1), Eq(delta(i, t), 1), entries_def, target)
    assert not step(Eq(y[i], 1), Eq(delta(i, w), 1), entries_def, target)
    summed = Eq(IndexSum(delta(j, m) * s[j], j, n), x)
    assert step(summed, Eq(s[m], x), sum_delta, (IndexRange(m, n),))
    assert step(Eq(delta(t, w) + x, 1), Eq(x, 1), delta_distinct, (Distinct(t, w),))


def test_entries_def_rejects_the_wrong_target() -> None:
    rejection(y[i], delta(i, w), entries_def, (OneHot(y, t),))


# ----------------------------------------------------------------- derivatives


def test_deriv_linear_pulls_out_constants_and_kills_a_constant_term() -> None:
    assert accepted(Deriv(2 * s[i] + x, s[m]), 2 * Deriv(s[i], s[m]), deriv_linear)


def test_deriv_linear_treats_a_declared_target_as_constant() -> None:
    assert accepted(
        Deriv(y[i] * s[i], s[m]), y[i] * Deriv(s[i], s[m]), deriv_linear, (OneHot(y, t),)
    )


def test_deriv_linear_rejects_treating_a_varying_factor_as_constant() -> None:
    rejection(Deriv(s[i] * s[j], s[m]), s[i] * Deriv(s[j], s[m]), deriv_linear)


def test_deriv_linear_sees_dependence_through_a_declared_definition() -> None:
    # r = s + λe_w depends on s, so ∂r_i/∂s_m is not 0.
    rejection(Deriv(r[i], s[m]), S.Zero, deriv_linear, (Lead(r, s, w, lam),))


def test_deriv_linear_renames_a_bound_index_that_would_capture_the_variable() -> None:
    # ∂/∂s_j Σ_j e^{s_j} must become Σ_k ∂e^{s_k}/∂s_j, not Σ_j ∂e^{s_j}/∂s_j.
    k = index("k")
    total = IndexSum(exp(s[j]), j, n)
    assert accepted(Deriv(total, s[j]), IndexSum(Deriv(exp(s[k]), s[j]), k, n), deriv_linear)
    rejection(Deriv(total, s[j]), IndexSum(Deriv(exp(s[j]), s[j]), j, n), deriv_linear)


def test_deriv_mul_accepts_the_product_rule() -> None:
    claim = Deriv(s[i], s[m]) * exp(s[j]) + s[i] * Deriv(exp(s[j]), s[m])
    assert accepted(Deriv(s[i] * exp(s[j]), s[m]), claim, deriv_mul)


def test_deriv_mul_rejects_the_product_of_derivatives() -> None:
    claim = Deriv(s[i], s[m]) * Deriv(exp(s[j]), s[m])
    rejection(Deriv(s[i] * exp(s[j]), s[m]), claim, deriv_mul)


def test_deriv_chain_accepts_exp_log_of_a_positive_term_and_powers() -> None:
    assert accepted(Deriv(exp(s[i]), s[m]), exp(s[i]) * Deriv(s[i], s[m]), deriv_chain)
    assert accepted(Deriv(log(p[i]), s[m]), Deriv(p[i], s[m]) / p[i], deriv_chain)
    assert accepted(Deriv(s[i] ** 3, s[m]), 3 * s[i] ** 2 * Deriv(s[i], s[m]), deriv_chain)


def test_deriv_chain_rejects_exp_without_the_inner_derivative() -> None:
    rejection(Deriv(exp(s[i]), s[m]), exp(s[i]), deriv_chain)


def test_deriv_chain_refuses_log_and_root_of_a_term_not_known_positive() -> None:
    rejection(Deriv(log(s[i]), s[m]), Deriv(s[i], s[m]) / s[i], deriv_chain)
    rejection(Deriv(sqrt(s[i]), s[m]), Deriv(s[i], s[m]) / (2 * sqrt(s[i])), deriv_chain)


def test_deriv_entry_gives_the_kronecker_delta() -> None:
    assert accepted(Deriv(s[i], s[m]), delta(i, m), deriv_entry)


def test_deriv_entry_rejects_a_derivative_that_drops_the_kronecker_delta() -> None:
    error = rejection(Deriv(s[i], s[m]), S.One, deriv_entry)
    assert "KroneckerDelta(i, m)" in str(error)
    rejection(Deriv(s[i], s[m]), S.Zero, deriv_entry)


def test_a_derivative_is_only_taken_with_respect_to_an_entry() -> None:
    with pytest.raises(InvalidArgument, match="entry"):
        Deriv(s[i], x)


# ----------------------------------------------------------------------- deltas


def test_sum_delta_accepts_a_declared_index_range() -> None:
    body = IndexSum(delta(j, m) * exp(s[j]), j, n)
    assert accepted(body, exp(s[m]), sum_delta, (IndexRange(m, n),))


def test_sum_delta_refuses_a_free_index_without_a_declared_range() -> None:
    rejection(IndexSum(delta(j, m), j, n), S.One, sum_delta)


def test_sum_delta_refuses_an_index_bound_over_another_range() -> None:
    # Σ_{m=1}^{N} Σ_{j=1}^{n} δ_jm = N is false when N > n.
    inner = IndexSum(delta(j, m), j, n)
    rejection(IndexSum(inner, m, N), IndexSum(S.One, m, N), sum_delta)


def test_sum_delta_accepts_an_index_bound_over_the_same_range() -> None:
    inner = IndexSum(delta(j, m), j, n)
    assert accepted(IndexSum(inner, m, n), IndexSum(S.One, m, n), sum_delta)
    assert accepted(IndexSum(S.One, m, n), n, count_terms)


def test_sum_delta_checks_a_numeric_index_against_a_numeric_range() -> None:
    assert accepted(IndexSum(delta(j, 2) * s[j], j, 3), RealVector("s", n)[2], sum_delta)
    rejection(IndexSum(delta(j, 5), j, 3), S.One, sum_delta)


def test_sum_delta_refuses_when_the_summand_binds_the_index_again() -> None:
    # Σ_j δ_jm Σ_m s_m would capture m.
    body = IndexSum(delta(j, m) * IndexSum(s[m] * s[j], m, n), j, n)
    rejection(body, IndexSum(s[m] * s[m], m, n), sum_delta, (IndexRange(m, n),))


def test_delta_eq_accepts_sifting_inside_a_product() -> None:
    assert accepted(delta(i, w) * exp(s[i]), delta(i, w) * exp(s[w]), delta_eq)


def test_delta_eq_sifts_a_numeric_index_and_a_factor_written_before_the_delta() -> None:
    assert accepted(delta(i, 2) * s[i], delta(i, 2) * s[2], delta_eq)
    assert accepted(2 * delta(i, w) * exp(s[i]), 2 * delta(i, w) * exp(s[w]), delta_eq)


def test_delta_eq_does_not_substitute_into_a_sum_that_binds_the_index() -> None:
    # δ_ij Σ_i s_i s_j: the i inside the sum is another i
    body = delta(i, j) * IndexSum(s[i] * s[j], i, n)
    rejection(body, delta(i, j) * IndexSum(s[i] ** 2, i, n), delta_eq)


def test_delta_eq_and_sum_delta_do_substitute_beside_a_sum_over_another_index() -> None:
    # Only a sum binding one of the delta's indices blocks them; Σ_k binds neither i nor w.
    other = IndexSum(s[k] ** 2, k, n)
    sifted = delta(i, w) * exp(s[w]) * other
    assert accepted(delta(i, w) * exp(s[i]) * other, sifted, delta_eq)
    body = IndexSum(delta(j, m) * exp(s[j]) * other, j, n)
    assert accepted(body, exp(s[m]) * other, sum_delta, (IndexRange(m, n),))


def test_delta_eq_rejects_dropping_the_delta() -> None:
    rejection(delta(i, w) * exp(s[i]), exp(s[w]), delta_eq)


def test_delta_distinct_needs_the_declaration() -> None:
    assert accepted(delta(t, w), S.Zero, delta_distinct, (Distinct(t, w),))
    rejection(delta(t, w), S.Zero, delta_distinct)


def test_delta_distinct_does_not_reach_a_sum_that_binds_one_of_the_indices() -> None:
    # t ≠ w is about the free w; in Σ_w δ_tw the bound w runs through t, and the sum is 1.
    declared = (Distinct(t, w), IndexRange(t, n))
    rejection(IndexSum(delta(t, w), w, n), IndexSum(S.Zero, w, n), delta_distinct, declared)
    assert accepted(
        IndexSum(delta(t, w) * s[i], i, n), IndexSum(S.Zero, i, n), delta_distinct, declared
    )


def test_exp_of_delta_accepts_the_two_cases() -> None:
    claim = exp(x) + (exp(x + lam) - exp(x)) * delta(i, w)
    assert accepted(exp(x + lam * delta(i, w)), claim, exp_of_delta)


def test_exp_of_delta_rejects_treating_the_delta_as_one() -> None:
    rejection(exp(x + lam * delta(i, w)), exp(x + lam), exp_of_delta)


# ----------------------------------------------------------------------- limits


def test_limit_at_infinity_reads_off_leading_coefficients() -> None:
    assert accepted(Lim(exp(lam) / (1 + exp(lam)), lam), S.One, limit_at_infinity)
    assert accepted(Lim(1 / (1 + exp(lam)), lam), S.Zero, limit_at_infinity)
    assert accepted(
        Lim(sqrt(2 * exp(2 * lam) / (1 + exp(2 * lam))), lam), sqrt(2), limit_at_infinity
    )


def test_limit_at_infinity_rejects_a_wrong_value() -> None:
    rejection(Lim(exp(lam) / (1 + exp(lam)), lam), S.Zero, limit_at_infinity)
    rejection(Lim(1 / (1 + exp(lam)), lam), S.One, limit_at_infinity)


def test_limit_at_infinity_refuses_a_divergent_ratio() -> None:
    rejection(Lim(exp(2 * lam) / (1 + exp(lam)), lam), S.Zero, limit_at_infinity)


def test_limit_at_infinity_refuses_a_root_whose_square_has_no_limit() -> None:
    # √(1 + e^λ) + 1 > 0 holds a root, so the rule looks for lim f² = lim (2 + e^λ +
    # 2√(1 + e^λ)), which diverges: the rule leaves it (it does not break on the missing
    # limit), and the claim is refused before: its limit does not converge.
    divergent = Lim(sqrt(1 + exp(lam)) + 1, lam)
    assert limit_at_infinity.apply(divergent, Context())[0] == divergent
    error = rejection(divergent, S.One, limit_at_infinity)
    assert "converges, which is not assumed" in str(error)


def test_limit_at_infinity_refuses_a_leading_coefficient_not_known_non_zero() -> None:
    # x could be 0, and then the limit is not 1/x.
    rejection(Lim(exp(lam) / (x * exp(lam) + 1), lam), 1 / x, limit_at_infinity)


def test_limit_at_infinity_refuses_lambda_outside_an_exponential() -> None:
    rejection(Lim(lam / (1 + lam), lam), S.One, limit_at_infinity)


def test_limit_at_infinity_refuses_a_hidden_dependence_on_lambda() -> None:
    # p = softmax(r) with r = s + λe_w depends on λ through the declaration.
    q = SoftmaxVector(r, "p")
    rejection(Lim(q[i], lam), q[i], limit_at_infinity, (Lead(r, s, w, lam),))


def test_limit_at_infinity_refuses_a_derivative_in_the_body() -> None:
    # ∂q_i/∂s_m depends on λ through r = s + λe_w: it is not a constant of the limit.
    q = SoftmaxVector(r, "p")
    slope = Deriv(q[i], s[m])
    lead = (Lead(r, s, w, lam),)
    rejection(Lim(slope, lam), slope, limit_at_infinity, lead)
    rejection(Lim(slope * exp(lam) / (exp(lam) + 1), lam), slope, limit_at_infinity, lead)


def test_positivity_is_read_from_the_form_of_a_term() -> None:
    assert positive(IndexSum(exp(s[j]), j, n))
    assert positive(p[i] * exp(x) + 2)
    assert not positive(s[i])
    assert not positive(exp(s[i]) - 1)


def test_limit_at_infinity_does_not_lose_a_sign_when_it_squares() -> None:
    f = -sqrt(2) * exp(lam) / sqrt(1 + exp(2 * lam))
    rejection(Lim(f, lam), sqrt(2), limit_at_infinity)


def test_limit_at_infinity_treats_only_real_exponentials_as_positive() -> None:
    # With z = iπ, e^z + 1 = 0: the denominator's leading coefficient is not non-zero.
    z = Symbol("z")
    f = exp(lam) / ((exp(z) + 1) * exp(lam) + 1)
    rejection(Lim(f, lam), 1 / (exp(z) + 1), limit_at_infinity)
    zr = Symbol("z", real=True)
    g = exp(lam) / ((exp(zr) + 1) * exp(lam) + 1)
    assert accepted(Lim(g, lam), 1 / (exp(zr) + 1), limit_at_infinity)


def test_a_derivative_with_respect_to_a_defined_vector_is_refused() -> None:
    # r = s + a: s = r − a depends on r, so ∂s_i/∂r_m is δ_im, not 0.
    a = Symbol("a", real=True)
    rejection(Deriv(s[i], r[m]), S.Zero, deriv_linear, (Shift(r, s, a),))


def test_the_product_rule_sees_a_factor_that_varies_through_its_definition() -> None:
    a = Symbol("a", real=True)
    claim = Deriv(r[i], s[m]) * s[i] + r[i] * Deriv(s[i], s[m])
    assert accepted(Deriv(r[i] * s[i], s[m]), claim, deriv_mul, (Shift(r, s, a),))


def test_the_power_rule_needs_an_exponent_free_of_the_variable() -> None:
    # ∂(p_i^{s_j})/∂s_m is not s_j·p_i^{s_j − 1}·∂p_i/∂s_m: the exponent varies too.
    rejection(Deriv(p[i] ** s[j], s[m]), s[j] * p[i] ** (s[j] - 1) * Deriv(p[i], s[m]), deriv_chain)
    # an exponent from another vector, even one defined by an assumption, is a constant
    claim = y[j] * p[i] ** (y[j] - 1) * Deriv(p[i], s[m])
    assert accepted(Deriv(p[i] ** y[j], s[m]), claim, deriv_chain, (OneHot(y, t),))


def test_the_power_rule_for_roots_and_negative_powers_follows_the_sign_of_the_base() -> None:
    # √p_i: p_i > 0, so the real power rule holds
    assert accepted(Deriv(sqrt(p[i]), s[m]), Deriv(p[i], s[m]) / (2 * sqrt(p[i])), deriv_chain)
    # (−e^{s_i} − 1)^{−2}: the base is negative, never 0, so an integer power is fine
    base = -exp(s[i]) - 1
    assert accepted(Deriv(base**-2, s[m]), -2 * base**-3 * Deriv(base, s[m]), deriv_chain)
    # (−e^{s_i})^{1/2} is not real: no power rule
    rejection(Deriv(sqrt(base), s[m]), Deriv(base, s[m]) / (2 * sqrt(base)), deriv_chain)


def test_deriv_entry_gives_a_delta_only_for_an_entry_of_the_same_vector() -> None:
    rejection(Deriv(y[i], s[m]), delta(i, m), deriv_entry)
    rejection(Deriv(p[i], s[m]), delta(i, m), deriv_entry)


# ------------------------------------------- pinned by mutation testing (issue 8)


def test_sum_delta_knows_which_numeric_indices_lie_in_the_range() -> None:
    # 1 lies in 1..n for every n ≥ 1; 2 does not unless the range is a number ≥ 2.
    assert accepted(IndexSum(delta(j, 1) * s[j], j, n), s[1], sum_delta)
    rejection(IndexSum(delta(j, 2) * s[j], j, n), s[2], sum_delta)
    three = RealVector("s", 3)
    assert accepted(IndexSum(delta(j, 3) * three[j], j, 3), three[3], sum_delta)


def test_sum_delta_uses_only_the_range_declared_for_that_index() -> None:
    rejection(IndexSum(delta(j, m) * s[j], j, n), s[m], sum_delta, (IndexRange(t, n),))
    rejection(IndexSum(delta(j, m) * s[j], j, n), s[m], sum_delta, (IndexRange(m, N),))


def test_delta_eq_passes_over_a_delta_it_cannot_use_to_one_it_can() -> None:
    # δ_tw has no index in the other factors; δ_im sifts exp(s_i) to exp(s_m).
    before = delta(t, w) * delta(i, m) * exp(s[i])
    assert accepted(before, delta(t, w) * delta(i, m) * exp(s[m]), delta_eq)
    a, b = index("a"), index("b")  # δ_ab is met first, and has nothing to sift
    before = delta(a, b) * delta(i, m) * exp(s[m])
    assert accepted(before, delta(a, b) * delta(i, m) * exp(s[i]), delta_eq)


def test_sum_delta_passes_over_a_delta_it_cannot_use_to_one_it_can() -> None:
    body = IndexSum(delta(j, t) * delta(j, m) * s[j], j, n)
    assert accepted(body, delta(m, t) * s[m], sum_delta, (IndexRange(m, n),))
    # δ_jm cannot be used where Σ_m rebinds m; δ_jt can.
    other = IndexSum(s[m] ** 2, m, n)
    body = IndexSum(delta(j, m) * delta(j, t) * s[j] * other, j, n)
    assert accepted(body, delta(m, t) * s[t] * other, sum_delta, (IndexRange(t, n),))


def test_exp_of_delta_splits_two_deltas_in_turn() -> None:
    before = exp(x + lam * delta(i, w) + lam * delta(i, t))
    one = 1 + (exp(lam) - 1) * delta(i, w)
    other = 1 + (exp(lam) - 1) * delta(i, t)
    assert accepted(before, exp(x) * one * other, exp_of_delta)


def test_exp_of_delta_does_not_split_a_delta_whose_index_a_sum_binds() -> None:
    # e^{Σ_j λδ_jw} = e^λ when w ≤ n; setting δ_jw to 0 or 1 under Σ_j would free j.
    arg = IndexSum(lam * delta(j, w), j, n)
    off, on = exp(arg.xreplace({delta(j, w): 0})), exp(arg.xreplace({delta(j, w): 1}))
    rejection(exp(arg), off + (on - off) * delta(j, w), exp_of_delta)


def test_entries_def_reads_a_definition_binding_the_index_it_is_read_at_without_capture() -> None:
    # r_j = s_j + Σ_i s_i s_j read at i: the definition's bound i is renamed, not captured.
    declared = (Entries(r, s[j] + IndexSum(s[i] * s[j], i, n), j),)
    assert accepted(r[i], s[i] + IndexSum(s[k] * s[i], k, n), entries_def, declared)
    rejection(r[i], s[i] + IndexSum(s[i] ** 2, i, n), entries_def, declared)
    assert accepted(r[m], s[m] + IndexSum(s[i] * s[m], i, n), entries_def, declared)


def test_limit_at_infinity_keeps_the_constant_part_of_an_exponent() -> None:
    assert accepted(Lim(exp(lam + 2) / (exp(lam) + 1), lam), exp(2), limit_at_infinity)
    assert accepted(Lim(exp(2 * lam - 1) / (exp(2 * lam) + 1), lam), exp(-1), limit_at_infinity)
    rejection(Lim(exp(lam + 2) / (exp(lam) + 1), lam), S.One, limit_at_infinity)
    z = Symbol("z")  # not known to be real: e^z stays as it is, beside e^λ
    assert accepted(Lim(exp(lam + z) / (exp(lam) + 1), lam), exp(z), limit_at_infinity)
    half = exp(lam + x / 2) / (exp(lam) + 1)  # a fractional coefficient keeps e^{x/2} too
    assert accepted(Lim(half, lam), exp(x / 2), limit_at_infinity)


def test_limit_at_infinity_refuses_a_lambda_left_in_the_leading_coefficient() -> None:
    # λe^λ/(e^λ + 1) diverges; reading λ off as the leading coefficient would give λ.
    rejection(Lim(lam * exp(lam) / (exp(lam) + 1), lam), lam, limit_at_infinity)


def test_limit_at_infinity_refuses_roots_whose_square_it_cannot_read() -> None:
    # √(λ/(1 + λ)) and √2·e^λ/(e^λ + λ² + 1): λ outside an exponential, no verdict.
    rejection(Lim(sqrt(lam / (1 + lam)), lam), S.One, limit_at_infinity)
    f = sqrt(2) * exp(lam) / (exp(lam) + lam**2 + 1)
    rejection(Lim(f, lam), sqrt(2), limit_at_infinity)
    g = sqrt(2) * exp(lam) / (exp(lam) + exp(lam**2))  # positive, but e^{λ²} is no power of e^λ
    rejection(Lim(g, lam), sqrt(2), limit_at_infinity)


def test_a_definition_never_names_its_index_after_a_dimension_or_a_parameter() -> None:
    # Over a dimension called j, r_i = s_i + λδ_iw must keep the dimension j.
    size = dimension("j")
    scores, led = RealVector("s", size), RealVector("r", size)
    declared = (Lead(led, scores, w, lam),)
    assert accepted(led[i], scores[i] + lam * delta(i, w), entries_def, declared)
    declared = (Shift(led, scores, x),)
    assert accepted(led[i], scores[i] + x, entries_def, declared)
    # A lead called j: r_i = s_i + jδ_iw.
    big = index("j")
    declared = (Lead(r, s, w, big),)
    assert accepted(r[i], s[i] + big * delta(i, w), entries_def, declared)


@pytest.mark.parametrize("name", ["'", "", "s q", "2s", 3, None])
def test_a_vector_name_must_be_an_identifier(name: Any) -> None:
    with pytest.raises(InvalidArgument, match="a vector name must be an identifier"):
        RealVector(name, n)


def test_a_vector_name_may_carry_primes() -> None:
    assert RealVector("s''", n).name == "s''"


def test_an_index_is_a_positive_integer() -> None:
    # Indices run over 1..n: the kernel's sign reasoning may use i ≥ 1. (Built here, not
    # at import, so that a mutation of index() is seen.)
    fresh = index("i")
    assert fresh.is_integer is True
    assert fresh.is_positive is True


def test_limit_at_infinity_treats_a_sum_free_of_lambda_as_a_constant() -> None:
    total = IndexSum(exp(s[j]), j, n)
    ratio = total * exp(lam) / (total * exp(lam) + 1)
    assert accepted(Lim(ratio, lam), S.One, limit_at_infinity)


def test_limit_at_infinity_refuses_a_sum_that_hides_lambda_or_holds_a_derivative() -> None:
    led = IndexSum(exp(r[j]), j, n)  # r_j = s_j + λδ_jw: the sum grows with λ
    ratio = led / (led + 1)
    rejection(Lim(ratio, lam), ratio, limit_at_infinity, (Lead(r, s, w, lam),))
    slopes = IndexSum(Deriv(p[j], s[m]), j, n)
    rejection(Lim(slopes * exp(lam) / (exp(lam) + 1), lam), slopes, limit_at_infinity)
    explicit = IndexSum(exp(s[j] + lam), j, n)
    rejection(Lim(explicit / (explicit + 1), lam), S.One, limit_at_infinity)


def test_a_shift_called_j_is_not_confused_with_the_definitions_index() -> None:
    big = index("j")
    assert accepted(r[i], s[i] + big, entries_def, (Shift(r, s, big),))


def test_a_lead_or_a_shift_needs_vectors_of_one_dimension() -> None:
    other = RealVector("r", N)
    with pytest.raises(InvalidArgument, match="must have the same dimension"):
        Lead(other, s, w, lam)
    with pytest.raises(InvalidArgument, match="must have the same dimension"):
        Shift(other, s, x)


def test_dependence_is_followed_through_definitions_that_refer_to_each_other() -> None:
    from scaledattn.kernel.vectors import depends_on

    u = RealVector("u", n)
    defs = {"r": Entries(r, u[j] + x, j), "u": Entries(u, r[j], j)}
    assert depends_on(r[i], "s", defs) is False
    assert depends_on(r[i], "s", defs, x) is True


def test_a_power_is_positive_only_when_its_base_is() -> None:
    assert not positive(s[i] ** 3)
    assert not positive((exp(x) - 2) ** S.Half)
    assert positive(exp(x) ** 3)
