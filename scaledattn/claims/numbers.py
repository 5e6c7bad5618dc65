"""Rigorous numbers for claims: interval enclosures, and the tolerance a claim's digits imply.

A numeric side of a claim is an exact SymPy expression (rationals, √, exp, log,
softmax written out, max/min) in which a placeholder may stand for a range: a
``rounded(2.95)`` is any number in [2.945, 2.955], a ``measured(NAME)`` the
measurement's interval. :func:`enclose` computes, with mpmath's interval
arithmetic at 200 bits, an interval that certainly contains every value the
expression can take; a rational expression without placeholders is computed
exactly. Decisions compare such intervals with exact rational bounds, so a value
on the edge of a tolerance (0.125 against 0.12 ± 0.005) is decided exactly.

Examples
--------
>>> import sympy
>>> enclose(sympy.Rational(1, 8)).exact
True
>>> r = enclose(sympy.exp(1))
>>> round(float(r.low), 12), r.high - r.low < Fraction(1, 10**50)
(2.718281828459, True)
>>> compare(enclose(sympy.Rational(1, 8)), Fraction(23, 200), Fraction(1, 8))
'inside'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

import sympy
from mpmath import iv
from mpmath.libmp import to_rational
from sympy import Expr, Symbol

from scaledattn.errors import InvalidArgument

__all__ = ["PRECISION", "Interval", "compare", "enclose", "show_number"]

#: Bits of working precision for interval arithmetic.
PRECISION = 200

Ranges = Mapping[Symbol, tuple[Fraction, Fraction]]


@dataclass(frozen=True)
class Interval:
    """[low, high] with exact rational ends; ``exact`` when low = high is the exact value."""

    low: Fraction
    high: Fraction
    exact: bool = False

    @property
    def mid(self) -> Fraction:
        """The midpoint."""
        return (self.low + self.high) / 2

    @property
    def point(self) -> bool:
        """True when the interval is narrower than 10⁻³⁰ of its size (only rounding error)."""
        size = max(abs(self.low), abs(self.high), Fraction(1))
        return self.high - self.low <= size * Fraction(1, 10**30)


def _fraction(raw: Any) -> Fraction:
    p, q = to_rational(raw)
    return Fraction(int(p), int(q))


def enclose(expr: Expr, ranges: Ranges | None = None) -> Interval:
    """An interval holding every value of the numeric expression ``expr``.

    ``ranges`` gives the range of each placeholder symbol. InvalidArgument when the
    expression has another free symbol, or leaves the real numbers (√ or log of a
    negative number).
    """
    ranges = ranges or {}
    expr = sympy.sympify(expr)
    if expr.is_Rational:
        value = Fraction(int(expr.p), int(expr.q))
        return Interval(value, value, exact=True)
    old = iv.prec
    iv.prec = PRECISION
    try:
        result = _walk(expr, ranges, {})
        low, high = result._mpi_
        return Interval(_fraction(low), _fraction(high))
    except (ValueError, ZeroDivisionError, ArithmeticError) as err:
        raise InvalidArgument(f"cannot compute {sympy.sstr(expr)}: {err}") from None
    finally:
        iv.prec = old


def _walk(expr: Expr, ranges: Ranges, memo: dict[Expr, Any]) -> Any:
    if expr in memo:
        return memo[expr]
    result: Any
    if expr.is_Rational:
        result = iv.mpf(int(expr.p)) / iv.mpf(int(expr.q))
    elif expr is sympy.E:
        result = iv.e
    elif expr is sympy.pi:
        result = iv.pi
    elif isinstance(expr, Symbol):
        if expr not in ranges:
            raise InvalidArgument(f"{expr} has no value here")
        result = _span(*ranges[expr])
    elif isinstance(expr, sympy.Add):
        result = iv.mpf(0)
        for a in expr.args:
            result = result + _walk(a, ranges, memo)
    elif isinstance(expr, sympy.Mul):
        result = iv.mpf(1)
        for a in expr.args:
            result = result * _walk(a, ranges, memo)
    elif isinstance(expr, sympy.Pow):
        result = _power(_walk(expr.base, ranges, memo), expr.exp, ranges, memo)
    elif isinstance(expr, sympy.exp):
        result = iv.exp(_walk(expr.args[0], ranges, memo))
    elif isinstance(expr, sympy.log):
        arg = _walk(expr.args[0], ranges, memo)
        if not arg.a > 0:
            raise InvalidArgument(f"log of a number that may not be positive: {expr}")
        result = iv.log(arg)
    elif isinstance(expr, (sympy.Max, sympy.Min)):
        parts = [_walk(a, ranges, memo)._mpi_ for a in expr.args]
        pick = max if isinstance(expr, sympy.Max) else min
        low = pick((p[0] for p in parts), key=_fraction)
        high = pick((p[1] for p in parts), key=_fraction)
        result = iv.make_mpf((low, high))
    else:
        raise InvalidArgument(f"not a number: {sympy.sstr(expr)}")
    memo[expr] = result
    return result


def _span(low: Fraction, high: Fraction) -> Any:
    """The interval [low, high] (ends rounded outwards)."""
    a = iv.mpf(low.numerator) / low.denominator
    b = iv.mpf(high.numerator) / high.denominator
    return iv.make_mpf((a._mpi_[0], b._mpi_[1]))


def _power(base: Any, exponent: Expr, ranges: Ranges, memo: dict[Expr, Any]) -> Any:
    if exponent.is_Integer:
        if exponent < 0 and base.a <= 0 <= base.b:
            raise InvalidArgument("division by a number that may be zero")
        return base ** int(exponent)
    if not base.a >= 0:
        raise InvalidArgument("a fractional power of a number that may be negative")
    if exponent == sympy.Rational(1, 2):
        return iv.sqrt(base)
    return iv.exp(_walk(exponent, ranges, memo) * iv.log(base))


def compare(value: Interval, low: Fraction, high: Fraction) -> str:
    """Where ``value`` lies against [low, high]: 'inside', 'outside' or 'straddles'.

    >>> compare(Interval(Fraction(1), Fraction(2)), Fraction(3), Fraction(4))
    'outside'
    """
    if low <= value.low and value.high <= high:
        return "inside"
    if value.high < low or value.low > high:
        return "outside"
    return "straddles"


def _decimal(x: Fraction | float) -> Decimal:
    """``x`` as a Decimal of 40 significant digits, whatever its size (e^100000 included)."""
    with localcontext() as ctx:
        ctx.prec, ctx.Emax, ctx.Emin = 40, 10**9, -(10**9)
        if isinstance(x, Fraction):
            return Decimal(x.numerator) / Decimal(x.denominator)
        return Decimal(repr(float(x))) + 0


def show_number(x: Interval | Fraction | float, digits: int = 6) -> str:
    """A number for people: ``0.659001``, ``4.50940e-05``, ``485165195``.

    >>> show_number(Fraction(1, 8)), show_number(4.509404e-05)
    ('0.125', '4.50940e-5')
    """
    if isinstance(x, Interval):
        if x.exact and x.low.denominator == 1 and abs(x.low) < 10**30:
            return str(x.low.numerator)
        value = _decimal((x.low + x.high) / 2)
    else:
        value = _decimal(x)
    if value == 0:
        return "0"
    if abs(value) >= Decimal(10) ** 15 or abs(value) < Decimal("0.001"):
        return f"{value:.{digits - 1}e}"
    integer_digits = len(str(int(abs(value))))
    text = f"{value:.{max(digits, integer_digits + 2)}g}"
    return text.rstrip("0").rstrip(".") if "." in text and "e" not in text else text


def decimals_of(half: Fraction) -> int:
    """How many decimals a tolerance of half a unit corresponds to (≥ 0).

    >>> decimals_of(Fraction(1, 2000)), decimals_of(Fraction(1, 2))
    (3, 0)
    """
    n = 0
    while Fraction(1, 2) * Fraction(1, 10**n) > half and n < 40:
        n += 1
    return n


def rounded_to(x: Interval, half: Fraction) -> str:
    """The value written with the claim's number of decimals (what the claim should say)."""
    decimals = decimals_of(half)
    value = _decimal((x.low + x.high) / 2)
    if abs(value) >= Decimal(10) ** 15:
        return f"{value:.6e}"
    return f"{value:.{decimals}f}"
