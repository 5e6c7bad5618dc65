"""Verdicts and their evidence: what ``scaledattn verify`` reports for a claim.

Examples
--------
>>> Verdict.combine([Verdict.VERIFIED, Verdict.UNDECIDED])
<Verdict.UNDECIDED: 'UNDECIDED'>
>>> Verdict.REFUTED.exit_code
1
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Evidence", "Outcome", "Result", "Verdict"]


class Verdict(str, enum.Enum):
    """VERIFIED (exit 0), REFUTED (exit 1) or UNDECIDED (exit 3)."""

    VERIFIED = "VERIFIED"
    REFUTED = "REFUTED"
    UNDECIDED = "UNDECIDED"

    @property
    def exit_code(self) -> int:
        """0 verified, 1 refuted, 3 undecided."""
        return {"VERIFIED": 0, "REFUTED": 1, "UNDECIDED": 3}[self.value]

    @staticmethod
    def combine(verdicts: Iterable[Verdict]) -> Verdict:
        """REFUTED if any part is refuted, VERIFIED if all are verified, else UNDECIDED."""
        found = list(verdicts)
        if Verdict.REFUTED in found:
            return Verdict.REFUTED
        if found and all(v is Verdict.VERIFIED for v in found):
            return Verdict.VERIFIED
        return Verdict.UNDECIDED


@dataclass(frozen=True)
class Evidence:
    """One piece of evidence: its kind, a one-line summary, and optional detail.

    Kinds: ``derivation`` (checked by the kernel), ``computation`` (exact or interval
    arithmetic), ``measurement`` (an experiment with its interval), ``theorem`` (a
    proved theorem cited), ``counterexample`` and ``note``.
    """

    kind: str
    summary: str
    detail: str = ""
    data: dict[str, Any] = field(default_factory=dict, compare=False)

    def as_json(self) -> dict[str, Any]:
        """``{kind, summary, detail?, …data}`` (a derivation adds its steps as data)."""
        out: dict[str, Any] = {"kind": self.kind, "summary": self.summary}
        if self.detail:
            out["detail"] = self.detail
        out.update(self.data)
        return out


@dataclass(frozen=True)
class Outcome:
    """The verdict on one relation of a claim, with evidence, the right value or the reason."""

    verdict: Verdict
    evidence: tuple[Evidence, ...] = ()
    correct: str = ""
    counterexample: dict[str, Any] | None = None
    reason: str = ""


@dataclass(frozen=True)
class Result:
    """A claim's verdict: the claim, the assumptions in force, the evidence.

    ``correct`` is the right value when the claim is refuted by one, ``counterexample``
    a model on which the two sides differ, ``reason`` why a claim is undecided,
    ``remedies`` what would make a refuted claim true (each one checked).
    """

    claim: str
    verdict: Verdict
    assumptions: tuple[str, ...]
    evidence: tuple[Evidence, ...]
    correct: str = ""
    counterexample: dict[str, Any] | None = None
    reason: str = ""
    remedies: tuple[str, ...] = ()

    @property
    def exit_code(self) -> int:
        """The command line's exit code for this verdict."""
        return self.verdict.exit_code

    def as_json(self) -> dict[str, Any]:
        """``{claim, verdict, assumptions, evidence, counterexample?, correct?, reason?}``."""
        out: dict[str, Any] = {
            "claim": self.claim,
            "verdict": self.verdict.value,
            "assumptions": list(self.assumptions),
            "evidence": [e.as_json() for e in self.evidence],
        }
        if self.counterexample is not None:
            out["counterexample"] = self.counterexample
        if self.correct:
            out["correct"] = self.correct
        if self.reason:
            out["reason"] = self.reason
        if self.remedies:
            out["remedies"] = list(self.remedies)
        return out
