"""Assumptions no model satisfies: reported as inconsistent, never used to verify vacuously.

Each check is a fact of probability that every model obeys, so a failed check is a
proof that no model satisfies the assumptions:

- a variance and a standard deviation are ≥ 0;
- E[Z²] ≥ E[Z]², and Var(Z) = E[Z²] − E[Z]² when all three are declared;
- Cov(Y, Z)² ≤ Var(Y)·Var(Z) (Cauchy–Schwarz);
- a random variable independent of itself is almost surely constant, so a declared
  ``Y = aX + b`` (a ≠ 0) with ``independent(X, Y)`` forces Var(X) = 0;
- a constant declared positive is not given a value ≤ 0;
- every declared moment, read in the normal form the automation reduces it to (E linear,
  Var and Cov by their definitions, Cov symmetric, Cov(X, X) = Var X, products of
  independent factors split), is an equation between the basic moments E[monomial]; a
  moment with a schematic pair (Cov(qᵢ, qⱼ)) is read at i = j too. When these equations
  have no common solution (their Gröbner basis is 1), no model satisfies them.

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
from scaledattn.kernel.assumptions import Independence
from scaledattn.kernel.expr import RandomVariable, VectorLabel

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


def _normal_forms(assumptions: Sequence[Assumption]) -> list[tuple[Expr, Expr, Expr]]:
    """(moment as written, its normal form, its value) for each numeric declared moment."""
    from scaledattn.automation.rewrite import Environment, normalize

    env = Environment(tuple(a for a in assumptions if isinstance(a, (Independence, Positive))))
    found: list[tuple[Expr, Expr, Expr]] = []
    for a in assumptions:
        if not (isinstance(a, Moment) and a.value.is_number and a.value.is_real):
            continue
        readings = [a.lhs]
        if len(a.indices) > 1:  # Cov(qᵢ, qⱼ) = 0 for every i, j: at i = j as well
            first = a.indices[0]
            readings.append(a.lhs.xreplace(dict.fromkeys(a.indices[1:], first)))
        for lhs in readings:
            try:
                end = normalize(lhs, env).end
            except (TypeError, ValueError, ArithmeticError, RecursionError):
                continue
            found.append((lhs, sympy.expand(end), a.value))
    return found


#: The normal-form check solves at most this many equations (a Gröbner basis grows fast).
MAX_EQUATIONS = 12


def normal_form_inconsistency(assumptions: Sequence[Assumption]) -> str:
    """Why the declared moments, in their normal form, have no common value ('' if they may)."""
    forms = _normal_forms(assumptions)
    equations = [form - v for _, form, v in forms]
    if not equations or len(equations) > MAX_EQUATIONS:
        return ""
    unknowns = sorted(
        {m for e in equations for m in e.atoms(E, Var, Cov, Std)}, key=sympy.default_sort_key
    )
    shown = "; ".join(
        f"{lhs} = {v}" + ("" if form == lhs else f" reads {form} = {v}") for lhs, form, v in forms
    )
    why = (
        f"in the normal form (E linear, Var and Cov by their definitions) {shown}:"
        " no values of the basic moments satisfy them all"
    )
    for e in equations:
        if e.is_number and e != 0:
            return why
    if not unknowns:
        return ""
    polys = [e for e in equations if not e.is_number]
    try:
        basis = sympy.groebner(polys, *unknowns, order="lex")
    except (sympy.PolynomialError, ValueError, TypeError, NotImplementedError):
        return ""
    if list(basis.exprs) == [1]:
        return why
    return ""


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
    return normal_form_inconsistency(assumptions)  # last: the checks above say it plainer


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


def kept_defaults(
    declared: Sequence[Assumption], defaults: Sequence[Assumption], terms: Sequence[Any] = ()
) -> tuple[list[Assumption], list[tuple[Assumption, str]]]:
    """The defaults kept (each consistent with the user's lines and those kept before it).

    A default is a convenience, never a premise against what the user wrote: each is kept
    only when no check of :func:`inconsistency` fails with it and the gate finds a model of
    the user's lines, the defaults kept so far and it (:func:`scaledattn.gate.model_of`).
    Moments are tried first, independence last (a declared E[qᵢkᵢ] = 1 keeps the means 0
    and drops the independence they contradict). Returns (kept, [(dropped, why)]).
    """
    from scaledattn.gate import model_of

    if not declared or inconsistency(declared, {}, {}):
        return list(defaults), []  # nothing to contradict, or the user's lines alone fail
    if model_of(terms, [*declared, *defaults]) is not None:
        return list(defaults), []
    # When the search finds no model of the user's lines alone, the search cannot judge
    # a default; the algebraic checks alone miss some contradictions (E[q₁⁴] = 1/2
    # against Var(qᵢ) = 1, since E[q⁴] ≥ Var(q)²). A default about a random atom the
    # user's lines mention is then kept only when a model of it with them is found (the
    # default may help the search: a declared mean); else dropped, never kept unchecked.
    # The others, and a mean's default (E[qᵢ] = 0 beside a declared E[qᵢkᵢ] = 1: the
    # linear checks see every first moment), are judged by the algebraic checks.
    searchable = model_of(terms, declared) is not None
    mentioned = set().union(*(_random_atoms(a) for a in declared))
    kept: list[Assumption] = []
    dropped: list[tuple[Assumption, str]] = []
    order = sorted(defaults, key=lambda a: isinstance(a, Independence))
    for default in order:
        trial = [*declared, *kept, default]
        problem = inconsistency(trial, {}, {})
        if problem:
            dropped.append((default, f"inconsistent with the lines above: {problem}"))
        elif (
            not searchable
            and not _a_mean(default)
            and _random_atoms(default) & mentioned
            and model_of(terms, trial) is None
        ):
            dropped.append(
                (
                    default,
                    "no model of the lines above alone was found to check it against, and it"
                    " is about what they name",
                )
            )
        elif searchable and model_of(terms, trial) is None:
            dropped.append((default, "no model of it with the lines above was found"))
        else:
            kept.append(default)
    return [a for a in defaults if a in kept], dropped


def _random_atoms(assumption: Assumption) -> set[str]:
    """The random vectors and variables an assumption is about, by name (q for qᵢ)."""
    found: set[str] = set()
    for part in vars(assumption).values():
        items = part if isinstance(part, (tuple, list, frozenset, set)) else (part,)
        for item in items:
            if isinstance(item, sympy.Basic):
                found |= {str(v.name) for v in item.atoms(VectorLabel)}
                found |= {str(v.name) for v in item.atoms(RandomVariable)}
                if isinstance(item, (VectorLabel, RandomVariable)):
                    found.add(str(item.name))
    return found


def _a_mean(assumption: Assumption) -> bool:
    """Whether ``assumption`` is a mean's value, E[·] = v."""
    return isinstance(assumption, Moment) and isinstance(assumption.lhs, E)
