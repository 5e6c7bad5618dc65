"""Counterexamples: concrete distributions, satisfying the assumptions, on which two sides differ.

The candidates are small catalogue laws (:mod:`scaledattn.numeric`): for two
random variables that are not declared independent, first the extreme case
``Y = X``; then independent draws; then the settings the numeric witnesses build
from a derivation's assumptions (:func:`scaledattn.numeric.settings.default_settings`).
Each model is checked against every declared assumption
(:func:`scaledattn.numeric.evidence.check_assumptions`) and both sides are
evaluated *exactly* on it (:class:`scaledattn.numeric.evaluate.Evaluator`: the
moments of the model's joint law, in rational arithmetic), so a counterexample is
a fact about numbers, not an estimate. Before it is printed, the oracle confirms it
independently (:mod:`scaledattn.numeric.semantics`): the model's finite joint law is
enumerated, random variables the user defined (``Y = X``) are computed from the
others, every assumption is checked on that law (independence as a factorisation of
the joint law), and the two sides must differ there.

Examples
--------
>>> from scaledattn.kernel import Var, random_variables
>>> X, Y = random_variables("X Y")
>>> found = counterexample(Var(X + Y), Var(X) + Var(Y), ())
>>> found.model, found.left, found.right
('X ~ coin, Y = X', '4', '2')
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
from sympy import Expr, Symbol

from scaledattn.errors import InvalidArgument
from scaledattn.kernel import (
    Assumption,
    Derivation,
    Dot,
    Equation,
    Independent,
    Moment,
    RandomVector,
    Std,
    Step,
    Var,
)
from scaledattn.kernel.assumptions import IndependentComponents
from scaledattn.kernel.binders import subst
from scaledattn.kernel.expr import Component, Cov, E, RandomVariable
from scaledattn.numeric.evaluate import Evaluator, equal, show
from scaledattn.numeric.evidence import check_assumptions
from scaledattn.numeric.model import Model, Signature, build_model, signature
from scaledattn.numeric.semantics import agree, check_world
from scaledattn.numeric.settings import default_settings
from scaledattn.numeric.spec import format_number
from scaledattn.numeric.worlds import world_of

__all__ = ["Counterexample", "MAX_CANDIDATE_DIMENSION", "counterexample"]

#: Vectors are evaluated exactly only up to this dimension.
MAX_CANDIDATE_DIMENSION = 8
#: A model is evaluated only if the moments' polynomials can have at most this many terms.
MAX_MONOMIALS = 20_000
#: Laws tried, in turn, for random variables without declared moments.
LAWS = ("coin", "bernoulli:p=1/3", "die")


@dataclass(frozen=True)
class Counterexample:
    """A model (concrete laws and constants) and the two sides' exact values on it."""

    model: str
    left: str
    right: str
    setting: Mapping[str, Any]

    def as_json(self) -> dict[str, Any]:
        """``{model, left, right}``."""
        return {"model": self.model, "left": self.left, "right": self.right}


def _instance_of_indices(lhs: Expr, rhs: Expr) -> tuple[Expr, Expr]:
    """The two sides at values of their free component indices (1, 2, …).

    Only the free ones: an index a sum or a norm binds is the binder's, never replaced
    (the kernel's capture-avoiding ``subst``, not ``xreplace``).
    """
    free = lhs.free_symbols | rhs.free_symbols
    symbols = sorted(
        {
            c.index
            for x in (lhs, rhs)
            for c in x.atoms(Component)
            if isinstance(c.index, Symbol) and c.index in free
        },
        key=str,
    )
    at = {s: sympy.Integer(n) for n, s in enumerate(symbols, 1)}
    return subst(lhs, at), subst(rhs, at)


def _degree(expr: Any) -> int:
    """The degree of ``expr`` in the random atoms (q·k counts 2)."""
    if isinstance(expr, Dot):
        return 2
    if isinstance(expr, (Component, RandomVariable)):
        return 1
    if isinstance(expr, (E, Var, Cov, Std)):
        return 0
    if isinstance(expr, sympy.Pow):
        n = expr.exp
        return _degree(expr.base) * int(n) if n.is_Integer and n > 0 else 0
    if isinstance(expr, sympy.Mul):
        return sum(_degree(a) for a in expr.args)
    return max((_degree(a) for a in getattr(expr, "args", ())), default=0)


def moment_degree(expr: Expr) -> int:
    """The largest degree of a polynomial whose expectation evaluating ``expr`` needs."""
    found = 0
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, E):
            found = max(found, _degree(node.args[0]))
        elif isinstance(node, (Var, Std)):
            found = max(found, 2 * _degree(node.args[0]))
        elif isinstance(node, Cov):
            found = max(found, _degree(node.args[0]) + _degree(node.args[1]))
    return found


def _affordable(sig: Signature, data: Mapping[str, Any], degree: int) -> bool:
    latents = len(sig.scalars)
    for dim in sig.vectors.values():
        latents += int(data.get(str(dim), 0)) if isinstance(dim, sympy.Symbol) else int(dim)
    return math.comb(latents + degree, degree) <= MAX_MONOMIALS


def _declared(assumptions: Sequence[Assumption], unit: str) -> dict[str, Fraction]:
    """Declared numeric mean and variance of a variable or of a vector's components."""
    found: dict[str, Fraction] = {}
    for a in assumptions:
        if not isinstance(a, Moment) or not isinstance(a.lhs, (E, Var)):
            continue
        atom = a.lhs.args[0]
        name = atom.name if isinstance(atom, RandomVariable) else None
        if isinstance(atom, Component):
            name = atom.label.name
        if name == unit and a.value.is_Rational:
            found["mean" if isinstance(a.lhs, E) else "var"] = Fraction(
                int(a.value.p), int(a.value.q)
            )
    return found


