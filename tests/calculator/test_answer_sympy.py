"""Issue 18: an answer behaves as its SymPy expression, and its derivation stays reachable."""

from __future__ import annotations

import pytest
import sympy

import scaledattn
from scaledattn.calculator import Answer
from scaledattn.derive import audit_of
from scaledattn.errors import InvalidArgument


@pytest.fixture(scope="module")
def a() -> Answer:
    return scaledattn.variance(var_q=4, var_k=4)


def test_subs_by_name_gives_the_number(a: Answer) -> None:
    assert a.subs("d_k", 64) == 1024
    assert a.subs({"d_k": 64}) == 1024
    assert a.subs([("d_k", 64)]) == 1024
    assert a.subs("d_k", "2^6") == 1024  # text read by the bounded parser


def test_subs_by_symbol_works_for_the_answers_symbol_and_for_a_typed_one(a: Answer) -> None:
    assert a.subs(a.symbols["d_k"], 64) == 1024
    assert a.subs(sympy.Symbol("d_k"), 64) == 1024
    assert a.subs(sympy.sympify("d_k"), 64) == 1024


def test_subs_of_a_name_the_answer_does_not_have_is_refused_not_ignored(a: Answer) -> None:
    with pytest.raises(InvalidArgument, match="not a symbol of 16\\*d_k"):
        a.subs("d_q", 64)


def test_arithmetic_returns_plain_sympy(a: Answer) -> None:
    d_k = a.symbols["d_k"]
    for value, expected in [
        (a * 2, 32 * d_k),
        (2 * a, 32 * d_k),
        (a / 64, d_k / 4),
        (1024 / a, 64 / d_k),
        (a + 1, 16 * d_k + 1),
        (1 - a, 1 - 16 * d_k),
        (a - a, 0),
        (a**2, 256 * d_k**2),
        (-a, -16 * d_k),
        (sympy.sqrt(a), 4 * sympy.sqrt(d_k)),
    ]:
        assert not isinstance(value, Answer)
        assert isinstance(value, sympy.Basic)
        assert value == expected
    assert (a / 64).subs(d_k, 64) == 16
    assert (a > 0) is sympy.true  # the kernel's assumption: d_k is a positive integer


def test_equality_with_the_expression_typed_by_the_user(a: Answer) -> None:
    assert a == sympy.sympify("16*d_k")
    # With the typed expression on the left, == is SymPy's own structural test, which
    # sees the answer's d_k (a positive integer) as another symbol (see Answer's doc).
    assert (sympy.sympify("16*d_k") == a) is False
    assert a == 16 * a.symbols["d_k"]
    assert a != sympy.sympify("15*d_k")
    assert a != "16*d_k"  # text is never sympified
    assert a == scaledattn.variance(var_q=4, var_k=4)


def test_printing_is_unchanged(a: Answer) -> None:
    assert str(a) == repr(a) == "16*d_k"
    assert sympy.sstr(a * 2) == "32*d_k"


def test_the_attached_derivation_stays_reachable_and_is_not_on_the_shared_expression(
    a: Answer,
) -> None:
    assert a.theorem.name
    assert audit_of(a.derivation).verified
    assert sympy.sympify(a) is a.expr
    assert not hasattr(a.expr, "theorem")  # SymPy shares expressions: nothing attached
    assert not hasattr(a * 2, "derivation")
