"""Definitions of score vectors by their entries: a one-hot target, a lead, a shift.

Each builds the kernel's ``Entries`` assumption, which checks what it is given (a real,
non-random body that does not mention the vector it defines): they choose only the
fresh index and the label a rendering shows, so they need no trust.

>>> from scaledattn.kernel import RealVector, dimension, index
>>> n, w = dimension("n"), index("w")
>>> r, s = RealVector("r", n), RealVector("s", n)
>>> print(Shift(r, s, 3))
r_j = s_j + 3 for every j (all scores shifted by 3)
"""

from __future__ import annotations

from typing import Any

import sympy
from sympy import KroneckerDelta, Symbol

from scaledattn.errors import InvalidArgument
from scaledattn.kernel import Entries, RealVector
from scaledattn.kernel.expr import as_term, fresh_index
from scaledattn.kernel.vectors import _index_symbol

__all__ = ["Lead", "OneHot", "Shift"]


def OneHot(y: RealVector, t: Any) -> Entries:  # noqa: N802 - reads as a predicate
    """The one-hot target: yⱼ = δⱼₜ (y = eₜ)."""
    j = _dummy_index(t)
    return Entries(y, KroneckerDelta(j, _index_symbol(t)), j, f"one-hot at {t}")


def Lead(r: RealVector, s: RealVector, w: Any, lam: Any) -> Entries:  # noqa: N802
    """The scores s with a lead λ added to score w: rⱼ = sⱼ + λδⱼw."""
    _same_dimension(r, s)
    j = _dummy_index(w, lam, s.dim)
    lead = sympy.pretty(lam, use_unicode=True)
    return Entries(
        r, s[j] + lam * KroneckerDelta(j, _index_symbol(w)), j, f"score {w} leads by {lead}"
    )


def Shift(r: RealVector, s: RealVector, a: Any) -> Entries:  # noqa: N802
    """The scores s shifted by the constant a: rⱼ = sⱼ + a."""
    _same_dimension(r, s)
    j = _dummy_index(a, s.dim)
    return Entries(r, s[j] + a, j, f"all scores shifted by {sympy.pretty(a, use_unicode=True)}")


def _same_dimension(r: RealVector, s: RealVector) -> None:
    if r.dim != s.dim:
        raise InvalidArgument(
            f"{r.name} and {s.name} must have the same dimension, got {r.dim} and {s.dim}"
        )


def _dummy_index(*around: Any) -> Symbol:
    """The definition's index: named after none of the symbols it is defined with."""
    return fresh_index(set().union(*(as_term(x).free_symbols for x in around)))
