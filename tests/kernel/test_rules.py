"""Every primitive rule accepts what is true and rejects what is not.

Each rule has rows in ACCEPT and in REJECT; a test checks that every rule in the
kernel's table appears in both, so a new rule cannot arrive without its tests.
"""

from __future__ import annotations

from typing import Any

import pytest
from sympy import Eq, Or, S, Symbol, sqrt

from scaledattn.errors import MissingAssumption, ProofError, StepMismatch
from scaledattn.kernel import (
    RULES,
    Cov,
    CrossSum,
    Dot,
    E,
    Independent,
    IndependentComponents,
    IndependentPairs,
    IndexSum,
    Mean,
    Moment,
    Positive,
    RandomVector,
    Std,
    UnitVariance,
    Var,
    Variance,
    ZeroMean,
    dimension,
    index,
    random_variables,
)
from scaledattn.kernel import rules as R

from .helpers import accepts, rejection

X, Y, Z = random_variables("X Y Z")
d = dimension("d_k")
q, k = RandomVector("q", d), RandomVector("k", d)
q3, k3 = RandomVector("q", 3), RandomVector("k", 3)
i, j, ell = index("i"), index("j"), index("l")
a, b = Symbol("a", real=True), Symbol("b", real=True)
c = Symbol("c", real=True)
mu, sigma = Symbol("mu", real=True), Symbol("sigma", positive=True)
LESSON = [IndependentComponents(q, k), ZeroMean(q), ZeroMean(k), UnitVariance(q), UnitVariance(k)]

# (rule, previous, claim, assumptions, is an equivalence step)
Row = tuple[R.Rule, Any, Any, list[Any], bool]

