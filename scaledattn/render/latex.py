"""LaTeX rendering: an ``aligned`` block with the rule of each step beside it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from scaledattn.kernel import Audit, Derivation, Equivalence, Theorem
from scaledattn.render.display import flatten, statement_parts
from scaledattn.render.printers import latex


def tex(expr: Any) -> str:
    """SymPy's LaTeX for ``expr``, as written (no reordering)."""
    return latex(flatten(expr))


def rule_tex(name: str) -> str:
    """A rule name as LaTeX text."""
    return r"\text{" + name.replace("_", r"\_") + "}"


def statement_tex(audit: Audit | Derivation | Theorem) -> str:
    """The statement (of an audit's derivation, a derivation, a theorem) as one formula."""
    statement = audit.derivation.statement if isinstance(audit, Audit) else audit.statement
    lhs, relation, rhs = statement_parts(statement)
    rel = r"\iff" if relation == "⇔" else "="
    return f"{tex(lhs)} {rel} {tex(rhs)}"


def audit_latex(audit: Audit, *, numbered: bool = False, width: int | None = None) -> str:
    r"""The derivation as an ``aligned`` environment; failed steps are marked.

    ``numbered`` labels each step (1), (2), … instead of naming its rule in ``\text{}``
    (for Markdown, where a table below names the rules: code hosts render ``\_``
    inside ``\text`` inconsistently); ``width`` breaks a step longer than that many
    characters of LaTeX across lines (:func:`break_tex`).
    """
    steps = [
        (
            r.step.claim,
            (f"({r.number})" if numbered else rule_tex(r.rule_name))
            + ("" if r.ok else r"\ \text{(rejected)}"),
        )
        for r in audit.steps
    ]
    return chain_latex(audit.derivation, steps, width)


def chain_latex(d: Derivation, steps: Sequence[tuple[Any, str]], width: int | None = None) -> str:
    """The chain of ``d`` from its start, as an ``aligned`` environment: (claim, label) rows."""
    rel = r"&\iff" if isinstance(d.statement, Equivalence) else "&="
    rows = []
    for n, (claim, label) in enumerate(steps):
        left = tex(d.start) + " " if n == 0 else ""
        pieces = break_tex(tex(claim), width) if width else [tex(claim)]
        lines = [f"  {left}{rel} {pieces[0]}"] + [rf"  &\qquad {p}" for p in pieces[1:]]
        lines[-1] += f" && {label}"
        rows.append(" \\\\\n".join(lines))
    return "\n".join([r"\begin{aligned}", " \\\\\n".join(rows), r"\end{aligned}"])


def break_tex(text: str, width: int) -> list[str]:
    r"""``text`` cut before a top-level ``+`` or ``-`` into pieces of about ``width`` characters.

    A cut may fall inside parentheses, so ``\left``/``\right`` (which must pair on
    one line) become ``\bigl``/``\bigr``; nothing is cut inside braces.

    >>> break_tex(r"\left(a + b + c\right)", 6)
    ['\\bigl(a', '+ b + c\\bigr)']
    """
    if len(text) <= width:
        return [text]
    text = re.sub(r"\\left(?![A-Za-z])", r"\\bigl", text)
    text = re.sub(r"\\right(?![A-Za-z])", r"\\bigr", text)
    pieces, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch in "+-" and depth == 0 and text[i - 1 : i] == " " and i - start >= width:
            pieces.append(text[start:i].rstrip())
            start = i
    pieces.append(text[start:])
    return pieces
