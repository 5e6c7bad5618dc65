"""Plain strings of the kernel's terms and assumptions, outside the kernel.

SymPy's ``StrPrinter`` looks up ``_print_<ClassName>``; :func:`install` adds one for
each term of the kernel, so that ``E(X + Y)`` prints as ``E(X + Y)``, a sum as
``Sum(q_i**2, (i, 1, 3))`` and a limit as ``lim[λ→∞](f)``, and gives each assumption
its ``__str__`` (``E[q_i] = 0 for every i``, ``t ≠ w``). The kernel itself never needs
these strings to decide anything. :mod:`scaledattn.derive` installs them when imported
(where derivations are written), and so does :mod:`scaledattn.render`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy
from sympy.printing.str import StrPrinter

from scaledattn.kernel.assumptions import (
    Context,
    Independent,
    IndependentComponents,
    IndependentPairs,
    Moment,
    Positive,
)
from scaledattn.kernel.expr import (
    Component,
    Cov,
    CrossSum,
    DotProduct,
    E,
    Group,
    IndexSum,
    RandomVector,
    Std,
    Var,
    rebuild,
)
from scaledattn.kernel.rules import Rule
from scaledattn.kernel.theorem import Equation, Equivalence, Theorem
from scaledattn.kernel.vectors import (
    Deriv,
    Distinct,
    Entries,
    Entry,
    IndexRange,
    Lim,
    RealVector,
    Softmax,
    SoftmaxVector,
)

__all__ = ["install"]

Show = Callable[[Any, Any], str]


def _operator(p: Any, e: Any) -> str:
    return f"{type(e).__name__}({', '.join(p._print(a) for a in e.args)})"


def _sum(p: Any, e: Any) -> str:
    i = p._print(e.indices[0])
    return f"Sum({p._print(e.body)}, ({i}, 1, {p._print(e.upper)}))"


def _cross(p: Any, e: Any) -> str:
    i, j = (p._print(s) for s in e.indices)
    return f"CrossSum({p._print(e.body)}, ({i}, {j}, 1, {p._print(e.upper)}))"


SHOW: dict[type, Show] = {
    Component: lambda p, e: f"{e.label.name}_{p._print(e.index)}",
    E: _operator,
    Var: _operator,
    Cov: _operator,
    Std: _operator,
    DotProduct: lambda p, e: f"{e.args[0].name}·{e.args[1].name}",
    IndexSum: _sum,
    CrossSum: _cross,
    Group: lambda p, e: f"({p._print(e.args[0])})",
    Entry: lambda p, e: f"{e.vector}_{p._print(e.index)}",
    Softmax: lambda p, e: f"{e.shown}_{p._print(e.index)}",
    Deriv: lambda p, e: f"∂({p._print(e.args[0])})/∂{p._print(e.args[1])}",
    Lim: lambda p, e: f"lim[{p._print(e.variable)}→∞]({p._print(e.args[0])})",
}


def _moment(a: Moment) -> str:
    lhs = sympy.sstr(a.lhs)
    if isinstance(a.lhs, E):
        lhs = f"E[{sympy.sstr(a.lhs.args[0])}]"
    text = f"{lhs} = {sympy.sstr(a.value)}"
    if a.indices:
        text += " for every " + ", ".join(str(i) for i in a.indices)
    return text


def _entries(a: Entries) -> str:
    text = f"{a.name}_{a.index} = {sympy.sstr(a.body)} for every {a.index}"
    return f"{text} ({a.label})" if a.label else text


def _distinct(a: Distinct) -> str:
    first, second = sorted(a.pair, key=str)
    return f"{first} ≠ {second}"


def _theorem(t: Theorem) -> str:
    text = f"{t.name}: {t.statement}"
    if t.axioms:
        text += f" (verified modulo axiom {', '.join(sorted(t.axioms))})"
    return text


#: How each assumption, statement and vector reads: its ``__str__`` (``__repr__`` for
#: vectors, which show in lists).
TEXT: dict[type, Callable[[Any], str]] = {
    Independent: lambda a: f"Independent({', '.join(str(u) for u in a.units)})",
    IndependentComponents: lambda a: (
        f"IndependentComponents({', '.join(v.name for v in a.vectors)})"
    ),
    IndependentPairs: lambda a: f"IndependentPairs({', '.join(v.name for v in a.vectors)})",
    Moment: _moment,
    Positive: lambda a: f"{a.symbol} > 0",
    Context: lambda c: ", ".join(str(a) for a in c.assumptions) or "none",
    Entries: _entries,
    IndexRange: lambda a: f"{a.index} ∈ 1..{a.upper}",
    Distinct: _distinct,
    Equation: lambda e: f"{sympy.sstr(rebuild(e.lhs))} = {sympy.sstr(rebuild(e.rhs))}",
    Equivalence: lambda e: f"({sympy.sstr(rebuild(e.lhs))}) ⇔ ({sympy.sstr(rebuild(e.rhs))})",
    Theorem: _theorem,
    Rule: lambda rule: rule.name,
}
REPR: dict[type, Callable[[Any], str]] = {
    RandomVector: lambda v: str(v.label.name),
    RealVector: lambda v: v.name,
    SoftmaxVector: lambda p: f"{p.name} = softmax({p.scores.name})",
}


def _method(cls: type, show: Show, fallback: Any) -> Callable[[Any, Any], str]:
    def method(printer: Any, e: Any) -> str:
        if isinstance(e, cls) or fallback is None:
            return show(printer, e)
        return str(fallback(printer, e))

    return method


def install() -> None:
    """Give SymPy's string printer a method for each kernel term (once)."""
    for cls, show in SHOW.items():
        name = f"_print_{cls.__name__}"
        current = getattr(StrPrinter, name, None)
        if getattr(current, "_scaledattn", False):
            continue
        method = _method(cls, show, current)
        method._scaledattn = True  # type: ignore[attr-defined]
        setattr(StrPrinter, name, method)
    for cls, text in TEXT.items():
        cls.__str__ = text  # type: ignore[method-assign,assignment]
    for cls, text in REPR.items():
        cls.__repr__ = text  # type: ignore[method-assign,assignment]
