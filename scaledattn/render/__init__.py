"""Renderers: pure functions from a kernel Audit to text, LaTeX, Markdown or JSON.

They never check anything themselves; they show what the kernel decided.
"""

from __future__ import annotations

from scaledattn.errors import InvalidArgument
from scaledattn.kernel import Audit
from scaledattn.render import notebook
from scaledattn.render.json import audit_json, to_json
from scaledattn.render.latex import audit_latex
from scaledattn.render.markdown import audit_markdown
from scaledattn.render.text import audit_text, error_text

FORMATS = ("text", "latex", "markdown", "json")

__all__ = [
    "FORMATS",
    "audit_json",
    "audit_latex",
    "audit_markdown",
    "audit_text",
    "error_text",
    "render",
    "to_json",
]


# Jupyter's rich display of the kernel's Derivation and Theorem (scaledattn.render.notebook)
notebook.register()


def render(audit: Audit, fmt: str = "text") -> str:
    """Render one audited derivation in ``fmt`` (text, latex, markdown or json)."""
    if fmt == "text":
        return audit_text(audit)
    if fmt == "latex":
        return audit_latex(audit)
    if fmt == "markdown":
        return audit_markdown(audit)
    if fmt == "json":
        return to_json(audit_json(audit))
    raise InvalidArgument(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
