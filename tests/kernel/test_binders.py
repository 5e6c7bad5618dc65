"""The binder discipline, the frozen rule table and ill-formed terms (issue 12, kernel half).

Each false statement below was accepted (or crashed the kernel) before the discipline of
``scaledattn/kernel/binders.py``; the comment gives the numbers that show it false.
"""

from __future__ import annotations

from typing import Any

import pytest
from sympy import Abs, Eq, Integer, KroneckerDelta, S, Symbol, exp, sqrt

from scaledattn.derive import audit_of, calc, equivalence
from scaledattn.errors import (
    IllFormed,
    InvalidArgument,
    MissingAssumption,
    ProofError,
    UnknownRule,
)
from scaledattn.kernel import (
    RULES,
    Axiom,
    Context,
    CrossSum,
    Derivation,
    E,
    Entries,
    Equation,
    IndexRange,
    IndexSum,
    Lim,
    Moment,
    RandomVector,
    RealVector,
    Rule,
    SoftmaxVector,
    Step,
    Var,
    axiom,
    check,
    dimension,
    index,
    random_variables,
    same,
)
from scaledattn.kernel import calculus as C
from scaledattn.kernel import rules as R
from scaledattn.kernel.binders import Scope, arg_scopes, subst

i, j, k, t = (index(x) for x in "ijkt")
n, m = dimension("n"), dimension("m")
X, Y = random_variables("X Y")
a, b, c = (Symbol(x, real=True) for x in "abc")
s, r = RealVector("s", n), RealVector("r", n)
delta = KroneckerDelta


def verdict(lhs: Any, rhs: Any, rule: Any, assuming: tuple[Any, ...] = ()) -> ProofError | None:
    """The first error of the one-step derivation lhs = rhs by ``rule`` (None: verified)."""
    result = audit_of(calc("t", lhs, rhs, assuming=assuming).eq(rhs, by=rule).qed())
    return None if result.verified else result.errors[0]


# ------------------------------------------------------------- the examples


def test_example_1_shadowing_does_not_reach_ring() -> None:
    # Σᵢ₌₁ⁿ Σᵢ₌₁ᵐ i = n·m(m+1)/2 and Σᵢ₌₁ᵐ Σᵢ₌₁ⁿ i = m·n(n+1)/2: n = 2, m = 1 gives 2 vs 3.
    lhs, rhs = IndexSum(IndexSum(i, i, m), i, n), IndexSum(IndexSum(i, i, n), i, m)
    assert verdict(lhs, rhs, R.ring) is not None
    assert lhs.body.indices != (i,)  # the inner binder was renamed when the sum was built
    assert verdict(lhs, n * m * (m + 1) / 2, R.ring) is not None  # ring does no sums
    assert verdict(lhs, IndexSum(IndexSum(k, k, m), j, n), R.ring) is None  # alpha-equivalent


def test_example_2_a_product_of_sums_does_not_capture_a_free_index() -> None:
    # Σᵢ i · Σⱼ i (the second i free) = n(n+1)/2 · n·i; n = 1, i = 2: 2, not Σᵢ Σⱼ i·i = 1.
    lhs = IndexSum(i, i, n) * IndexSum(i, j, n)
    assert verdict(lhs, IndexSum(IndexSum(i * i, j, n), i, n), R.sum_mul_sum) is not None
    assert verdict(lhs, IndexSum(IndexSum(k * i, j, n), k, n), R.sum_mul_sum) is None


def test_example_3_a_limit_is_a_binder_for_delta_eq() -> None:
    # δ_ab·b·lim_{b→∞} eᵃ/(eᵃ + eᵇ): the limit is 0; rewriting its b into a gives 1/2.
    body = exp(a) / (exp(a) + exp(b))
    lhs = delta(a, b) * b * Lim(body, b)
    assert verdict(lhs, delta(a, b) * a * Lim(S.Half, a), C.delta_eq) is not None
    assert verdict(lhs, delta(a, b) * a * Lim(body, b), C.delta_eq) is None