ACCEPT: list[Row] = [
    (R.ring, (X + Y) ** 2, X**2 + 2 * X * Y + Y**2, [], False),
    (R.ring, E((X + Y) ** 2), E(X**2 + 2 * X * Y + Y**2), [], False),
    (R.variance_def, Var(X), E(X**2) - E(X) ** 2, [], False),
    (R.variance_def, E(X**2) - E(X) ** 2 + 1, Var(X) + 1, [], False),
    (R.covariance_def, Cov(X, Y), E(X * Y) - E(X) * E(Y), [], False),
    (R.std_def, Std(X), sqrt(Var(X)), [], False),
    (R.expectation_linear, E(2 * X + 3 * Y + 5), 2 * E(X) + 3 * E(Y) + 5, [], False),
    (R.expectation_linear, E(IndexSum(q[i], i, d)), IndexSum(E(q[i]), i, d), [], False),
    (R.expectation_linear, E(a * X * Y), a * E(X * Y), [], False),
    (R.expectation_linear, E(X + a + b), E(X) + a + b, [], False),
    (R.expectation_mul_of_indep, E(X * Y), E(X) * E(Y), [Independent(X, Y)], False),
    (R.expectation_mul_of_indep, E(X**2 * Y), E(X**2) * E(Y), [Independent(X, Y)], False),
    (
        R.expectation_mul_of_indep,
        E(X * Y * Z),
        E(X) * E(Y) * E(Z),
        [Independent(X, Y, Z)],
        False,
    ),
    (
        R.expectation_mul_of_indep,
        CrossSum(E(q[i] * q[j]), i, j, d),
        CrossSum(E(q[i]) * E(q[j]), i, j, d),
        [IndependentComponents(q)],
        False,
    ),
    (
        R.expectation_mul_of_indep,
        E(q[i] * k[i]),
        E(q[i]) * E(k[i]),
        [IndependentComponents(q, k)],
        False,
    ),
    (
        R.expectation_mul_of_indep,
        CrossSum(E(q[i] * k[i] * q[j] * k[j]), i, j, d),
        CrossSum(E(q[i] * k[i]) * E(q[j] * k[j]), i, j, d),
        [IndependentPairs(q, k)],
        False,
    ),
    (
        # an inner sum over another index keeps the cross sum's i ≠ j
        R.expectation_mul_of_indep,
        CrossSum(IndexSum(E(q[i] * q[j]) * k[ell], ell, d), i, j, d),
        CrossSum(IndexSum(E(q[i]) * E(q[j]) * k[ell], ell, d), i, j, d),
        [IndependentComponents(q)],
        False,
    ),
    (
        R.expectation_mul_of_indep,
        E(q3[1] * q3[2]),
        E(q3[1]) * E(q3[2]),
        [IndependentComponents(q3)],
        False,
    ),
    (R.variance_const_mul, Var(2 * X), 4 * Var(X), [], False),
    (R.variance_const_mul, Var(X / c), Var(X) / c**2, [Positive(c)], False),
    (R.substitute_moment, E(q[j]) + Var(k[i]), S.One, [ZeroMean(q), UnitVariance(k)], False),
    (R.substitute_moment, E(X) * E(Y), mu**2, [Mean(X, mu), Mean(Y, mu)], False),
    (R.substitute_moment, E(q[i] * k[i]), a, [Moment(E(q[i] * k[i]), a)], False),
    (R.dot_def, Dot(q, k), IndexSum(q[i] * k[i], i, d), [], False),
    (R.dot_def, Dot(q, k), IndexSum(q[j] * k[j], j, d), [], False),
    (
        R.sum_mul_sum,
        IndexSum(q[i], i, d) ** 2,
        IndexSum(IndexSum(q[i] * q[j], j, d), i, d),
        [],
        False,
    ),
    (
        # the second sum's i is renamed, and not to the j that is free in its body
        R.sum_mul_sum,
        IndexSum(q[i], i, d) * IndexSum(k[i] * q[j], i, d),
        IndexSum(IndexSum(q[i] * k[ell] * q[j], ell, d), i, d),
        [],
        False,
    ),
    (
        R.sum_mul_sum,
        IndexSum(q[i], i, d) * IndexSum(k[i], i, d),
        IndexSum(IndexSum(q[i] * k[j], j, d), i, d),
        [],
        False,
    ),
    (
        R.split_diagonal,
        IndexSum(IndexSum(q[i] * q[j], j, d), i, d),
        IndexSum(q[i] ** 2, i, d) + CrossSum(q[i] * q[j], i, j, d),
        [],
        False,
    ),
    (R.count_terms, IndexSum(a, i, d), d * a, [], False),
    (R.count_terms, CrossSum(a, i, j, d), d * (d - 1) * a, [], False),
    (R.count_terms, IndexSum(S.One, i, 3), S(3), [], False),
    (R.sum_unroll, IndexSum(q3[i], i, 3), q3[1] + q3[2] + q3[3], [], False),
    (
        R.sum_unroll,
        IndexSum(i, i, R.MAX_UNROLL),
        S(R.MAX_UNROLL * (R.MAX_UNROLL + 1) // 2),
        [],
        False,
    ),
    (
        R.sum_unroll,
        CrossSum(q3[i] * q3[j], i, j, 3),
        2 * (q3[1] * q3[2] + q3[1] * q3[3] + q3[2] * q3[3]),
        [],
        False,
    ),
    (
        R.sum_linear,
        IndexSum(a * q[i] + k[i], i, d),
        a * IndexSum(q[i], i, d) + IndexSum(k[i], i, d),
        [],
        False,
    ),
    (R.sqrt_mul, sqrt(d * a**2 + d), sqrt(d) * sqrt(a**2 + 1), [], False),
    (R.sqrt_mul, sqrt(a**2 * d + b**2 * d), sqrt(d) * sqrt(a**2 + b**2), [], False),
    (R.clear_denominator, Eq(d / c**2, 1), Eq(d - c**2, 0), [Positive(c)], True),
    (R.square_roots, Eq(d - c**2, 0), Or(Eq(c, sqrt(d)), Eq(c, -sqrt(d))), [], True),
    (
        R.square_roots,
        Eq(d * (1 + a**2) - c**2, 0),
        Or(Eq(c, sqrt(d * a**2 + d)), Eq(c, -sqrt(d * a**2 + d))),
        [Positive(c)],
        True,
    ),
    (R.exclude_by_sign, Or(Eq(c, sqrt(d)), Eq(c, -sqrt(d))), Eq(c, sqrt(d)), [Positive(c)], True),
    (R.exclude_by_sign, Eq(c, -sqrt(d)), S.false, [Positive(c)], True),
    (
        R.exclude_by_sign,
        Or(Eq(c, 1), Eq(c, 2), Eq(c, -1)),
        Or(Eq(c, 1), Eq(c, 2)),
        [Positive(c)],
        True,
    ),
    # an equation is the same proposition with its sides swapped or scaled
    (R.clear_denominator, Eq(d / c**2, 1), Eq(c**2, d), [Positive(c)], True),
    (R.clear_denominator, Eq(d / c**2, 1), Eq(2 * c**2 - 2 * d, 0), [Positive(c)], True),
    # the unknown is the one squared: a (degree 1) and b (not real) are passed over
    (R.square_roots, Eq(a - c**2, 0), Or(Eq(c, sqrt(a)), Eq(c, -sqrt(a))), [], True),
    (
        R.square_roots,
        Eq(Symbol("b") - c**2, 0),
        Or(Eq(c, sqrt(Symbol("b"))), Eq(c, -sqrt(Symbol("b")))),
        [],
        True,
    ),
]

REJECT: list[Row] = [
    (R.ring, (X + Y) ** 2, X**2 + Y**2, [], False),
    (R.ring, Var(X + Y), Var(X) + Var(Y), [], False),
    (R.variance_def, Var(X), E(X) ** 2 - E(X**2), [], False),
    (R.variance_def, Var(X + Y), Var(X) + Var(Y), [], False),
    (R.covariance_def, Cov(X, Y), E(X * Y) + E(X) * E(Y), [], False),
    (R.std_def, Std(X), Var(X), [], False),
    (R.expectation_linear, E(X * Y), E(X) * E(Y), [], False),
    (R.expectation_linear, E(X**2), E(X) ** 2, [], False),
    (R.expectation_mul_of_indep, E(X * Y), E(X) * E(Y), [], False),
    (R.expectation_mul_of_indep, E(X * Y), E(X) * E(Y), [Independent(X, Z)], False),
    (
        R.expectation_mul_of_indep,
        E(X * Y * Z),
        E(X) * E(Y) * E(Z),
        [Independent(X, Y), Independent(Y, Z), Independent(X, Z)],
        False,
    ),
    (R.expectation_mul_of_indep, E(X**2), E(X) ** 2, [Independent(X, Y)], False),
    (
        R.expectation_mul_of_indep,
        IndexSum(IndexSum(E(q[i] * q[j]), j, d), i, d),
        IndexSum(IndexSum(E(q[i]) * E(q[j]), j, d), i, d),
        [IndependentComponents(q)],
        False,
    ),
    (
        R.expectation_mul_of_indep,
        E(q[i] ** 2 * k[i] ** 2),
        E(q[i] ** 2) * E(k[i] ** 2),
        [IndependentPairs(q, k)],
        False,
    ),
    (
        # the inner sum rebinds j, which then ranges over i too: i ≠ j no longer holds
        R.expectation_mul_of_indep,
        CrossSum(IndexSum(E(q[i] * q[j]), j, d), i, j, d),
        CrossSum(IndexSum(E(q[i]) * E(q[j]), j, d), i, j, d),
        [IndependentComponents(q)],
        False,
    ),
    (R.variance_const_mul, Var(2 * X), 2 * Var(X), [], False),
    (R.variance_const_mul, Var(X / c), Var(X) / c, [Positive(c)], False),
    (R.variance_const_mul, Var(X / c), Var(X) / c**2, [], False),
    (R.variance_const_mul, Var(X + 1), Var(X) + 1, [], False),
    (R.substitute_moment, E(q[i] ** 2), S.One, [ZeroMean(q)], False),
    (R.substitute_moment, E(k[i]), mu, [Mean(q, mu), ZeroMean(k)], False),
    (R.substitute_moment, Var(q[i]), sigma**2, [Variance(k, sigma**2)], False),
    (R.dot_def, Dot(q, k), IndexSum(q[i] * k[j], i, d), [], False),
    (R.dot_def, Dot(q, k), IndexSum(q[i] * k[i], i, dimension("d_v")), [], False),
    (R.sum_mul_sum, IndexSum(q[i], i, d) ** 2, IndexSum(q[i] ** 2, i, d), [], False),
    (
        R.split_diagonal,
        IndexSum(IndexSum(q[i] * q[j], j, d), i, d),
        CrossSum(q[i] * q[j], i, j, d),
        [],
        False,
    ),
    (R.count_terms, CrossSum(a, i, j, d), d**2 * a, [], False),
    (R.count_terms, CrossSum(a, i, j, d), d * (d + 1) * a, [], False),
    (R.count_terms, CrossSum(a, i, j, d), S.Zero, [], False),
    (R.count_terms, IndexSum(E(q[i] ** 2), i, d), d * E(q[i] ** 2), [], False),
    (R.sum_unroll, IndexSum(q3[i], i, 3), q3[1] + q3[2], [], False),
    (R.sum_unroll, IndexSum(q[i], i, d), q[1], [], False),
    # the body binds i again: unrolling must not substitute into the inner sum
    (
        R.sum_unroll,
        IndexSum(q3[i] * IndexSum(k[i], i, d), i, 2),
        2 * q3[1] * IndexSum(k[i], i, d),
        [],
        False,
    ),
    (
        R.sum_linear,
        IndexSum(q[i] * k[i], i, d),
        IndexSum(q[i], i, d) * IndexSum(k[i], i, d),
        [],
        False,
    ),
    (R.sqrt_mul, sqrt(c**2 * d), c * sqrt(d), [], False),
    (R.sqrt_mul, sqrt(a * b), sqrt(a) * sqrt(b), [], False),
    (R.clear_denominator, Eq(d / c**2, 1), Eq(d - c**2, 0), [], True),
    (
        R.square_roots,
        Eq(d * (1 + a**2) - c**2, 0),
        Or(Eq(c, sqrt(d * a**2 + d)), Eq(c, -sqrt(d * a**2 + d))),
        [],
        True,
    ),
    (R.clear_denominator, Eq(d / c**2, 1), Eq(d - c, 0), [Positive(c)], True),
    (R.square_roots, Eq(d - c**2, 0), Eq(c, sqrt(d)), [], True),
    (R.square_roots, Eq(d - c**2, 0), Or(Eq(c, d), Eq(c, -d)), [], True),
    (R.exclude_by_sign, Or(Eq(c, sqrt(d)), Eq(c, -sqrt(d))), Eq(c, sqrt(d)), [], True),
    (R.exclude_by_sign, Or(Eq(c, sqrt(d)), Eq(c, -sqrt(d))), Eq(c, -sqrt(d)), [Positive(c)], True),
    (R.exclude_by_sign, Or(Eq(c, 1), Eq(c, 2), Eq(c, -1)), Eq(c, 1), [Positive(c)], True),
    (R.exclude_by_sign, Eq(c, -sqrt(d)), S.true, [Positive(c)], True),
    # integer indices: q_1 and k_1 are one pair; q_1 and q_i may be the same component
    (
        R.expectation_mul_of_indep,
        E(q3[1] ** 2 * k3[1] ** 2),
        E(q3[1] ** 2) * E(k3[1] ** 2),
        [IndependentPairs(q3, k3)],
        False,
    ),
    (
        R.expectation_mul_of_indep,
        E(q3[1] * q3[i]),
        E(q3[1]) * E(q3[i]),
        [IndependentComponents(q3)],
        False,
    ),
    # independence factors products; a sum is linearity's business
    (R.expectation_mul_of_indep, E(X + Y), E(X) + E(Y), [Independent(X, Y)], False),
    # x² + x − 2 = 0 has roots 1 and −2, not ±√2
    (R.square_roots, Eq(c**2 + c - 2, 0), Or(Eq(c, sqrt(2)), Eq(c, -sqrt(2))), [], True),
    # a·c² = d_k: when a = 0 there is no root at all, not ±√(d_k/a)
    (R.square_roots, Eq(a * c**2 - d, 0), Or(Eq(c, sqrt(d / a)), Eq(c, -sqrt(d / a))), [], True),
    # the rule solves for a real constant, not in an equation between random variables
    (R.square_roots, Eq(c**2 - X, 0), Or(Eq(c, sqrt(X)), Eq(c, -sqrt(X))), [], True),
    # an inner sum (over another range) that binds i again: j → i would be captured
    (
        R.split_diagonal,
        IndexSum(IndexSum(IndexSum(q[i] * k[j], i, dimension("N")), j, d), i, d),
        IndexSum(IndexSum(q[i] * k[i], i, dimension("N")), i, d)
        + CrossSum(IndexSum(q[i] * k[j], i, dimension("N")), i, j, d),
        [],
        False,
    ),
]


def _id(row: Row) -> str:
    return row[0].name


@pytest.mark.parametrize("row", ACCEPT, ids=[_id(r) for r in ACCEPT])
def test_kernel_accepts_a_true_step(row: Row) -> None:
    rule, prev, claim, assuming, iff = row
    assert accepts(rule, prev, claim, assuming, iff=iff), rejection(
        rule, prev, claim, assuming, iff=iff
    )


@pytest.mark.parametrize("row", REJECT, ids=[_id(r) for r in REJECT])
def test_kernel_rejects_a_false_or_unjustified_step(row: Row) -> None:
    rule, prev, claim, assuming, iff = row
    error = rejection(rule, prev, claim, assuming, iff=iff)
    assert isinstance(error, ProofError)
    assert error.step == 1
    assert error.rule == rule.name


#: Rules whose accepting and rejecting tests live in test_calculus.py: (accept, reject).
TESTED_ELSEWHERE = {
    "softmax_def": ("accepts_the_definition", "rejects_a_wrong_normaliser"),
    "entries_def": ("accepts_a_declared_one_hot_target", "rejects_the_wrong_target"),
    "deriv_linear": (
        "pulls_out_constants_and_kills_a_constant_term",
        "rejects_treating_a_varying_factor_as_constant",
    ),
    "deriv_mul": ("accepts_the_product_rule", "rejects_the_product_of_derivatives"),
    "deriv_chain": (
        "accepts_exp_log_of_a_positive_term_and_powers",
        "rejects_exp_without_the_inner_derivative",
    ),
    "deriv_entry": (
        "gives_the_kronecker_delta",
        "rejects_a_derivative_that_drops_the_kronecker_delta",
    ),
    "sum_delta": ("accepts_a_declared_index_range", "refuses_an_index_bound_over_another_range"),
    "delta_eq": ("accepts_sifting_inside_a_product", "rejects_dropping_the_delta"),
    "delta_distinct": ("needs_the_declaration", "needs_the_declaration"),
    "exp_of_delta": ("accepts_the_two_cases", "rejects_treating_the_delta_as_one"),
    "limit_at_infinity": ("reads_off_leading_coefficients", "rejects_a_wrong_value"),
}


def test_every_rule_has_accepting_and_rejecting_tests() -> None:
    """Each rule is in both tables above, or names its tests in TESTED_ELSEWHERE."""
    from tests.kernel import test_calculus

    accepted = {row[0].name for row in ACCEPT}
    rejected = {row[0].name for row in REJECT}
    for name in RULES:
        if name in accepted and name in rejected:
            continue
        accept, reject = TESTED_ELSEWHERE[name]
        assert hasattr(test_calculus, f"test_{name}_{accept}"), name
        assert hasattr(test_calculus, f"test_{name}_{reject}"), name


def test_a_rejection_names_step_rule_claim_and_what_the_rule_gives() -> None:
    error = rejection(R.variance_def, Var(X), E(X) ** 2 - E(X**2))
    assert isinstance(error, StepMismatch)
    text = str(error)
    assert "step 1" in text
    assert "variance_def" in text
    assert "claimed:    E(X)**2 - E(X**2)" in text
    assert "rule gives: -E(X)**2 + E(X**2)" in text


def test_a_missing_independence_is_named_as_a_missing_assumption() -> None:
    error = rejection(R.expectation_mul_of_indep, E(X * Y), E(X) * E(Y))
    assert isinstance(error, MissingAssumption)
    assert "needs" in str(error)
    assert "E[X*Y]" in str(error)


def test_a_missing_positivity_is_named_as_a_missing_assumption() -> None:
    error = rejection(
        R.exclude_by_sign, Or(Eq(c, sqrt(d)), Eq(c, -sqrt(d))), Eq(c, sqrt(d)), iff=True
    )
    assert isinstance(error, MissingAssumption)
    assert "c > 0" in str(error)


def test_a_step_records_the_assumptions_it_used() -> None:
    from .helpers import chain

    result = chain(
        E(X * Y), [(E(X) * E(Y), R.expectation_mul_of_indep)], [Independent(X, Y), ZeroMean(Z)]
    )
    assert result.theorem is not None
    assert result.theorem.used == frozenset({Independent(X, Y)})
    assert result.theorem.unused == (ZeroMean(Z),)


def test_a_negative_variance_cannot_be_declared() -> None:
    from scaledattn.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="variance cannot be negative"):
        Variance(q, -1)


