"""Assumptions no model satisfies: reported as inconsistent, never used to verify vacuously.

Each check is a fact of probability that every model obeys, so a failed check is a
proof that no model satisfies the assumptions:

- a variance and a standard deviation are ≥ 0;
- E[Z²] ≥ E[Z]², and Var(Z) = E[Z²] − E[Z]² when all three are declared;
- Cov(Y, Z)² ≤ Var(Y)·Var(Z) (Cauchy–Schwarz);
- a random variable independent of itself is almost surely constant, so a declared
  ``Y = aX + b`` (a ≠ 0) with ``independent(X, Y)`` forces Var(X) = 0;
- a constant declared positive is not given a value ≤ 0.

Examples
--------
>>> from scaledattn.kernel import E, Moment, Var, random_variables
>>> (X,) = random_variables("X")
>>> inconsistency([Moment(Var(X), 2), Moment(E(X**2), 1), Moment(E(X), 0)], {}, {})
'Var(X) = E[X**2] − E[X]² = 1, not 2'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import sympy
from sympy import Expr, Symbol

from scaledattn.kernel import Assumption, Cov, E, Independent, Moment, Positive, Std, Var
from scaledattn.kernel.expr import RandomVariable

__all__ = ["inconsistency"]


def _declared(assumptions: Sequence[Assumption]) -> dict[Expr, Expr]:
    """Each declared moment with a numeric value (schematic indices kept as written)."""
    found: dict[Expr, Expr] = {}
    for a in assumptions:
        if not (isinstance(a, Moment) and a.value.is_number and a.value.is_real):
            continue
        if found.setdefault(a.lhs, a.value) != a.value:
            found[a.lhs] = sympy.nan  # two values for one moment: no model has both
    return found


def _is(value: Any) -> bool:
    return bool(value) is True


def inconsistency(
    assumptions: Sequence[Assumption],
    definitions: Mapping[str, Expr],
    constants: Mapping[str, Expr],
) -> str:
    """Why no model satisfies the assumptions, or '' when none of the checks fails."""
    moments = _declared(assumptions)
    for lhs, v in moments.items():
        if v is sympy.nan:
            return f"{lhs} is declared with two different values"
        if isinstance(lhs, (Var, Std)) and _is(v < 0):
            return f"{lhs} = {v} is negative"
        if isinstance(lhs, E):
            z = lhs.args[0]
            if isinstance(z, sympy.Pow) and z.exp == 2:
                mean = moments.get(E(z.base))
                if mean is not None and _is(v < mean**2):
                    return f"E[{z}] = {v} < E[{z.base}]² = {mean**2}"
                var = moments.get(Var(z.base))
                if mean is None and var is not None and _is(v < var):  # E[Z²] ≥ Var Z
                    return f"E[{z}] = {v} < Var({z.base}) = {var}"
                if mean is not None and var is not None and _is(sympy.Ne(v - mean**2, var)):
                    return f"Var({z.base}) = E[{z}] − E[{z.base}]² = {v - mean**2}, not {var}"
        if isinstance(lhs, Cov):
            y, z = lhs.args
            vy, vz = moments.get(Var(y)), moments.get(Var(z))
            if vy is not None and vz is not None and _is(v**2 > vy * vz):
                return f"Cov({y}, {z})² = {v**2} > Var({y})·Var({z}) = {vy * vz}"
    for a in assumptions:
        if isinstance(a, Positive) and a.symbol.name in constants:
            given = constants[a.symbol.name]
            if _is(given <= 0):
                return f"{a.symbol} > 0 is declared, but {a.symbol} = {given}"
        if isinstance(a, Independent):
            found = _self_independent(a, definitions, moments)
            if found:
                return found
    return ""


def _self_independent(
    a: Independent, definitions: Mapping[str, Expr], moments: Mapping[Expr, Expr]
) -> str:
    """X ⫫ Y with Y = aX + b (a ≠ 0) makes X constant: a declared Var(X) ≠ 0 contradicts it."""
    units = [u for u in a.units if isinstance(u, RandomVariable)]
    for y in units:
        body = definitions.get(y.name)
        if body is None:
            continue
        for x in units:
            if x == y or not isinstance(body, Expr):
                continue
            poly = sympy.Poly(body, x) if body.is_polynomial(x) else None
            if poly is None or poly.degree() != 1:
                continue
            slope = poly.coeffs()[0]
            if not (slope.is_number and slope != 0) or (body - slope * x).has(RandomVariable):
                continue
            var = moments.get(Var(x))
            if var is not None and _is(sympy.Ne(var, 0)):
                return (
                    f"{y} = {body} and {x}, {y} independent make {x} independent of itself,"
                    f" hence constant, but Var({x}) = {var}"
                )
    return ""


def positive_constants(symbols: Sequence[Symbol]) -> list[Symbol]:
    """The symbols a user writes that the calculator takes as positive (σ, c)."""
    return [s for s in symbols if s.is_positive and not s.is_integer]