def test_example_4_a_python_int_is_a_term_and_a_wrong_step_is_refused() -> None:
    # E[X] = 5 is not ring algebra: refused with a ProofError, not an AttributeError.
    error = verdict(E(X), 5, R.ring)
    assert isinstance(error, ProofError)
    assert verdict(Integer(5), 5, R.ring) is None
    assert audit_of(calc("t", 2, 2).eq(1 + 1, by=R.ring).qed()).verified


@pytest.mark.parametrize("claim", [0.5, "E(X)", True, None, [1], Eq(X, 1)])
def test_anything_that_is_not_a_term_is_refused_with_a_proof_error(claim: Any) -> None:
    error = verdict(E(X), claim, R.ring)
    assert isinstance(error, IllFormed), error
    d = Derivation("t", Equation(E(X), claim), (Step(R.ring, E(X)),))
    with pytest.raises(IllFormed):
        check(d)


def test_an_equation_chain_refuses_an_expression_and_a_bool_is_a_proposition() -> None:
    d = equivalence("t", Eq(a, 1), Eq(a, 1)).iff(a - 1, by=R.ring).qed()
    assert isinstance(audit_of(d).errors[0], IllFormed)
    d = equivalence("t", Eq(a, a), True).iff(True, by=R.ring).qed()
    assert audit_of(d).verified


# --------------------------------------------------- the families, kernel side


def test_fubini_does_not_reorder_sums_whose_inner_bound_names_the_outer_index() -> None:
    # Σᵢ₌₁ⁿ Σⱼ₌₁ⁱ 1 = n(n+1)/2, but Σⱼ₌₁ⁱ Σᵢ₌₁ⁿ 1 = i·n (i free): n = 2, i = 1 gives 3 vs 2.
    lhs = IndexSum(IndexSum(1, j, i), i, n)
    assert verdict(lhs, IndexSum(IndexSum(1, i, n), j, i), R.ring) is not None
    # The triangle summed the other way: Σᵢ Σ_{j≤i} i vs Σⱼ Σ_{i≤j} i: n = 2 gives 5 vs 4.
    lhs = IndexSum(IndexSum(i, j, i), i, n)
    assert verdict(lhs, IndexSum(IndexSum(i, i, j), j, n), R.ring) is not None
    # Independent bounds still commute, and a dependent one may stay inside.
    three = IndexSum(IndexSum(IndexSum(i * k, k, m), j, i), i, n)
    assert verdict(three, IndexSum(IndexSum(IndexSum(i * k, j, i), i, n), k, m), R.ring) is None


def test_a_bound_never_names_its_own_index() -> None:
    # Σᵢ₌₁ⁱ i: the bound's i is free; the sum is built as Σ_{i'=1}^{i} i' = i(i+1)/2.
    total = IndexSum(i, i, i)
    assert total.indices != (i,)
    assert total.upper == i
    assert verdict(total, i * i, R.count_terms) is not None


def test_sum_unroll_substitutes_into_a_dependent_inner_bound() -> None:
    # Σᵢ₌₁² Σⱼ₌₁ⁱ s_j = s₁ + (s₁ + s₂)
    lhs = IndexSum(IndexSum(s[j], j, i), i, 2)
    assert verdict(lhs, IndexSum(s[j], j, 1) + IndexSum(s[j], j, 2), R.sum_unroll) is None
    assert verdict(lhs, 2 * IndexSum(s[j], j, 2), R.sum_unroll) is not None


def test_a_moment_about_a_free_symbol_is_not_used_where_a_binder_rebinds_it() -> None:
    # E[X·t] = 1 for the free t. Under Σₜ: Σₜ E[X·t] = (n(n+1)/2)·E[X] = n(n+1)/(2t₀);
    # with t₀ = 1, n = 2 that is 3, not Σₜ 1 = 2.
    declared = (Moment(E(X * t), 1),)
    error = verdict(IndexSum(E(X * t), t, n), IndexSum(S.One, t, n), R.substitute_moment, declared)
    assert isinstance(error, MissingAssumption)
    # Under lim_{c→∞}: E[X·c] = 1 at c₀ = 1 makes E[X] = 1, and lim c·E[X] = ∞, not 1.
    declared = (Moment(E(X * c), 1),)
    assert verdict(Lim(E(X * c), c), Lim(S.One, c), R.substitute_moment, declared) is not None
    declared = (Moment(E(X), c),)
    assert verdict(Lim(E(X) / c, c), Lim(S.One, c), R.substitute_moment, declared) is not None
    # Away from the binder the same facts are used.
    assert verdict(E(X * t) + 1, Integer(2), R.substitute_moment, (Moment(E(X * t), 1),)) is None


