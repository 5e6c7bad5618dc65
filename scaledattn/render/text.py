"""Plain-text rendering with SymPy's Unicode pretty printer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sympy.printing.pretty.stringpict import prettyForm, stringPict

from scaledattn.certificate import confirm
from scaledattn.errors import ProofError
from scaledattn.kernel import Audit, Derivation, Equivalence, Theorem
from scaledattn.render.diagnose import diagnosis
from scaledattn.render.display import (
    abbreviations,
    assumption_lines,
    assumption_text,
    carried_assumptions,
    flatten,
    modulo_axioms,
    statement_parts,
    sympy_string,
)
from scaledattn.render.printers import pretty_form

RULE_COLUMN_MAX = 72


def pretty_lines(expr: Any) -> tuple[list[str], int]:
    """The pretty-printed lines of ``expr`` and the index of its baseline."""
    form = pretty_form(flatten(expr))
    lines = form.render(wrap_line=False).split("\n")
    return lines, form.baseline


def pretty(expr: Any) -> str:
    """``expr`` pretty-printed in Unicode (possibly several lines)."""
    return "\n".join(pretty_lines(expr)[0])


def one_line(expr: Any) -> str:
    """``expr`` pretty-printed, or its SymPy string if it takes several lines."""
    lines, _ = pretty_lines(expr)
    return lines[0] if len(lines) == 1 else sympy_string(expr)


def _block(prefix: str, expr: Any, label: str) -> list[tuple[str, str]]:
    """Rows (left, right) of one step: the relation on the baseline, label beside it."""
    lines, base = pretty_lines(expr)
    pad = " " * len(prefix)
    rows = []
    for n, line in enumerate(lines):
        left = (prefix if n == base else pad) + line
        rows.append((left, label if n == base else ""))
    return rows


def _layout(blocks: list[tuple[list[tuple[str, str]], str]], width: int) -> list[str]:
    """Lines of the step blocks: each label beside its baseline, or below a wide block.

    A block wider than the label column would be cut in two by its label, so the
    label goes on a line of its own after the block. An error follows its block.
    """
    out: list[str] = []
    for rows, error in blocks:
        wide = any(label and len(left) + 3 > width for left, label in rows)
        for left, label in rows:
            if label and not wide:
                out.append(left.ljust(width) + label)
            else:
                out.append(left.rstrip())
        if wide:
            out += [" " * width + label for _, label in rows if label]
        if error:
            out.append(error)
    return out


def error_text(err: ProofError) -> str:
    """A rejection, as the kernel phrased it."""
    return str(err)


def audit_text(audit: Audit) -> str:
    """The whole derivation: statement, assumptions, steps with rules, verdict."""
    d = audit.derivation
    lhs, relation, rhs = statement_parts(d.statement)
    out = [f"Theorem {d.name}" + (f" — {d.title}" if d.title else "")]
    out += ["    " + line for line in _statement_lines(lhs, relation, rhs)]
    if assumption_lines(d):
        out.append("Assuming:")
        out += [f"  • {line}" for line in assumption_lines(d)]
    else:
        out.append("Assuming: nothing")
    names = abbreviations([d.statement.lhs, d.statement.rhs, *(st.claim for st in d.steps)])
    if names:
        out.append("Where:")
        for a in names:
            out += ["  " + line for line in _statement_lines(a, "=", a.inner)]
    out.append("")
    blocks = [(_block("    ", d.start, ""), "")]
    rel = "  ⇔ " if isinstance(d.statement, Equivalence) else "  = "
    previous = d.start
    for r in audit.steps:
        mark = "✓" if r.ok else "✗"
        label = f"{mark} {r.rule_name}" + (f" — {r.step.note}" if r.step.note else "")
        error = ""
        if r.error is not None:
            words = [f"  {line}" for line in diagnosis(r.error, previous)]
            error = _indent("\n".join([str(r.error), *words]), 6)
        blocks.append((_block(rel, r.step.claim, label), error))
        previous = r.step.claim
    width = min(max(len(left) for rows, _ in blocks for left, _ in rows) + 3, RULE_COLUMN_MAX)
    out += _layout(blocks, width)
    if audit.statement_error is not None:
        out.append(_indent(str(audit.statement_error), 6))
    out.append("")
    out.append(verdict_line(audit))
    return "\n".join(out)


def _statement_lines(lhs: Any, relation: str, rhs: Any) -> list[str]:
    left, right = pretty_form(flatten(lhs)), pretty_form(flatten(rhs))
    joined = prettyForm(*stringPict.next(left, f" {relation} ", right))
    return [line.rstrip() for line in joined.render(wrap_line=False).split("\n")]


def _indent(text: str, n: int) -> str:
    return "\n".join(" " * n + line for line in text.split("\n"))


def plural(n: int, noun: str) -> str:
    """``n noun`` with the noun in the plural unless n is 1: '1 step', '2 steps'."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


