"""The bounds on what a proof file may write, so that every check answers in seconds.

A proof file is untrusted input, like a claim of ``scaledattn verify``; the terms it
writes are refused when reading them, with the place and the limit, if the work they
ask for grows beyond what the checker does quickly:

- a number has at most :data:`MAX_BITS` bits in its numerator and denominator (as in
  ``verify``: 10**300 is a number, 10**400 is not);
- a written dimension (``sum(…, i, 1, N)``, ``dot(q, k, N)``, ``entry(s, i, N)``,
  ``softmax(s, i, N)``, ``1 <= m <= N``) or index (``q_N``) is at most
  :data:`MAX_DIMENSION` (as in ``verify``); the symbolic ``d_k``, ``n`` always read;
- the numbers inside ``exp(…)`` are at most :data:`MAX_EXP_NUMBER` (numerator and
  denominator): SymPy reads ``exp(N)`` as a polynomial of degree N in e, which it
  factors in time that grows with N (exp(1000) − 2 takes minutes);
- a term's expansion into monomials (:func:`expanded_size`, with every sum of at most
  :data:`~scaledattn.kernel.rules.MAX_UNROLL` terms counted as unrolled, as ``sum_unroll``
  may unroll it) has at most :data:`MAX_EXPANSION` monomials, and a whole file's terms
  at most :data:`MAX_FILE_EXPANSION` together: the kernel's normal form expands products
  of sums, (Σ of 64 terms)² being 2080 monomials and about a second.

The model search of the feedback (:mod:`scaledattn.prooffile.feedback`) has a bound of
its own, :data:`MAX_MODEL_DIMENSION`: a model draws every component of a vector.
"""

from __future__ import annotations

from math import comb
from typing import Any

import sympy

from scaledattn.errors import InvalidArgument
from scaledattn.kernel import Cov, CrossSum, Dot, E, Entry, IndexSum, Softmax, Std, Var
from scaledattn.kernel.expr import Component
from scaledattn.kernel.rules import MAX_UNROLL
from scaledattn.language.parse import MAX_BITS
from scaledattn.language.terms import MAX_DIMENSION, shown

__all__ = [
    "MAX_BITS",
    "MAX_DIMENSION",
    "MAX_EXPANSION",
    "MAX_EXP_NUMBER",
    "MAX_FILE_EXPANSION",
    "MAX_MODEL_DIMENSION",
    "bounded",
    "dimensions",
    "expanded_size",
]

#: The numbers inside exp(…) are at most this (numerator and denominator).
MAX_EXP_NUMBER = 64
#: A term expands to at most this many monomials (sums of ≤ MAX_UNROLL terms unrolled).
MAX_EXPANSION = 8192
#: All the terms of one file expand to at most this many monomials together.
MAX_FILE_EXPANSION = 100_000
#: The feedback draws a model only when every written dimension is at most this.
MAX_MODEL_DIMENSION = 512


def _bits(value: sympy.Rational) -> int:
    return max(abs(int(value.p)).bit_length(), abs(int(value.q)).bit_length())


def _unrolled(upper: Any) -> int:
    """The terms a sum of this bound may be unrolled into (1: it stays a sum)."""
    if isinstance(upper, sympy.Integer) and 1 <= int(upper) <= MAX_UNROLL:
        return int(upper)
    return 1


def expanded_size(term: Any, limit: int = MAX_EXPANSION) -> int:
    """An upper bound on the monomials of ``term`` expanded, saturated at ``limit + 1``.

    Σ of n ≤ MAX_UNROLL terms counts n times its body, a power pᵗʰ of s monomials
    C(s + p − 1, p), Var(a) and Std(a) C(s + 1, 2) (as E(a²)), Cov(a, b) s_a·s_b; a
    component, an entry or a function (its argument is not expanded) counts 1.
    """
    cap = limit + 1

    def size(e: Any) -> int:
        if not isinstance(e, sympy.Basic) or e.is_Atom or not e.args:
            return 1
        if isinstance(e, CrossSum):
            n = _unrolled(e.upper)
            return min(cap, size(e.body) * n * n)
        if isinstance(e, IndexSum):
            return min(cap, size(e.body) * _unrolled(e.upper))
        if isinstance(e, Dot):
            return _unrolled(e.dim)
        if isinstance(e, sympy.Add):
            return min(cap, sum(size(a) for a in e.args))
        if isinstance(e, sympy.Mul):
            total = 1
            for a in e.args:
                total = min(cap, total * size(a))
            return total
        if isinstance(e, sympy.Pow):
            p = e.exp
            if isinstance(p, sympy.Integer) and int(p) >= 2:
                return min(cap, comb(size(e.base) + int(p) - 1, int(p)))
            return size(e.base)
        if isinstance(e, (Var, Std)):  # variance_def: E(a²) − E(a)²
            return min(cap, comb(size(e.args[0]) + 1, 2))
        if isinstance(e, Cov):
            return min(cap, size(e.args[0]) * size(e.args[1]))
        if isinstance(e, E):
            return size(e.args[0])
        return 1  # a component, an entry, a function: one factor of a monomial

    return size(term)


def dimensions(term: Any) -> list[int]:
    """The numeric dimensions and indices written in ``term`` (sums, dots, entries, q_N)."""
    found: list[int] = []
    for node in sympy.preorder_traversal(term):
        value: Any = None
        if isinstance(node, IndexSum):
            value = node.upper
        elif isinstance(node, (Dot, Entry, Softmax)):
            value = node.dim
        elif isinstance(node, Component):
            value = node.index
        if isinstance(value, sympy.Integer):
            found.append(int(value))
    return found


def bounded(term: Any) -> int:
    """``term``'s expanded size when every bound holds; InvalidArgument naming the first broken.

    Examples
    --------
    >>> from scaledattn.language.terms import build_term
    >>> bounded(build_term("Var(dot(q, k, 2))"))  # E((q₁k₁ + q₂k₂)²): 3 monomials
    3
    >>> bounded(build_term("exp(100)"))
    Traceback (most recent call last):
    ...
    scaledattn.errors.InvalidArgument: exp(100) too large (the numbers in exp(…) are at most 64)
    """
    for node in sympy.preorder_traversal(term):
        if isinstance(node, sympy.Rational) and _bits(node) > MAX_BITS:
            raise InvalidArgument(f"number too large (at most {MAX_BITS} bits)")
        if isinstance(node, sympy.exp) or (isinstance(node, sympy.Pow) and node.base == sympy.E):
            exponent = node.exp if isinstance(node, sympy.Pow) else node.args[0]
            for number in sympy.preorder_traversal(exponent):
                if (
                    isinstance(number, sympy.Rational)
                    and max(abs(int(number.p)), int(number.q)) > MAX_EXP_NUMBER
                ):
                    raise InvalidArgument(
                        f"exp({shown(exponent)}) too large (the numbers in exp(…) are at"
                        f" most {MAX_EXP_NUMBER})"
                    )
    for value in dimensions(term):
        if value > MAX_DIMENSION:
            raise InvalidArgument(
                f"dimension {shown(sympy.Integer(value))} too large (at most {MAX_DIMENSION})"
            )
    size = expanded_size(term)
    if size > MAX_EXPANSION:
        raise InvalidArgument(
            f"term too large: it expands to more than {MAX_EXPANSION} monomials"
            " (write it with fewer or symbolic terms)"
        )
    return size