def test_independence_needs_two_distinct_variables() -> None:
    from scaledattn.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="at least two"):
        Independent(X)
    with pytest.raises(InvalidArgument, match="same variable twice"):
        Independent(X, X)


def test_a_missing_positivity_names_only_the_unknown_not_other_symbols() -> None:
    root = sqrt(d * (1 + a**2))
    error = rejection(R.exclude_by_sign, Or(Eq(c, root), Eq(c, -root)), Eq(c, root), iff=True)
    assert isinstance(error, MissingAssumption)
    assert "c > 0" in str(error)
    assert "a > 0" not in str(error)


def test_a_proved_theorem_rewrites_inside_a_disjunction() -> None:
    from scaledattn.derive import audit_of, equivalence
    from scaledattn.proofs.dot_product_variance import LESSON, dot_product_variance
    from scaledattn.proofs.dot_product_variance import d as d_k
    from scaledattn.proofs.dot_product_variance import k as k_vec
    from scaledattn.proofs.dot_product_variance import q as q_vec

    variance = Var(Dot(q_vec, k_vec))
    proof = (
        equivalence(
            "inside_or",
            Or(Eq(c, sqrt(variance)), Eq(c, -sqrt(variance))),
            Or(Eq(c, sqrt(d_k)), Eq(c, -sqrt(d_k))),
            assuming=LESSON,
        )
        .iff(Or(Eq(c, sqrt(d_k)), Eq(c, -sqrt(d_k))), by=dot_product_variance)
        .qed()
    )
    assert audit_of(proof).verified


