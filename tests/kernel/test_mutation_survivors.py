"""Admission facts of the kernel that only the mutation run missed.

Each test states what the kernel must accept or refuse: a vector's name only where a
component or a dot product names its vector, a symbol or function with a fact no term
may carry, display parentheses in a claim, a theorem proved under a definition used
where the same definition holds. Each was checked by switching on the mutant that
survived without it (``MUTANT_UNDER_TEST`` in mutmut's ``mutants/``) and seeing it fail.
"""

from __future__ import annotations

from typing import Any

import pytest
import sympy
from sympy import Expr, Function, Symbol

from scaledattn.definitions import Lead
from scaledattn.errors import InvalidArgument
from scaledattn.kernel import (
    RULES,
    Component,
    Derivation,
    E,
    Equation,
    Group,
    RandomVector,
    RealVector,
    Step,
    as_written,
    audit,
    dimension,
    index,
    random_variables,
)
from scaledattn.kernel.binders import Binder
from scaledattn.kernel.expr import (
    DotProduct,
    OpaqueTerm,
    VectorLabel,
    as_term,
    normal_form,
    same,
    unclaimable,
)

n = dimension("n")
i, w = index("i"), index("w")
X, Y = random_variables("X Y")
x = Symbol("x", real=True)
q, k = RandomVector("q", n), RandomVector("k", n)


# ------------------------------------------- a vector's name, only where it is named


def test_a_dot_product_names_its_two_vectors() -> None:
    assert as_term(DotProduct(q, k)) == DotProduct(q, k)
    assert as_term(q[i] * k[i]) == q[i] * k[i]


@pytest.mark.parametrize(
    "term",
    [q.label**2, q.label + 1, E(q[i]) * q.label],
    ids=["power", "sum", "product"],
)
def test_a_vectors_name_alone_is_not_a_number(term: Expr) -> None:
    with pytest.raises(InvalidArgument, match="q names a random vector"):
        as_term(term)


def test_a_dot_products_dimension_and_a_components_index_are_not_vector_names() -> None:
    # Built past the constructors, which check these themselves: the admission checks too.
    r = VectorLabel("r")
    for term in (
        Expr.__new__(DotProduct, q.label, k.label, r),
        Expr.__new__(Component, q.label, r),
    ):
        with pytest.raises(InvalidArgument, match="r names a random vector"):
            as_term(term)


# ----------------------------------------------------- facts no term may carry


@pytest.mark.parametrize(
    "facts",
    [{"antihermitian": True}, {"commutative": False}],
    ids=["antihermitian", "not-commuting"],
)
def test_a_symbol_with_a_fact_no_term_carries_is_refused(facts: dict[str, bool]) -> None:
    with pytest.raises(InvalidArgument, match="carries a fact the kernel does not take"):
        as_term(Symbol("a", **facts))


@pytest.mark.parametrize("fact", ["imaginary", "antihermitian", "commutative"])
def test_a_function_told_afterwards_a_fact_no_term_carries_is_refused(fact: str) -> None:
    # f(x) with f.is_imaginary = True is imaginary (f(x)² < 0), though SymPy deduced
    # nothing more from it: the kernel reads the fact itself.
    f = Function(f"f_{fact}")
    setattr(f, f"is_{fact}", fact != "commutative")
    assert getattr(f(x), f"is_{fact}") is (fact != "commutative")
    with pytest.raises(InvalidArgument, match="neither SymPy's nor the kernel's"):
        as_term(f(x))
    assert as_term(Function(f"g_{fact}", real=True)(x)) is not None


def test_a_function_whose_fact_is_no_truth_value_is_refused() -> None:
    # A fact is True, False or None (unknown); anything else is read by SymPy as it likes.
    f = Function("f_finite")
    f.is_finite = "yes"
    with pytest.raises(InvalidArgument, match="neither SymPy's nor the kernel's"):
        as_term(f(x))


def test_a_display_group_that_restates_a_value_of_group_in_another_type_is_refused() -> None:
    class Restated(Group):
        is_Atom = 0  # noqa: N815 - Group's is False: equal, but not the same value

    with pytest.raises(InvalidArgument, match="neither SymPy's nor the kernel's"):
        as_term(Restated(x))