def test_a_moments_schematic_indices_are_the_indices_free_in_its_left_side() -> None:
    q, k = RandomVector("q", n), RandomVector("k", n)
    assert Moment(E(q[i]), 0).indices == (i,)
    assert Moment(E(IndexSum(q[i], i, n)), 0).indices == ()
    assert Moment(E(q[j] * IndexSum(k[i], i, n)), 0).indices == (j,)


def test_a_moments_value_may_not_mention_a_symbol_its_left_side_binds() -> None:
    # E[Σᵢ qᵢ] = δ(i², i) − δ(i, 1) "for every i" (0 at every positive i) certified
    # E[Σₘ qₘ] = δ(m², m) − δ(m, 1) for an integer m: at m = 0 the right side is 1 and
    # the left side 0. The bound i left its sum through the value.
    q = RandomVector("q", n)
    with pytest.raises(InvalidArgument, match="may not mention i"):
        Moment(E(IndexSum(q[i], i, n)), delta(i**2, i) - delta(i, 1))
    with pytest.raises(InvalidArgument, match="may not mention a"):
        Moment(E(Lim(X * exp(-a), a)), a)


def test_a_bound_index_of_a_claim_never_instantiates_a_moments_schematic_index() -> None:
    q, k = RandomVector("q", n), RandomVector("k", n)
    m = Symbol("m", integer=True)
    # E[qⱼ·Σᵢ kᵢ] = j for every j: read at a free m, and at the m a sum binds around it,
    fact = (Moment(E(q[j] * IndexSum(k[i], i, n)), j),)
    assert verdict(E(q[m] * IndexSum(k[i], i, n)), m, R.substitute_moment, fact) is None
    around = IndexSum(E(q[m] * IndexSum(k[i], i, n)), m, n)
    assert verdict(around, IndexSum(m, m, n), R.substitute_moment, fact) is None
    # but never at an index bound inside the term: Σₘ qₘkₘ is not qⱼ·Σᵢ kᵢ at j = m.
    inside = E(IndexSum(q[m] * k[m], m, n))
    assert verdict(inside, m, R.substitute_moment, fact) is not None
    # A fact without a free index is one fact, read with its sum renamed.
    zero_sum = (Moment(E(IndexSum(q[i], i, n)), 0),)
    assert verdict(E(IndexSum(q[m], m, n)), S.Zero, R.substitute_moment, zero_sum) is None


def test_context_visible_drops_exactly_the_facts_about_bound_symbols() -> None:
    about_t, about_x = Moment(E(X * t), 1), Moment(E(X), 0)
    definition = Entries(r, s[j] + a * delta(j, t), j)
    ctx = Context((about_t, about_x, definition))
    inside_sum = arg_scopes(IndexSum(t, t, n), Scope())[0]
    assert ctx.visible(inside_sum).assumptions == (about_x,)
    inside_limit = arg_scopes(Lim(a, a), Scope())[0]
    assert ctx.visible(inside_limit).assumptions == (about_t, about_x, definition)
    assert ctx.visible(Scope()) is ctx


def test_moments_expectations_and_derivatives_are_real_only_when_their_argument_is() -> None:
    # √(E[z]²) = |E[z]| only for a real z: at z = i, √(i²) = i and |i| = 1.
    z = Symbol("z")
    assert E(z).is_real is None
    assert E(X).is_real is True
    assert Var(z).is_real is None
    assert verdict(sqrt(E(z) ** 2), Abs(E(z)), R.ring) is not None
    assert verdict(sqrt(E(X) ** 2), Abs(E(X)), R.ring) is None
    assert C.Deriv(z * s[i], s[k]).is_real is None
    assert C.Deriv(a * s[i], s[k]).is_real is True


