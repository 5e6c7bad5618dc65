"""Untrusted sugar over the kernel: write a derivation as a chain and prove it.

``calc`` and ``equivalence`` build a :class:`~scaledattn.kernel.Derivation` step by
step, in the shape of Mathlib's ``calc``; nothing is checked until :func:`prove` or
:func:`audit_of` hands it to the kernel. A step may cite another derivation in
``by=``: it is proved first and used as a rewrite rule.

It imports no renderer: how a :class:`Proof` shows itself (text, Markdown, LaTeX) is
registered by :mod:`scaledattn.render` in the kernel's display table
(``scaledattn.kernel.theorem.NOTEBOOK``), and :func:`scaledattn.render.run` prints
derivations with the kernel's verdict. What it does wire, by name, is the
presentation the kernel leaves outside itself: the plain strings of its terms
(:mod:`scaledattn.strings`) and the report of a refused step (:mod:`scaledattn.explain`).

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

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

import sympy
from sympy import Basic, Expr
from sympy.core.symbol import Str
from sympy.printing.pretty.pretty_symbology import pretty_symbol
from sympy.printing.pretty.stringpict import prettyForm

from scaledattn import explain, strings
from scaledattn.certificate import confirm, note
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
from scaledattn.kernel.theorem import NOTEBOOK

__all__ = [
    "Abbrev",
    "Builder",
    "Proof",
    "abbrev",
    "audit_of",
    "calc",
    "equivalence",
    "group",
    "prove",
]

# The presentation the kernel leaves outside itself, wired here where derivations are
# written and checked: its terms' plain strings, and why a step was refused.
strings.install()
explain.install()


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
    return Abbrev(expr, name)


class Abbrev(Group):
    """A sub-expression shown under a short name (D₁), defined in a "where" line.

    It is a Group, so the kernel strips it before it checks anything: the name is
    display only. Text and LaTeX show the name; SymPy's string form (JSON) shows
    the whole expression.
    """

    def __new__(cls, inner: Any, name: Any) -> Abbrev:  # noqa: D102 - see the class
        label = name if isinstance(name, Str) else Str(str(name))
        obj: Abbrev = Expr.__new__(cls, sympy.sympify(inner), label)
        return obj

    @property
    def inner(self) -> Any:
        """The expression the name stands for."""
        return self.args[0]

    @property
    def label(self) -> str:
        """The name, e.g. ``D_1``."""
        return str(self.args[1].name)

    def _sympystr(self, printer: Any) -> str:
        return f"({printer._print(self.inner)})"

    def _unicode_line(self, printer: Any) -> str:
        return str(pretty_symbol(self.label))

    def _latex(self, printer: Any, exp: Any = None) -> str:
        s = sympy.latex(sympy.Symbol(self.label))
        return s if exp is None else f"{s}^{{{exp}}}"

    def _pretty(self, printer: Any) -> Any:
        return prettyForm(pretty_symbol(self.label))


@dataclass(frozen=True)
class Proof(Derivation):
    """A derivation written with ``calc``/``equivalence``; it shows itself as mathematics.

    In Jupyter it displays as Markdown with $$ math (the kernel's verdict included);
    ``str()`` gives the Unicode text rendering. Both come from :mod:`scaledattn.render`
    (registered in the kernel's display table when it is imported); until then, its
    name, statement and number of steps.
    """

    def audit(self) -> Audit:
        """The kernel's verdict on every step (cached)."""
        return audit_of(self)

    def theorem(self) -> Theorem:
        """The proved Theorem (kernel and checker, :func:`prove`), or the first ProofError."""
        return prove(self)

    def __str__(self) -> str:
        shown = NOTEBOOK.get("text")
        if shown is not None:
            return shown(self)
        steps = f"{len(self.steps)} step" + ("" if len(self.steps) == 1 else "s")
        return f"{self.name}: {self.statement} ({steps}; import scaledattn.render to show them)"


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
        note(result)  # every VERIFIED is shown with the checker's word too (docs/trust.md)
        if shared:
            _BY_CONTENT[derivation] = result
    _AUDITS[id(derivation)] = (derivation, result)
    return result


def prove(derivation: Derivation) -> Theorem:
    """The Theorem of ``derivation``, or the kernel's first ProofError.

    The API's Theorem passes both: the kernel's and the independent checker's
    (:func:`scaledattn.certificate.confirm`). When the kernel accepts and the checker
    refuses, :class:`~scaledattn.errors.SoundnessAlarm` (a bug; please report it).
    """
    result = audit_of(derivation)
    if result.theorem is None:
        raise result.errors[0]
    confirm(result)
    return result.theorem
