"""Claims that rest on proved theorems: ``theorem(NAME)`` and the proved limits ``lim(NAME)``.

``theorem(NAME)`` holds when the kernel verifies the derivation of that name (see
``scaledattn list``). ``lim(NAME)`` is the value of a limit proved in
``saturation_limits``, as one score's lead λ grows without bound: the kernel checks
the theorem when the claim is verified, and the value is the right side of its
statement, never a number typed in here.

Examples
--------
>>> limit("p_minus_y").value
sqrt(2)
>>> limit("jacobian").theorem
'jacobian_vanishes'
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import sympy
from sympy import Expr

from scaledattn.derive import audit_of
from scaledattn.errors import InvalidArgument
from scaledattn.kernel import Equation, Theorem
from scaledattn.kernel.expr import rebuild
from scaledattn.language.surface import closest
from scaledattn.registry import find_derivation

__all__ = ["LIMITS", "Limit", "limit", "limit_value", "proved"]

#: lim(NAME): (theorem, what the limit is of).
LIMITS: dict[str, tuple[str, str]] = {
    "jacobian": (
        "jacobian_vanishes",
        "‖diag(p) − ppᵀ‖², the softmax Jacobian's squared norm (Frobenius)",
    ),
    "backward": (
        "backward_vanishes",
        "Σᵢ gᵢ ∂pᵢ/∂sₘ, the gradient a loss on the attention output sends to the scores"
        " (g = ∂L/∂p fixed)",
    ),
    "p_minus_y": (
        "p_minus_y_limit",
        "‖p − y‖, the cross-entropy gradient ∂L/∂s on a target that is not the leader",
    ),
    "leader_weight": ("saturation_limits", "p_w, the weight of the leading score"),
}


@dataclass(frozen=True)
class Limit:
    """A proved limit: its value, the theorem that proves it, and what it is the limit of."""

    name: str
    value: Expr
    theorem: str
    of: str
    statement: str
    steps: int


@cache
def proved(name: str) -> tuple[Theorem | None, int, str]:
    """(the Theorem or None, its number of steps, the first rejection) for a registered name."""
    derivation = find_derivation(name)
    result = audit_of(derivation)
    error = "" if result.verified else str(result.errors[0]).splitlines()[0]
    return result.theorem, len(derivation.steps), error


@cache
def limit(name: str) -> Limit:
    """The proved value of ``lim(name)``; InvalidArgument for an unknown name."""
    if name not in LIMITS:
        better = closest(name, list(LIMITS))
        hint = f"did you mean {better!r}? " if better else ""
        raise InvalidArgument(f"unknown limit {name!r}; {hint}known: {', '.join(LIMITS)}")
    theorem_name, of = LIMITS[name]
    theorem, steps, _ = proved(theorem_name)
    if theorem is None:
        raise InvalidArgument(f"lim({name}) rests on {theorem_name}, which the kernel rejected")
    statement = theorem.statement
    assert isinstance(statement, Equation)
    value = rebuild(statement.rhs)
    if isinstance(value, sympy.KroneckerDelta):  # lim pᵢ = δᵢw: the leader's own weight
        value = value.subs(value.args[0], value.args[1])
    return Limit(name, value, theorem_name, of, str(statement), steps)


def limit_value(name: str) -> tuple[str, Expr]:
    """``lim(name)`` as the one language reads it: (its name, its proved value)."""
    found = limit(name)
    return found.name, found.value
