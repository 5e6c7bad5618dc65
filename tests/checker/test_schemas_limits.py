"""The checker's schema of ``limit_at_infinity`` (issue 26): lim_{λ→∞} N(e^λ)/D(e^λ) is
lc N/lc D or 0, read in its own normal form; every built-in theorem is now doubly
checked, and each near-miss (a degree too high, a leading coefficient that may be 0, √
of what is negative for large λ, a λ hidden in a definition) is refused."""

from __future__ import annotations

from typing import Any

import pytest
from sympy import Symbol, exp, sqrt

from scaledattn.certificate import certificate
from scaledattn.checker import check_certificate
from scaledattn.derive import audit_of
from scaledattn.errors import CannotCertify
from scaledattn.kernel import Lim, audit
from scaledattn.kernel.calculus import limit_at_infinity
from scaledattn.registry import theorem_modules
from tests.checker.test_checker import one
from tests.kernel.corpus import a
from tests.kernel.corpus import one as kernel_one

LAM = ["sym", "lambda", "r"]
U = ["exp", LAM]
A, B, X = ["sym", "a", "r"], ["sym", "b", "pr"], ["sym", "x", "r"]
J, W, N = ["sym", "j", "inprz"], ["sym", "w", "inprz"], ["sym", "n", "inprz"]


def n(x: int | str) -> list[str]:
    return ["num", str(x)]


def lim(f: Any) -> list[Any]:
    return ["lim", f, LAM]


def over(top: Any, bottom: Any) -> list[Any]:
    return ["mul", top, ["pow", bottom, n(-1)]]


def _builtin() -> list[Any]:
    out = []
    for m in theorem_modules():
        for d in m.derivations:
            try:
                out.append(certificate(audit_of(d)))
            except CannotCertify:  # pragma: no cover - every built-in one is written
                out.append({"name": d.name, "unwritten": True})
    return out


def test_every_built_in_theorem_is_doubly_checked_none_unread() -> None:
    refused = {}
    for cert in _builtin():
        verdict = check_certificate(cert)
        if not verdict.ok:
            refused[cert["name"]] = str(verdict.refusal)
    assert refused == {}


ACCEPTED = [
    ("ratio_of_equal_degrees", lim(over(U, ["add", n(1), U])), n(1)),
    ("constant_plus_a_vanishing_term", lim(["add", X, ["pow", U, n(-1)]]), X),
    ("lower_degree_tends_to_zero", lim(over(A, ["add", n(1), U])), n(0)),
    (
        "leading_coefficients_positive_by_type",
        lim(over(["add", ["mul", A, U], n(1)], ["add", ["mul", B, U], n(1)])),
        ["mul", A, ["pow", B, n(-1)]],
    ),
    (
        "a_divisor_nonzero_only_for_large_lambda",
        lim(over(U, ["add", U, n(-1)])),
        n(1),
    ),
    ("root_of_a_positive_limit", lim(["pow", ["add", n(4), ["pow", U, n(-1)]], n("1/2")]), n(2)),
    (
        "root_of_what_tends_to_zero_from_above",
        lim(["pow", over(n(1), ["add", n(1), U]), n("1/2")]),
        n(0),
    ),
    ("half_powers_of_e_lambda", lim(over(["exp", ["mul", n("1/2"), LAM]], ["add", n(1), U])), n(0)),
]


@pytest.mark.parametrize(("name", "lhs", "rhs"), ACCEPTED, ids=[x[0] for x in ACCEPTED])
def test_the_checker_accepts_a_limit_of_a_ratio_in_e_lambda(name: str, lhs: Any, rhs: Any) -> None:
    verdict = check_certificate(one("limit_at_infinity", lhs, rhs))
    assert verdict.ok, str(verdict.refusal)


R_W = ["entry", "r", W, N]
LEAD = ["define", "r", ["add", ["entry", "s", J, N], ["mul", LAM, ["delta", J, W]]], J, N]

REFUSED = [
    ("a_wrong_value", lim(over(U, ["add", n(1), U])), n(0), []),
    ("numerator_of_higher_degree", lim(over(["pow", U, n(2)], ["add", n(1), U])), n(0), []),
    # b·e^λ + 1 with b only real: b = 0 is allowed, and then the limit is a, not a/b
    (
        "a_leading_coefficient_that_may_be_zero",
        lim(over(["add", ["mul", A, U], n(1)], ["add", ["mul", X, U], n(1)])),
        ["mul", A, ["pow", X, n(-1)]],
        [],
    ),
    # √(e^{−2λ} − e^{−λ}) → 0 from below: defined for no λ > 0
    (
        "root_of_what_is_negative_for_large_lambda",
        lim(["pow", ["add", ["pow", U, n(-2)], ["mul", n(-1), ["pow", U, n(-1)]]], n("1/2")]),
        n(0),
        [],
    ),
    ("a_lambda_hidden_in_a_definition", lim(R_W), R_W, [LEAD]),
    ("e_to_lambda_squared", lim(over(n(1), ["exp", ["pow", LAM, n(2)]])), n(0), []),
    ("not_a_limit", over(U, ["add", n(1), U]), n(1), []),
]


