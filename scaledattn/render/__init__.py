"""Renderers: pure functions from a kernel Audit to text, LaTeX, Markdown or JSON.

They never check anything themselves; they show what the kernel decided. :func:`run`
prints derivations with the kernel's verdict (the proof modules' scripts).
"""

from __future__ import annotations

from collections.abc import Sequence

from scaledattn import strings
from scaledattn.certificate import confirm
from scaledattn.derive import audit_of
from scaledattn.errors import InvalidArgument
from scaledattn.kernel import Audit, Derivation
from scaledattn.render import notebook
from scaledattn.render.json import audit_json, to_json
from scaledattn.render.latex import audit_latex
from scaledattn.render.markdown import audit_markdown
from scaledattn.render.text import audit_text, error_text, withheld_reason

FORMATS = ("text", "latex", "markdown", "json")

__all__ = [
    "FORMATS",
    "audit_json",
    "audit_latex",
    "audit_markdown",
    "audit_text",
    "error_text",
    "render",
    "run",
    "to_json",
]


# The terms' plain strings; Jupyter's rich display of the kernel's Derivation and
# Theorem, and how a Proof shows itself (scaledattn.render.notebook).
strings.install()
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


def run(derivations: Sequence[Derivation], fmt: str = "text") -> int:
    """Print each derivation and a verdict: 0 all verified, 1 one rejected, 3 one undecided.

    Undecided: the kernel accepted it, but no model of its assumptions was found (the
    gate's check, :func:`scaledattn.render.text.withheld_reason`); ``Audit.verified``
    alone is the kernel's word on the steps, not a verdict. A derivation the kernel
    accepts and the checker refuses raises SoundnessAlarm (:func:`~scaledattn.certificate.confirm`).
    """
    failed, undecided, unread = [], [], []
    for n, d in enumerate(derivations):
        result = audit_of(d)
        if confirm(result).startswith("unread"):  # a refusal is an alarm (SoundnessAlarm)
            unread.append(d.name)
        if n:
            print()
        print(render(result, fmt))
        if not result.verified:
            failed.append(d.name)
        elif withheld_reason(d):
            undecided.append(d.name)
    print()
    if failed:
        print(f"Verdict: REJECTED — {', '.join(failed)}")
        return 1
    if undecided:
        print(f"Verdict: UNDECIDED — no model of the assumptions of {', '.join(undecided)}")
        return 3
    also = f"; not read by the checker yet: {', '.join(unread)}" if unread else " and the checker"
    print(f"Verdict: VERIFIED — all {len(derivations)} derivations checked by the kernel{also}")
    return 0
