"""The calculator's parser refuses a divisor SymPy cancels, or a root it squares away.

``--mean-q "(x - 1)/(x - 1)"`` read as 1, though it is undefined at x = 1; the
calculator has no assumptions, so only the symbols' facts (names in a variance or a
scale are positive, other names real) may keep such a divisor nonzero.
"""

from __future__ import annotations

import pytest
import sympy
from hypothesis import example, given

from scaledattn.calculator import parse_expression
from scaledattn.cli import main
from scaledattn.errors import InvalidArgument
from scaledattn.language.parse import names_in, parse
from tests.written import VALUES, assert_same_where_defined, written_terms

Capture = pytest.CaptureFixture[str]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x*(x - 1)/(x - 1)", "division by x - 1, which may be 0 (the term as read cancels it)"),
        (
            "sqrt(x)**2",
            "square root of x, which may be negative (the term as read squares it away)",
        ),
        (
            "(1 + sqrt(2))**2 - 3 - 2*sqrt(2) + 1/((1 + sqrt(2))**2 - 3 - 2*sqrt(2))",
            "division by zero",
        ),
        ("(-4)**(1/2)", "square root of a negative number (-4)"),
        ("0/x", "division by x, which may be 0"),
    ],
)
def test_the_calculator_parser_refuses_what_sympy_rewrites_under_a_hidden_condition(
    text: str, message: str
) -> None:
    with pytest.raises(InvalidArgument) as caught:
        parse_expression(text)
    assert message in str(caught.value)


def test_a_positive_name_may_cancel_and_a_divisor_the_term_keeps_stays() -> None:
    s = sympy.Symbol("s", positive=True)
    assert parse_expression("x*s/s", {"s": s}) == sympy.Symbol("x", real=True)
    x = sympy.Symbol("x", real=True)
    assert parse_expression("x/(x - 1)") == x / (x - 1)


def test_an_option_whose_divisor_cancels_exits_2_naming_the_option(capsys: Capture) -> None:
    assert main(["mean", "--mean-q", "(x - 1)/(x - 1)"]) == 2
    err = capsys.readouterr().err
    assert "--mean-q must be real: division by x - 1, which may be 0" in err
    assert len(err.strip().splitlines()) == 1


@given(written_terms(("x", "y"), functions=False))
@example("(x) / (x)")
@example("sqrt((x) - (y)) * sqrt((x) - (y))")
def test_a_term_the_calculator_accepts_is_undefined_wherever_the_written_one_is(text: str) -> None:
    try:
        built = parse_expression(text)
    except InvalidArgument:
        return
    node = parse(text)
    symbols = {n: sympy.Symbol(n, real=True) for n in names_in(node)}
    assert_same_where_defined(node, built, symbols, {"x": VALUES, "y": VALUES})