def test_a_sympy_class_outside_the_language_is_named_as_sympys() -> None:
    with pytest.raises(InvalidArgument, match="Sum is not in the kernel's language"):
        as_term(sympy.Sum(x, (i, 1, n)))


# ------------------------------------------------------------- claims and theorems


def test_display_parentheses_in_a_statement_are_a_term() -> None:
    with as_written():
        lhs = E(Group(X + Y))
    rhs = E(X) + E(Y)
    proof = Derivation("grouped", Equation(lhs, rhs), (Step(RULES["expectation_linear"], rhs),))
    assert audit(proof).verified


def test_display_parentheses_around_a_division_by_zero_are_refused() -> None:
    with as_written():
        grouped = Group(1 / sympy.Pow(sympy.Integer(0), -1, evaluate=False))
    assert "ComplexInfinity" in (unclaimable(grouped) or "")


def test_a_theorem_with_a_derivative_on_its_right_applies_under_its_definition() -> None:
    # T: exp(c) = exp(c·(∂(2r)/∂s − 2∂r/∂s + 1)) under r_j = s_j + 1, proved by
    # linearity alone; used under the same definition. The definitions a theorem
    # is proved under are those of the vectors its two sides name.
    from scaledattn.prooffile.files import check_text

    right = "exp(c*(deriv(2*r_m, s_m) - 2*deriv(r_m, s_m) + 1))"
    defined = "assume: r_j = s_j + 1\n"
    theorem = f"theorem T: exp(c) = {right}\n{defined}  exp(c)\n  = {right}   by deriv_linear\n\n"
    for rule, verified in (("T", True), ("ring", False)):
        use = f"theorem U: 2*exp(c) = 2*{right}\n{defined}  2*exp(c)\n  = 2*{right}   by {rule}\n"
        verdicts = check_text(theorem + use, "survivors.proof").verdicts
        assert [v.verified for v in verdicts] == [True, verified]


def test_a_definition_keeps_its_label() -> None:
    from scaledattn.definitions import Shift
    from scaledattn.kernel import Entries
    from scaledattn.render.display import assumption_text

    r, s = RealVector("r", n), RealVector("s", n)
    lam = Symbol("lambda", real=True)
    assert assumption_text(Lead(r, s, w, lam)).endswith("(score w leads by λ)")
    assert assumption_text(Shift(r, s, lam)).endswith("(all scores shifted by λ)")
    j = index("j")
    assert assumption_text(Entries(r, s[j] + 1, j)) == "r_j = 1 + s_j for every j"  # no label


# ------------------------------------------------- definitions that refer back


def test_a_definition_that_refers_back_is_named_and_found_after_any_other_assumption() -> None:
    from scaledattn.kernel import Context, Entries, Moment

    r, g = RealVector("r", n), RealVector("g", n)
    j = index("j")
    cyclic = (Entries(r, g[j] + 1, j), Entries(g, r[j], j))  # r = r + 1
    with pytest.raises(InvalidArgument, match="the definition of r refers back to it"):
        Context.of((Moment(E(Y), 0), *cyclic))
    with pytest.raises(InvalidArgument, match="the definition of r refers back to it"):
        Context.of((Entries(r, E(X) + 1, j), Moment(E(X), r[1])))  # r_1 = r_1 + 1


def test_a_definition_by_a_moment_declared_a_number_is_not_circular() -> None:
    from scaledattn.kernel import Context, Entries, Moment

    r, j = RealVector("r", n), index("j")
    context = Context.of((Entries(r, E(X) + 1, j), Moment(E(X), 2)))  # r_j = 3
    assert len(context.assumptions) == 2


# ------------------------------------------------------------- names that clash


def test_a_symbol_named_like_a_vector_of_an_assumption_clashes() -> None:
    # q the real number and q the random vector print alike: a reader could not tell them.
    from scaledattn.kernel.assumptions import IndependentComponents

    q_number = Symbol("q", real=True)
    claim = q_number + 1
    for vector, clash in ((q, True), (k, False)):
        proof = Derivation(
            "named", Equation(1 + q_number, claim), (Step(RULES["ring"], claim),),
            (IndependentComponents(vector),),
        )  # fmt: skip
        result = audit(proof)
        assert result.verified is not clash
        assert ("two different things are named q" in str(result.errors)) is clash