def test_a_definition_of_entries_refuses_a_random_body() -> None:
    # r_j = X + s_j would be taken for a constant: E[X·r₁] = r₁E[X], then r₁ = X + s₁.
    with pytest.raises(InvalidArgument, match="not random"):
        Entries(r, X + s[j], j)
    Entries(r, E(X) + s[j], j)  # an expectation is a number


def test_the_signs_a_symbol_carries_are_listed_with_the_assumptions() -> None:
    from scaledattn.render import render
    from scaledattn.render.json import audit_json

    sigma = Symbol("sigma", positive=True)
    d = calc("t", sqrt(sigma**2), sigma).eq(sigma, by=R.ring).qed()
    result = audit_of(d)
    assert result.verified
    assert "sigma > 0 (carried by the symbol)" in render(result, "text")
    assert "carried by its symbols: sigma > 0" in render(result, "text")
    assert "`sigma > 0` (carried by the symbol)" in render(result, "markdown")
    assert audit_json(result)["carried_by_symbols"] == ["sigma > 0"]


def test_the_facts_of_integer_symbols_and_functions_are_listed_too() -> None:
    # √(k²) = −k holds for a negative k, and √(f²) = −f for a negative f: each shows why.
    from sympy import Function

    from scaledattn.render.json import audit_json

    k = Symbol("k", integer=True, negative=True)
    f = Function("f", negative=True)(E(X))
    from scaledattn.kernel import as_written

    for term in (k, f):
        result = audit_of(calc("t", sqrt(term**2), -term).eq(-term, by=R.ring).qed())
        assert result.verified
        carried = audit_json(result)["carried_by_symbols"]
        assert carried == (["k < 0", "k an integer"] if term is k else ["f(…) < 0"])
    even = Symbol("e", integer=True, positive=True, even=True)
    with as_written():
        lhs = (-1) ** even
    result = audit_of(calc("t", lhs, 1).eq(1, by=R.ring).qed())
    assert audit_json(result)["carried_by_symbols"] == ["e > 0", "e an integer", "e even"]


# ------------------------------------------------------------------ substitution


def test_subst_renames_a_binder_that_would_capture_and_skips_bound_occurrences() -> None:
    term = IndexSum(s[i] * s[j], i, n)
    moved = subst(term, {j: i})
    assert moved.indices != (i,)
    assert same(moved, IndexSum(s[k] * s[i], k, n)) is True
    assert subst(term, {i: j}) == term  # i is bound: nothing to replace
    cross = CrossSum(s[i] * s[j], i, j, n)
    assert subst(cross, {i: k}) == cross
    assert subst(Lim(a * b, b), {b: a}) == Lim(a * b, b)
    # A limit's variable is never renamed (definitions read it by name): capture is refused.
    with pytest.raises(InvalidArgument, match="never renamed"):
        subst(Lim(a * b, b), {a: b})


# ---------------------------------------------------------- registered rules, axioms


def _forget_mean(e: Any, ctx: Any, scope: Any) -> Any:
    return (E(e.args[0] ** 2), frozenset()) if isinstance(e, Var) else None


FORGET = Rule("forget_mean", "Var(Z) = E[Z²] (false)", _forget_mean)


def test_a_rule_that_is_not_registered_justifies_nothing() -> None:
    # Var(X) = E[X²] is false for X = 1 + coin: 1 vs 2.
    error = verdict(Var(X), E(X**2), FORGET)
    assert isinstance(error, UnknownRule)
    assert "axiom" in str(error)
    impostor = Rule("ring", "ring algebra", _forget_mean)
    assert isinstance(verdict(Var(X), E(X**2), impostor), UnknownRule)
    with pytest.raises(TypeError):
        RULES["forget_mean"] = FORGET  # type: ignore[index]


