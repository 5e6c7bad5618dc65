"""What the numeric evidence of a derivation is made of: step checks, settings, the whole.

Both evaluators of a derivation's steps, on random-variable models
(:mod:`scaledattn.numeric.evidence`) and on concrete scores, softmax, derivatives and
limits (:mod:`scaledattn.numeric.calculus_evidence`), report in these types.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scaledattn.kernel.theorem import Step
from scaledattn.numeric.evaluate import Num, show
from scaledattn.numeric.measure import StatementMeasurement

__all__ = ["DerivationEvidence", "Setting", "SettingEvidence", "StepCheck", "step_label"]

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
class SettingEvidence:
    """One setting: its model, the step checks, the measurement, or why it was refused."""

    description: str
    data: Setting
    steps: tuple[StepCheck, ...] = ()
    measurement: StatementMeasurement | None = None
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
class DerivationEvidence:
    """Every setting's evidence for one derivation."""

    name: str
    source: str
    settings: tuple[SettingEvidence, ...]

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


def step_label(step: Step) -> str:
    """The name of the rule or theorem a step cites (a str rule is its own name)."""
    rule = step.rule
    return rule if isinstance(rule, str) else str(getattr(rule, "name", rule))
