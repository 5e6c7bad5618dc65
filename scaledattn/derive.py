"""Untrusted sugar over the kernel: write a derivation as a chain, prove it, show it.

``calc`` and ``equivalence`` build a :class:`~scaledattn.kernel.Derivation` step by
step, in the shape of Mathlib's ``calc``; nothing is checked until :func:`prove` or
:func:`audit_of` hands it to the kernel. A step may cite another derivation in
``by=``: it is proved first and used as a rewrite rule.

Examples
--------
>>> from scaledattn.kernel import E, random_variables
>>> from scaledattn.kernel.rules import expectation_linear
>>> X, Y = random_variables("X Y")
>>> d = calc("linearity", E(X + Y), E(X) + E(Y)).eq(E(X) + E(Y), by=expectation_linear).qed()
>>> prove(d).name
'linearity'
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from sympy import Basic

from scaledattn.kernel import (
    Assumption,
    Audit,
    Derivation,
    Equation,
    Equivalence,
    Group,
    Rule,
    Step,
    Theorem,
    audit,
)
from scaledattn.render import render
from scaledattn.render.latex import audit_latex
from scaledattn.render.text import withheld_reason

__all__ = ["Builder", "Proof", "abbrev", "audit_of", "calc", "equivalence", "group", "prove", "run"]


def group(expr: Any) -> Group:
    """Keep parentheses around ``expr`` when it is shown; the kernel ignores them."""
    return Group(expr)


def abbrev(expr: Any, name: str) -> Group:
    """Show ``expr`` as ``name`` (defined in a "where" line); the kernel ignores the name.

    >>> from sympy import Symbol
    >>> a = abbrev(Symbol("x") + 1, "D_1")
    >>> from scaledattn.render.display import unicode_line
    >>> unicode_line(a)
    'D₁'
    """
    from scaledattn.render.display import Abbrev

    return Abbrev(expr, name)


@dataclass(frozen=True)
class Proof(Derivation):
    """A derivation written with ``calc``/``equivalence``; it shows itself as mathematics.

    In Jupyter it displays as Markdown with $$ math (the kernel's verdict included);
    ``str()`` gives the Unicode text rendering.
    """

    def audit(self) -> Audit:
        """The kernel's verdict on every step (cached)."""
        return audit_of(self)

    def theorem(self) -> Theorem:
        """The proved Theorem, or the kernel's first ProofError."""
        return prove(self)

    def __str__(self) -> str:
        return render(audit_of(self), "text")

    def _repr_markdown_(self) -> str:
        return render(audit_of(self), "markdown")

    def _repr_latex_(self) -> str:
        from scaledattn.render.display import carried_assumptions, modulo_axioms

        result = audit_of(self)
        notes = [f"{fact} (carried by the symbol)" for fact in carried_assumptions(self)]
        if result.theorem is not None and result.theorem.axioms:
            notes.append(modulo_axioms(result.theorem.axioms))
        text = "".join(r"\\ \text{" + note + "}" for note in notes)
        return "$$" + audit_latex(result) + text + "$$"


@dataclass(frozen=True)
class Builder:
    """A derivation under construction: add steps with ``eq``/``iff``, finish with ``qed``."""

    derivation: Derivation

    def _add(self, claim: Any, by: Any, note: str) -> Builder:
        step = Step(by, claim, note)
        return Builder(replace(self.derivation, steps=(*self.derivation.steps, step)))

    def eq(self, claim: Any, *, by: Any, note: str = "") -> Builder:
        """Add ``= claim`` justified by the rule or theorem ``by``."""
        return self._add(claim, by, note)

    def iff(self, claim: Any, *, by: Any, note: str = "") -> Builder:
        """Add ``⇔ claim`` justified by the rule or theorem ``by``."""
        return self._add(claim, by, note)

    def qed(self) -> Proof:
        """The finished (still unchecked) derivation."""
        d = self.derivation
        return Proof(d.name, d.statement, d.steps, d.assumptions, d.title)


def calc(
    name: str,
    lhs: Any,
    rhs: Any,
    *,
    assuming: Iterable[Assumption] = (),
    title: str = "",
) -> Builder:
    """Start a proof of the equation ``lhs = rhs``; the chain starts at ``lhs``."""
    return Builder(Derivation(name, Equation(lhs, rhs), (), tuple(assuming), title))


def equivalence(
    name: str,
    lhs: Any,
    rhs: Any,
    *,
    assuming: Iterable[Assumption] = (),
    title: str = "",
) -> Builder:
    """Start a proof of ``lhs ⇔ rhs`` for two equations; the chain starts at ``lhs``."""
    return Builder(Derivation(name, Equivalence(lhs, rhs), (), tuple(assuming), title))


_AUDITS: dict[int, tuple[Derivation, Audit]] = {}
#: The same audits by content: a derivation equal to one audited before (the same name,
#: statement, assumptions, and steps with the same rules and claims, SymPy's structural
#: equality) gets its audit. The calculator builds a new derivation for every call, and
#: a test session asks for the same setting many times (issue 13).
_BY_CONTENT: dict[Derivation, Audit] = {}


def _dependencies(derivation: Derivation) -> tuple[Derivation, dict[str, Theorem]]:
    """Replace derivations cited in ``by=`` with their theorems (proving them first)."""
    theorems: dict[str, Theorem] = {}
    steps = []
    for step in derivation.steps:
        rule = step.rule
        if isinstance(rule, Derivation):
            cited = audit_of(rule)
            if cited.theorem is None:
                rule = f"{rule.name} (not proved)"
            else:
                theorems[rule.name] = cited.theorem
                rule = cited.theorem
        steps.append(replace(step, rule=rule))
    return replace(derivation, steps=tuple(steps)), theorems


def _by_content(derivation: Derivation) -> bool:
    """Whether ``derivation`` may share the audit of an equal one.

    It must be hashable, every claim and side of the statement a SymPy term (Python's
    ``1 == 1.0 == True`` would let an ill-formed claim share a well-formed one's audit),
    and every rule a rule's name, a primitive Rule or a derivation (recursively): never a
    Theorem object, whose standing the kernel checks by identity.
    """
    statement = derivation.statement
    claims = (statement.lhs, statement.rhs, *(step.claim for step in derivation.steps))
    if not all(isinstance(claim, Basic) for claim in claims):
        return False
    for step in derivation.steps:
        rule = step.rule
        if isinstance(rule, Derivation):
            if not _by_content(rule):
                return False
        elif not isinstance(rule, (str, Rule)):
            return False
    try:
        hash(derivation)
    except TypeError:  # a term SymPy cannot hash
        return False
    return True


def audit_of(derivation: Derivation) -> Audit:
    """The kernel's audit of ``derivation`` (cached per derivation object, and by content).

    ``Audit.verified`` is the kernel's word on the steps only; the renderers and
    :func:`run` print VERIFIED only when the gate also finds a model of the assumptions
    (:func:`scaledattn.render.text.withheld_reason`), else UNDECIDED.
    """
    cached = _AUDITS.get(id(derivation))
    if cached is not None and cached[0] is derivation:
        return cached[1]
    shared = _by_content(derivation)
    result = _BY_CONTENT.get(derivation) if shared else None
    if result is None:
        resolved, theorems = _dependencies(derivation)
        result = audit(resolved, theorems)
        if shared:
            _BY_CONTENT[derivation] = result
    _AUDITS[id(derivation)] = (derivation, result)
    return result


def prove(derivation: Derivation) -> Theorem:
    """The Theorem of ``derivation``, or the kernel's first ProofError."""
    result = audit_of(derivation)
    if result.theorem is None:
        raise result.errors[0]
    return result.theorem


def run(derivations: Sequence[Derivation], fmt: str = "text") -> int:
    """Print each derivation and a verdict: 0 all verified, 1 one rejected, 3 one undecided.

    Undecided: the kernel accepted it, but no model of its assumptions was found
    (the gate's check, :func:`scaledattn.render.text.withheld_reason`);
    ``Audit.verified`` alone is the kernel's word on the steps, not a verdict.
    """
    failed, undecided = [], []
    for n, d in enumerate(derivations):
        result = audit_of(d)
        if n:
            print()
        print(render(result, fmt))
        if not result.verified:
            failed.append(d.name)
        elif withheld_reason(d):
            undecided.append(d.name)
    print()
    if failed:
        print(f"Verdict: REJECTED — {', '.join(failed)}", file=sys.stdout)
        return 1
    if undecided:
        print(f"Verdict: UNDECIDED — no model of the assumptions of {', '.join(undecided)}")
        return 3
    print(f"Verdict: VERIFIED — all {len(derivations)} derivations checked by the kernel")
    return 0
