"""Numeric witnesses of a derivation: every step evaluated on concrete models.

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
>>> w = witness_derivation(d, [{"X": "die"}])
>>> w.agrees, [s.description for s in w.settings]
(True, ['X ~ die'])
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scaledattn.errors import InvalidArgument, Unsupported
from scaledattn.kernel import Derivation, Moment, Positive
from scaledattn.kernel.expr import Component
from scaledattn.kernel.theorem import Step
from scaledattn.numeric.evaluate import Evaluator, Num, equal, same_value, show
from scaledattn.numeric.measure import Measurement, measure_statement
from scaledattn.numeric.model import Model, build_model, independence_problem, signature
from scaledattn.numeric.scores import is_calculus
from scaledattn.render.display import unicode_line

__all__ = [
    "DEFAULT_SAMPLES",
    "DerivationWitness",
    "SettingWitness",
    "StepCheck",
    "check_assumptions",
    "module_witness",
    "witness_line",
    "step_label",
    "witness_derivation",
]

#: Monte Carlo samples per measurement unless a setting says otherwise.
DEFAULT_SAMPLES = 40_000

Setting = Mapping[str, Any]


@dataclass(frozen=True)
class StepCheck:
    """One step evaluated: the value before, the value of its claim, and whether they agree.

    ``number`` is the step's 1-based number; the last check (number = steps + 1,
    label "statement") compares the chain's end with the statement's right side.
    """

    number: int
    label: str
    before: Num | bool
    after: Num | bool
    agrees: bool

    def as_json(self) -> dict[str, Any]:
        """JSON-ready data."""
        return {
            "step": self.number,
            "by": self.label,
            "before": show(self.before),
            "after": show(self.after),
            "agrees": self.agrees,
        }


@dataclass(frozen=True)
class SettingWitness:
    """One setting: its model, the step checks, the measurement, or why it was refused."""

    description: str
    data: Setting
    steps: tuple[StepCheck, ...] = ()
    measurement: Measurement | None = None
    error: str = ""
    unsupported: bool = False
    values: Mapping[str, Any] = field(default_factory=dict)

    @property
    def refutes(self) -> bool:
        """The setting was evaluated and something disagrees (or the setting is invalid)."""
        return not self.unsupported and not self.agrees

    @property
    def agrees(self) -> bool:
        """No error, every step agrees, and the measurement (if any) agrees."""
        return (
            not self.error
            and bool(self.steps)
            and all(s.agrees for s in self.steps)
            and (self.measurement is None or self.measurement.agrees)
        )

    def disagreements(self) -> tuple[StepCheck, ...]:
        """The steps whose two sides differ."""
        return tuple(s for s in self.steps if not s.agrees)

    def as_json(self) -> dict[str, Any]:
        """JSON-ready data."""
        out: dict[str, Any] = {
            "setting": self.description,
            "agrees": self.agrees,
            "steps": [s.as_json() for s in self.steps],
        }
        if self.measurement is not None:
            out["measurement"] = self.measurement.as_json()
        if self.values:
            out["values"] = dict(self.values)
        if self.error:
            out["error"] = self.error
        if self.unsupported:
            out["unsupported"] = True
        return out


@dataclass(frozen=True)
class DerivationWitness:
    """Every setting's witness for one derivation."""

    name: str
    source: str
    settings: tuple[SettingWitness, ...]

    @property
    def agrees(self) -> bool:
        """True when there is at least one setting and every setting agrees."""
        return bool(self.settings) and all(s.agrees for s in self.settings)

    @property
    def tested(self) -> bool:
        """True when the evaluator could evaluate at least one setting."""
        return any(not s.unsupported for s in self.settings)

    @property
    def refuted(self) -> bool:
        """True when some evaluated setting disagrees: the numbers contradict the derivation."""
        return any(s.refutes for s in self.settings)

    @property
    def step_checks(self) -> int:
        """How many step comparisons were made."""
        return sum(len(s.steps) for s in self.settings)

    def as_json(self) -> dict[str, Any]:
        """JSON-ready data."""
        return {
            "theorem": self.name,
            "source": self.source,
            "agrees": self.agrees,
            "tested": self.tested,
            "settings": [s.as_json() for s in self.settings],
        }


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


def step_label(step: Step) -> str:
    """The name of the rule or theorem a step cites (a str rule is its own name)."""
    rule = step.rule
    return rule if isinstance(rule, str) else str(getattr(rule, "name", rule))


def _seed(name: str, n: int) -> int:
    return zlib.crc32(f"{name}/{n}".encode())


def _witness_setting(derivation: Derivation, data: Setting, seed: int) -> SettingWitness:
    if is_calculus(derivation):
        from scaledattn.numeric.calculus_evidence import witness_calculus_setting

        return witness_calculus_setting(derivation, data)
    try:
        model = build_model(signature(derivation), data)
    except InvalidArgument as err:
        return SettingWitness(repr(dict(data)), data, error=str(err))
    description = model.describe()
    ev = Evaluator(model)
    try:
        problem = check_assumptions(derivation, model, ev)
        if problem:
            return SettingWitness(description, data, error=problem)
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
        return SettingWitness(description, data, error=str(err), unsupported=True)
    except InvalidArgument as err:
        return SettingWitness(description, data, error=str(err))
    return SettingWitness(description, data, checks, measurement)


def witness_derivation(
    derivation: Derivation, settings: Sequence[Setting] | None = None
) -> DerivationWitness:
    """Evaluate every step of ``derivation`` on each setting (default: from its assumptions)."""
    source = "evidence()"
    if settings is None:
        from scaledattn.numeric.settings import default_settings

        source = "assumptions"
        try:
            settings = default_settings(derivation)
        except InvalidArgument as err:
            return DerivationWitness(
                derivation.name, source, (SettingWitness("no setting", {}, error=str(err)),)
            )
    witnesses = tuple(
        _witness_setting(derivation, data, _seed(derivation.name, n))
        for n, data in enumerate(settings)
    )
    return DerivationWitness(derivation.name, source, witnesses)


def module_witness(module: Any, d: Derivation) -> DerivationWitness:
    """The numeric witness of one derivation, on its module's evidence() if it has one."""
    evidence = getattr(module.module, "evidence", None)
    settings = evidence().get(d.name) if callable(evidence) else None
    return witness_derivation(d, settings)


def witness_line(d: Any, s: SettingWitness) -> str:
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
