"""The third party of a campaign: each rewrite as a one-step derivation, audited and checked.

A rewrite R(e) of a drawn term e is written as the derivation ``e = R(e) by R`` (for
a proposition, ``e ⇔ R(e)``) in the case's context. The kernel audits it, the
certificate writer (:mod:`scaledattn.certificate`) writes what the kernel did, and the
independent checker (:mod:`scaledattn.checker`) checks that. With the semantics'
verdict on the rewrite, three parties judge every rewrite: a rewrite the kernel
accepts and the checker refuses, or one the checker accepts whose two sides differ in
a world, is a disagreement.
"""

from __future__ import annotations

from typing import Any, Literal

from sympy.logic.boolalg import Boolean

from scaledattn.certificate import doubly_checked, judge
from scaledattn.kernel import RULES, Derivation, Equation, Equivalence, Step, audit

__all__ = ["Word", "checker_word"]

#: What the kernel and the checker say of one rewrite.
Word = Literal["checked", "refused", "unread", "kernel refused"]


def checker_word(rule: str, term: Any, rewritten: Any, assumptions: tuple[Any, ...]) -> Word:
    """The kernel's and then the checker's verdict on ``term = rewritten by rule``."""
    statement = (Equivalence if isinstance(term, Boolean) else Equation)(term, rewritten)
    derivation = Derivation("rewrite", statement, (Step(RULES[rule], rewritten),), assumptions)
    result = audit(derivation)
    if not result.verified:
        return "kernel refused"
    # the doors' own judgement (certificate.word without its memo, which would keep every
    # one-step audit of a long campaign): "checked", "unread: why" or "refused: why"
    double = doubly_checked(result)
    said = "unread" if double.verdict is None else judge(derivation, double.verdict)
    if said == "checked":
        return "checked"
    return "unread" if said.startswith("unread") else "refused"
