"""LaTeX rendering: an ``aligned`` block with the rule of each step beside it."""

from __future__ import annotations

from typing import Any

from scaledattn.kernel import Audit
from scaledattn.render.display import flatten, kind_of, statement_parts
from scaledattn.render.printers import latex


def tex(expr: Any) -> str:
    """SymPy's LaTeX for ``expr``, as written (no reordering)."""
    return latex(flatten(expr))


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
    rows = []
    for n, r in enumerate(audit.steps):
        mark = "" if r.ok else r"\ \text{(rejected)}"
        left = tex(d.start) + " " if n == 0 else ""
        rows.append(f"  {left}{rel} {tex(r.step.claim)} && {rule_tex(r.rule_name)}{mark}")
    return "\n".join([r"\begin{aligned}", " \\\\\n".join(rows), r"\end{aligned}"])
