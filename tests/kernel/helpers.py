"""Small helpers to check single steps and short chains in tests."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from scaledattn.kernel import (
    Assumption,
    Audit,
    Derivation,
    Equation,
    Equivalence,
    Step,
    audit,
)


def chain(
    start: Any,
    steps: Sequence[tuple[Any, Any]],
    assuming: Iterable[Assumption] = (),
    *,
    iff: bool = False,
    name: str = "test",
    end: Any = None,
) -> Audit:
    """Audit the chain start → claims, each (claim, rule); the statement ends at the last claim."""
    last = steps[-1][0] if end is None else end
    statement = Equivalence(start, last) if iff else Equation(start, last)
    return audit(
        Derivation(
            name, statement, tuple(Step(rule, claim) for claim, rule in steps), tuple(assuming)
        )
    )


def accepts(
    rule: Any, prev: Any, claim: Any, assuming: Iterable[Assumption] = (), **kw: Any
) -> bool:
    """True when the kernel accepts the single step prev → claim by ``rule``."""
    return chain(prev, [(claim, rule)], assuming, **kw).steps[0].ok


def rejection(
    rule: Any, prev: Any, claim: Any, assuming: Iterable[Assumption] = (), **kw: Any
) -> Any:
    """The kernel's error for the single step prev → claim (None if accepted)."""
    return chain(prev, [(claim, rule)], assuming, **kw).steps[0].error
