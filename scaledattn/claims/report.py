"""One claim's verdict for people: its assumptions, the right value or reason, the evidence.

The ledger's table, JSON and docs page are :mod:`scaledattn.claims.ledger.report`; this
module loads no ledger, so that ``verify`` of one claim imports none.

Examples
--------
>>> from scaledattn.claims.verify import verify
>>> print(result_text(verify("exp(3.2) ≈ 24.5")))
Claim     exp(3.2) ≈ 24.5
Assuming  nothing
COMPUTED
Evidence
  computation     exp(3.2) = 24.5325; the claim says 24.5 (± 0.05)
"""

from __future__ import annotations

from scaledattn.claims.outcome import Result, Verdict, statistic_text
from scaledattn.claims.syntax import reading

__all__ = ["key_line", "result_text"]


def _indent(text: str, pad: str) -> str:
    return "\n".join(pad + line if line else line for line in text.splitlines())


def result_text(result: Result, detail: bool = True) -> str:
    """One claim's verdict, its assumptions, the right value or reason, and the evidence."""
    lines = [f"Claim     {result.claim}"]
    canonical = reading(result.claim)
    if canonical is not None:
        lines.append(f"Read as   {canonical}")
    lines.append("Assuming  " + ("; ".join(result.assumptions) or "nothing"))
    verdict = result.verdict.value
    if result.verdict is Verdict.REFUTED and result.correct:
        verdict += f" — correct: {result.correct}"
    elif result.verdict is Verdict.REFUTED and result.counterexample:
        verdict += " — counterexample below"
    elif result.reason:
        verdict += f" — {result.reason}"
    elif result.statistic:
        verdict += f" — a statistical test that did not reject: {statistic_text(result.statistic)}"
    lines.append(verdict)
    for remedy in result.remedies:
        lines.append(f"Way out   {remedy}")
    if result.evidence:
        lines.append("Evidence")
        for e in result.evidence:
            lines.append(f"  {e.kind:<15} {e.summary}")
            if detail and e.detail:
                lines.append(_indent(e.detail, "      "))
    return "\n".join(lines)


def key_line(result: Result) -> str:
    """The line that says why: the right value, the reason, or the first evidence."""
    if result.verdict is Verdict.REFUTED:
        if result.correct:
            return f"right: {result.correct}"
        for e in result.evidence:
            if e.kind in ("counterexample", "computation"):
                return e.summary
    if result.verdict is Verdict.UNDECIDED:
        return f"why: {result.reason}"
    if not result.evidence:
        return ""
    first = result.evidence[0]
    line = first.summary
    if first.kind == "note" and len(result.evidence) > 1:  # n of the n relations hold
        line = f"{first.summary}; {result.evidence[1].summary}"
    tested = [f"p = {t['p_value']:.2g}" for t in result.statistic if "p_value" in t]
    return "; ".join([*tested, line])
