"""Laws a learner names (``q_i ~ N(0, sigma^2)``), as the moments the rules need.

A law is declared by ``ATOM ~ LAW(ARGS)`` (``--assume`` or ``assume:``): a component
``q_i`` (every component alike, as for ``E(q_i) = 0``) or a random variable ``X``.
The kernel knows no law, only moments: the declaration stands for the raw moments
E[X], Var(X), E[X³] and E[X⁴], each one an assumption stated in the output. They are
the law's, computed here in closed form (a hint, as every declaration is: the kernel
checks what follows from them, not that a Gaussian has them):

- ``N(mu, v)`` (also ``normal``, ``Normal``, ``gaussian``): E[X³] = μ³ + 3μv and
  E[X⁴] = μ⁴ + 6μ²v + 3v² (Isserlis' theorem for one variable: 3v² at μ = 0);
- ``coin`` (also ``rademacher``): ±1 each with probability ½: 0, 1, 0, 1;
- ``uniform(a, b)``: E[Xⁿ] = (bⁿ⁺¹ − aⁿ⁺¹)/((n + 1)(b − a)).

Examples
--------
>>> import sympy
>>> s = sympy.Symbol("sigma", positive=True)
>>> law_moments("N", [sympy.S.Zero, s**2])
Moments(mean=0, variance=sigma**2, third=0, fourth=3*sigma**4)
>>> law_moments("coin", [])
Moments(mean=0, variance=1, third=0, fourth=1)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy
from sympy import Expr

from scaledattn.errors import InvalidArgument

__all__ = ["LAW_NAMES", "Moments", "law_moments", "split_law"]

#: Each law's spellings and how many parameters it takes.
_ARITY = {"normal": 2, "coin": 0, "uniform": 2}
_SPELLINGS = {
    "N": "normal",
    "normal": "normal",
    "Normal": "normal",
    "gaussian": "normal",
    "Gaussian": "normal",
    "coin": "coin",
    "rademacher": "coin",
    "Rademacher": "coin",
    "uniform": "uniform",
    "U": "uniform",
}
#: The law names a declaration may use.
LAW_NAMES = tuple(_SPELLINGS)


@dataclass(frozen=True)
class Moments:
    """The first four moments of a law: E[X], Var(X), E[X³], E[X⁴]."""

    mean: Expr
    variance: Expr
    third: Expr
    fourth: Expr


def split_law(text: str) -> tuple[str, str, list[str]] | None:
    """``q_i ~ N(0, sigma^2)`` as (atom text, law name, argument texts); None without ``~``.

    >>> split_law("q_i ~ N(0, sigma^2)")
    ('q_i', 'N', ['0', 'sigma^2'])
    >>> split_law("X ~ coin")
    ('X', 'coin', [])
    """
    if text.count("~") != 1 or "~=" in text:
        return None
    atom, law = (part.strip() for part in text.split("~"))
    name, _, rest = law.partition("(")
    name = name.strip()
    if name not in _SPELLINGS:
        known = ", ".join(sorted({*_SPELLINGS.values()}))
        raise InvalidArgument(f"unknown law {name!r} in {text!r} (laws: N(mu, v), {known})")
    args: list[str] = []
    if rest:
        if not rest.rstrip().endswith(")"):
            raise InvalidArgument(f"a law is written NAME(ARGS), as N(0, sigma^2); got {text!r}")
        inner, depth, start = rest.rstrip()[:-1], 0, 0
        for at, char in enumerate(inner):
            depth += {"(": 1, ")": -1}.get(char, 0)
            if char == "," and depth == 0:
                args.append(inner[start:at].strip())
                start = at + 1
        if inner.strip():
            args.append(inner[start:].strip())
    if not atom:
        raise InvalidArgument(f"a law is declared for q_i, k_i or X: ATOM ~ LAW, got {text!r}")
    return atom, name, args


def law_moments(name: str, args: list[Any]) -> Moments:
    """The moments of the law ``name`` with parameters ``args``; InvalidArgument if malformed."""
    law = _SPELLINGS.get(name)
    if law is None:
        raise InvalidArgument(f"unknown law {name!r}")
    if len(args) != _ARITY[law]:
        form = {"normal": "N(mu, v)", "coin": "coin", "uniform": "uniform(a, b)"}[law]
        raise InvalidArgument(f"the law {name} takes {_ARITY[law]} parameters: {form}")
    if law == "coin":
        return Moments(sympy.S.Zero, sympy.S.One, sympy.S.Zero, sympy.S.One)
    if law == "normal":
        mu, v = (sympy.sympify(a) for a in args)
        if v.is_positive is not True:
            raise InvalidArgument(f"a normal law's variance is positive, got {sympy.sstr(v)}")
        return Moments(
            mu, v, sympy.expand(mu**3 + 3 * mu * v), sympy.expand(mu**4 + 6 * mu**2 * v + 3 * v**2)
        )
    a, b = (sympy.sympify(x) for x in args)
    if (b - a).is_positive is not True:
        raise InvalidArgument(f"uniform(a, b) needs a < b, got a = {a}, b = {b}")

    def raw(n: int) -> Expr:
        return sympy.factor(sympy.cancel((b ** (n + 1) - a ** (n + 1)) / ((n + 1) * (b - a))))

    mean = raw(1)
    return Moments(mean, sympy.factor(raw(2) - mean**2), raw(3), raw(4))
