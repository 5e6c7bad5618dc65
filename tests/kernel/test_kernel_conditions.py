"""Conditions a term is defined under, which evaluating it would drop (issue 12).

SymPy cancels x/x and exp(log(x)) as it builds a term. A claim written as it reads
(``as_written``) keeps them, and the kernel refuses one whose evaluation drops a
condition (a divisor ≠ 0, a root's argument ≥ 0, a logarithm's > 0) that neither its
symbols' facts nor the declared assumptions give: c(c − 1)/(c − 1) is c only where
c ≠ 1.
"""

from __future__ import annotations

from typing import Any

import pytest
import sympy
from sympy import Rational, Symbol

from scaledattn.errors import IllFormed, InvalidArgument
from scaledattn.kernel import (
    Context,
    Derivation,
    E,
    Equation,
    Moment,
    Positive,
    Step,
    Var,
    as_written,
    audit,
    axiom,
    dimension,
    random_variables,
)
from scaledattn.kernel.expr import conditions, unclaimable

X, Y = random_variables("X Y")
c = Symbol("c", real=True)
d = dimension("d")


def _ring(lhs: Any, rhs: Any, *assumptions: Any) -> Any:
    """The audit of lhs = rhs in one step by ring, each side built as written."""
    return audit(Derivation("t", Equation(lhs, rhs), (Step("ring", rhs),), assumptions))


def _written(make: Any) -> Any:
    with as_written():
        return make()


REFUSED = {
    "a divisor that cancels": (lambda: c * (c - 1) / (c - 1), c, "c - 1 ≠ 0"),
    "x/x with x free": (lambda: c * c / c, c, "c ≠ 0"),
    "exp of the log of a negative": (lambda: sympy.exp(sympy.log(-c)), -c, "-c > 0"),
    "a square root squared": (lambda: sympy.sqrt(c) ** 2, c, "c ≥ 0"),
    "a sum that cancels a divisor": (lambda: X / (c - 1) - X / (c - 1) + 1, 1, "c - 1 ≠ 0"),
    "a divisor exactly 0": (
        lambda: (
            E(X)
            * ((1 + sympy.sqrt(2)) ** 2 - 3 - 2 * sympy.sqrt(2))
            / ((1 + sympy.sqrt(2)) ** 2 - 3 - 2 * sympy.sqrt(2))
        ),
        E(X),
        "≠ 0",
    ),
}


@pytest.mark.parametrize("case", REFUSED, ids=str)
def test_a_claim_whose_evaluation_drops_a_condition_is_refused(case: str) -> None:
    make, rhs, needs = REFUSED[case]
    result = _ring(_written(make), rhs, Positive(Symbol("c0", positive=True)))
    assert not result.verified
    error = result.errors[0]
    assert isinstance(error, IllFormed)
    assert needs in str(error)
    assert error.step == 1


def test_the_condition_is_given_by_a_declared_assumption_and_then_used() -> None:
    result = _ring(_written(lambda: c * c / c), c, Positive(c))
    assert result.verified
    assert result.theorem is not None
    assert Positive(c) in result.theorem.used
    assert _ring(_written(lambda: sympy.sqrt(c) ** 2), c, Positive(c)).verified
    assert not _ring(_written(lambda: sympy.exp(sympy.log(-c))), -c, Positive(c)).verified


def test_a_condition_the_evaluated_term_keeps_is_not_required() -> None:
    # 1/(2c) evaluates to (1/2)·c⁻¹: the divisor c stays, and so does its condition.
    assert _ring(_written(lambda: 1 / (2 * c)), 1 / (2 * c)).verified
    # √((1/d)² Var Z) = √(Var Z)/d: Var Z ≥ 0 is still required, d ≠ 0 is d's fact.
    z = X + Y
    assert _ring(
        _written(lambda: sympy.sqrt((1 / d) ** 2 * Var(z))), sympy.sqrt(Var(z)) / d
    ).verified


def test_the_statements_right_side_is_checked_too() -> None:
    rhs = _written(lambda: c * (c - 1) / (c - 1))
    derivation = Derivation("t", Equation(c, rhs), (Step("ring", c),))
    result = audit(derivation)
    assert not result.verified
    assert "c - 1 ≠ 0" in str(result.statement_error)


def test_an_axioms_sides_are_checked_too() -> None:
    with pytest.raises(InvalidArgument, match="c - 1 ≠ 0"):
        axiom("A", _written(lambda: E(X) * (c - 1) / (c - 1)), E(X))


def test_an_assumption_holds_its_value_evaluated() -> None:
    # What it states is what it holds and shows: E[X] = 1, not (c − 1)/(c − 1).
    moment = Moment(E(X), _written(lambda: (c - 1) / (c - 1)))
    assert moment.value == 1
    assert str(Context.of((moment,)).assumptions[0].value) == "1"


def test_conditions_name_each_divisor_root_and_logarithm() -> None:
    term = _written(lambda: sympy.log(c) + sympy.sqrt(c + 1) + 1 / (c - 2) + c ** Rational(-1, 2))
    assert conditions(term) == {
        ("positive", c),
        ("nonnegative", c + 1),
        ("nonzero", c - 2),
    }
    assert unclaimable(term) is None  # nothing is dropped: the term keeps what it needs
