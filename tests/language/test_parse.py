"""The language's expression parser: what it accepts, what it refuses, and its bounds."""

from __future__ import annotations

import contextlib
from fractions import Fraction

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from scaledattn.errors import InvalidArgument
from scaledattn.language.parse import MAX_DEPTH, MAX_LENGTH, parse_expression

x = sympy.Symbol("x", real=True)
sigma = sympy.Symbol("sigma", real=True)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4", sympy.Integer(4)),
        ("1/4", sympy.Rational(1, 4)),
        ("2.5", sympy.Rational(5, 2)),
        ("0.125", sympy.Rational(1, 8)),
        ("1e-3", sympy.Rational(1, 1000)),
        ("64", sympy.Integer(64)),
        ("sigma**2", sigma**2),
        ("-x**2", -(x**2)),
        ("(-x)**2", x**2),
        ("2**3**2", sympy.Integer(512)),
        ("2**-1", sympy.Rational(1, 2)),
        ("x*x/2", x**2 / 2),
        ("  1 +  2 * 3 ", sympy.Integer(7)),
        ("sqrt(2)/2", sympy.sqrt(2) / 2),
        ("x**(1/2)", sympy.sqrt(x)),
        ("((((1))))", sympy.Integer(1)),
        ("--1", sympy.Integer(1)),
        # the same in the spellings a learner types (scaledattn.language.surface)
        ("x^2", x**2),
        ("x²", x**2),
        ("σ^2", sigma**2),
        ("2x", 2 * x),
        ("2 sigma^2", 2 * sigma**2),
        ("x sigma", x * sigma),
        ("x^2 sigma", x**2 * sigma),
        ("2(x + 1)", 2 * x + 2),
        ("(x + 1)(x - 1)", (x + 1) * (x - 1)),
        ("2√x", 2 * sympy.sqrt(x)),
        ("x − 1", x - 1),
        ("2·x × 3", 6 * x),
        ("\\frac{1}{2}", sympy.Rational(1, 2)),
        ("\\sqrt{x}\\cdot x^{2}", x ** sympy.Rational(5, 2)),
        ("\\left(x + 1\\right)^2", (x + 1) ** 2),
        ("$\\sigma^2$", sigma**2),
    ],
)
def test_parser_reads_numbers_names_and_operators(text: str, expected: sympy.Expr) -> None:
    assert parse_expression(text) == expected


HOSTILE = [
    ("", "empty expression"),
    ("   ", "empty expression"),
    ("__import__('os')", "unexpected character '_'"),
    ("os.system('ls')", "unexpected character '.'"),
    ("lambda: 1", "unexpected character ':'"),
    ("x; y", "unexpected character ';'"),
    ("x \\neq 1", "unknown LaTeX command \\neq"),
    ("\\frac{1}", "\\frac takes a braced argument"),
    ("\\sqrt[3]{x}", "only square roots"),
    ("x^{2", "missing ')'"),
    ("1/2x", 'did you mean "1/(2*x)" or "1/2*x"?'),
    ("2^3x", "is ambiguous"),
    ("1/2 x", 'did you mean "1/(2*x)" or "1/2*x"?'),
    ("x(2)", "unknown function 'x'"),
    ("sqr(2)", 'did you mean "sqrt(2)"?'),
    ("٣", "unexpected character"),
    ("2**2**2**2**2**2", "too large"),
    ("10**100", "too large"),
    ("(10**20)**64", "number too large"),
    ("x**9", "too large"),
    ("x**y", "exponent must be a number"),
    ("x**(1/3)", "half-integer"),
    ("1/0", "division by zero"),
    ("0**-1", "division by zero"),
    ("1/(x-x)", "division by zero"),
    ("exp(1)", "unknown function 'exp'"),
    ("sqrt 2", "must be followed by '('"),
    ("1 +", "unexpected end"),
    ("(1", "missing ')'"),
    ("1)", "unexpected ')'"),
    ("3 4", "unexpected '4'"),
    ("*3", "unexpected '*'"),
    ("9" * 31, "more than 30 digits"),
    ("1e99", "number exponent beyond"),
    ("a" * 33, "name too long"),
    ("(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1), "nested too deeply"),
    ("-" * (MAX_DEPTH + 1) + "1", "nested too deeply"),
    ("1+" * 200 + "1", "expression too long"),
    ("x" * 10**6, "expression too long"),
]


@pytest.mark.parametrize(("text", "message"), HOSTILE)
def test_parser_refuses_hostile_or_malformed_text_in_one_line(text: str, message: str) -> None:
    with pytest.raises(InvalidArgument) as err:
        parse_expression(text)
    assert message in str(err.value)
    assert "\n" not in str(err.value)
    assert len(str(err.value)) < 200


def test_parser_refuses_non_text() -> None:
    with pytest.raises(InvalidArgument, match="must be text"):
        parse_expression(4)  # type: ignore[arg-type]


def test_parser_text_limit_is_inclusive() -> None:
    assert parse_expression("1" + "+1" * ((MAX_LENGTH - 1) // 2)) == (MAX_LENGTH + 1) // 2


@st.composite
def arithmetic(draw: st.DrawFn, depth: int = 3) -> tuple[str, sympy.Expr]:
    """(text, SymPy value) of a random expression over small numbers and two names."""
    if depth == 0 or draw(st.booleans()):
        if draw(st.booleans()):
            value = draw(st.fractions(min_value=0, max_value=20, max_denominator=9))
            return f"({value})", sympy.Rational(value.numerator, value.denominator)
        name = draw(st.sampled_from(["x", "sigma"]))
        return name, sympy.Symbol(name, real=True)
    op = draw(st.sampled_from(["+", "-", "*", "/", "**"]))
    left_text, left = draw(arithmetic(depth - 1))
    if op == "**":
        n = draw(st.integers(min_value=0, max_value=3))
        return f"({left_text})**{n}", left**n
    right_text, right = draw(arithmetic(depth - 1))
    if op == "/" and right == 0:
        return left_text, left
    value = {"+": left + right, "-": left - right, "*": left * right, "/": left / right}[op]
    return f"({left_text}) {op} ({right_text})", value


@given(arithmetic())
def test_parser_builds_the_same_value_as_sympy_arithmetic(case: tuple[str, sympy.Expr]) -> None:
    text, value = case
    refusal = ""
    try:
        parsed = parse_expression(text)
    except InvalidArgument as err:  # a divisor SymPy cancels that may be 0 (x/x at x = 0)
        refusal = str(err)
    if refusal:
        assert "which may be 0 (the term as read cancels it)" in refusal
    else:
        assert sympy.cancel(parsed - value) == 0


@given(st.fractions(min_value=-(10**6), max_value=10**6, max_denominator=10**6))
def test_parser_reads_every_fraction_exactly(value: Fraction) -> None:
    assert parse_expression(str(value)) == sympy.Rational(value.numerator, value.denominator)


def test_a_suggestion_is_checked_without_suggesting_again() -> None:
    """Checking a "did you mean" reads the suggestion with a parser that offers none.

    A dev-profile seed drew text in which each suggestion, read to check it, made another:
    the check recursed until Python's stack ran out (a RecursionError, not a refusal).
    """
    from scaledattn.errors import InvalidArgument
    from scaledattn.language.parse import Parser, well_formed

    assert well_formed("1 + 2")
    text = " * ".join(["E[X*Y]"] * 20)  # within the length limit (200)
    with contextlib.suppress(InvalidArgument):  # read or refused, never a RecursionError
        Parser(text).expr()
    checker = Parser("1 + 2")
    checker.suggest = False
    assert checker.did_you_mean(2, "+", "-") == ""
