"""Edges of the kernel that its chain tests did not reach (found by the mutation run).

Each test states a behaviour the kernel must have: a renaming that must not capture, a
binder added later that must still compare up to its bound names, a fact of an unknown
kind that must be dropped where its symbol is rebound, an ill-formed axiom refused, the
rule table staying closed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import pytest
import sympy
from sympy import Dummy, Eq, Expr, Function, Integer, Rational, Symbol
from sympy.core.cache import clear_cache

from scaledattn.errors import IllFormed, InvalidArgument, StepMismatch, UnknownRule
from scaledattn.kernel import (
    RULES,
    Context,
    CrossSum,
    Derivation,
    Distinct,
    E,
    Equation,
    Equivalence,
    Group,
    Independent,
    IndexSum,
    Lim,
    Moment,
    Rule,
    Step,
    Var,
    as_written,
    audit,
    axiom,
    check,
    dimension,
    index,
    normal_form,
    random_variables,
    same,
)
from scaledattn.kernel import rules as R
from scaledattn.kernel.assumptions import Assumption, Independence
from scaledattn.kernel.binders import Binder, Scope, subst
from scaledattn.kernel.expr import OpaqueTerm, as_term

i, j, k = index("i"), index("j"), index("k")
i1 = index("i'")
n, m, u = dimension("n"), dimension("m"), dimension("u")
X, Y = random_variables("X Y")
c = Symbol("c", real=True)
x, y = Symbol("x", real=True), Symbol("y", real=True)


# ------------------------------------------------------------------------ renaming


def test_renaming_an_inner_sum_avoids_every_name_free_in_it() -> None:
    # Σᵢ₌₁ᵐ Σᵢ₌₁ⁿ i·i' rebinds i inside: the inner i must be renamed to a name that is
    # neither i nor the free i' (i' would be captured: Σ_{i'} i'·i' is another sum).
    # At m = 1, n = 2, i' = 5: (1 + 2)·5 = 15, while Σ_{i'} i'² = 5.
    term = IndexSum(IndexSum(i * i1, i, n), i, m)
    assert i1 in term.free_symbols
    assert same(term, IndexSum(IndexSum(k * i1, k, n), i, m)) is True
    assert same(term, IndexSum(IndexSum(k * k, k, n), i, m)) is not True


def test_a_sum_whose_bound_names_its_index_is_renamed_away_from_every_free_name() -> None:
    # Σ_{i=1}^{i} i·i': the bound's i is free, so the index is renamed, and not to the free
    # i' (Σ_{i'=1}^{i} i'·i' is another sum: at i = 2, i' = 5 it is 5 against 15).
    term = IndexSum(i * i1, i, i)
    assert term.free_symbols == {i, i1}
    assert same(term, IndexSum(k * i1, k, i)) is True


def test_substitution_renames_a_capturing_binder_away_from_every_name_in_it() -> None:
    # (Σᵢ i·j·i')[j := i]: the sum's i would capture the new i, so it is renamed, and not
    # to the free i' (Σ_{i'} i'·i·i' is another sum).
    moved = subst(IndexSum(i * j * i1, i, n), {j: i})
    assert moved.free_symbols == {i, i1, n}
    assert same(moved, IndexSum(k * i * i1, k, n)) is True


def test_a_sum_over_a_dummy_index_is_renamed_to_a_dummy_index() -> None:
    # A Dummy is SymPy's own symbol: a sum over one is renamed like any other, keeping
    # its index an integer (Σ_d d·j with j := d is Σ_{d'} d'·d, not a refused term).
    d = Dummy("d", integer=True, positive=True)
    moved = subst(IndexSum(d * j, d, n), {j: d})
    assert moved.free_symbols == {d, n}
    assert same(moved, IndexSum(k * d, k, n)) is True


def test_both_indices_of_a_cross_sum_renamed_at_once_get_two_fresh_names() -> None:
    # (Σ_{i≠i'} i·i'·j·k)[j := i, k := i']: both indices would capture, so both are
    # renamed, each to its own fresh name (one name for both is no cross sum).
    v, w = index("v"), index("w")
    moved = subst(CrossSum(i * i1 * j * k, i, i1, n), {j: i, k: i1})
    assert moved.free_symbols == {i, i1, n}
    assert same(moved, CrossSum(v * w * i * i1, v, w, n)) is True


def test_substitution_replaces_a_term_under_a_binder_unless_the_binder_binds_it() -> None:
    # E[X·j] := c reaches into Σᵢ (j is free there); E[X·i] := c does not (i is bound).
    assert same(subst(IndexSum(E(X * j) * i, i, n), {E(X * j): c}), IndexSum(c * i, i, n))
    bound = IndexSum(E(X * i), i, n)
    assert subst(bound, {E(X * i): c}) == bound


def test_a_renamed_binder_avoids_the_names_of_every_key_and_value_substituted() -> None:
    # (Σᵢ i·j)[j := i + i']: the sum is renamed, not to i' (which the value brings in).
    moved = subst(IndexSum(i * j, i, n), {j: i + i1})
    assert same(moved, IndexSum(k * (i + i1), k, n)) is True
    # (Σᵢ E[X·i]·j)[j := i, E[X·i'] := c]: renamed to i', the body's E[X·i] would become
    # the key E[X·i'] and be replaced, though no E[X·i'] was there.
    moved = subst(IndexSum(E(X * i) * j, i, n), {j: i, E(X * i1): c})
    assert same(moved, IndexSum(E(X * k) * i, k, n)) is True


def test_a_normal_form_never_takes_a_dependent_bound_outside_its_sum() -> None:
    # Σᵢ₌₁ⁿ Σⱼ₌₁ⁱ i·j² has no free index; taken the other way round, Σⱼ₌₁^ι Σᵢ₌₁ⁿ, its bound
    # ι would be free, and a term built from the normal form's own bound symbols (public,
    # via normal_form) with that ι free would be "equal" to it.
    closed = IndexSum(IndexSum(i * j**2, j, i), i, n)
    canonical = normal_form(closed)
    assert canonical.free_symbols == {n}
    outer, inner = canonical.indices[0], canonical.body.indices[0]
    dangling = IndexSum(IndexSum(inner * outer**2, inner, n), outer, inner)
    assert inner in dangling.free_symbols
    assert same(closed, dangling) is not True


# ------------------------------------------------------- a binder added later


class _Integral(Binder, OpaqueTerm):
    """∫₀ᵘ f dx: binds x in f; the upper limit u lies outside (a binder of the tests)."""

    is_commutative = True
    scope_at = (0,)
    bound_at = (1,)

    def __new__(cls, f: Any, var: Symbol, upper: Any) -> _Integral:
        made: _Integral = Expr.__new__(cls, f, var, upper).unshadowed()
        return made


def test_a_binder_added_later_compares_up_to_the_names_it_binds() -> None:
    # ∫₀ᵘ ∫₀ˣ y dy dx = u³/6 is ∫₀ᵘ ∫₀ʸ x dx dy renamed; ∫₀ᵘ ∫₀ˣ x dy dx = u³/3 is not.
    # Each depth has its own canonical name: one name for both would read both as the
    # same term.
    inner_y = _Integral(_Integral(y, y, x), x, u)
    renamed = _Integral(_Integral(x, x, y), y, u)
    inner_x = _Integral(_Integral(x, y, x), x, u)
    assert same(inner_y, renamed) is True
    assert same(inner_y, inner_x) is not True
    assert same(_Integral(c * x, x, u), _Integral(c * y, y, u)) is True
    assert same(_Integral(c * x, x, u), _Integral(c * y, y, n)) is not True


def test_canonical_names_are_made_on_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    # The same comparisons from an empty table of canonical names: each depth's name
    # is made when first needed, with the bound symbol's assumptions (x and y are
    # real). In a process that has compared binders before, the table is already full.
    import scaledattn.kernel.expr as expr_module

    monkeypatch.setattr(expr_module, "_CANONICAL", {})
    monkeypatch.setattr(expr_module, "_NORMAL_FORMS", {})  # else read, not computed
    test_a_binder_added_later_compares_up_to_the_names_it_binds()
    made = list(expr_module._CANONICAL.values())
    assert len(made) == 2  # depths 0 and 1
    assert all(isinstance(name, Dummy) and name.is_real for name in made)


def test_a_fact_about_a_symbol_an_outer_sum_binds_stays_hidden_under_an_inner_sum() -> None:
    # E[X·t] = 1 is about the free t; under Σₜ (and under Σⱼ inside it) t is bound:
    # Σₜ Σⱼ E[X·t] is not Σₜ Σⱼ 1 (t₀ = 1, n = 2, E[X] = 1: 6 against 4).
    t = index("t")
    term = IndexSum(IndexSum(E(X * t), j, n), t, n)
    ctx = Context.of((Moment(E(X * t), 1),))
    assert R.substitute_moment.apply(term, ctx)[0] == term
    assert R.substitute_moment.apply(E(X * t), ctx)[0] == 1


# ------------------------------------------------------- facts of an unknown kind


@dataclass(frozen=True)
class _Fact(Assumption):
    """A fact of a kind no rule reads, about two symbols (with a note that is text)."""

    first: Any
    second: Any
    note: str = "a fact"


def test_a_fact_of_an_unknown_kind_is_about_every_symbol_it_mentions() -> None:
    # Context.of refuses a class of one's own; built directly, its fact must still be
    # dropped wherever a binder rebinds any symbol it mentions (the safe default).
    fact = _Fact(i, c)
    assert fact.constrains() == {i, c}
    ctx = Context((fact,))
    under_sum = Scope().enter(IndexSum(i, i, n))
    under_limit = Scope().enter(Lim(c * X, c))
    elsewhere = Scope().enter(IndexSum(k, k, n))
    assert ctx.visible(under_sum).assumptions == ()
    assert ctx.visible(under_limit).assumptions == ()
    assert ctx.visible(elsewhere).assumptions == (fact,)


def test_an_equivalence_cited_in_a_chain_of_equalities_rewrites_nothing() -> None:
    # a = 1 ⇔ a = 1 is a theorem about propositions: as a rewrite of expressions it must
    # not turn (a + 1)² − a² − 2a (which is 1) into 0, nor (a + 1)² − a² − 2a − 1 (which
    # is 0) into 1.
    iff = check(Derivation("iff", Equivalence(Eq(x, 1), Eq(x, 1)), (Step(R.ring, Eq(x, 1)),)))
    one = (x + 1) ** 2 - x**2 - 2 * x
    for prev, claim in ((one, 0), (one - 1, 1)):
        chain = Derivation("cites", Equation(prev, claim), (Step(iff, claim),))
        assert not audit(chain).verified
    unchanged = Derivation("cites", Equation(one, 1), (Step(iff, one),))
    assert audit(unchanged).verified


def test_a_theorem_cited_by_name_justifies_only_if_check_issued_it() -> None:
    # E[X] = E[X] proved; a copy stating E[X] = 0 (dataclasses.replace) gave E[X] + 1 = 1.
    proved = check(Derivation("same", Equation(E(X), E(X)), (Step(R.ring, E(X)),)))
    forged = replace(proved, statement=Equation(E(X), 0))

    def cite(theorems: dict[str, Any], claim: Any) -> Any:
        chain = Derivation("cites", Equation(E(X) + 1, claim), (Step("lemma", claim),))
        return audit(chain, theorems).steps[0].error

    assert cite({"lemma": proved}, E(X) + 1) is None
    assert isinstance(cite({"lemma": forged}, Integer(1)), UnknownRule)
    assert isinstance(cite({}, E(X) + 1), UnknownRule)


def test_a_sum_product_renames_a_factor_away_from_every_name_in_it() -> None:
    # (Σᵢ i·i')(Σⱼ i): the first sum's i would capture the second factor's free i, so it
    # is renamed, and not to its own free i' (Σ_{i'} i'·i' is another sum).
    product = IndexSum(i * i1, i, n) * IndexSum(i, j, n)
    expanded = R.sum_mul_sum.apply(product, Context())[0]
    assert expanded.free_symbols == {i, i1, n}
    assert same(expanded, IndexSum(IndexSum(k * i1 * i, j, n), k, n)) is True


def test_false_as_a_claim_is_the_false_proposition() -> None:
    # x = x ⇔ False is false (x = x holds), x + 1 = x ⇔ False is true.
    def proves(lhs: Any) -> bool:
        chain = Derivation("t", Equivalence(lhs, False), (Step(R.ring, False),))
        return audit(chain).verified

    assert not proves(Eq(x, x, evaluate=False))
    assert proves(Eq(x + 1, x, evaluate=False))


def test_a_python_fraction_is_a_term_taken_exactly() -> None:
    def proves(claim: Fraction) -> bool:
        chain = Derivation("t", Equation(Rational(1, 4), claim), (Step(R.ring, claim),))
        return audit(chain).verified

    assert proves(Fraction(1, 4))
    assert not proves(Fraction(1, 3))
    assert not proves(Fraction(4, 1))


class _Mine(Symbol):
    """A user's own symbol class (it could declare any sign for itself)."""


