"""Concrete settings built from a derivation's declared assumptions alone.

Used when a proof module has no ``evidence()`` for a derivation. Two settings are
made: one with finite laws (two-point laws μ ± σ, so the statement is measured
exactly), one with Gaussian laws (measured by Monte Carlo). Declared means and
variances are honoured; constants get small values (dimensions 3 and 8, positive
constants 2 and 1/2, other constants 1/2 and −1). Variables not declared
independent are made dependent (Y = X/2 + noise) so that a covariance term is
exercised; vectors declared ``IndependentPairs`` get k_i = q_i/2 + noise_i.
Assumptions of any other shape make this refuse: write ``evidence()`` instead.

It builds no model itself: it writes the data :mod:`~scaledattn.numeric.model` builds
the model from (see there for why the model builders are apart).

Examples
--------
>>> from scaledattn.derive import calc
>>> from scaledattn.kernel import E, Var, ZeroMean, random_variables
>>> X, = random_variables("X")
>>> d = calc("v", Var(X), E(X**2), assuming=[ZeroMean(X)]).qed()
>>> default_settings(d)
[{'X': 'finite:values=-1|1'}, {'X': 'gaussian'}]
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy

from scaledattn.errors import InvalidArgument
from scaledattn.kernel import (
    Derivation,
    E,
    Independent,
    IndependentComponents,
    IndependentPairs,
    Moment,
    Positive,
    RandomVariable,
    Var,
)
from scaledattn.kernel.expr import Component
from scaledattn.kernel.vectors import Entry
from scaledattn.numeric.model import Signature, signature
from scaledattn.numeric.scores import default_score_settings, is_calculus
from scaledattn.numeric.spec import format_number

__all__ = ["default_settings"]

DIMENSIONS = (3, 8)
POSITIVE = (Fraction(2), Fraction(1, 2))
REAL = (Fraction(1, 2), Fraction(-1))
COUPLING = (Fraction(1, 2), Fraction(1, 4), Fraction(1, 8))


def _unit_of(expr: Any) -> str | None:
    if isinstance(expr, RandomVariable):
        return str(expr.name)
    if isinstance(expr, Component):
        return str(expr.label.name)
    return None


def _declared(derivation: Derivation, sig: Signature) -> dict[str, dict[str, Any]]:
    """{unit: {"mean": value expr, "var": value expr}} from the Moment assumptions."""
    out: dict[str, dict[str, Any]] = {u: {} for u in sig.units()}
    for a in derivation.assumptions:
        if not isinstance(a, Moment):
            continue
        unit = _unit_of(a.lhs.args[0]) if isinstance(a.lhs, (E, Var)) else None
        if unit is None:
            raise InvalidArgument(
                f"no default setting satisfies {a}; give the proof module an evidence()"
            )
        out[unit]["mean" if isinstance(a.lhs, E) else "var"] = a.value
    return out


def _independent(derivation: Derivation, a: str, b: str) -> bool:
    for assumption in derivation.assumptions:
        if isinstance(assumption, Independent):
            names = {u.name for u in assumption.units}
            if {a, b} <= names:
                return True
        if isinstance(assumption, IndependentComponents):
            names = {v.name for v in assumption.vectors}
            if {a, b} <= names:
                return True
    return False


def _paired(derivation: Derivation, a: str, b: str) -> bool:
    return any(
        isinstance(x, IndependentPairs) and {a, b} <= {v.name for v in x.vectors}
        for x in derivation.assumptions
    )


def _constants(derivation: Derivation, sig: Signature, n: int) -> dict[str, Fraction]:
    dims = {str(d.name) for d in sig.vectors.values() if isinstance(d, sympy.Symbol)}
    positive = {p.symbol.name for p in derivation.assumptions if isinstance(p, Positive)}
    values = {}
    for name, symbol in sig.constants.items():
        if name in dims or symbol.is_integer:
            values[name] = Fraction(DIMENSIONS[n])
        elif name in positive or symbol.is_positive:
            values[name] = POSITIVE[n]
        else:
            values[name] = REAL[n]
    return values


def _number(expr: Any, values: dict[str, Fraction]) -> Fraction:
    value = sympy.sympify(expr).xreplace(
        {
            s: sympy.Rational(v.numerator, v.denominator)
            for s in sympy.sympify(expr).free_symbols
            for name, v in values.items()
            if s.name == name
        }
    )
    if not value.is_Rational:
        raise InvalidArgument(
            f"no default setting: the declared moment {expr} is not rational here"
        )
    return Fraction(int(value.p), int(value.q))


def _spec(mean: Fraction, var: Fraction, finite: bool) -> str:
    root = sympy.sqrt(sympy.Rational(var.numerator, var.denominator))
    if finite and root.is_Rational:
        s = Fraction(int(root.p), int(root.q))
        return f"finite:values={format_number(mean - s)}|{format_number(mean + s)}"
    parts = []
    if mean:
        parts.append(f"mean={format_number(mean)}")
    if var != 1:
        parts.append(f"var={format_number(var)}")
    return "gaussian" + (":" + ",".join(parts) if parts else "")


def _mentions(expr: Any) -> set[str]:
    """The random units a declared value mentions (Var(w·x) mentions w)."""
    found = set()
    for node in sympy.preorder_traversal(sympy.sympify(expr)):
        unit = _unit_of(node)
        if unit is not None:
            found.add(unit)
    return found


def _ordered_units(sig: Signature, declared: dict[str, dict[str, Any]]) -> list[str]:
    """The units, each after those its declared moments mention (Var(qᵢ) = Var(w·x): w first)."""
    units = list(sig.units())
    needs = {u: set().union(*(_mentions(v) for v in declared[u].values())) - {u} for u in units}
    ordered: list[str] = []
    while len(ordered) < len(units):
        ready = [u for u in units if u not in ordered and needs[u] <= set(ordered)]
        if not ready:
            raise InvalidArgument("no default setting: the declared moments refer to each other")
        ordered.append(ready[0])
    return ordered


def _value(
    expr: Any, values: dict[str, Fraction], sig: Signature, setting: dict[str, Any]
) -> Fraction:
    """A declared moment's value on the setting built so far (exact, rational).

    A schematic index (E[qᵢ] = b_i) is read at i = 1: the default entries are all equal.
    """
    plain = sympy.sympify(expr)
    if not _mentions(plain) and not plain.atoms(Entry):
        return _number(plain, values)
    from scaledattn.numeric.evaluate import Evaluator
    from scaledattn.numeric.model import build_model

    units = _mentions(plain) | {u for u in sig.units() if u in setting}
    partial = Signature(
        tuple(u for u in sig.scalars if u in units),
        {u: d for u, d in sig.vectors.items() if u in units},
        sig.constants,
        sig.reals,
    )
    data = {k: v for k, v in setting.items() if k not in sig.units() or k in units}
    free = {s: 1 for s in plain.free_symbols if s.is_integer and s.name not in values}
    value = Evaluator(build_model(partial, data)).value(plain, free)
    if not isinstance(value, Fraction | int):
        raise InvalidArgument(
            f"no default setting: the declared moment {expr} is not rational here"
        )
    return Fraction(value)


def default_settings(derivation: Derivation) -> list[dict[str, Any]]:
    """Two settings (finite laws, then Gaussian) satisfying the declared assumptions.

    A derivation about scores, softmax, derivatives or limits gets
    :func:`~scaledattn.numeric.scores.default_score_settings` instead.
    """
    if is_calculus(derivation):
        return default_score_settings(derivation)
    sig = signature(derivation)
    declared = _declared(derivation, sig)
    out = []
    for n in range(2):
        values = _constants(derivation, sig, n)
        setting: dict[str, Any] = {k: format_number(v) for k, v in values.items()}
        # fixed real vectors (a token x): every entry REAL[n], so a declared mean
        # E[qᵢ] = b_{q,i} is the same for every i and an i.i.d. law can honour it
        for name, dim in sig.reals.items():
            size = int(values[dim.name]) if isinstance(dim, sympy.Symbol) else int(dim)
            setting[name] = [format_number(REAL[n])] * size
        moments: dict[str, tuple[Fraction, Fraction]] = {}
        earlier: list[str] = []
        for unit in _ordered_units(sig, declared):
            mean = _value(
                declared[unit].get("mean", REAL[n] if not earlier else 0), values, sig, setting
            )
            var = _value(declared[unit].get("var", 1), values, sig, setting)
            if var <= 0:
                raise InvalidArgument(f"no default setting: Var({unit}) = {var} is not positive")
            moments[unit] = (mean, var)
            parent = next(
                (
                    p
                    for p in reversed(earlier)
                    if sig.vectors.get(p) == sig.vectors.get(unit)
                    and (_paired(derivation, p, unit) or not _independent(derivation, p, unit))
                ),
                None,
            )
            setting[unit] = _spec(mean, var, finite=n == 0)
            if parent is not None:
                pm, pv = moments[parent]
                for a in COUPLING:
                    if var - a * a * pv > 0:
                        noise = _spec(mean - a * pm, var - a * a * pv, finite=n == 0)
                        setting[unit] = {parent: format_number(a), "noise": noise}
                        break
            earlier.append(unit)
        out.append(setting)
    return out
