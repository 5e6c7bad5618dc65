"""Kernel holes the fuzzer found, each a minimal term and a world where the rule lies.

Each is a strict xfail until the kernel half of issue 12 fixes its family (then it
fails, and is flipped into a plain passing test). The values come from the oracle.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from sympy import Rational

from scaledattn.kernel import Context, IndexSum, RealVector, SoftmaxVector, dimension, index
from scaledattn.kernel.expr import normal_form
from scaledattn.kernel.rules import RULES
from scaledattn.numeric.semantics import World, agree

i, j, n = index("i"), index("j"), dimension("n")
s = RealVector("s", n)


@pytest.mark.xfail(strict=True, reason="H-F1: softmax_def crashes on a numeric index")
def test_softmax_def_on_a_numeric_index() -> None:
    p = SoftmaxVector(s)
    rewritten, _ = RULES["softmax_def"].apply(p[1], Context())
    world = World(values={n: Fraction(2)}, vectors={"s": (Fraction(0), Fraction(1))})
    assert agree(p[1], rewritten, world) == "agree"


@pytest.mark.xfail(strict=True, reason="H-F2: ring reorders a sum whose bound is an outer index")
def test_ring_keeps_a_bound_that_names_the_outer_index() -> None:
    term = IndexSum(IndexSum(Rational(1, 2), i, i), i, n)
    world = World(values={n: Fraction(2), i: Fraction(1)})
    assert agree(term, normal_form(term), world) == "agree"  # 3/2 and 1 today


@pytest.mark.xfail(strict=True, reason="H-F3: sum_mul_sum renames a bound index onto a free one")
def test_sum_mul_sum_does_not_capture_a_free_index_of_another_factor() -> None:
    term = IndexSum(1, j, n) ** 2 * IndexSum(s[i], j, n) ** 2
    rewritten, _ = RULES["sum_mul_sum"].apply(term, Context())
    world = World(
        values={n: Fraction(2), i: Fraction(1), j: Fraction(1)},
        vectors={"s": (Fraction(-1), Fraction(2), Fraction(0))},
    )
    assert agree(term, rewritten, world) == "agree"  # 16 and 40 today
