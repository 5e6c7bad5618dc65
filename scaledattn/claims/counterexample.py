"""Counterexamples: concrete distributions, satisfying the assumptions, on which two sides differ.

The candidates are small catalogue laws (:mod:`scaledattn.numeric`): for two
random variables that are not declared independent, first the extreme case
``Y = X``; then independent draws; then the settings the numeric witnesses build
from a derivation's assumptions (:func:`scaledattn.numeric.settings.default_settings`).
Each model is checked against every declared assumption
(:func:`scaledattn.numeric.evidence.check_assumptions`) and both sides are
evaluated *exactly* on it (:class:`scaledattn.numeric.evaluate.Evaluator`: the
moments of the model's joint law, in rational arithmetic), so a counterexample is
a fact about numbers, not an estimate.

Examples
--------
>>> from scaledattn.kernel import Var, random_variables
>>> X, Y = random_variables("X Y")
>>> found = counterexample(Var(X + Y), Var(X) + Var(Y), ())
>>> found.model, found.left, found.right
('X ~ coin, Y = X', '4', '2')
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
from sympy import Expr

from scaledattn.errors import InvalidArgument
from scaledattn.kernel import Assumption, Derivation, Equation, Independent, Moment, Var
from scaledattn.kernel.assumptions import IndependentComponents
from scaledattn.kernel.expr import Component, E, RandomVariable
from scaledattn.numeric.evaluate import Evaluator, equal, show
from scaledattn.numeric.evidence import check_assumptions
from scaledattn.numeric.model import Signature, build_model, signature
from scaledattn.numeric.settings import default_settings
from scaledattn.numeric.spec import format_number

__all__ = ["Counterexample", "MAX_CANDIDATE_DIMENSION", "counterexample"]

#: Vectors are evaluated exactly only up to this dimension.
MAX_CANDIDATE_DIMENSION = 8
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
) -> Counterexample | None:
    """A model satisfying ``assumptions`` on which ``lhs`` and ``rhs`` differ, or None.

    ``fixed`` gives values for constants (``{"d_k": 2}``); others get small values.
    """
    derivation = Derivation("claim", Equation(lhs, rhs), (), tuple(assumptions))
    try:
        sig = signature(derivation)
    except InvalidArgument:
        return None
    for data in _candidates(sig, derivation, fixed or {}):
        try:
            model = build_model(sig, data)
            ev = Evaluator(model)
            if check_assumptions(derivation, model, ev):
                continue
            left, right = ev.value(lhs), ev.value(rhs)
        except InvalidArgument:
            continue
        if not equal(left, right):
            return Counterexample(model.describe(), show(left), show(right), data)
    return None
