"""Verdicts and their evidence: what ``scaledattn verify`` reports for a claim.

A claim that holds gets the word of the standard it was held to: VERIFIED for a
derivation the kernel checked (a proof), COMPUTED for interval arithmetic on numbers,
CONSISTENT for a statistical test that did not reject (with its p-value and interval).

Examples
--------
>>> Verdict.combine([Verdict.VERIFIED, Verdict.UNDECIDED])
<Verdict.UNDECIDED: 'UNDECIDED'>
>>> Verdict.combine([Verdict.VERIFIED, Verdict.CONSISTENT, Verdict.COMPUTED])
<Verdict.CONSISTENT: 'CONSISTENT'>
>>> Verdict.REFUTED.exit_code, Verdict.COMPUTED.exit_code
(1, 0)
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Evidence", "Outcome", "Result", "Verdict", "statistic_text"]


class Verdict(str, enum.Enum):
    """VERIFIED, COMPUTED, CONSISTENT (exit 0), REFUTED (exit 1) or UNDECIDED (exit 3)."""

    VERIFIED = "VERIFIED"
    COMPUTED = "COMPUTED"
    CONSISTENT = "CONSISTENT"
    REFUTED = "REFUTED"
    UNDECIDED = "UNDECIDED"

    @property
    def holds(self) -> bool:
        """Whether the claim holds to some standard: a proof, a computation or a test."""
        return self in HOLDS

    @property
    def exit_code(self) -> int:
        """0 holds (whichever standard), 1 refuted, 3 undecided."""
        return 0 if self.holds else {"REFUTED": 1, "UNDECIDED": 3}[self.value]

    @staticmethod
    def combine(verdicts: Iterable[Verdict]) -> Verdict:
        """REFUTED, UNDECIDED, or else the weakest standard of the parts.

        REFUTED if any part is, UNDECIDED if any part is or there is none; a proof and a
        test together are a test.
        """
        found = list(verdicts)
        if Verdict.REFUTED in found:
            return Verdict.REFUTED
        if not found or Verdict.UNDECIDED in found:
            return Verdict.UNDECIDED
        return max(found, key=HOLDS.index)


#: The words of a claim that holds, strongest standard first.
HOLDS = (Verdict.VERIFIED, Verdict.COMPUTED, Verdict.CONSISTENT)


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
    #: The statistical tests a CONSISTENT verdict rests on (claims.compare.statistic).
    statistic: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Result:
    """A claim's verdict: the claim, the assumptions in force, the evidence.

    ``correct`` is the right value when the claim is refuted by one, ``counterexample``
    a model on which the two sides differ, ``reason`` why a claim is undecided,
    ``remedies`` what would make a refuted claim true (each one checked),
    ``statistic`` the tests a CONSISTENT verdict rests on (p-value, 95% interval).
    """

    claim: str
    verdict: Verdict
    assumptions: tuple[str, ...]
    evidence: tuple[Evidence, ...]
    correct: str = ""
    counterexample: dict[str, Any] | None = None
    reason: str = ""
    remedies: tuple[str, ...] = ()
    statistic: tuple[dict[str, Any], ...] = ()

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
        if self.statistic:
            out["statistic"] = [dict(t) for t in self.statistic]
        return out


def statistic_text(tests: Iterable[dict[str, Any]]) -> str:
    """One line: each test's p-value (or the interval it was taken on) and 95% interval.

    >>> statistic_text([{"measurement": "m", "value": 0.79, "interval95": [0.78, 0.8],
    ...                  "p_value": 0.45}])
    'p = 0.45; m = 0.79, 95% interval [0.78, 0.8]'
    """
    parts = []
    for t in tests:
        low, high = t["interval95"]
        text = f"{t['measurement']} = {t['value']:.4g}, 95% interval [{low:.4g}, {high:.4g}]"
        if "p_value" in t:
            text = f"p = {t['p_value']:.2g}; " + text
        else:
            a, b = t["taken_on"]
            text += f", taken on [{a:.4g}, {b:.4g}] (± {t['z']:.2f} standard errors)"
        parts.append(text)
    return "; ".join(parts)
