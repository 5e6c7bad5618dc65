"""Numeric evidence for the softmax derivations: every step on concrete scores.

For each setting (:mod:`scaledattn.numeric.scores`) the declared assumptions are
checked first: ``m ∈ 1..n`` and ``t ≠ w`` on the concrete indices, and each
``Entries`` definition (one-hot y, r = s + a, r = s/c, r = s + λe_w) by computing
the vector from it and, when the setting lists the vector too, comparing entry by
entry. Then the statement's left side, every step's claim and the right side are
evaluated (:class:`~scaledattn.numeric.calculus.CalculusEvaluator`) and consecutive
values compared (:func:`~scaledattn.numeric.enclosure.agreement`).

The statement is also measured by a route that avoids the steps' machinery:

- ``central-difference``: a left side with derivatives, each derivative taken as
  (f(x + h) − f(x − h)) / 2h at h = 10⁻²¹ instead of by ``sympy.diff``; its
  truncation error is bounded by the change from h = 10⁻²⁰ (the error shrinks
  100-fold when h does 10-fold, so that change is about 99 times the error);
- ``growing-λ``: a left side with a limit, sampled at λ = 16, 32, 64, 128, with
  the distance to the right side at each;
- ``direct``: otherwise both sides evaluated directly, without the chain.

Examples
--------
>>> from scaledattn.registry import find_derivation
>>> d = find_derivation("p_minus_y_limit")
>>> w = calculus_setting_evidence(d, {"n": 3, "t": 1, "w": 3, "s": [2, 1, 0]})
>>> w.agrees, w.measurement.method
(True, 'growing-λ')
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import mpmath

from scaledattn.errors import InvalidArgument, Undecided, Unsupported
from scaledattn.kernel import Derivation
from scaledattn.kernel.vectors import Distinct, Entries, IndexRange, Lim
from scaledattn.numeric.calculus import CalculusEvaluator, has_derivative, has_limit
from scaledattn.numeric.checks import SettingEvidence, StepCheck, step_label
from scaledattn.numeric.enclosure import (
    LAMBDAS,
    TOLERANCE,
    Approx,
    agreement,
    exact,
)
from scaledattn.numeric.measure import StatementMeasurement
from scaledattn.numeric.scores import ScoreSetting, read_setting
from scaledattn.numeric.spec import format_number
from scaledattn.render.display import unicode_line

__all__ = ["check_definitions", "measure_calculus", "calculus_setting_evidence"]

#: The central difference's step, and the coarser step that bounds its error.
STEP = Fraction(1, 10**21)
COARSE_STEP = Fraction(1, 10**20)


def check_definitions(
    derivation: Derivation, setting: ScoreSetting, ev: CalculusEvaluator
) -> tuple[str, dict[str, list[str]]]:
    """('' or the first broken assumption, the vectors computed from their definitions)."""
    computed: dict[str, list[str]] = {}
    for a in derivation.assumptions:
        if isinstance(a, IndexRange):
            k, n = ev.integer(a.index, {}), ev.integer(a.upper, {})
            if not 1 <= k <= n:
                return f"the setting breaks {a}: {a.index} = {k}", computed
        elif isinstance(a, Distinct):
            t, w = sorted(a.pair, key=str)
            if ev.integer(t, {}) == ev.integer(w, {}):
                return f"the setting breaks {a}: both are {ev.integer(t, {})}", computed
        elif isinstance(a, Entries):
            n = ev.integer(a.dim, {})
            needs = {s.name for s in a.body.free_symbols - {a.index} if not s.is_integer}
            if not needs <= set(setting.reals):
                if a.name in setting.given:
                    raise InvalidArgument(
                        f"{a.name} depends on {', '.join(sorted(needs))}, which only a limit"
                        " binds: do not list it"
                    )
                continue  # r = s + λe_w under lim λ → ∞: no single vector to show
            values = ev.entries(a.name, n)
            computed[a.name] = [Approx((v,)).digits() for v in values]
            for k, (value, listed) in enumerate(
                zip(values, setting.given.get(a.name, ()), strict=False), 1
            ):
                if not agreement(Approx((value,)), Approx((exact(listed),))):
                    return (
                        f"the setting breaks {a}: it lists {a.name}_{k} = {format_number(listed)},"
                        f" the definition gives {Approx((value,)).digits()}",
                        computed,
                    )
        else:
            raise Unsupported(f"cannot check the assumption {a} numerically")
    return "", computed


def _named(expr: Any, value: Approx) -> str:
    """``√2 = 1.4142135623731``, or just ``0`` when the expression is its value."""
    text = unicode_line(expr)
    return text if text == value.digits() else f"{text} = {value.digits()}"


def measure_calculus(
    derivation: Derivation, setting: ScoreSetting, sides: tuple[Approx, Approx] | None = None
) -> StatementMeasurement:
    """The statement's left side measured by an independent route, against its right side.

    ``sides``: the values of the left and right sides that an exact evaluator of this
    setting gave already (the step checks'), used instead of evaluating them again.
    """
    lhs, rhs = derivation.statement.lhs, derivation.statement.rhs
    quantity = unicode_line(lhs)
    exact_ev = CalculusEvaluator(setting)
    expected = sides[1] if sides else exact_ev.value(rhs)
    if has_limit(lhs):
        measured = sides[0] if sides else exact_ev.value(lhs)
        agrees = agreement(measured, expected)
        body = lhs.args[0] if isinstance(lhs, Lim) else lhs
        gaps = ", ".join(mpmath.nstr(g, 2) for _, g, _ in measured.distances(expected))
        detail = (
            f"{unicode_line(body)} is {gaps} from {_named(rhs, expected)}"
            f" at λ = {', '.join(map(str, LAMBDAS))}"
        )
        return StatementMeasurement(
            quantity, "growing-λ", expected, measured, agrees, lhs, detail=detail
        )
    if has_derivative(lhs):
        fine = CalculusEvaluator(setting, difference=STEP).value(lhs)
        coarse = CalculusEvaluator(setting, difference=COARSE_STEP).value(lhs)
        ((_, error, _),) = fine.distances(coarse)
        ((least, greatest, scale),) = fine.distances(expected)
        slack = error + TOLERANCE * scale
        if least <= slack < greatest:
            raise Undecided("the central difference is too coarse to decide")
        agrees = greatest <= slack
        detail = (
            f"{_named(rhs, expected)}; central difference of {quantity} (h = 1e-21):"
            f" {fine.digits()} ± {mpmath.nstr(error, 2)}"
        )
        return StatementMeasurement(
            quantity, "central-difference", expected, fine, agrees, lhs, detail=detail
        )
    measured = sides[0] if sides else exact_ev.value(lhs)
    agrees = agreement(measured, expected)
    if agrees:
        detail = f"{quantity} = {unicode_line(rhs)} = {measured.digits()}"
    else:
        detail = f"{quantity} = {measured.digits()}, but {_named(rhs, expected)}"
    return StatementMeasurement(quantity, "direct", expected, measured, agrees, lhs, detail=detail)


def calculus_setting_evidence(derivation: Derivation, data: Mapping[str, Any]) -> SettingEvidence:
    """Evaluate every step of a calculus derivation on one setting."""
    try:
        setting = read_setting(derivation, data)
    except InvalidArgument as err:
        return SettingEvidence(repr(dict(data)), data, error=str(err))
    description = setting.describe()
    ev = CalculusEvaluator(setting)
    values: dict[str, Any] = setting.as_json()
    try:
        problem, computed = check_definitions(derivation, setting, ev)
        values.update(computed)
        if problem:
            return SettingEvidence(description, data, error=problem, values=values)
        items = [
            derivation.statement.lhs,
            *(step.claim for step in derivation.steps),
            derivation.statement.rhs,
        ]
        labels = [step_label(step) for step in derivation.steps]
        labels.append("statement")
        results = [ev.value(item) for item in items]
        checks = []
        for n, (label, a, b) in enumerate(zip(labels, results, results[1:], strict=False), 1):
            try:
                agrees = agreement(a, b)
            except Undecided as err:
                raise Unsupported(f"step {n} (by {label}): {err}") from None
            checks.append(StepCheck(n, label, a, b, agrees))
        measurement = measure_calculus(derivation, setting, (results[0], results[-1]))
    except Undecided as err:
        return SettingEvidence(description, data, error=str(err), unsupported=True, values=values)
    except Unsupported as err:
        return SettingEvidence(description, data, error=str(err), unsupported=True, values=values)
    except InvalidArgument as err:
        return SettingEvidence(description, data, error=str(err), values=values)
    return SettingEvidence(description, data, tuple(checks), measurement, values=values)