def test_a_softmax_weight_built_without_its_name_clashes_with_its_scores_entry() -> None:
    # Past its constructor, a softmax weight of s with no name of its own is read as
    # s's: the entry s_i and it are two things under one name.
    from scaledattn.kernel import SoftmaxVector
    from scaledattn.kernel.vectors import Softmax

    s = RealVector("s", n)
    nameless = Expr.__new__(Softmax, *SoftmaxVector(s, "p")[i].args[:3])
    claim = s[i] + nameless
    proof = Derivation("nameless", Equation(nameless + s[i], claim), (Step(RULES["ring"], claim),))
    result = audit(proof)
    assert not result.verified
    assert "two different things are named s" in str(result.errors)


# -------------------------------------------------- facts under a limit's binder


def test_a_definition_reaching_a_parameter_a_limit_binds_still_defines_its_vector() -> None:
    # r_j = s_j + 1 and s_j = t_j + μδ_jw: under lim over μ, r_i = s_i + 1 still holds (the
    # definition of s, with its μ, is read where it is used). With i ≠ w, s_i = t_i and
    # the limit exists (at i = w it would not: s_w = t_w + μ).
    from scaledattn.definitions import Lead, Shift
    from scaledattn.kernel import Distinct, Lim

    r, s, t = RealVector("r", n), RealVector("s", n), RealVector("t", n)
    mu = Symbol("mu", real=True)
    claim = Lim(s[i] + 1, mu)
    facts = (Lead(s, t, w, mu), Shift(r, s, 1))
    step = (Step(RULES["entries_def"], claim),)
    proof = Derivation("unfold", Equation(Lim(r[i], mu), claim), step, facts)
    assert "converges, which is not assumed" in str(audit(proof).errors[0])
    proof = Derivation("unfold", Equation(Lim(r[i], mu), claim), step, (*facts, Distinct(i, w)))
    assert audit(proof).verified


def test_a_moment_about_a_constant_is_not_used_where_a_limit_binds_it() -> None:
    # E[X] = c + r_1 is about the free c; inside lim over c, c is another variable.
    from scaledattn.definitions import Shift
    from scaledattn.kernel import Lim, Moment

    r, s = RealVector("r", n), RealVector("s", n)
    c, a = Symbol("c", positive=True), Symbol("a", real=True)  # E[X]/c needs c ≠ 0
    facts = (Shift(r, s, a), Moment(E(X), sympy.exp(c) + r[1]))
    decay = sympy.exp(-2 * c)  # so that the limit converges: (e^c + r_1)e^{−2c} → 0
    for lhs, claim, verified in (
        (E(X) / c, (sympy.exp(c) + r[1]) / c, True),
        (Lim(E(X) * decay, c), Lim((sympy.exp(c) + r[1]) * decay, c), False),
    ):
        steps = (Step(RULES["substitute_moment"], claim),)
        assert audit(Derivation("moment", Equation(lhs, claim), steps, facts)).verified is verified


def test_a_chain_of_equalities_that_claims_a_proposition_says_so() -> None:
    # x = 1 is no value x + 0·x could equal: the step is refused for what it claims.
    proof = Derivation("prop", Equation(x, x), (Step(RULES["ring"], sympy.Eq(x, 1)),))
    result = audit(proof)
    assert not result.verified
    assert "a chain of equalities claims expressions, got Eq(x, 1)" in str(result.errors[0])


def test_a_function_clashes_with_a_symbol_or_another_function_of_its_name() -> None:
    # f(x) beside the number f, or beside a positive f(x): one name, two things.
    f = Function("f")(x)
    for other, clash in (
        (Symbol("f", real=True), True),
        (Function("f", positive=True)(x), True),
        (Function("g")(x), False),
    ):
        claim = other + f
        result = audit(Derivation("fn", Equation(f + other, claim), (Step(RULES["ring"], claim),)))
        assert result.verified is not clash
        assert ("two different things are named f" in str(result.errors)) is clash


# ------------------------------------------------------------- ranges in scope