def test_a_term_of_a_foreign_class_is_refused_naming_the_class() -> None:
    with pytest.raises(InvalidArgument, match="not a term: _Mine is neither SymPy's"):
        E(_Mine("z") * X)


# ------------------------------------------------------------------ axioms, table


def _forget_mean(e: Any, ctx: Any, scope: Any) -> Any:
    return (E(e.args[0] ** 2), frozenset()) if isinstance(e, Var) else None


FORGET = Rule("forget_mean", "Var(Z) = E[Z²] (false)", _forget_mean)


@pytest.mark.parametrize(
    "declaration",
    [
        ("EX0", E(X), None),  # an equation without its right side
        ("EX0", None, 0),  # or without its left side
        (FORGET, None, 0),  # a rule with a side
        (FORGET, E(X), None),
        (5, None, None),  # neither a rule nor a name
    ],
)
def test_an_axiom_is_a_rule_alone_or_a_name_with_both_sides(declaration: Any) -> None:
    with pytest.raises(InvalidArgument, match="axiom takes a Rule"):
        axiom(*declaration)


def test_an_unknown_rule_is_refused_naming_the_derivation_step_and_rule() -> None:
    # The refusal is the user's first clue: it names where it happened and what is known.
    proved = check(Derivation("lemma", Equation(E(X), E(X)), (Step(R.ring, E(X)),)))
    steps = (Step(R.ring, Var(X)), Step(FORGET, E(X**2)), Step("nonesuch", E(X**2)))
    results = audit(Derivation("uses", Equation(Var(X), E(X**2)), steps), {"lemma": proved})
    own, unknown = results.steps[1].error, results.steps[2].error
    assert isinstance(own, UnknownRule)
    assert (own.theorem, own.step, own.rule) == ("uses", 2, "forget_mean")
    assert own.message == (
        "  'forget_mean' is not the registered primitive rule of that name;"
        " a rule of your own must be declared axiom(rule)"
    )
    assert isinstance(unknown, UnknownRule)
    assert (unknown.theorem, unknown.step, unknown.rule) == ("uses", 3, "nonesuch")
    assert "'nonesuch' is neither a rule nor a proved theorem" in unknown.message
    assert f"known: {', '.join([*sorted(R.RULES), 'lemma'])}" in unknown.message
    forged = replace(proved, statement=Equation(E(X), 0))  # not issued by check
    copied = audit(Derivation("uses", Equation(E(X), 0), (Step(forged, 0),))).steps[0].error
    assert isinstance(copied, UnknownRule)
    assert copied.rule == "lemma"


