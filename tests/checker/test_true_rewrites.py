"""Rewrites the kernel accepts and the fuzzer found the checker refusing though they are
true (alarms a user could meet): each is a one-step derivation, kernel and checker agree."""

from __future__ import annotations

from typing import Any

import pytest
from sympy import Abs, Eq, Or, Symbol, sqrt

from scaledattn.certificate import certificate
from scaledattn.checker import check_certificate
from scaledattn.kernel import Dot, IndexSum, Positive, Std, audit, random_variables
from scaledattn.kernel import rules as R
from tests.kernel.corpus import a, c, d, i, j, k, n, one, q

(X,) = random_variables("X")
y = Symbol("y", real=True)

CASES = {
    "count_terms_dot_under_std": lambda: one(
        R.count_terms, Std(IndexSum(Dot(q, k), j, n)), Std(n * Dot(q, k))
    ),
    "count_terms_one_term_under_std": lambda: one(
        R.count_terms, Std(IndexSum(X**2, j, 1)), Std(X**2)
    ),
    "clear_denominator_c2_plus_1": lambda: one(
        R.clear_denominator, Eq(a / (c**2 + 1), 1), Eq(a - c**2 - 1, 0)
    ),
    "sum_linear_nested_sqrt": lambda: one(
        R.sum_linear,
        IndexSum(IndexSum(sqrt(d) * q[i] * k[j] + q[j], j, d), i, d),
        sqrt(d) * IndexSum(IndexSum(q[i] * k[j], j, d), i, d)
        + IndexSum(IndexSum(q[j], j, d), i, d),
    ),
    "square_roots_abs": lambda: one(
        R.square_roots,
        Eq(c**2 - a**2 * y**2, 0),
        Or(Eq(c, Abs(a) * Abs(y)), Eq(c, -Abs(a) * Abs(y))),
        [Positive(c)],
    ),
    "square_roots_abs_over_a_root": lambda: one(
        R.square_roots,
        Eq(c**2 * (y**2 + 1) - a**2, 0),
        Or(Eq(c, Abs(a) / sqrt(y**2 + 1)), Eq(c, -Abs(a) / sqrt(y**2 + 1))),
        [Positive(c)],
    ),
}


def test_roots_whose_square_is_not_the_value_are_refused() -> None:
    result: Any = audit(CASES["square_roots_abs"]())
    cert = certificate(result)
    two = ["mul", ["num", "2"], ["abs", ["sym", "a", "r"]], ["abs", ["sym", "y", "r"]]]
    x = ["sym", "c", "r"]
    wrong = ["or", ["eq", x, two], ["eq", x, ["mul", ["num", "-1"], two]]]
    cert["rhs"] = cert["steps"][0]["claim"] = cert["steps"][0]["forward"][0]["rhs"] = wrong
    verdict = check_certificate(cert)
    assert not verdict.ok
    assert "roots" in str(verdict.refusal)


@pytest.mark.parametrize("case", list(CASES))
def test_a_true_rewrite_the_kernel_accepts_is_accepted(case: str) -> None:
    result: Any = audit(CASES[case]())
    assert result.verified
    verdict = check_certificate(certificate(result))
    assert verdict.ok, str(verdict.refusal)
