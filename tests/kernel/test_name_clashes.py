"""Names: one name is one thing, and a vector's name only where it names its vector.

Two symbols, a function and a symbol, a softmax and its scores, a vector defined twice:
two different things under one name are refused wherever they stand; a vector's name is
a term only inside its component or dot product; an axiom is named by an identifier
that no rule has. (Many came from the hostile reviews and the mutation runs:
docs/history.md.)
"""

from __future__ import annotations

from typing import (
    Any,
)

import pytest
import sympy
from sympy import (
    Expr,
    Function,
    Symbol,
)

from scaledattn.errors import (
    InvalidArgument,
)
from scaledattn.kernel import (
    RULES,
    Component,
    Context,
    Derivation,
    E,
    Equation,
    RandomVector,
    RealVector,
    Step,
    Var,
    as_written,
    audit,
    dimension,
    index,
    random_variables,
)
from scaledattn.kernel.expr import (
    DotProduct,
    VectorLabel,
    as_term,
)

i, j = index("i"), index("j")
n = dimension("n")
(X,) = random_variables("X")
x = Symbol("x", real=True)
q, k = RandomVector("q", n), RandomVector("k", n)


def test_a_vectors_name_is_not_a_term() -> None:
    from scaledattn.kernel import RandomVector

    q = RandomVector("q", n)
    with pytest.raises(InvalidArgument, match="names a random vector"):
        Var(q.label)  # Var(q) = 0 followed, the label taken for a constant
    assert Var(q[i]) is not None


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


def test_a_softmax_is_not_named_as_its_scores() -> None:
    from scaledattn.kernel import RealVector, SoftmaxVector

    with pytest.raises(InvalidArgument, match="needs a name of its own"):
        SoftmaxVector(RealVector("s", n), "s")[i]


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


def _check_proof(text: str) -> list[Any]:
    from scaledattn.prooffile.files import check_text

    return check_text(text, "k5.proof").verdicts


def test_a_softmax_shown_with_a_defined_vectors_name_is_refused() -> None:
    verdicts = _check_proof(
        "theorem r_is_softmax: softmax(s, i, n, r) = exp(s_i)/sum(exp(s_l), l, 1, n)\n"
        "assume: r_j = s_j\n  softmax(s, i, n, r)\n"
        "  = exp(s_i)/sum(exp(s_l), l, 1, n)   by softmax_def\n"
    )
    assert not verdicts[0].verified


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