def test_the_rule_table_stays_closed_when_frozen_again() -> None:
    R.freeze()
    with pytest.raises(RuntimeError, match="frozen"):
        R.register(FORGET)
    assert "forget_mean" not in R.RULES


# ------------------------------------- terms the kernel keeps or admits (a review)


def test_a_display_group_with_its_own_equality_is_not_a_term() -> None:
    # A Group subclass equal to every other: kept by term, G(E(X)) ↦ E(X) would be
    # read back for G(E(Y)), and E(X) = E(Y) proved.
    class G(Group):
        def __eq__(self, other: object) -> bool:
            return isinstance(other, G)

        def __hash__(self) -> int:
            return 1

    ring = RULES["ring"]
    bogus = Derivation(
        "bogus", Equation(E(X), G(E(Y))), (Step(ring, G(E(X))), Step(ring, G(E(Y)))), ()
    )
    result = audit(bogus)
    assert not result.verified
    assert "neither SymPy's nor the kernel's" in str(result.errors[0])


def test_an_unhashable_group_is_refused_not_a_crash() -> None:
    class H(Group):
        __hash__ = None  # type: ignore[assignment]

    result = audit(Derivation("h", Equation(E(X), H(E(X))), (Step(RULES["ring"], H(E(X))),), ()))
    assert not result.verified
    assert isinstance(result.errors[0], IllFormed)