def test_an_outer_indexs_range_is_known_under_a_binder_that_does_not_rebind_it() -> None:
    # Σ_{m≤n} Σ_{k≤u} Σ_{j≤n} δ_jm = Σ_{m≤n} Σ_{k≤u} 1: inside Σ_k, m still ranges over 1..n.
    from scaledattn.kernel import IndexSum

    u = dimension("u")
    j, m, kk = index("j"), index("m"), index("k")
    lhs = IndexSum(IndexSum(IndexSum(sympy.KroneckerDelta(j, m), j, n), kk, u), m, n)
    claim = IndexSum(IndexSum(sympy.Integer(1), kk, u), m, n)
    proof = Derivation("outer", Equation(lhs, claim), (Step(RULES["sum_delta"], claim),))
    assert audit(proof).verified


# --------------------------------------------- a binder of two variables, added later


class _DoubleIntegral(Binder, OpaqueTerm):
    """∫₀ᵘ∫₀ᵘ f dx dy: binds x and y in f; u lies outside (a binder of the tests)."""

    is_commutative = True
    scope_at = (0,)
    bound_at = (1, 2)

    def __new__(cls, f: Any, x: Symbol, y: Symbol, upper: Any) -> _DoubleIntegral:
        made: _DoubleIntegral = Expr.__new__(cls, f, x, y, upper)
        return made


class _Integral(Binder, OpaqueTerm):
    """∫₀ᵘ f dx: binds x in f; u lies outside (a binder of the tests)."""

    is_commutative = True
    scope_at = (0,)
    bound_at = (1,)

    def __new__(cls, f: Any, x: Symbol, upper: Any) -> _Integral:
        made: _Integral = Expr.__new__(cls, f, x, upper)
        return made


def test_each_variable_of_a_binder_has_its_own_canonical_name() -> None:
    # ∫₀ᵘ ∫∫ a·b da db da₀ against ∫₀ᵘ ∫∫ a·a₀ da db da₀: the first has b where the
    # second has the outer variable; one canonical name for b and the outer a₀ would
    # read them alike.
    a0, a, b, u = (Symbol(s, real=True) for s in ("a0", "a", "b", "u"))
    first = _Integral(_DoubleIntegral(a * b, a, b, u), a0, u)
    second = _Integral(_DoubleIntegral(a * a0, a, b, u), a0, u)
    assert same(first, _Integral(_DoubleIntegral(b * a, b, a, u), a0, u)) is True
    assert same(first, second) is not True


def test_a_binder_in_another_binders_bound_compares_up_to_its_names() -> None:
    # ∫₀^(∫₀ᵘ y dy) x dx is ∫₀^(∫₀ᵘ z dz) t dt renamed.
    x_, y_, z_, t_, u = (Symbol(s, real=True) for s in ("x", "y", "z", "t", "u"))
    first = _Integral(x_, x_, _Integral(y_, y_, u))
    assert same(first, _Integral(t_, t_, _Integral(z_, z_, u))) is True


class _Box(OpaqueTerm):
    """An opaque term of the tests, built here around a Python list (unhashable)."""


def test_the_normal_form_of_a_term_sympy_cannot_hash_is_computed() -> None:
    boxed = Expr.__new__(_Box, [1, 2])
    with pytest.raises(TypeError):
        hash(boxed)
    assert normal_form(boxed) == boxed  # computed, not kept in the table of normal forms


def test_a_step_refused_as_ill_formed_is_reported_with_its_number_and_rule() -> None:
    # 0.5 is no exact term: step 2 (by ring) is refused, and the refusal says which.
    half = sympy.Float(0.5)
    steps = (Step(RULES["ring"], x), Step(RULES["ring"], half))
    result = audit(Derivation("float", Equation(x, half), steps))
    refused = result.steps[1]
    assert (refused.number, refused.rule_name, refused.ok) == (2, "ring", False)
    assert (refused.step.claim, refused.used) == (half, frozenset())  # nothing used
    assert refused.error is not None
    assert refused.error.got == half  # what it was given


# ------------------------------------------- the case split and convergence (issue 12)


