"""Kernel holes the fuzzer found, each a minimal term and a world where the rule lies.

Each was a strict xfail until the kernel half of issue 12 fixed its family; now each is
a plain test that the oracle finds the rewrite sound. The values come from the oracle.
"""

from __future__ import annotations

from fractions import Fraction

from sympy import Rational, Symbol

from scaledattn.definitions import Lead
from scaledattn.kernel import Context, IndexSum, Lim, RealVector, SoftmaxVector, dimension, index
from scaledattn.kernel.expr import normal_form
from scaledattn.kernel.rules import RULES
from scaledattn.numeric.semantics import World, agree, value

i, j, n = index("i"), index("j"), dimension("n")
s = RealVector("s", n)


def test_softmax_def_on_a_numeric_index() -> None:
    """H-F1, fixed: softmax_def crashes on a numeric index."""
    p = SoftmaxVector(s)
    rewritten, _ = RULES["softmax_def"].apply(p[1], Context())
    world = World(values={n: Fraction(2)}, vectors={"s": (Fraction(0), Fraction(1))})
    assert agree(p[1], rewritten, world) == "agree"


def test_ring_keeps_a_bound_that_names_the_outer_index() -> None:
    """H-F2, fixed: ring reorders a sum whose bound is an outer index."""
    term = IndexSum(IndexSum(Rational(1, 2), i, i), i, n)
    world = World(values={n: Fraction(2), i: Fraction(1)})
    assert agree(term, normal_form(term), world) == "agree"  # 3/2 and 1 before the fix


def test_sum_mul_sum_does_not_capture_a_free_index_of_another_factor() -> None:
    """H-F3, fixed: sum_mul_sum renames a bound index onto a free one."""
    term = IndexSum(1, j, n) ** 2 * IndexSum(s[i], j, n) ** 2
    rewritten, _ = RULES["sum_mul_sum"].apply(term, Context())
    world = World(
        values={n: Fraction(2), i: Fraction(1), j: Fraction(1)},
        vectors={"s": (Fraction(-1), Fraction(2), Fraction(0))},
    )
    assert agree(term, rewritten, world) == "agree"  # 16 and 40 before the fix


def test_ring_does_not_rename_a_limit_a_definition_reads() -> None:
    """H-F4, fixed: ring renamed a limit variable a definition reads."""
    w = index("w")
    lam = Symbol("lambda", real=True)
    r = RealVector("r", n)
    lead = Lead(r, s, w, lam)
    p = SoftmaxVector(r)
    term = Lim(p[w], lam)
    world = World(
        values={n: Fraction(2), w: Fraction(1), lam: Fraction(0)},
        vectors={"s": (Fraction(0), Fraction(0))},
        definitions={"r": lead},
    )
    assert value(term, world) == 1
    assert agree(term, normal_form(term), world) == "agree"  # 1 and 1/2 before the fix
