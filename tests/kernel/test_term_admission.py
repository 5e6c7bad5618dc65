"""What the kernel admits: terms of its language, facts, axioms and the steps citing them.

A term is built of SymPy's and the kernel's own classes only (a foreign class, a
function class with an expansion or facts of its own, a display group that changes
more than how it prints, a float are refused, naming what they are); an axiom is a
rule alone or a name with both sides; a step cites only a rule of the table or a
theorem ``check`` issued; an ill-formed step is reported with its number and rule.
(Many came from the hostile reviews k3–k4 and the mutation runs: docs/history.md.)
"""

from __future__ import annotations

from dataclasses import (
    dataclass,
    replace,
)
from fractions import (
    Fraction,
)
from typing import (
    Any,
)

import pytest
import sympy
from sympy import (
    Dummy,
    Eq,
    Expr,
    Function,
    Integer,
    Rational,
    Symbol,
)
from sympy.core.cache import (
    clear_cache,
)

from scaledattn.errors import (
    IllFormed,
    InvalidArgument,
    StepMismatch,
    UnknownRule,
)
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
    RealVector,
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
)
from scaledattn.kernel import (
    rules as R,
)
from scaledattn.kernel.assumptions import (
    Independence,
)
from scaledattn.kernel.expr import (
    OpaqueTerm,
    as_term,
    unclaimable,
)

i, j = index("i"), index("j")
n, m = dimension("n"), dimension("m")
X, Y = random_variables("X Y")
c = Symbol("c", real=True)
x, y = Symbol("x", real=True), Symbol("y", real=True)
w = index("w")


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
    from scaledattn.kernel import Entries

    with pytest.raises(InvalidArgument, match="are real"):
        Entries(RealVector("r", 3), (-1) ** Rational(1, 3), index("j"))


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


def test_facts_a_rendering_would_not_show_are_refused() -> None:
    for fact in ("zero", "imaginary", "polar", "extended_positive"):
        with pytest.raises(InvalidArgument, match="a fact the kernel does not take"):
            as_term(E(X) * Symbol("x", **{fact: True}))
    with pytest.raises(InvalidArgument, match="neither SymPy's nor the kernel's"):
        as_term(Function("g", infinite=True)(E(X)))


def test_an_axiom_may_not_hold_a_fresh_name() -> None:
    with pytest.raises(InvalidArgument, match="keeps for bound indices"):
        axiom("EX_is_t", E(X), Dummy("t"))


def test_a_sign_carried_by_a_symbol_of_an_assumption_is_shown() -> None:
    from scaledattn.render.display import assumption_lines

    c = Symbol("c", positive=True)
    proof = Derivation(
        "abs", Equation(sympy.Abs(E(X)), E(X)), (Step(RULES["ring"], E(X)),), (Moment(E(X), c),)
    )
    assert "c > 0 (carried by the symbol)" in assumption_lines(proof)


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


def test_a_chain_of_equalities_that_claims_a_proposition_says_so() -> None:
    # x = 1 is no value x + 0·x could equal: the step is refused for what it claims.
    proof = Derivation("prop", Equation(x, x), (Step(RULES["ring"], sympy.Eq(x, 1)),))
    result = audit(proof)
    assert not result.verified
    assert "a chain of equalities claims expressions, got Eq(x, 1)" in str(result.errors[0])


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


def test_a_derivation_given_lists_holds_tuples() -> None:
    steps = [Step(RULES["expectation_linear"], E(X) + E(Y))]
    proof = Derivation("d", Equation(E(X + Y), E(X) + E(Y)), steps, [])  # type: ignore[arg-type]
    assert type(proof.steps) is tuple
    assert type(proof.assumptions) is tuple


def test_an_equivalence_may_end_in_a_python_truth_value() -> None:
    from scaledattn.kernel import Equivalence

    x = Symbol("x", real=True)
    proof = Derivation(
        "t", Equivalence(sympy.Eq(x, x, evaluate=False), True), (Step(RULES["ring"], True),)
    )
    assert audit(proof).verified