def test_a_function_class_with_its_own_expansion_is_not_a_term() -> None:
    # SymPy's equality of undefined functions reads only the name: H == Function("f").
    # H expands to 0; had it been admitted (or its normal form kept), f(E(X)) = 0.
    hacked = type(Function("f"))("f", __dict__={"_eval_expand_mul": lambda self, **h: 0})
    # SymPy caches applications by arguments and (name-equal) class: without clearing,
    # hacked(E(X)) may be an earlier test's plain f(E(X)), and the refusal untested.
    clear_cache()
    attack = hacked(E(X))
    assert type(attack) is hacked
    with pytest.raises(InvalidArgument, match="neither SymPy's nor the kernel's"):
        as_term(attack)
    clear_cache()
    plain = Function("f")
    proof = Derivation("f_is_zero", Equation(plain(E(X)), 0), (Step(RULES["ring"], 0),), ())
    assert not audit(proof).verified
    assert as_term(Function("g", real=True)(E(X))) == Function("g", real=True)(E(X))


def test_a_kernel_bound_name_cannot_be_a_free_constant() -> None:
    # The canonical name of a bound index, read off a normal form and used free,
    # would be captured: Σᵢ i·c = Σᵢ i² "by ring".
    c = normal_form(IndexSum(i, i, n)).args[1]
    proof = Derivation(
        "capture",
        Equation(IndexSum(i * c, i, n), IndexSum(i**2, i, n)),
        (Step(RULES["ring"], IndexSum(i**2, i, n)),),
        (),
    )
    result = audit(proof)
    assert not result.verified
    assert "keeps for bound indices" in str(result.errors[0])


def test_a_term_of_a_class_outside_sympy_and_the_kernel_is_not_kept() -> None:
    import scaledattn.kernel.expr as expr_module

    f = Function("f")
    expr_module._NORMAL_FORMS.clear()
    normal_form(f(E(X)) + E(X))
    normal_form(E(X) + E(Y))
    assert list(expr_module._NORMAL_FORMS) == [E(X) + E(Y)]


# ------------------------------------------------------------- deep nesting, fallbacks


def _nested(body: Expr, depth: int, prefix: str = "a") -> Expr:
    for k in range(depth):
        body = IndexSum(body, index(f"{prefix}{k}"), n)
    return body


def test_sixty_four_nested_sums_are_compared_and_a_sixty_fifth_is_refused_in_a_line() -> None:
    # The kernel names at most 64 bound indices (_BOUND): one sum deeper is refused, at a
    # step and at the statement, never a crash (a zip over too few names raised).
    deepest = _nested(Integer(1), 64)
    assert normal_form(deepest) == normal_form(_nested(Integer(1), 64, prefix="b"))
    proof = Derivation("deep", Equation(deepest, deepest), (Step(RULES["ring"], deepest),), ())
    assert audit(proof).verified
    deeper = IndexSum(deepest, index("z"), n)
    with pytest.raises(InvalidArgument, match="more than 64 sums nested"):
        normal_form(deeper)
    proof = Derivation("deeper", Equation(deeper, deeper), (Step(RULES["ring"], deeper),), ())
    result = audit(proof)
    assert not result.verified
    assert all(isinstance(e, IllFormed) for e in result.errors)
    assert all("more than 64 sums nested" in str(e) for e in result.errors)
    step, statement = result.errors  # each refusal names where it is
    assert (step.theorem, step.step, step.rule) == ("deeper", 1, "ring")
    assert (statement.theorem, statement.step) == ("deeper", 0)
    assert str(step.args[0]).startswith("  more than 64")  # an InvalidArgument says why


def test_a_sum_of_expectations_is_not_split_by_independence() -> None:
    # E[X + Y] is no monomial: expectation_mul_of_indep does not apply (a mismatch,
    # not an ill-formed step), whatever independence is declared.
    (y,) = random_variables("Y")
    proof = Derivation(
        "split",
        Equation(E(X + y), E(X) * E(y)),
        (Step(RULES["expectation_mul_of_indep"], E(X) * E(y)),),
        (Independent(X, y),),
    )
    result = audit(proof)
    assert not result.verified
    assert type(result.errors[0]) is StepMismatch


def test_a_cross_sum_takes_two_of_the_sixty_four_names_and_its_body_the_next() -> None:
    # 61 sums, a cross sum (two indices) and a sum inside it: 64 names, the last one the
    # innermost sum's; naming it a place further in runs out of names.
    inner = IndexSum(E(X) * index("c"), index("c"), n)
    term = _nested(CrossSum(inner, i, j, n), 61)
    assert same(term, _nested(CrossSum(inner, j, i, n), 61, prefix="b")) is True


def test_a_fresh_index_is_found_when_every_usual_letter_is_taken() -> None:
    from scaledattn.kernel.expr import fresh_index

    taken = {index(x) for x in ("j", "i", "l", "m", "r", "s", "t", "u", "v", "w", "i1")}
    fresh = fresh_index(taken)
    assert fresh.name not in {s.name for s in taken}
    assert fresh.is_integer
    assert fresh.is_positive


# ------------------------------------------- what a second hostile review found (k3)


