"""Markdown rendering: $$ math blocks that a code host shows without a build step."""

from __future__ import annotations

from scaledattn.kernel import Audit
from scaledattn.render.display import abbreviations, carried_assumptions
from scaledattn.render.latex import audit_latex, statement_tex, tex
from scaledattn.render.text import verdict_line

#: A step longer than this many characters of LaTeX is broken across lines.
MATH_WIDTH = 240


def audit_markdown(audit: Audit, heading: str = "###") -> str:
    """Heading, statement, assumptions, the aligned derivation, a step table, verdict."""
    d = audit.derivation
    out = [f"{heading} `{d.name}`" + (f": {d.title}" if d.title else ""), ""]
    out += ["$$", statement_tex(audit), "$$", ""]
    declared = [f"`{a}`" for a in d.assumptions]
    declared += [f"`{fact}` (carried by the symbol)" for fact in carried_assumptions(d)]
    out.append("**Assuming:** " + (", ".join(declared) or "nothing"))
    names = abbreviations([d.statement.lhs, d.statement.rhs, *(s.claim for s in d.steps)])
    if names:
        out += ["", "**Where:** " + ", ".join(f"${tex(a)} = {tex(a.inner)}$" for a in names)]
    out += ["", "$$", audit_latex(audit, numbered=True, width=MATH_WIDTH), "$$", ""]
    out += ["| step | rule | note | kernel |", "|---:|---|---|---|"]
    for r in audit.steps:
        mark = "✓" if r.ok else "✗ rejected"
        out.append(f"| {r.number} | `{r.rule_name}` | {r.step.note} | {mark} |")
    out += ["", f"**{verdict_line(audit)}**", ""]
    return "\n".join(out)