def test_a_sum_converges_term_by_term_where_the_whole_has_no_form() -> None:
    # √(1 + e^{−λ}) − 1: each term converges (the root through its square); the whole,
    # not positive, has no form P(e^λ)/Q(e^λ).
    from scaledattn.kernel import Lim
    from scaledattn.kernel.calculus import converges

    lam = Symbol("lam", positive=True)
    assert converges(sympy.sqrt(1 + sympy.exp(-lam)) - 1, lam, {}) is True
    claim = Lim(sympy.sqrt(1 + sympy.exp(-lam)) - 1, lam)
    assert audit(Derivation("s", Equation(claim, claim), (Step(RULES["ring"], claim),))).verified


def test_a_denominator_that_is_no_polynomial_in_e_lambda_has_no_form() -> None:
    from scaledattn.kernel.calculus import converges, eventual_sign

    lam = Symbol("lam", positive=True)
    assert converges(1 / (1 + sympy.sqrt(1 + sympy.exp(lam))), lam, {}) is None
    assert eventual_sign(X / (1 + sympy.sqrt(1 + sympy.exp(lam))), lam, {}) is None


def test_three_deltas_are_split_into_eight_cases_in_a_fixed_order() -> None:
    from scaledattn.kernel import Context
    from scaledattn.kernel.calculus import MAX_CASES, cases

    lam = Symbol("lam", positive=True)
    a, b, c, d = (index(x) for x in "abcd")
    deltas = [sympy.KroneckerDelta(a, b), sympy.KroneckerDelta(b, c), sympy.KroneckerDelta(c, d)]
    assert len(deltas) == MAX_CASES
    f = sympy.exp(lam) * (4 * deltas[0] + 2 * deltas[1] + deltas[2])
    split = cases(f, lam, Context())
    assert split is not None
    assert split[0] == [k * sympy.exp(lam) for k in range(8)]  # δ_ab δ_bc δ_cd: the bits


def test_a_delta_under_a_sum_is_not_counted_among_the_cases() -> None:
    # three free deltas and a fourth under a λ-free sum: still three to split
    from scaledattn.kernel import Context, IndexSum
    from scaledattn.kernel.calculus import cases

    lam = Symbol("lam", positive=True)
    a, b, c, d = (index(x) for x in "abcd")
    free = sympy.KroneckerDelta(a, b) + sympy.KroneckerDelta(b, c) + sympy.KroneckerDelta(c, d)
    bound = IndexSum(sympy.KroneckerDelta(i, a), i, n)
    split = cases(sympy.exp(-lam) * (free + bound), lam, Context())
    assert split is not None
    assert len(split[0]) == 8


def test_a_condition_found_at_two_scopes_must_hold_at_both() -> None:
    # e^λ − 2 ≠ 0 holds for large λ inside the limit, not for every λ > 0 outside it
    from scaledattn.kernel import Lim

    lam = Symbol("lam", positive=True)
    inside = Lim(sympy.exp(-lam) / (sympy.exp(lam) - 2), lam)
    outside = 1 / (sympy.exp(lam) - 2)
    for claim in (inside + outside, outside + inside, inside * outside, outside * inside):
        result = audit(Derivation("t", Equation(claim, claim), (Step(RULES["ring"], claim),)))
        assert "exp(lam) - 2 ≠ 0, which is not assumed" in str(result.errors[0])
    alone = audit(Derivation("t", Equation(inside, inside), (Step(RULES["ring"], inside),)))
    assert alone.verified


def test_one_step_is_checked_alone_without_a_derivations_memo() -> None:
    from scaledattn.kernel.theorem import check_step

    proof = Derivation("one", Equation(E(X + Y), E(X) + E(Y)), ())
    step = Step(RULES["expectation_linear"], E(X) + E(Y))
    assert check_step(E(X + Y), step, 1, proof).ok
    seen: dict[int, Any] = {}
    assert check_step(E(X + Y), step, 1, proof, admitted=seen).ok
    assert len(seen) == 2  # the previous expression and the claim, each admitted once


def test_conditions_keeps_every_scope_a_condition_stands_at() -> None:
    from scaledattn.kernel import Lim
    from scaledattn.kernel.expr import conditions

    lam = Symbol("lam", positive=True)
    divisor = sympy.exp(lam) - 2
    for claim in (Lim(sympy.exp(-lam) / divisor, lam) + 1 / divisor, 1 / divisor + 1 / divisor**3):
        scopes = conditions(claim)[("nonzero", divisor)]
        limits = sorted(len(s.limits) for s in scopes)
        assert limits == ([0, 1] if claim.has(Lim) else [0]), scopes