def test_a_single_negative_root_excluded_without_positivity_names_the_missing_c_gt_0() -> None:
    error = rejection(R.exclude_by_sign, Eq(c, -sqrt(d)), S.false, iff=True)
    assert isinstance(error, MissingAssumption)
    assert "c > 0" in str(error)


def test_a_theorem_about_a_constrained_index_is_not_used_under_a_sum_binding_it() -> None:
    from sympy import KroneckerDelta

    from scaledattn.kernel import Distinct, IndexRange, check
    from scaledattn.kernel.calculus import delta_distinct

    from .helpers import chain

    n, t, w = dimension("n"), index("t"), index("w")
    lemma = chain(KroneckerDelta(t, w), [(S.Zero, delta_distinct)], [Distinct(t, w)], name="lemma")
    theorem = check(lemma.derivation)
    declared = [Distinct(t, w), IndexRange(t, n)]
    # outside any sum the lemma applies: δ_tw·a = 0
    assert accepts(theorem, KroneckerDelta(t, w) * a, S.Zero, declared)
    # inside Σ_w the bound w runs through t: Σ_w δ_tw is 1, not 0
    error = rejection(
        theorem, IndexSum(KroneckerDelta(t, w), w, n), IndexSum(S.Zero, w, n), declared
    )
    assert isinstance(error, ProofError)