def test_a_function_class_with_a_base_of_its_own_is_not_a_term() -> None:
    # Its expansion is inherited, so its own namespace looks plain; SymPy's cache then
    # hands the object to a later plain Function("f")(E(X)), which must be refused too.
    from sympy.core.function import AppliedUndef, UndefinedFunction

    class Vanishing(AppliedUndef):
        def _eval_expand_mul(self, **hints: Any) -> Expr:
            return Integer(0)

    clear_cache()
    hacked = UndefinedFunction("f", bases=(Vanishing,))
    with pytest.raises(InvalidArgument, match="neither SymPy's nor the kernel's"):
        as_term(hacked(E(X)))
    plain = Function("f")(E(X))  # the cached hacked object, or a plain one
    proof = Derivation("f_is_zero", Equation(plain, 0), (Step(RULES["ring"], 0),), ())
    assert not audit(proof).verified
    clear_cache()


def test_a_class_that_names_a_sympy_or_kernel_module_is_still_foreign() -> None:
    class Sigma(Symbol):
        __module__ = "sympy.core.symbol"
        is_positive = True
        is_real = True

    with pytest.raises(InvalidArgument, match="neither SymPy's nor the kernel's"):
        as_term(Sigma("sigma") ** 2)

    @dataclass(frozen=True)
    class Everything(Independence):
        __module__ = "scaledattn.kernel.assumptions"

        def block_key(self, atom: Any) -> Any:
            return (atom, None)  # every atom its own block: E[XY] = E[X]E[Y] for Y = X

    with pytest.raises(InvalidArgument, match="not an assumption of the kernel"):
        Context.of((Everything(),))


def test_a_function_class_spoofing_sympys_module_leaves_nothing_in_the_table() -> None:
    from sympy.core.function import UndefinedFunction

    hacked = UndefinedFunction("f", __dict__={"_eval_expand_mul": lambda self, **h: 0})
    hacked.__module__ = "sympy.core.function"
    clear_cache()
    assert normal_form(hacked(E(X))) == 0  # computed for it, but not kept under f(E(X))
    clear_cache()
    plain = Function("f")(E(X))
    proof = Derivation("f_is_zero", Equation(plain, 0), (Step(RULES["ring"], 0),), ())
    assert not audit(proof).verified


@pytest.mark.parametrize(
    "binder",
    [
        sympy.Sum(i * m, (m, 1, 3)),
        sympy.Product(m, (m, 1, 3)),
        sympy.Integral(m, (m, 0, 1)),
        sympy.Lambda(m, m * i),
        sympy.Derivative(Function("f")(m), m),
        sympy.Limit(i / m, m, sympy.oo),
        sympy.Subs(i * m, m, 1),
    ],
    ids=["Sum", "Product", "Integral", "Lambda", "Derivative", "Limit", "Subs"],
)
def test_sympys_own_binders_are_not_terms(binder: Expr) -> None:
    # The kernel scopes only its own binders (IndexSum, CrossSum, Lim): inside a SymPy
    # Sum, substitution captured and a fact about a bound symbol stayed visible.
    with pytest.raises(InvalidArgument, match="not a term"):
        as_term(IndexSum(E(X) * binder, i, n))


def test_the_reviews_captures_through_a_sympy_sum_are_refused() -> None:
    t, w = index("t"), index("w")
    lhs = IndexSum(sympy.KroneckerDelta(t, w) * E(X), w, n)
    rhs = IndexSum(Integer(0), w, n)
    with pytest.raises(InvalidArgument):  # Σ_w δ_tw = 0 "from t ≠ w", in SymPy's Sum
        as_term(sympy.Sum(sympy.KroneckerDelta(t, w), (w, 1, n)))
    proof = Derivation(
        "delta", Equation(lhs, rhs), (Step(RULES["delta_distinct"], rhs),), (Distinct(t, w),)
    )
    assert not audit(proof).verified  # the kernel's own sum binds w: the fact is hidden


def test_an_assumption_may_not_hold_a_kernel_bound_name() -> None:
    # Mean(X, ι0) with ι0 read off a normal form: Σᵢ E[X] became Σᵢ i by capture.
    c = normal_form(IndexSum(i, i, n)).args[1]
    with pytest.raises(InvalidArgument, match="keeps for bound indices"):
        Context.of((Moment(E(X), c),))
    lhs, rhs = IndexSum(E(X), i, n), IndexSum(i, i, n)
    proof = Derivation(
        "m", Equation(lhs, rhs), (Step(RULES["substitute_moment"], rhs),), (Moment(E(X), c),)
    )
    assert not audit(proof).verified


def test_a_float_inside_a_term_is_refused() -> None:
    with pytest.raises(InvalidArgument, match="not exact"):
        as_term(E(X) * (sympy.Float(2.0**53) + 1))


def test_a_bound_variable_may_not_know_more_than_its_range() -> None:
    negative = Symbol("i", integer=True, negative=True)  # Σ √(i²) would be Σ (−i)
    even = Symbol("i", integer=True, positive=True, even=True)
    for bad in (negative, even):
        with pytest.raises(InvalidArgument, match="positive-integer symbol"):
            IndexSum(E(X) * bad, bad, n)
        with pytest.raises(InvalidArgument, match="positive-integer symbol"):
            CrossSum(E(X) * bad, bad, j, n)
    assert IndexSum(E(X) * Symbol("i", integer=True), Symbol("i", integer=True), n)
    with pytest.raises(InvalidArgument, match="real symbol"):  # λ → ∞ is not negative
        Lim(E(X), Symbol("lambda", negative=True))
    assert Lim(E(X), Symbol("lambda", real=True)) is not None
    assert Lim(E(X), index("m")) is not None  # the limit of a sequence


def test_a_fact_sympy_does_not_define_is_refused() -> None:
    # above_fermi/below_fermi make SymPy's KroneckerDelta vanish: Σ_b δ_ab = 0.
    a = Symbol("a", integer=True, positive=True, above_fermi=True)
    with pytest.raises(InvalidArgument, match="a fact the kernel does not take"):
        as_term(sympy.KroneckerDelta(a, i))