def test_which_conditions_a_term_is_asked_for_written_and_evaluated() -> None:
    # 1/√x written as (x^{1/2})^{−1}: written, x ≥ 0 and √x ≠ 0; evaluated, x^{−1/2}: x > 0
    from scaledattn.kernel.expr import unclaimable

    x = Symbol("x", real=True)
    written = sympy.Pow(sympy.Pow(x, sympy.Rational(1, 2), evaluate=False), -1, evaluate=False)
    for total, expected in (
        (False, {("nonzero", sympy.sqrt(x))}),  # x > 0 kept by evaluation covers x ≥ 0
        (True, {("nonzero", sympy.sqrt(x)), ("nonnegative", x), ("positive", x)}),
    ):
        asked: set[tuple[str, Any]] = set()

        def holds(kind: str, base: Any, scope: Any, asked: Any = asked) -> bool:
            asked.add((kind, base))
            return True

        assert unclaimable(written, holds, total=total) is None
        assert asked == expected


# --------------------------------------- the last screen of issue 12: surviving mutants


def test_a_derivation_given_lists_holds_tuples() -> None:
    steps = [Step(RULES["expectation_linear"], E(X) + E(Y))]
    proof = Derivation("d", Equation(E(X + Y), E(X) + E(Y)), steps, [])  # type: ignore[arg-type]
    assert type(proof.steps) is tuple
    assert type(proof.assumptions) is tuple


def test_a_moment_about_scores_is_not_read_under_a_derivative_inside_a_sum() -> None:
    from scaledattn.kernel import Deriv, IndexSum, Moment, RealVector

    s = RealVector("s", n)
    inside = Deriv(IndexSum(E(X) * i, i, n), s[1])
    claim = Deriv(IndexSum(s[1] * i, i, n), s[1])
    step = (Step(RULES["substitute_moment"], claim),)
    result = audit(Derivation("m", Equation(inside, claim), step, (Moment(E(X), s[1]),)))
    assert not result.verified
    assert "MissingAssumption" in repr(result.errors[0])


def test_a_tie_of_max_is_the_only_corner_of_two_arguments() -> None:
    # Max(s₁, s₁ + Σⱼ e^{sⱼ}): the tie is never (the sum is > 0 by its form), though s₁ may be 0
    from scaledattn.kernel import Deriv, IndexSum, RealVector

    s = RealVector("s", n)
    jj = index("jj")
    f = Deriv(sympy.Max(s[1], s[1] + IndexSum(sympy.exp(s[jj]), jj, n)), s[1])
    assert audit(Derivation("t", Equation(f, f), (Step(RULES["ring"], f),))).verified


def test_a_condition_inside_a_sum_up_to_lambda_that_names_an_entry_holds_for_large_lambda() -> None:
    from scaledattn.kernel import IndexSum, Lim, RealVector

    lam = Symbol("λ", positive=True, integer=True)
    s = RealVector("s", n)
    jj = index("jj")
    body = IndexSum(sympy.KroneckerDelta(jj, 1) / (sympy.exp(lam) - sympy.exp(s[1])), jj, lam)
    claim = Lim(body, lam)
    assert audit(Derivation("g", Equation(claim, claim), (Step(RULES["ring"], claim),))).verified


def test_a_form_with_more_deltas_than_the_cases_is_read_directly() -> None:
    from scaledattn.kernel import Lim

    lam = Symbol("lam", positive=True)
    a, b, c, d, e = (index(x) for x in "abcde")
    deltas = sum(sympy.KroneckerDelta(*p) for p in ((a, b), (b, c), (c, d), (d, e)))
    claim = Lim((deltas + 1) * sympy.exp(-lam), lam)
    assert audit(Derivation("f", Equation(claim, claim), (Step(RULES["ring"], claim),))).verified


def test_an_equivalence_may_end_in_a_python_truth_value() -> None:
    from scaledattn.kernel import Equivalence

    x = Symbol("x", real=True)
    proof = Derivation(
        "t", Equivalence(sympy.Eq(x, x, evaluate=False), True), (Step(RULES["ring"], True),)
    )
    assert audit(proof).verified