def test_a_theorem_resting_on_a_definition_is_not_used_under_a_sum_that_captures_it() -> None:
    from sympy import KroneckerDelta

    from scaledattn.definitions import Lead
    from scaledattn.kernel import IndexRange, RealVector, check
    from scaledattn.kernel.calculus import entries_def

    from .helpers import chain

    n, w = dimension("n"), index("w")
    lam = Symbol("lambda", real=True)
    r, s = RealVector("r", n), RealVector("s", n)
    lead = [Lead(r, s, w, lam), IndexRange(w, n)]
    # r_w = s_w + λ: the lead sits at the free w
    lemma = chain(r[w], [(s[w] + lam * KroneckerDelta(w, w), entries_def)], lead, name="lemma")
    theorem = check(lemma.derivation)
    assert accepts(theorem, r[w] * a, (s[w] + lam) * a, lead)
    # inside Σ_w the bound w is every index: Σ_w r_w is Σ_w s_w + λ, not Σ_w (s_w + λ)
    error = rejection(theorem, IndexSum(r[w], w, n), IndexSum(s[w] + lam, w, n), lead)
    assert isinstance(error, ProofError)


def test_a_moment_whose_value_names_an_index_is_not_substituted_where_a_sum_binds_it() -> None:
    n, t = dimension("n"), index("t")
    mean_is_t = [Mean(X, t)]  # E[X] = t for the free t
    assert accepts(R.substitute_moment, E(X) * a, t * a, mean_is_t)
    # Σ_t E[X] = n·t₀, but substituting inside Σ_t would give Σ_t t = n(n + 1)/2
    error = rejection(R.substitute_moment, IndexSum(E(X), t, n), IndexSum(t, t, n), mean_is_t)
    assert isinstance(error, ProofError)
    # the moment's own index may be bound: Var(q_j) = 1 inside Σ_j
    assert accepts(
        R.substitute_moment, IndexSum(Var(q[j]), j, d), IndexSum(S.One, j, d), [UnitVariance(q)]
    )


