"""LaTeX rendering: an ``aligned`` block with the rule of each step beside it."""

from __future__ import annotations

from typing import Any

import sympy

from scaledattn.kernel import Audit
from scaledattn.render.display import flatten, kind_of, statement_parts


def tex(expr: Any) -> str:
    """SymPy's LaTeX for ``expr``, as written (no reordering)."""
    return str(sympy.latex(flatten(expr), order="none"))


def rule_tex(name: str) -> str:
    """A rule name as LaTeX text."""
    return r"\text{" + name.replace("_", r"\_") + "}"


def statement_tex(audit: Audit) -> str:
    """The statement as one LaTeX formula."""
    lhs, relation, rhs = statement_parts(audit.derivation.statement)
    rel = r"\iff" if relation == "⇔" else "="
    return f"{tex(lhs)} {rel} {tex(rhs)}"


def audit_latex(audit: Audit) -> str:
    """The derivation as an ``aligned`` environment; failed steps are marked."""
    d = audit.derivation
    rel = "&=" if kind_of(d.statement) == "calc" else r"&\iff"
    lines = [r"\begin{aligned}", f"  {tex(d.start)}"]
    for r in audit.steps:
        mark = "" if r.ok else r"\ \text{(rejected)}"
        lines[-1] += r" \\"
        lines.append(f"  {rel} {tex(r.step.claim)} && {rule_tex(r.rule_name)}{mark}")
    lines.append(r"\end{aligned}")
    return "\n".join(lines)
