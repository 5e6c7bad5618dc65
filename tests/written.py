"""Written terms and their value as written: the oracle for what a parser may cancel.

:func:`written_terms` draws texts of arithmetic with ``/``, powers, square roots and (for
the claim and proof languages) ``log`` and ``exp``, over a few names, with divisors and
radicands that are often 0 or negative at small integer values. :func:`written_value`
computes a text's value the way it is written, step by step, exactly: None where it is
undefined (a division by 0, the log of a number ≤ 0, the square root of a negative
number), whatever SymPy would make of it. A parser that accepts a term must build one that
is undefined there too, and equal to the written value where both are defined
(:func:`assert_same_where_defined`, which evaluates the built term as strictly,
:func:`built_value`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import product

import sympy
from hypothesis import assume
from hypothesis import strategies as st
from sympy import Expr, Rational

from scaledattn.language.parse import Node

#: Small values: 0, ±1 and 2 make divisors, radicands and log arguments 0 or negative often.
VALUES = (-1, 0, 1, 2)


@st.composite
def written_terms(draw: st.DrawFn, names: tuple[str, ...], functions: bool, depth: int = 3) -> str:
    """The text of a term over ``names`` and small numbers (``log``/``exp`` if ``functions``)."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from([*names, *names, "0", "1", "2"]))
    inner = written_terms(names, functions, depth - 1)
    shape = draw(st.sampled_from(["+", "-", "*", "/", "/", "**", "sqrt", "neg", "fn"]))
    left = draw(inner)
    if shape == "**":
        return f"({left})**({draw(st.sampled_from(['-1', '2', '1/2', '-1/2', '3', '0']))})"
    if shape == "sqrt":
        return f"sqrt({left})"
    if shape == "neg":
        return f"-({left})"
    if shape == "fn":
        fn = draw(st.sampled_from(["log", "exp"])) if functions else "sqrt"
        return f"{fn}({left})"
    return f"({left}) {shape} ({draw(inner)})"


def written_value(node: Node, values: Mapping[str, Expr]) -> Expr | None:
    """The value of a syntax tree as written, step by step; None where it is undefined."""
    kind, kids = node.kind, node.children
    if kind == "num":
        assert isinstance(node.value, Rational)
        return node.value
    if kind == "name":
        return values[str(node.value)]
    args = [written_value(k, values) for k in kids]
    if any(a is None for a in args):
        return None
    a = args[0]
    assert a is not None
    if kind == "neg":
        return -a
    if kind in ("sqrt", "log"):
        sign = a.is_nonnegative if kind == "sqrt" else a.is_positive
        assume(sign is not None)
        return (sympy.sqrt(a) if kind == "sqrt" else sympy.log(a)) if sign else None
    if kind == "exp":
        return sympy.exp(a)
    b = args[1]
    assert b is not None
    if kind == "+":
        return a + b
    if kind == "-":
        return a - b
    if kind == "*":
        return a * b
    if kind == "/":
        assume(b.is_zero is not None)
        return None if b.is_zero else a / b
    assert kind == "**", kind
    assert b.is_Rational
    assume(a.is_zero is not None and a.is_negative is not None)
    if (a.is_zero and b.is_negative) or (a.is_negative and not b.is_integer):
        return None
    return a**b


def built_value(term: Expr, values: Mapping[sympy.Symbol, Expr]) -> Expr | None:
    """The value of a built SymPy term, node by node, exactly; None where it is undefined.

    SymPy's own arithmetic would not do: its 1/(a + 1/a) at a = 0 is 1/zoo = 0.
    """
    if term in values:
        return values[term]
    if term.is_Number or term.is_NumberSymbol:
        return term
    args = [built_value(a, values) for a in term.args]
    if any(a is None for a in args):
        return None
    if isinstance(term, sympy.Add):
        return sympy.Add(*args)
    if isinstance(term, sympy.Mul):
        return sympy.Mul(*args)
    if isinstance(term, sympy.Abs):
        return abs(args[0])
    if isinstance(term, sympy.exp):
        return sympy.exp(args[0])
    base = args[0]
    assert base is not None
    if isinstance(term, sympy.log):
        assume(base.is_positive is not None)
        return sympy.log(base) if base.is_positive else None
    assert isinstance(term, sympy.Pow), type(term)
    exponent = args[1]
    assert exponent is not None
    assume(base.is_zero is not None and base.is_negative is not None)
    if (base.is_zero and exponent.is_negative) or (base.is_negative and not exponent.is_integer):
        return None
    return base**exponent


def assert_same_where_defined(
    node: Node,
    built: Expr,
    symbols: Mapping[str, sympy.Symbol],
    ranges: Mapping[str, Iterable[int]],
) -> None:
    """At every point of ``ranges``: the built term is undefined where the written one is.

    Where both are defined they are the same number. (The built term may be undefined
    where the written one is not: SymPy reads √(a²b) as |a|·√b, undefined at a = 0, b < 0.
    That refuses more, never verifies more, and is not what this checks.)
    """
    names = sorted(symbols)
    for point in product(*(tuple(ranges[n]) for n in names)):
        values = {n: sympy.Integer(v) for n, v in zip(names, point, strict=True)}
        written = written_value(node, values)
        value = built_value(built, {symbols[n]: v for n, v in values.items()})
        at = dict(zip(names, point, strict=True))
        if written is None:
            assert value is None, f"at {at} the written term is undefined, the built {value}"
        elif value is not None:  # SymPy may also make a term undefined: √(a²b) = |a|·√b at a = 0
            assert abs(complex(sympy.N(value - written, 30))) < 1e-20, (at, written, value)