def test_check_resolves_a_theorem_cited_by_name_and_raises_the_first_rejection() -> None:
    from scaledattn.errors import UnknownRule
    from scaledattn.kernel import Derivation, Equation, Step, check

    lemma = check(
        Derivation(
            "cov_xy",
            Equation(Cov(X, Y), E(X * Y) - E(X) * E(Y)),
            (Step(R.covariance_def, E(X * Y) - E(X) * E(Y)),),
        )
    )
    uses = Derivation(
        "uses",
        Equation(2 * Cov(X, Y), 2 * E(X * Y) - 2 * E(X) * E(Y)),
        (Step("cov_xy", 2 * E(X * Y) - 2 * E(X) * E(Y)),),
    )
    assert check(uses, {"cov_xy": lemma}).name == "uses"
    with pytest.raises(UnknownRule):
        check(uses)
    wrong = Derivation("wrong", Equation(Var(X), E(X) ** 2), (Step(R.variance_def, E(X) ** 2),))
    with pytest.raises(StepMismatch) as err:
        check(wrong)
    assert err.value.step == 1


def test_a_missing_positivity_names_every_denominator_of_the_factor() -> None:
    error = rejection(R.variance_const_mul, Var(X / (a * b)), Var(X) / (a * b) ** 2)
    assert isinstance(error, MissingAssumption)
    assert "a > 0" in str(error)
    assert "b > 0" in str(error)


def test_clear_denominator_with_denominators_that_cancel_has_nothing_to_clear() -> None:
    # 1/c = 1/c + 1 has no denominator once the sides are subtracted: a mismatch, not c > 0.
    error = rejection(R.clear_denominator, Eq(1 / c, 1 / c + 1), Eq(1 - c, 0), iff=True)
    assert isinstance(error, StepMismatch)
    assert not isinstance(error, MissingAssumption)


