"""Numeric evidence for a derivation: every step evaluated on concrete models.

For each setting (from the proof module's ``evidence()``, or built from the
derivation's assumptions by :mod:`scaledattn.numeric.settings`) the model is
built, checked against every declared assumption, and then the statement's left
side, every step's claim and the statement's right side are evaluated exactly
(:mod:`scaledattn.numeric.evaluate`). Consecutive values must be equal: a step
whose two sides differ on a model that satisfies the assumptions is wrong,
whatever the kernel said. The statement's left side is also measured by an
independent route (:mod:`scaledattn.numeric.measure`).

A derivation about scores, softmax, derivatives or limits is evaluated by
:mod:`scaledattn.numeric.calculus_evidence` instead: concrete n, indices and scores,
values as interval enclosures.

The result is evidence, never a Theorem.

Examples
--------
>>> from scaledattn.derive import calc
>>> from scaledattn.kernel import E, Var, random_variables
>>> from scaledattn.kernel.rules import variance_def
>>> X, = random_variables("X")
>>> d = calc("var_def", Var(X), E(X**2) - E(X)**2).eq(E(X**2) - E(X)**2, by=variance_def).qed()
>>> w = derivation_evidence(d, [{"X": "die"}])
>>> w.agrees, [s.description for s in w.settings]
(True, ['X ~ die'])
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any

from scaledattn.errors import InvalidArgument, Unsupported
from scaledattn.kernel import Derivation, Moment, Positive
from scaledattn.kernel.expr import Component
from scaledattn.numeric.checks import (
    DerivationEvidence,
    Setting,
    SettingEvidence,
    StepCheck,
    step_label,
)
from scaledattn.numeric.evaluate import Evaluator, equal, same_value, show
from scaledattn.numeric.measure import measure_statement
from scaledattn.numeric.model import Model, build_model, independence_problem, signature
from scaledattn.numeric.scores import is_calculus
from scaledattn.render.display import unicode_line

__all__ = [
    "DEFAULT_SAMPLES",
    "check_assumptions",
    "derivation_evidence",
    "evidence_line",
    "module_evidence",
]

#: Monte Carlo samples per measurement unless a setting says otherwise.
DEFAULT_SAMPLES = 40_000


def _bindings(model: Model, moment: Moment) -> list[dict[Any, int]]:
    envs: list[dict[Any, int]] = [{}]
    for i in moment.indices:
        labels = [c.label.name for c in moment.lhs.atoms(Component) if c.index == i]
        dim = model.unit(labels[0]).dim
        envs = [{**env, i: n} for env in envs for n in range(1, dim + 1)]
    return envs


def check_assumptions(derivation: Derivation, model: Model, ev: Evaluator) -> str:
    """'' when ``model`` satisfies every declared assumption, else the first that fails."""
    for a in derivation.assumptions:
        problem = independence_problem(model, a)
        if problem is not None:
            if problem:
                return f"the model breaks {a}: {problem}"
            continue
        if isinstance(a, Moment):
            for env in _bindings(model, a):
                got, want = ev.value(a.lhs, env), ev.value(a.value, env)
                if not equal(got, want):
                    where = ", ".join(f"{k} = {v}" for k, v in env.items())
                    at = f" at {where}" if where else ""
                    return f"the model breaks {a}: it gives {show(got)}{at}"
            continue
        if isinstance(a, Positive):
            value = ev.value(a.symbol)
            if not float(value) > 0:  # exact values: sign is decided correctly in float
                return f"the model breaks {a}: {a.symbol} = {show(value)}"
            continue
        raise Unsupported(f"cannot check the assumption {a} numerically")
    return ""


def _seed(name: str, n: int) -> int:
    return zlib.crc32(f"{name}/{n}".encode())


def _setting_evidence(derivation: Derivation, data: Setting, seed: int) -> SettingEvidence:
    if is_calculus(derivation):
        from scaledattn.numeric.calculus_evidence import calculus_setting_evidence

        return calculus_setting_evidence(derivation, data)
    try:
        model = build_model(signature(derivation), data)
    except InvalidArgument as err:
        return SettingEvidence(repr(dict(data)), data, error=str(err))
    description = model.describe()
    ev = Evaluator(model)
    try:
        problem = check_assumptions(derivation, model, ev)
        if problem:
            return SettingEvidence(description, data, error=problem)
        values = [ev.evaluate(derivation.statement.lhs)]
        labels = []
        for step in derivation.steps:
            values.append(ev.evaluate(step.claim))
            labels.append(step_label(step))
        values.append(ev.evaluate(derivation.statement.rhs))
        labels.append("statement")
        checks = tuple(
            StepCheck(n, label, a, b, same_value(a, b))
            for n, (label, a, b) in enumerate(zip(labels, values[:-1], values[1:], strict=True), 1)
        )
        samples = model.samples or DEFAULT_SAMPLES
        measurement = measure_statement(derivation, model, ev, seed, samples)
    except Unsupported as err:
        return SettingEvidence(description, data, error=str(err), unsupported=True)
    except InvalidArgument as err:
        return SettingEvidence(description, data, error=str(err))
    return SettingEvidence(description, data, checks, measurement)


def derivation_evidence(
    derivation: Derivation, settings: Sequence[Setting] | None = None
) -> DerivationEvidence:
    """Evaluate every step of ``derivation`` on each setting (default: from its assumptions)."""
    source = "evidence()"
    if settings is None:
        from scaledattn.numeric.settings import default_settings

        source = "assumptions"
        try:
            settings = default_settings(derivation)
        except InvalidArgument as err:
            return DerivationEvidence(
                derivation.name, source, (SettingEvidence("no setting", {}, error=str(err)),)
            )
    found = tuple(
        _setting_evidence(derivation, data, _seed(derivation.name, n))
        for n, data in enumerate(settings)
    )
    return DerivationEvidence(derivation.name, source, found)


def module_evidence(module: Any, d: Derivation) -> DerivationEvidence:
    """The numeric evidence for one derivation, on its module's evidence() if it has one."""
    evidence = getattr(module.module, "evidence", None)
    settings = evidence().get(d.name) if callable(evidence) else None
    return derivation_evidence(d, settings)


def evidence_line(d: Any, s: SettingEvidence) -> str:
    """One setting on one line: the model, the measured statement, and any disagreement."""
    mark = "✓" if s.agrees else "·" if s.unsupported else "✗"
    if s.error:
        return f"{mark} {s.description}: {s.error}"
    wrong = s.disagreements()
    if wrong:
        step = wrong[0]
        return (
            f"{mark} {s.description}: step {step.number} (by {step.label}) changes the value"
            f" from {show(step.before)} to {show(step.after)}"
        )
    m = s.measurement
    if m is None:
        return f"{mark} {s.description}: {len(s.steps)} steps agree"
    if m.detail:
        return f"{mark} {s.description}: {m.detail}"
    quantity = unicode_line(m.expr)
    if m.method == "exact":
        measured = f"{show(m.measured)} (exact)"
    else:
        half = m.half_width or 0.0
        measured = f"{float(m.measured):.4g} ± {half:.2g} (Monte Carlo, n = {m.samples})"
        if not m.trusted:
            measured += f", UNTRUSTED: {m.warning}"
    if m.target is not None:
        rhs = unicode_line(d.statement.rhs)
        claim = f"{quantity} = {show(m.target)} iff {rhs}, which is {show(m.expected)}"
        return f"{mark} {s.description}: {claim}; {quantity} = {measured}"
    return f"{mark} {s.description}: {quantity} expected {show(m.expected)}, measured {measured}"