@pytest.mark.parametrize(("name", "lhs", "rhs", "facts"), REFUSED, ids=[x[0] for x in REFUSED])
def test_the_checker_refuses_a_limit_the_rule_does_not_give(
    name: str, lhs: Any, rhs: Any, facts: Any
) -> None:
    verdict = check_certificate(one("limit_at_infinity", lhs, rhs, facts))
    assert verdict.refusal is not None
    assert verdict.refusal.step in (0, 1)


def test_a_divisor_whose_leading_coefficient_may_vanish_is_undefined_inside_a_limit() -> None:
    lhs = lim(over(U, ["add", ["mul", X, U], n(1)]))  # x·e^λ + 1 is 1 when x = 0
    verdict = check_certificate(one("limit_at_infinity", lhs, ["pow", X, n(-1)]))
    assert verdict.refusal is not None
    assert "non-zero" in str(verdict.refusal)


lam = Symbol("lambda", real=True)
KERNEL = {
    "logistic": lambda: kernel_one(limit_at_infinity, Lim(exp(lam) / (1 + exp(lam)), lam), 1),
    "constant_plus_decay": lambda: kernel_one(limit_at_infinity, Lim(a + exp(-lam), lam), a),
    "root": lambda: kernel_one(limit_at_infinity, Lim(sqrt(4 + exp(-lam)), lam), 2),
}


@pytest.mark.parametrize("case", list(KERNEL))
def test_a_limit_the_kernel_takes_is_accepted_by_the_checker(case: str) -> None:
    result: Any = audit(KERNEL[case]())
    assert result.verified
    verdict = check_certificate(certificate(result))
    assert verdict.ok, str(verdict.refusal)


R_I, S_M = ["entry", "r", ["sym", "i", "inprz"], N], ["entry", "s", ["sym", "m", "inprz"], N]


def _lemma(name: str, lhs: Any, rhs: Any, rule: str, facts: Any = ()) -> Any:
    forward = [] if rule == "ring" else [{"lhs": lhs, "rhs": rhs, "facts": []}]
    return {"format": 1, "name": name, "kind": "calc", "facts": list(facts), "lhs": lhs,
            "rhs": rhs, "steps": [{"rule": rule, "claim": rhs, "forward": forward}]}  # fmt: skip


def _using(lemma: Any, facts: Any) -> Any:
    cert = _lemma("main", lemma["lhs"], lemma["rhs"], "theorem:" + lemma["name"], facts)
    cert["lemmas"] = [lemma]
    return cert


def test_a_lemma_about_a_free_vector_holds_for_a_defined_one_when_it_is_pointwise() -> None:
    # r + r = 2r for every r, so for r = s + λδ_w too (no derivative, no limit in it)
    twice = _lemma("twice", ["add", R_I, R_I], ["mul", n(2), R_I], "ring")
    assert check_certificate(_using(twice, [LEAD])).ok


def test_a_lemma_with_a_derivative_of_a_free_vector_is_not_used_for_a_defined_one() -> None:
    # ∂rᵢ/∂sₘ = 0 for r free of s, false for r = s
    free = _lemma("free", ["deriv", R_I, S_M], n(0), "deriv_linear")
    assert check_certificate(free).ok
    same_as_s = ["define", "r", ["entry", "s", J, N], J, N]
    verdict = check_certificate(_using(free, [same_as_s]))
    assert verdict.refusal is not None
    assert "other definitions" in str(verdict.refusal)


def test_a_limit_lemma_about_a_free_vector_is_not_used_where_it_grows_with_lambda() -> None:
    # lim pᵢ = pᵢ when r is free of λ; with r = s + λδ_w, pᵢ → δᵢw instead
    p_i = ["softmax", "r", ["sym", "i", "inprz"], N, "p"]
    const = _lemma("const", lim(p_i), p_i, "limit_at_infinity")
    assert check_certificate(const).ok
    verdict = check_certificate(_using(const, [LEAD]))
    assert verdict.refusal is not None
    assert "other definitions" in str(verdict.refusal)
    assert not check_certificate(one("limit_at_infinity", lim(p_i), p_i, [LEAD])).ok


def test_a_random_divisor_is_not_taken_non_zero_for_large_lambda() -> None:
    # X + e^λ ≠ 0 for large λ outcome by outcome, not uniformly: E[1/(X + e^λ)] may not exist
    rand = lim(["E", ["pow", ["add", ["rv", "X"], U], n(-1)]])
    verdict = check_certificate(one("limit_at_infinity", rand, n(0)))
    assert verdict.refusal is not None
    assert "non-zero" in str(verdict.refusal)