def test_sqrt_mul_records_every_positivity_it_used() -> None:
    from .helpers import chain

    u, v = Symbol("u", real=True), Symbol("v", real=True)
    declared = [Positive(u), Positive(v), ZeroMean(q)]
    result = chain(sqrt(u * v), [(sqrt(u) * sqrt(v), R.sqrt_mul)], declared)
    assert result.theorem is not None
    assert result.theorem.used == frozenset({Positive(u), Positive(v)})


def test_a_theorem_resting_on_a_range_or_a_moment_value_is_not_used_where_a_sum_binds_it() -> None:
    from sympy import KroneckerDelta

    from scaledattn.kernel import IndexRange, RealVector, check
    from scaledattn.kernel.calculus import sum_delta

    from .helpers import chain

    n, big_n, m, t = dimension("n"), dimension("N"), index("m"), index("t")
    s = RealVector("s", n)
    # Σ_{j≤n} δ_jm s_j = s_m holds for m in 1..n; under Σ_{m≤N} with N > n it does not
    sift = IndexSum(KroneckerDelta(j, m) * s[j], j, n)
    lemma = check(chain(sift, [(s[m], sum_delta)], [IndexRange(m, n)], name="sift").derivation)
    error = rejection(lemma, IndexSum(sift, m, big_n), IndexSum(s[m], m, big_n), [IndexRange(m, n)])
    assert isinstance(error, ProofError)
    # E[X] = t for the free t; Σ_t E[X] is not Σ_t t
    mean = check(chain(E(X), [(t, R.substitute_moment)], [Mean(X, t)], name="mean").derivation)
    error = rejection(mean, IndexSum(E(X), t, n), IndexSum(t, t, n), [Mean(X, t)])
    assert isinstance(error, ProofError)


def test_an_equivalence_step_records_the_positivity_it_used() -> None:
    from .helpers import chain

    b = Symbol("b", real=True)
    scaled = chain(
        Eq(Var(X / c), 1), [(Eq(Var(X) / c**2, 1), R.variance_const_mul)], [Positive(c)], iff=True
    )
    assert scaled.theorem is not None
    assert scaled.theorem.used == frozenset({Positive(c)})
    roots = Or(Eq(c, -b), Eq(c, -1), Eq(c, 1))
    kept = chain(roots, [(Eq(c, 1), R.exclude_by_sign)], [Positive(b), Positive(c)], iff=True)
    assert kept.theorem is not None
    assert kept.theorem.used == frozenset({Positive(b), Positive(c)})
    # Two roots excluded by different facts: both sets of facts are recorded.
    g, h = Symbol("g", real=True), Symbol("h", real=True)
    roots = Or(Eq(c, -b), Eq(g, -h), Eq(c, 1))
    declared = [Positive(b), Positive(c), Positive(g), Positive(h)]
    kept = chain(roots, [(Eq(c, 1), R.exclude_by_sign)], declared, iff=True)
    assert kept.theorem is not None
    assert kept.theorem.used == frozenset(declared)


def test_a_product_of_sums_renames_its_index_away_from_every_symbol_it_meets() -> None:
    # (Σ_j k_j k_l)(Σ_j q_i q_j): the second sum's j must become neither j, nor l, nor i
    # (the free i of its own body).
    m = index("m")
    before = IndexSum(k[j] * k[ell], j, d) * IndexSum(q[i] * q[j], j, d)
    after = IndexSum(IndexSum(k[j] * k[ell] * q[i] * q[m], m, d), j, d)
    assert accepts(R.sum_mul_sum, before, after)
    captured = IndexSum(IndexSum(k[j] * k[ell] * q[i] * q[i], i, d), j, d)
    assert not accepts(R.sum_mul_sum, before, captured)


def test_a_moment_with_two_indices_is_read_for_every_pair() -> None:
    # E[q_i k_j] = 0 for every i, j: it gives E[q_1 k_2] and E[q_j k_i], not E[q_1²]
    both = [Moment(E(q[i] * k[j]), 0)]
    assert accepts(R.substitute_moment, E(q3[1] * k3[2]), S.Zero, both)
    assert accepts(R.substitute_moment, E(q[j] * k[i]), S.Zero, both)
    assert not accepts(R.substitute_moment, E(q[i] ** 2), S.Zero, both)


def test_a_moment_skipped_under_a_binder_leaves_the_next_one_to_apply() -> None:
    n, t = dimension("n"), index("t")
    declared = [Mean(X, t), Mean(X, mu)]  # the first names t, which Σ_t binds
    assert accepts(R.substitute_moment, IndexSum(E(X), t, n), IndexSum(mu, t, n), declared)


