"""How a Derivation and a Theorem show in Jupyter: LaTeX and Markdown.

The kernel's classes answer Jupyter's ``_repr_latex_`` and ``_repr_markdown_`` with the
functions registered in ``scaledattn.kernel.theorem.NOTEBOOK`` (display only; the kernel
never consults them), so that the kernel imports no renderer: :func:`register` puts
these in, and ``scaledattn.render`` calls it when it is imported.

A Theorem shows its statement, the assumptions the kernel used, the checked chain with
the rule of each step, and its VERIFIED line. A Derivation is a claim until the kernel
checks it: it shows the chain as written, and says how to have it checked. A
:class:`~scaledattn.derive.Proof` (written with ``calc``) shows the kernel's audit of
it, the verdict included, and its ``str()`` is the audit's text (``"text"``).
"""

from __future__ import annotations

from typing import Any

from scaledattn.certificate import confirm_theorem
from scaledattn.derive import Proof, audit_of
from scaledattn.kernel import Derivation, Theorem
from scaledattn.kernel.theorem import NOTEBOOK
from scaledattn.render.display import assumption_text, carried_assumptions, modulo_axioms
from scaledattn.render.latex import audit_latex, chain_latex, rule_tex, statement_tex
from scaledattn.render.markdown import MATH_WIDTH, audit_markdown
from scaledattn.render.text import audit_text, checker_suffix, verified_line, withheld_reason

__all__ = ["notebook_latex", "notebook_markdown", "notebook_text", "register"]


def _rule_name(rule: Any) -> str:
    return str(getattr(rule, "name", rule))


def _chain(d: Derivation, mark: str = "") -> str:
    steps = [(s.claim, rule_tex(_rule_name(s.rule)) + mark) for s in d.steps]
    return chain_latex(d, steps, MATH_WIDTH)


def notebook_latex(shown: Derivation | Theorem) -> str:
    r"""The statement as display math: ``$\displaystyle …$`` (a Proof: its audit)."""
    if isinstance(shown, Proof):
        result = audit_of(shown)
        notes = [f"{fact} (carried by the symbol)" for fact in carried_assumptions(shown)]
        if result.theorem is not None and result.theorem.axioms:
            notes.append(modulo_axioms(result.theorem.axioms))
        text = "".join(r"\\ \text{" + note + "}" for note in notes)
        return "$$" + audit_latex(result) + text + "$$"
    return f"$\\displaystyle {statement_tex(shown)}$"


def notebook_text(shown: Proof) -> str:
    """A Proof's ``str()``: the kernel's audit of it as Unicode text."""
    return audit_text(audit_of(shown))


def notebook_markdown(shown: Derivation | Theorem) -> str:
    """Heading, statement, assumptions, the chain with its rules, and the verdict."""
    if isinstance(shown, Proof):
        return audit_markdown(audit_of(shown))
    if isinstance(shown, Theorem):
        d, word = shown.derivation, "Theorem"
        assumed = [a for a in d.assumptions if a in shown.used]
        which, chain = "used by the kernel", _chain(d, r" \ \checkmark")
        said = confirm_theorem(shown)  # the checker's word; its refusal is an alarm
        reason = withheld_reason(d)  # the gate: no VERIFIED without a model
        verdict = (
            f"**UNDECIDED {d.name}: the kernel accepted it, but {reason}**"
            if reason
            else f"**{verified_line(d, shown)}{checker_suffix(said)}**"
        )
    else:
        d, word, assumed = shown, "Derivation", list(shown.assumptions)
        which, chain = "declared", _chain(d)
        verdict = (
            "Not checked yet: `scaledattn.derive.prove(d)` hands it to the kernel, which"
            " returns a Theorem or names the step it refuses."
        )
    title = f": {d.title}" if d.title else ""
    listed = ", ".join(f"`{assumption_text(a)}`" for a in assumed) or "nothing"
    return "\n".join(
        [
            f"**{word} `{d.name}`**{title}",
            "",
            "$$",
            statement_tex(d),
            "$$",
            "",
            f"**Assuming** ({which}): {listed}",
            "",
            "$$",
            chain,
            "$$",
            "",
            verdict,
        ]
    )


def register() -> None:
    """Let Derivation and Theorem answer Jupyter's rich display, and a Proof ``str()``."""
    NOTEBOOK.update(latex=notebook_latex, markdown=notebook_markdown, text=notebook_text)