# -------------------------------------------- what a third hostile review found (k4)


def test_a_forged_fresh_name_is_refused_free_in_a_claim() -> None:
    # SymPy lets anyone build the Dummy the kernel will open the next sum with; free in
    # a claim it would be captured (Σᵢ i·D = Σᵢ i²). A free Dummy is no claim's.
    forged = Dummy(
        f"Dummy_{Dummy._count}",
        dummy_index=Dummy._base_dummy_index + Dummy._count,
        integer=True,
        positive=True,
    )
    lhs, rhs = IndexSum(i * forged, i, n), IndexSum(i**2, i, n)
    result = audit(Derivation("capture", Equation(lhs, rhs), (Step(RULES["ring"], rhs),), ()))
    assert not result.verified
    assert "keeps for bound indices" in str(result.errors[0])
    with pytest.raises(InvalidArgument, match="keeps for bound indices"):
        Context.of((Moment(E(X), forged),))


def test_a_function_class_may_carry_only_sympys_facts() -> None:
    for flag in ({"is_Atom": True}, {"is_Integer": True, "integer": True, "positive": True}):
        with pytest.raises(InvalidArgument, match="neither SymPy's nor the kernel's"):
            as_term(Function("f", **flag)(E(X)))  # an is_… flag that is not a fact
    with pytest.raises(InvalidArgument, match="neither SymPy's nor the kernel's"):
        as_term(Function("f", commutative=False)(E(X)))
    assert as_term(Function("f", positive=True)(E(X))) is not None


def test_a_display_group_may_change_only_how_it_prints() -> None:
    class Quiet(Group):
        @property
        def free_symbols(self) -> set[Any]:  # hid ι0 from the check of claims
            return set()

    with pytest.raises(InvalidArgument, match="neither SymPy's nor the kernel's"):
        as_term(Quiet(E(X)))
    from scaledattn.render.display import Abbrev

    assert as_term(Abbrev(E(X), "D_1")) is not None  # the renderer's own group


def test_a_vectors_name_is_not_a_term() -> None:
    from scaledattn.kernel import RandomVector

    q = RandomVector("q", n)
    with pytest.raises(InvalidArgument, match="names a random vector"):
        Var(q.label)  # Var(q) = 0 followed, the label taken for a constant
    assert Var(q[i]) is not None


def test_a_class_in_a_module_named_like_the_kernels_is_not_the_kernels() -> None:
    import sys
    import types

    from scaledattn.kernel import IndependentComponents
    from scaledattn.kernel.expr import kernel_class

    module = types.ModuleType("scaledattn.kernel.evil")

    class AllApart(IndependentComponents):
        def block_key(self, atom: Any) -> Any:
            return (atom, None)

    AllApart.__module__, AllApart.__qualname__ = module.__name__, "AllApart"
    module.AllApart = AllApart  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    try:
        assert not kernel_class(AllApart)
    finally:
        del sys.modules[module.__name__]


def test_a_claim_undefined_once_evaluated_is_refused() -> None:
    x = Symbol("x")
    with as_written():
        reciprocal = sympy.Pow(sympy.Pow(Integer(0), -1), -1)  # 1/(1/0)
        vanishing = sympy.exp(-sympy.Abs(sympy.Pow(sympy.Add(x, -x), -1)))
    for lhs in (reciprocal, vanishing):
        proof = Derivation("u", Equation(lhs, 0), (Step(RULES["ring"], 0),), ())
        assert not audit(proof).verified


def test_a_random_variable_carries_only_its_kinds_facts() -> None:
    from scaledattn.kernel.expr import RandomVariable

    forged = Symbol.__new__(RandomVariable, "X", integer=True, positive=True)
    with pytest.raises(InvalidArgument, match="facts a RandomVariable does not have"):
        as_term(E(forged))


def test_a_real_vectors_entries_are_real() -> None:
    from scaledattn.kernel import Entries, RealVector

    with pytest.raises(InvalidArgument, match="are real"):
        Entries(RealVector("r", 3), (-1) ** Rational(1, 3), index("j"))


def test_two_symbols_with_one_name_are_refused() -> None:
    positive, plain = Symbol("x", positive=True), Symbol("x")
    with as_written():
        lhs = sympy.sqrt(positive**2) + plain - plain
        rhs = positive + plain - plain
    result = audit(Derivation("clash", Equation(lhs, rhs), (Step(RULES["ring"], rhs),), ()))
    assert not result.verified
    assert "two different things are named x" in str(result.errors[-1])


def test_an_axiom_is_not_named_as_a_rule() -> None:
    from scaledattn.kernel.theorem import Axiom, _Rewrite

    with pytest.raises(InvalidArgument, match="not a rule's"):
        Axiom("ring", _Rewrite("ring", E(X), 0))


def test_every_module_of_the_kernel_is_listed_as_one() -> None:
    from pathlib import Path

    import scaledattn.kernel as kernel
    from scaledattn.kernel.expr import KERNEL_MODULES

    files = Path(kernel.__file__).parent.glob("*.py")
    assert {f"scaledattn.kernel.{p.stem}" for p in files if p.stem != "__init__"} == KERNEL_MODULES


def test_an_infinite_symbol_is_not_a_term() -> None:
    y = Symbol("y", extended_real=True, infinite=True)  # Max(y, 1) = 1 "held"
    with pytest.raises(InvalidArgument, match="a fact the kernel does not take"):
        as_term(E(X) * y)
    with as_written():
        lhs = sympy.Max(y, 1)
    result = audit(Derivation("inf", Equation(lhs, 1), (Step(RULES["ring"], 1),), ()))
    assert not result.verified


