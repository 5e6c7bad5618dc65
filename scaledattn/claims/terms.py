"""The claim door to the one term builder: a claim's names, placeholders and witnesses.

A claim's terms are read by :class:`~scaledattn.language.terms.TermBuilder`, as every
door reads them (the names: :mod:`scaledattn.language.names`). What a claim adds is what
its line means: ``--assume`` gives constants values (``d_k = 64``) and random variables
definitions (``Y = X``), ``lim(NAME)`` is a limit the kernel proved
(:mod:`scaledattn.automation.theorems`), ``measured(NAME)`` a measurement of the lesson's
experiments, and softmax of numbers is shown beside its float64 witness
(:mod:`scaledattn.attention.softmax`).

Examples
--------
>>> from scaledattn.claims.syntax import parse_claim
>>> scope = ClaimScope()
>>> claim = parse_claim("Var(dot(q, k)/d_k) = 1")
>>> scope.build(claim.sides[0])
Var((q·k)/d_k)
>>> scope.build(parse_claim("[14, 10, 12] / 8 = 1").sides[0])
(7/4, 5/4, 3/2)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from sympy import Expr, Symbol

from scaledattn.attention.softmax import softmax as softmax_float
from scaledattn.automation.theorems import limit_value
from scaledattn.kernel.expr import Component, Dot
from scaledattn.language.names import RANDOM_VARIABLES, Names
from scaledattn.language.parse import Node
from scaledattn.language.terms import (
    MAX_DIMENSION,
    MAX_EXP,
    Box,
    Meanings,
    TermBuilder,
    Value,
    has_moments,
    tolerance,
)

__all__ = [
    "CONSTANTS",
    "MAX_DIMENSION",
    "MAX_EXP",
    "MEANINGS",
    "SCALARS",
    "Box",
    "ClaimScope",
    "Value",
    "components_of",
    "has_moments",
    "is_literal",
    "tolerance",
]

SCALARS = RANDOM_VARIABLES
#: The lesson's constants, and the symbol each one is (as every door reads it).
CONSTANTS: dict[str, Callable[[], Symbol]] = {
    name: (lambda name=name: Names().constant(name))  # type: ignore[misc]
    for name in ("d_k", "c", "sigma", "sigma_q", "sigma_k", "rho", "mu", "mu_q", "mu_k")
}


def _measurement(name: str) -> None:
    from scaledattn.claims.statistics import experiment_of

    experiment_of(name)


def _softmax_witness(scores: Sequence[float]) -> str:
    weights = softmax_float(np.array(scores))
    shown = ", ".join(f"{w:.6g}" for w in weights)
    return f"float64 softmax (scaledattn.attention.softmax): [{shown}]"


#: What a claim's proved limits, measurements and softmax of numbers stand for.
MEANINGS = Meanings(limit=limit_value, measurement=_measurement, softmax_witness=_softmax_witness)


def is_literal(node: Node) -> bool:
    """A written number, or a list of written numbers (the side ≈ takes its tolerance from)."""
    if node.kind == "list":
        return bool(node.children) and all(tolerance(c) is not None for c in node.children)
    return tolerance(node) is not None


class ClaimScope(TermBuilder):
    """What names mean for one claim: assigned constants, definitions, placeholders.

    ``constants`` maps a constant's name to its value (``d_k = 64``); ``definitions``
    maps a random variable to the syntax tree defining it (``Y = X``). Building
    records placeholders (``boxes``), the limits and dimensions used, float64
    witnesses of softmax, and in ``needs`` what each built term needs besides: a
    divisor SymPy cancelled ≠ 0, a logarithm's argument > 0, a root squared away ≥ 0
    (:mod:`scaledattn.language.definedness`), for
    :func:`~scaledattn.claims.setup.prepare` to decide with the assumptions.
    """

    def __init__(
        self,
        constants: dict[str, Expr] | None = None,
        definitions: dict[str, Node] | None = None,
        text: str = "",
        **more: Any,
    ) -> None:
        names = Names(values=dict(constants or {}), definitions=dict(definitions or {}))
        super().__init__(names, text, MEANINGS, **more)

    @property
    def constants(self) -> dict[str, Expr]:
        """The constants given a value, by name."""
        return self.names.values

    @property
    def definitions(self) -> dict[str, Node]:
        """The random variables given a definition, by name."""
        return self.names.definitions  # type: ignore[return-value]

    def dimension(self) -> Expr:
        """d_k: its assigned value, or the positive-integer symbol."""
        return self.names.dimension()


def components_of(values: Sequence[Expr]) -> set[str]:
    """The vectors whose components or dot products appear in ``values``."""
    found: set[str] = set()
    for v in values:
        for c in v.atoms(Component):
            found.add(c.label.name)
        for d in v.atoms(Dot):
            found |= {d.args[0].name, d.args[1].name}
    return found
