"""The report of ``scaledattn check-proof``: each step ✓, ⚠ (a gap) or ✗, as text or JSON.

A verified step names the rule (or the short chain) the kernel checked, and says
when the search found it. A gap shows the longer chain that bridges it, each step
checked by the kernel. A rejected step shows what the rule gives, the difference,
a model where the two sides differ, and the likely cause.
"""

from __future__ import annotations

from typing import Any

from scaledattn.prooffile.check import StepVerdict, TheoremVerdict
from scaledattn.render.proof import proof_term
from scaledattn.render.text import checker_suffix

__all__ = ["report_json", "report_text", "verdict_line"]

MARK = {"verified": "✓", "gap": "⚠", "rejected": "✗", "unproved": "?"}


def _term(expr: Any) -> str:
    try:
        return proof_term(expr)
    except Exception:  # display only
        return str(expr)


def _where(v: TheoremVerdict, blocks: bool) -> str:
    return f" (block {v.block.block})" if blocks and v.block.block else ""


def _step_lines(s: StepVerdict) -> list[str]:
    head = f"  line {s.line:<4} {MARK[s.status]} step {s.number}"
    if s.status == "verified":
        rules = ", ".join(s.rules)
        if s.written_rule is not None:
            return [f"{head}  by {rules}"]
        kind = "a rule" if len(s.rules) == 1 else "a chain"
        return [f"{head}  by {rules}  ({kind} found by the search)"]
    if s.status == "gap":
        assert s.justification is not None
        n = len(s.justification.results)
        lines = [
            f"{head}  too big a step: here is a chain that bridges it"
            f" ({n} rules, each checked by the kernel)"
        ]
        for r in s.justification.results:
            lines.append(f"              = {_term(r.step.claim)}    by {r.rule_name}")
        return lines
    fb = s.feedback
    assert fb is not None
    named = f"by {s.written_rule}" if s.written_rule else "no rule or short chain justifies it"
    if fb.skipped:
        return [f"{head}  {fb.skipped}"]
    if s.status == "unproved":
        lines = [
            f"{head}  not proved: no rule or chain of rules found, and no model tried tells"
            " the two sides apart; split it into smaller steps or name the rule with by"
        ]
    else:
        lines = [f"{head}  rejected ({named})"]
    if fb.gives:
        which = "the rule gives" if s.written_rule else f"nearest rule {fb.rule} gives"
        lines.append(f"      {which}: {fb.gives}")
    if fb.difference and fb.difference != "0":
        against = "rule" if s.written_rule or not fb.values else "previous"
        lines.append(f"      difference (claim - {against}): {fb.difference}")
    if fb.values:
        lines.append(f"      {fb.values}")
    if fb.model is not None:
        lines.append(
            f"      a model of every assumption where the two sides differ: {fb.model.model}:"
            f" the previous expression is {fb.model.left}, the claim {fb.model.right}"
        )
    elif fb.no_model:
        lines.append(f"      {fb.no_model}")
    if fb.cause:
        lines.append(f"      likely cause: {fb.cause}")
    elif fb.error and not fb.gives:
        lines.append(f"      the kernel: {' '.join(fb.error.split())}")
    return lines


#: A verdict line names at most this many steps, then how many more.
MAX_NAMED = 5


def _first(steps: list[str]) -> str:
    more = len(steps) - MAX_NAMED
    return ", ".join(steps[:MAX_NAMED]) + (f" and {more} more" if more > 0 else "")


def verdict_line(v: TheoremVerdict) -> str:
    """The last line for one theorem: VERIFIED or REJECTED, and why."""
    if v.verified:
        n = len(v.audit.derivation.steps) if v.audit else 0
        gaps = f"; {v.gaps} gap{'s' if v.gaps != 1 else ''} bridged" if v.gaps else ""
        said = checker_suffix(v.checker)
        return f"VERIFIED {v.block.name}: {n} kernel step{'s' if n != 1 else ''}{gaps}{said}"
    if v.withheld:
        return f"UNDECIDED {v.block.name}: {v.withheld}"
    bad = [f"step {s.number} (line {s.line})" for s in v.steps if s.status == "rejected"]
    if not bad and not v.problems:
        open_steps = [f"step {s.number} (line {s.line})" for s in v.steps if s.status == "unproved"]
        return f"UNPROVED {v.block.name}: {_first(open_steps)} not justified"
    why = _first(bad) if bad else "; ".join(v.problems)
    return f"REJECTED {v.block.name}: {why}"


def report_text(path: str, verdicts: list[TheoremVerdict], blocks: int = 0) -> str:
    """The text report for one file."""
    out: list[str] = []
    for v in verdicts:
        b = v.block
        out.append(
            f"{path}:{b.line}{_where(v, bool(blocks))}: theorem {b.name}: {b.statement_text}"
        )
        out.append("  assuming: " + ("; ".join(v.described) if v.described else "nothing"))
        if v.model:
            out.append(f"  {v.model}")
        for s in v.steps:
            out.extend(_step_lines(s))
        for problem in v.problems:
            out.append(f"  ✗ {problem}")
        out.append(verdict_line(v))
        out.append("")
    if blocks:
        for number in range(1, blocks + 1):
            mine = [v for v in verdicts if v.block.block == number]
            good = sum(1 for v in mine if v.verified)
            state = "verified" if good == len(mine) else f"{len(mine) - good} not verified"
            out.append(f"block {number}: {len(mine)} theorem(s), {state}")
    ok = sum(1 for v in verdicts if v.verified)
    where = f" in {blocks} proof block{'s' if blocks != 1 else ''}" if blocks else ""
    out.append(
        f"{ok} of {len(verdicts)} theorem{'s' if len(verdicts) != 1 else ''}{where} verified."
    )
    return "\n".join(out)


def report_json(path: str, verdicts: list[TheoremVerdict], blocks: int = 0) -> dict[str, Any]:
    """The JSON report for one file."""
    return {
        "file": path,
        "verified": all(v.verified for v in verdicts),
        "blocks": blocks,
        "theorems": [
            {
                "name": v.block.name,
                "line": v.block.line,
                "block": v.block.block,
                "statement": v.block.statement_text,
                "assumptions": v.described,
                "verified": v.verified,
                "problems": v.problems,
                "model": v.model,
                "withheld": v.withheld,
                "checker": v.checker,
                "steps": [
                    {
                        "step": s.number,
                        "line": s.line,
                        "status": s.status,
                        "claim": _term(s.claim),
                        "by": s.written_rule,
                        "rules": list(s.rules),
                        "chain": [
                            {"expr": _term(r.step.claim), "by": r.rule_name}
                            for r in (s.justification.results if s.justification else ())
                        ],
                        **({"feedback": s.feedback.as_json()} if s.feedback else {}),
                    }
                    for s in v.steps
                ],
            }
            for v in verdicts
        ],
    }