def test_an_axiom_is_accepted_and_marked_on_the_theorem_and_what_cites_it() -> None:
    assumed = axiom(FORGET)
    assert isinstance(assumed, Axiom)
    proof = calc("forgets", Var(X), E(X**2)).eq(E(X**2), by=assumed).qed()
    theorem = check(proof)
    assert theorem.axioms == frozenset({"forget_mean"})
    assert "verified modulo axiom forget_mean" in str(theorem)
    cited = calc("cites", Var(X) + 1, E(X**2) + 1).eq(E(X**2) + 1, by=proof).qed()
    assert audit_of(cited).theorem is not None
    assert audit_of(cited).theorem.axioms == frozenset({"forget_mean"})  # type: ignore[union-attr]
    plain = check(calc("plain", Var(X), Var(X)).eq(Var(X), by=R.ring).qed())
    assert plain.axioms == frozenset()


def test_an_equation_axiom_rewrites_like_a_theorem() -> None:
    mean = axiom("mean_is_one", E(X), 1)
    theorem = check(calc("t", E(X) + E(Y), 1 + E(Y)).eq(1 + E(Y), by=mean).qed())
    assert theorem.axioms == frozenset({"mean_is_one"})
    with pytest.raises(InvalidArgument):
        axiom("not an identifier", E(X), 1)
    with pytest.raises(InvalidArgument):
        axiom(FORGET, E(X), 1)


def test_every_rendering_says_verified_modulo_axiom() -> None:
    from scaledattn.render import render
    from scaledattn.render.json import audit_json

    result = audit_of(calc("forgets", Var(X), E(X**2)).eq(E(X**2), by=axiom(FORGET)).qed())
    for fmt in ("text", "markdown"):
        assert "verified modulo axiom forget_mean" in render(result, fmt)
    data = audit_json(result)
    assert data["axioms"] == ["forget_mean"]
    assert data["verified_modulo"] == "verified modulo axiom forget_mean"


# ------------------------------------------------ holes the oracle's fuzzer reported


def test_softmax_def_unfolds_a_weight_with_a_numeric_index() -> None:
    # H-F1: fresh_index read .name of the Integer index 1 (AttributeError).
    p = SoftmaxVector(s)
    total = IndexSum(exp(s[j]), j, n)
    assert verdict(p[1], exp(s[1]) / total, C.softmax_def) is None


def test_a_bound_that_is_the_outer_index_stays_bound_in_the_normal_form() -> None:
    # H-F2: Σᵢ₌₁ⁿ Σ_{i'=1}^{i} 1/2 = 3/2 at n = 2, but the renaming read the inner bound as
    # the free i (= 1): 2·(1/2) = 1.
    nested = IndexSum(IndexSum(S.Half, i, i), i, n)
    assert i not in nested.free_symbols
    assert verdict(nested, n * IndexSum(S.Half, j, i), R.ring) is not None


def test_sum_mul_sum_never_captures_a_symbol_free_in_another_factor() -> None:
    # H-F3: (Σⱼ 1)²(Σⱼ sᵢ)² = n²·n²sᵢ²; a fresh name i for one sum captured the free i.
    product = IndexSum(1, j, n) ** 2 * IndexSum(s[i], j, n) ** 2
    expanded = R.sum_mul_sum.apply(product, Context())[0]
    assert i in expanded.free_symbols
    assert same(R.count_terms.apply(expanded, Context())[0], n**4 * s[i] ** 2) is True


def test_a_theorem_copied_with_another_statement_justifies_nothing() -> None:
    # dataclasses.replace passes the token on: E[X] = E[X] copied as E[X] = 0 gave E[X] + 1 = 1.
    from dataclasses import replace

    proved = check(calc("t", E(X), E(X)).eq(E(X), by=R.ring).qed())
    forged = replace(proved, statement=Equation(E(X), 0))
    assert isinstance(verdict(E(X) + 1, Integer(1), forged), UnknownRule)
    assert verdict(E(X) + 1, E(X) + 1, proved) is None


def test_the_rule_table_is_closed_once_the_kernel_is_imported() -> None:
    with pytest.raises(RuntimeError, match="frozen"):
        R.register(FORGET)
    assert "forget_mean" not in RULES


class _SaysPositive(Symbol):
    """A user's subclass that declares itself positive without saying so anywhere."""

    is_positive = True
    is_real = True