def test_a_softmax_is_not_named_as_its_scores() -> None:
    from scaledattn.kernel import RealVector, SoftmaxVector

    with pytest.raises(InvalidArgument, match="needs a name of its own"):
        SoftmaxVector(RealVector("s", n), "s")[i]


def test_facts_that_decide_a_delta_are_listed_with_the_assumptions() -> None:
    from scaledattn.derive import audit_of, calc
    from scaledattn.render.json import audit_json

    t, p = Symbol("t", transcendental=True), Symbol("p", prime=True)
    for symbol, shown in ((t, "t transcendental"), (p, "p prime")):
        with as_written():
            lhs = sympy.KroneckerDelta(symbol, 1)
        result = audit_of(calc("d", lhs, 0).eq(0, by=RULES["ring"]).qed())
        assert result.verified  # true, given what the symbol carries, which is shown
        assert shown in audit_json(result)["carried_by_symbols"]


# ------------------------------------------- what a fourth hostile review found (k5)


def _check_proof(text: str) -> list[Any]:
    from scaledattn.prooffile.files import check_text

    return check_text(text, "k5.proof").verdicts


def test_a_range_whose_bound_an_inner_sum_rebinds_is_not_used() -> None:
    # Σ_{m≤n} Σ_{n'≤2} Σ_{j≤n'} δ_jm: inside, m ≤ n is about the outer n (3 at n = 3, not 6).
    from scaledattn.kernel import RULES as K

    inner = IndexSum(IndexSum(sympy.KroneckerDelta(j, k), j, n), n, 2)
    lhs = IndexSum(inner, k, n)
    rhs = IndexSum(IndexSum(Integer(1), n, 2), k, n)
    proof = Derivation("rebound", Equation(lhs, rhs), (Step(K["sum_delta"], rhs),), ())
    assert not audit(proof).verified


def test_a_theorem_about_a_free_vector_is_not_used_where_it_is_defined() -> None:
    verdicts = _check_proof(
        "theorem r_free: deriv(r_m, s_m) = 0\n  deriv(r_m, s_m)\n  = 0   by deriv_linear\n\n"
        "theorem one_is_zero: 1 = 0\nassume: r_j = s_j + 1\n  1\n"
        "  = deriv(s_m, s_m)   by deriv_entry\n  = deriv(s_m + 1, s_m)   by deriv_linear\n"
        "  = deriv(r_m, s_m)   by entries_def\n  = 0   by r_free\n"
    )
    assert [v.verified for v in verdicts] == [True, False]


def test_a_moment_whose_value_reaches_a_limits_variable_is_not_read_under_it() -> None:
    verdicts = _check_proof(
        "theorem moment_in_limit: lim(E(q_w) - lambda, lambda) = s_w\nassume: no defaults\n"
        "assume: E(q_i) = r_i\nassume: r_j = s_j + lambda*delta(j, w)\n"
        "  lim(E(q_w) - lambda, lambda)\n  = lim(r_w - lambda, lambda)   by substitute_moment\n"
        "  = lim(s_w, lambda)   by entries_def\n  = s_w   by limit_at_infinity\n"
    )
    assert not verdicts[0].verified


def test_a_vector_defined_twice_is_refused() -> None:
    from scaledattn.kernel import Entries, RealVector

    r, s = RealVector("r", n), RealVector("s", n)
    with pytest.raises(InvalidArgument, match="r is defined twice"):
        Context.of((Entries(r, s[j] + 1, j), Entries(r, s[j], j)))


def test_two_things_of_one_name_are_refused_wherever_they_stand() -> None:
    from scaledattn.kernel import RandomVector, RealVector, UnitVariance

    q, fixed = RandomVector("q", n), RealVector("q", n)  # a fixed vector named like q
    steps = (Step(RULES["variance_def"], E(fixed[i] ** 2) - E(fixed[i]) ** 2),)
    proof = Derivation("q", Equation(Var(fixed[i]), 0), steps, (UnitVariance(q),))
    assert "two different things are named q" in str(audit(proof).errors[-1])
    f, g = Function("f", positive=True)(E(X)), Function("f")(E(X))
    with as_written():
        lhs = sympy.sqrt(f**2) - g + g
    proof = Derivation("fs", Equation(lhs, f), (Step(RULES["ring"], f),), ())
    assert not audit(proof).verified


def test_facts_a_rendering_would_not_show_are_refused() -> None:
    for fact in ("zero", "imaginary", "polar", "extended_positive"):
        with pytest.raises(InvalidArgument, match="a fact the kernel does not take"):
            as_term(E(X) * Symbol("x", **{fact: True}))
    with pytest.raises(InvalidArgument, match="neither SymPy's nor the kernel's"):
        as_term(Function("g", infinite=True)(E(X)))


def test_an_axiom_may_not_hold_a_fresh_name() -> None:
    with pytest.raises(InvalidArgument, match="keeps for bound indices"):
        axiom("EX_is_t", E(X), Dummy("t"))


# -------------------------------------------- what a fifth hostile review found (k6)


def test_a_moment_is_not_taken_for_a_constant_under_a_derivative() -> None:
    # E[q_m] = s_m read under ∂/∂s_m, where deriv_linear took E[q_m] for a constant: 1 = 0.
    verdicts = _check_proof(
        "theorem one_is_zero: 1 = 0\nassume: no defaults\nassume: E(q_i) = s_i\n  1\n"
        "  = deriv(s_m, s_m)   by deriv_entry\n  = deriv(E(q_m), s_m)   by substitute_moment\n"
        "  = 0   by deriv_linear\n"
    )
    assert not verdicts[0].verified