#: The gate's check of a derivation the kernel accepted: why it is no verdict (no model of
#: its assumptions was found), or "". :mod:`scaledattn.gate` installs it when it loads
#: (every door loads it: verify, check-proof, check, derive, the calculator); the
#: renderers sit below the gate and only call it. A program of its own that renders
#: audits imports ``scaledattn.gate`` to have the check.
_WITHHELD: list[Callable[[Derivation], str]] = []


def install_withheld(check: Callable[[Derivation], str]) -> None:
    """Install the gate's check (:func:`scaledattn.gate.context_withheld`)."""
    _WITHHELD[:] = [check]


def withheld_reason(d: Derivation) -> str:
    """Why the kernel's acceptance of ``d`` is no verdict (the gate's check), or ""."""
    return _WITHHELD[0](d) if _WITHHELD else ""


def verdict_line(audit: Audit) -> str:
    """One line: VERIFIED or REJECTED, with the count of steps and the assumptions used.

    A VERIFIED line says whether the independent checker checked it too
    (:func:`checker_suffix`); when the kernel accepts and the checker refuses, there is no
    line: :func:`scaledattn.certificate.confirm` raises SoundnessAlarm (exit 70).
    An accepted derivation whose assumptions have no model the gate finds
    (:func:`withheld_reason`) is UNDECIDED instead: ``Audit.verified`` is the kernel's
    word on the steps, not a verdict.
    """
    d = audit.derivation
    if audit.theorem is not None:
        said = confirm(audit)  # the independent checker's word; its refusal is an alarm
        reason = withheld_reason(d)  # the gate: no VERIFIED without a model
        if reason:
            return (
                f"UNDECIDED {d.name}: the kernel accepted its {plural(len(d.steps), 'step')},"
                f" but {reason}, so nothing follows from them (not a verdict)"
            )
        return verified_line(d, audit.theorem) + checker_suffix(said)
    first = audit.errors[0]
    where = f"step {first.step}" if first.step else "statement"
    return f"REJECTED {d.name}: {where} ({type(first).__name__}, rule {first.rule or '-'})"


def checker_suffix(said: str) -> str:
    """The end of a VERIFIED line: the checker's word ``said`` (:func:`confirm`'s)."""
    if said == "checked":
        return "; VERIFIED (kernel + checker)"
    return "; not read by the checker yet (kernel only)"


def verified_line(d: Derivation, theorem: Theorem) -> str:
    """The VERIFIED line of ``d``, which the kernel accepted as ``theorem``."""
    used_list = [a for a in d.assumptions if a in theorem.used]
    if not d.assumptions:
        used = "no assumptions"
    elif len(used_list) == len(d.assumptions) == 1:
        used = "used its 1 declared assumption"
    elif len(used_list) == len(d.assumptions):
        used = f"used all {len(used_list)} declared assumptions"
    else:
        used = "used " + "; ".join(assumption_text(a) for a in used_list)
    line = f"VERIFIED {d.name}: {plural(len(d.steps), 'step')} checked by the kernel, {used}"
    unused = theorem.unused
    if unused:
        line += "; declared but unused: " + "; ".join(assumption_text(a) for a in unused)
    carried = carried_assumptions(d)
    if carried:
        line += "; carried by its symbols: " + "; ".join(carried)
    if theorem.axioms:
        line += f"; {modulo_axioms(theorem.axioms)}, which the kernel did not check"
    return line