def test_a_class_that_is_neither_sympys_nor_the_kernels_is_not_a_term() -> None:
    # √(σ²) = σ by ring, "assuming nothing", for a subclass that says it is positive:
    # false at σ = −1 (1 vs −1).
    sigma = _SaysPositive("sigma")
    assert isinstance(verdict(sqrt(sigma**2), sigma, R.ring), IllFormed)
    with pytest.raises(InvalidArgument, match="neither SymPy's nor the kernel's"):
        E(sigma * X)


def test_an_assumption_of_ones_own_class_is_refused() -> None:
    # A family saying every atom is its own block "proves" E[X·X] = E[X]·E[X] (X a coin
    # ±1: 1 vs 0); only the kernel's assumption classes are assumptions.
    from scaledattn.kernel.assumptions import Independence

    class EverythingIndependent(Independence):
        def block_key(self, atom: Any) -> Any:
            return (object(), None)

    error = verdict(E(X * Y), E(X) * E(Y), R.expectation_mul_of_indep, (EverythingIndependent(),))
    assert isinstance(error, IllFormed)
    assert "not an assumption of the kernel" in str(error)


def test_the_latex_of_a_proof_names_its_axioms_and_the_signs_of_its_symbols() -> None:
    sigma = Symbol("sigma", positive=True)
    carried = calc("t", sqrt(sigma**2), sigma).eq(sigma, by=R.ring).qed()
    assert r"\text{sigma > 0 (carried by the symbol)}" in carried._repr_latex_()
    assumed = calc("u", Var(X), E(X**2)).eq(E(X**2), by=axiom(FORGET)).qed()
    assert r"\text{verified modulo axiom forget_mean}" in assumed._repr_latex_()


def test_a_limit_whose_variable_a_definition_reads_is_never_renamed() -> None:
    # H-F4 (the oracle's fuzzer): lim_λ p_w = lim_μ p_w by ring, for r = s + λ·e_w, p =
    # softmax(r). At n = 2, w = 1, s = (0, 0), λ₀ = 0: the left is 1 (the lead wins), the
    # right the limit of a constant, p_w at λ₀ = 1/2.
    from scaledattn.definitions import Lead
    from scaledattn.kernel import SoftmaxVector

    lam, mu = Symbol("lambda", real=True), Symbol("mu", real=True)
    w = index("w")
    p = SoftmaxVector(r)
    assert verdict(Lim(p[w], lam), Lim(p[w], mu), R.ring, (Lead(r, s, w, lam),)) is not None
    lead = (Lead(r, s, w, lam), IndexRange(w, n))
    assert verdict(Lim(p[w], lam), Lim(p[w], lam), R.ring, lead) is None
    # without w ≤ n, r_w = s_w + λ may lead no entry of Σⱼ e^{rⱼ}: p_w need not converge
    assert "converges" in str(verdict(Lim(p[w], lam), Lim(p[w], lam), R.ring, lead[:1]))
    nested = Lim(Lim(p[w], lam) * lam, lam)  # the inner limit keeps its λ: it shadows
    assert str(nested) == "lim[lambda→∞](lambda*lim[lambda→∞](p_w))"
    with pytest.raises(InvalidArgument, match="never renamed"):
        subst(Lim(a * lam, lam), {a: lam})  # capture would need the limit renamed


def test_a_definition_a_sum_hides_still_says_what_its_vector_depends_on() -> None:
    # Found by the oracle's fuzzer on issue-12: under Σ_w (binding Lead's w) the definition
    # r_j = s_j + λδ_jw was dropped, so r_w looked free of s and ∂(Σ_w r_w)/∂s_i became 0.
    # At n = 2, i = 1: ∂/∂s₁ Σ_w (s_w + λδ_w,w₀) = 1, not 0.
    from scaledattn.definitions import Lead

    lam, w = Symbol("lambda", real=True), index("w")
    lead = (Lead(r, s, w, lam),)
    term = C.Deriv(IndexSum(r[w], w, n), s[i])
    assert verdict(term, IndexSum(S.Zero, w, n), C.deriv_linear, lead) is not None
    assert verdict(term, S.Zero, C.deriv_linear, lead) is not None
    inside = arg_scopes(IndexSum(r[w], w, n), Scope())[0]
    hidden = Context(lead).visible(inside)
    assert hidden.assumptions == ()
    assert hidden.unreadable == lead