def test_split_diagonal_leaves_a_sum_over_another_index_alone() -> None:
    inner = IndexSum(q[i] * k[j] * IndexSum(k[ell], ell, d), j, d)
    claim = IndexSum(q[i] * k[i] * IndexSum(k[ell], ell, d), i, d) + CrossSum(
        q[i] * k[j] * IndexSum(k[ell], ell, d), i, j, d
    )
    assert accepts(R.split_diagonal, IndexSum(inner, i, d), claim)


def test_renaming_bound_indices_never_confuses_an_outer_index_with_an_inner_one() -> None:
    from scaledattn.kernel import same

    r, t_ = index("r"), index("t")

    # Σ_r Σ_t Σ_{i≠j} Σ_l q_r k_l  is not  Σ_r Σ_t Σ_{i≠j} Σ_l q_l k_l
    def nest(body: object) -> object:
        return IndexSum(IndexSum(CrossSum(IndexSum(body, ell, d), i, j, d), t_, d), r, d)

    assert same(nest(q[r] * k[ell]), nest(q[ell] * k[ell])) is not True


@pytest.mark.parametrize(
    ("rule", "before", "after"),
    [
        (R.expectation_linear, E(2 * X + 3 * Y + 5), 2 * E(X) + 3 * E(Y) + 5),
        (R.expectation_linear, E(X + a + b), E(X) + a + b),
        (R.variance_def, Var(X), E(X**2) - E(X) ** 2),
        (R.covariance_def, Cov(X, Y), E(X * Y) - E(X) * E(Y)),
        (R.std_def, Std(X), sqrt(Var(X))),
        (R.variance_const_mul, Var(2 * X), 4 * Var(X)),
        (R.dot_def, Dot(q, k), IndexSum(q[i] * k[i], i, d)),
        (
            R.sum_linear,
            IndexSum(a * q[i] + k[i], i, d),
            a * IndexSum(q[i], i, d) + IndexSum(k[i], i, d),
        ),
        (R.sum_mul_sum, IndexSum(q[i], i, d) ** 2, IndexSum(IndexSum(q[i] * q[j], j, d), i, d)),
        (
            R.split_diagonal,
            IndexSum(IndexSum(q[i] * k[j], j, d), i, d),
            IndexSum(q[i] * k[i], i, d) + CrossSum(q[i] * k[j], i, j, d),
        ),
        (R.count_terms, CrossSum(a, i, j, d), d * (d - 1) * a),
        (R.sum_unroll, IndexSum(q3[i], i, 3), q3[1] + q3[2] + q3[3]),
    ],
    ids=[
        "linearity",
        "linearity_constants",
        "variance",
        "covariance",
        "std",
        "variance_const_mul",
        "dot",
        "sum_linear",
        "sum_mul_sum",
        "split_diagonal",
        "count_terms",
        "sum_unroll",
    ],
)
def test_one_local_rewrite_is_one_instance_of_the_rules_law(
    rule: R.Rule, before: Any, after: Any
) -> None:
    # The kernel iterates a rule to a fixpoint; a single rewrite must already be the law
    # (an iteration that flips back and forth could otherwise end where it started).
    from scaledattn.kernel import Context, same
    from scaledattn.kernel.binders import Scope

    result = rule.local(before, Context(), Scope())
    assert result is not None
    assert same(result[0], after) is True


def test_an_undefined_expression_is_never_equal_and_never_crashes_the_check() -> None:
    from scaledattn.kernel import same

    undefined = S.One / S.Zero  # SymPy's complex infinity, zoo
    assert same(undefined, undefined) is not True
    assert same(undefined + E(X), E(X)) is not True
    assert rejection(R.ring, E(X) / (E(X) - E(X)), E(X)) is not None


def test_prop_key_gives_true_and_false_equations_the_keys_of_true_and_false() -> None:
    from sympy import false, true

    x = Symbol("x", real=True)
    assert R.prop_key(Eq(x, x, evaluate=False)) == R.prop_key(true)
    assert R.prop_key(Eq(x + 1, x, evaluate=False)) == R.prop_key(false)
    assert R.prop_key(true) != R.prop_key(false)
    assert R.prop_key(Eq(2 * x, 2, evaluate=False)) == R.prop_key(Eq(1, x, evaluate=False))


def test_an_inner_cross_sum_keeps_the_outer_cross_sums_i_ne_j() -> None:
    # Σ_{i≠j} Σ_{l≠m} E[q_i q_j]: the outer i ≠ j still holds inside the inner sum.
    m = index("m")
    before = CrossSum(CrossSum(E(q[i] * q[j]), ell, m, d), i, j, d)
    after = CrossSum(CrossSum(E(q[i]) * E(q[j]), ell, m, d), i, j, d)
    assert accepts(R.expectation_mul_of_indep, before, after, [IndependentComponents(q)])