def test_definitions_are_followed_through_their_bodies() -> None:
    # r_j = s_j with s free, cited where s_j = g_j: ∂r_m/∂g_m = 0 said nothing there.
    verdicts = _check_proof(
        "theorem r_of_g: deriv(r_m, g_m) = 0\nassume: r_j = s_j\n  deriv(r_m, g_m)\n"
        "  = 0   by deriv_linear\n\ntheorem one_is_zero: 1 = 0\nassume: r_j = s_j\n"
        "assume: s_j = g_j\n  1\n  = deriv(g_m, g_m)   by deriv_entry\n"
        "  = deriv(s_m, g_m)   by entries_def\n  = deriv(r_m, g_m)   by entries_def\n"
        "  = 0   by r_of_g\n"
    )
    assert [v.verified for v in verdicts] == [True, False]
    verdicts = _check_proof(  # and a moment reaching λ through two definitions
        "theorem moment_in_limit: lim(E(q_w) - lambda, lambda) = g_w\nassume: no defaults\n"
        "assume: E(q_i) = r_i\nassume: r_j = s_j\nassume: s_j = g_j + lambda*delta(j, w)\n"
        "  lim(E(q_w) - lambda, lambda)\n  = lim(r_w - lambda, lambda)   by substitute_moment\n"
        "  = lim(s_w - lambda, lambda)   by entries_def\n"
        "  = lim(g_w, lambda)   by entries_def\n  = g_w   by limit_at_infinity\n"
    )
    assert not verdicts[0].verified


def test_a_sign_carried_by_a_symbol_of_an_assumption_is_shown() -> None:
    from scaledattn.render.display import assumption_lines

    c = Symbol("c", positive=True)
    proof = Derivation(
        "abs", Equation(sympy.Abs(E(X)), E(X)), (Step(RULES["ring"], E(X)),), (Moment(E(X), c),)
    )
    assert "c > 0 (carried by the symbol)" in assumption_lines(proof)


def test_a_softmax_shown_with_a_defined_vectors_name_is_refused() -> None:
    verdicts = _check_proof(
        "theorem r_is_softmax: softmax(s, i, n, r) = exp(s_i)/sum(exp(s_l), l, 1, n)\n"
        "assume: r_j = s_j\n  softmax(s, i, n, r)\n"
        "  = exp(s_i)/sum(exp(s_l), l, 1, n)   by softmax_def\n"
    )
    assert not verdicts[0].verified


# ------------------------------------------- what a sixth hostile review found (k7)


def test_definitions_that_refer_back_to_themselves_are_refused() -> None:
    from scaledattn.kernel import Entries, RealVector, SoftmaxVector

    r, g = RealVector("r", n), RealVector("g", n)
    with pytest.raises(InvalidArgument, match="refers back to it"):
        Context.of((Entries(r, g[j] + 1, j), Entries(g, r[j], j)))  # r = r + 1
    with pytest.raises(InvalidArgument, match="refers back to it"):
        Context.of((Entries(r, E(X) + 1, j), Moment(E(X), r[1])))
    with pytest.raises(InvalidArgument, match="cannot be defined by themselves"):
        Entries(r, SoftmaxVector(r, "p")[j], j)
    verdicts = _check_proof(
        "theorem cyc: r_1 = r_1 + 20\nassume: r_j = g_j + 1\nassume: g_j = r_j\n"
        "  r_1\n  = r_1 + 20 by entries_def\n"
    )
    assert not verdicts[0].verified


def test_a_proof_file_with_inconsistent_assumptions_proves_nothing() -> None:
    for assumptions in ("assume: E(X) = 1\nassume: E(X**2) = 0\n", "assume: E(X**2) = 0\n"
                        "assume: Var(X) = 1\n"):  # fmt: skip
        verdicts = _check_proof(
            f"theorem bad: E(X**2) - E(X)**2 = -1\n{assumptions}  E(X**2) - E(X)**2\n"
            "  = -1   by substitute_moment\n"
        )
        assert not verdicts[0].verified
        assert "inconsistent" in verdicts[0].withheld  # issue 30: UNDECIDED, not REJECTED


# ------------------------------------------------------- what the mutation run found


def test_a_theorem_proved_where_its_vector_is_defined_applies_under_the_same_definition() -> None:
    verdicts = _check_proof(
        "theorem T: deriv(r_m, s_m) = 1\nassume: r_j = s_j + 1\n  deriv(r_m, s_m)\n"
        "  = deriv(s_m + 1, s_m)   by entries_def\n  = deriv(s_m, s_m)   by deriv_linear\n"
        "  = 1   by deriv_entry\n\ntheorem U: 2*deriv(r_m, s_m) = 2\nassume: r_j = s_j + 1\n"
        "  2*deriv(r_m, s_m)\n  = 2   by T\n"
    )
    assert [v.verified for v in verdicts] == [True, True]


def test_an_axiom_is_named_by_an_identifier() -> None:
    from scaledattn.kernel.theorem import Axiom, _Rewrite

    assert Axiom("EX0", _Rewrite("EX0", E(X), 0)).name == "EX0"
    with pytest.raises(InvalidArgument, match="an identifier"):
        Axiom("two words", _Rewrite("two words", E(X), 0))


def test_a_softmax_shown_with_another_vectors_name_clashes_in_the_kernel() -> None:
    from scaledattn.kernel import RealVector, SoftmaxVector

    r, s = RealVector("r", n), RealVector("s", n)
    for name, clash in (("r", True), ("p", False)):
        p = SoftmaxVector(s, name)[i]
        claim = r[i] + p
        proof = Derivation(name, Equation(p + r[i], claim), (Step(RULES["ring"], claim),), ())
        result = audit(proof)
        assert result.verified is not clash
        assert ("two different things are named r" in str(result.errors)) is clash