def _law(assumptions: Sequence[Assumption], unit: str, turn: int) -> str | None:
    """A catalogue spec with the declared moments of ``unit``, or None if none fits."""
    declared = _declared(assumptions, unit)
    if not declared:
        return LAWS[turn % len(LAWS)]
    mean, var = declared.get("mean", Fraction(0)), declared.get("var", Fraction(1))
    if var < 0:
        return None
    if mean == 0 and var == 1:
        return "coin"
    root = sympy.sqrt(sympy.Rational(var.numerator, var.denominator))
    if root.is_Rational:
        s = Fraction(int(root.p), int(root.q))
        values = {format_number(mean - s), format_number(mean + s)}
        return "finite:values=" + "|".join(sorted(values))
    return f"gaussian:mean={format_number(mean)},var={format_number(var)}"


def _independent(assumptions: Sequence[Assumption], a: str, b: str) -> bool:
    for x in assumptions:
        names: set[str] = set()
        if isinstance(x, Independent):
            names = {u.name for u in x.units}
        elif isinstance(x, IndependentComponents):
            names = {v.name for v in x.vectors}
        if {a, b} <= names:
            return True
    return False


def _constants(sig: Signature, fixed: Mapping[str, Any]) -> dict[str, str] | None:
    values: dict[str, str] = {}
    for name, symbol in sig.constants.items():
        if name in fixed:
            values[name] = str(fixed[name])
        elif symbol.is_integer or symbol.is_positive:
            values[name] = "2"
        else:
            values[name] = "1/2"
    for dim in sig.vectors.values():
        d = int(values.get(str(dim), 0)) if isinstance(dim, sympy.Symbol) else int(dim)
        if d > MAX_CANDIDATE_DIMENSION:
            return None
    return values


def _candidates(
    sig: Signature, derivation: Derivation, fixed: Mapping[str, Any]
) -> Iterator[dict[str, Any]]:
    assumptions = derivation.assumptions
    constants = _constants(sig, fixed)
    if constants is None:
        return
    laws: dict[str, str] = {}
    for n, unit in enumerate(sig.units()):
        law = _law(assumptions, unit, n)
        if law is None:
            return
        laws[unit] = law
    scalars = sig.scalars
    for a in scalars:
        for b in scalars:
            if a < b and not _independent(assumptions, a, b):
                yield {**constants, **laws, b: {a: 1}}
    yield {**constants, **laws}
    try:
        for setting in default_settings(derivation):
            yield {**setting, **{k: v for k, v in constants.items() if k in fixed}}
    except InvalidArgument:
        return


def counterexample(
    lhs: Expr,
    rhs: Expr,
    assumptions: Sequence[Assumption],
    fixed: Mapping[str, Any] | None = None,
    dimension: Expr | None = None,
    defined: Mapping[str, Expr] | None = None,
) -> Counterexample | None:
    """A model satisfying ``assumptions`` on which ``lhs`` and ``rhs`` differ, or None.

    ``fixed`` gives values for constants (``{"d_k": 2}``); others get small values.
    ``dimension`` is that of q and k when the sides name components but no q·k.
    A symbolic index (q_i, "for every i") is taken at one value: distinct indices
    at distinct values 1, 2, …  ``defined`` gives random variables the user defined
    from others (``{"Y": X}``): in every model they are computed, not drawn.
    """
    lhs, rhs = _instance_of_indices(lhs, rhs)
    hint: tuple[Step, ...] = ()
    vectors = {c.label.name for x in (lhs, rhs) for c in x.atoms(Component)}
    if vectors and not (lhs.atoms(Dot) or rhs.atoms(Dot)):
        d = dimension if dimension is not None else sympy.Integer(2)
        hint = (Step("ring", Dot(RandomVector("q", d), RandomVector("k", d))),)
    derivation = Derivation("claim", Equation(lhs, rhs), hint, tuple(assumptions))
    try:
        sig = signature(derivation)
    except InvalidArgument:
        return None
    degree = max(moment_degree(lhs), moment_degree(rhs))
    for data in _candidates(sig, derivation, fixed or {}):
        if not _affordable(sig, data, degree):
            continue
        try:
            model = build_model(sig, data)
            ev = Evaluator(model)
            if check_assumptions(derivation, model, ev):
                continue
            left, right = ev.value(lhs), ev.value(rhs)
        except InvalidArgument:
            continue
        if not equal(left, right) and _confirmed(lhs, rhs, model, assumptions, defined or {}):
            return Counterexample(_describe(model, defined or {}), show(left), show(right), data)
    return None


def _confirmed(
    lhs: Expr,
    rhs: Expr,
    model: Model,
    assumptions: Sequence[Assumption],
    defined: Mapping[str, Expr],
) -> bool:
    """The oracle's word: the model satisfies every assumption and the sides differ in it."""
    world = world_of(model, defined)
    if world is None:
        return False  # a continuous law or too many outcomes: the oracle cannot confirm it
    if check_world(world, tuple(assumptions)):
        return False
    return agree(lhs, rhs, world) == "differ"


def _describe(model: Model, defined: Mapping[str, Expr]) -> str:
    if not defined:
        return model.describe()
    parts = [u.describe() for u in model.units if u.name not in defined]
    parts += [f"{name} = {sympy.sstr(expr)}" for name, expr in defined.items()]
    parts += [f"{k} = {format_number(v)}" for k, v in model.values.items()]
    return ", ".join(parts)
