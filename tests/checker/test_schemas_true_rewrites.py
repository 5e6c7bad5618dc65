"""True rewrites the three-party fuzz campaign found the checker refusing (issue 26), one
family per test: the checker accepts the kernel's true instance, and refuses a near miss
(the same certificate with a false replacement, or a sign it cannot justify)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from sympy import Eq, KroneckerDelta, Or, Rational, S, Symbol, exp, sqrt

from scaledattn.certificate import certificate
from scaledattn.checker import check_certificate
from scaledattn.kernel import (
    CrossSum,
    Deriv,
    E,
    IndexRange,
    IndexSum,
    Moment,
    Positive,
    RealVector,
    SoftmaxVector,
    Var,
    audit,
    dimension,
    index,
)
from scaledattn.kernel import rules as R
from scaledattn.kernel.calculus import softmax_def
from tests.kernel.corpus import one, q

n = dimension("n")
m, t, w, j = index("m"), index("t"), index("w"), index("j")
a, c = Symbol("a", real=True), Symbol("c", real=True)
sigma = Symbol("sigma", positive=True)
z = Symbol("z", integer=True, nonnegative=True)
u = Symbol("u", integer=True)
s = RealVector("s", n)
p = SoftmaxVector(s, "p")
delta = KroneckerDelta


def _roots(x: Any, r: Any) -> Any:
    return Or(Eq(x, r), Eq(x, -r))


#: name: (the kernel's true one-step derivation, a false replacement in the checker's terms)
W, M, N = ["sym", "w", "inprz"], ["sym", "m", "inprz"], ["sym", "n", "inprz"]
X_C = ["sym", "c", "r"]
X_S = ["sym", "sigma", "nprz"]
D_UW = ["delta", ["sym", "u", "ir"], ["sym", "w", "inprz"]]


def _pm(x: Any, r: Any) -> Any:
    return ["or", ["eq", x, r], ["eq", x, ["mul", ["num", "-1"], r]]]


CASES: dict[str, tuple[Any, Any]] = {
    # (2 + 2c²)·(c² + 1)⁻¹ = 2: the denominator's content comes out first
    "clear_denominator_with_a_numeric_factor": (
        lambda: one(R.clear_denominator, Eq(a / (c**2 + 1), S.Half), Eq(2 * a - c**2 - 1, 0)),
        ["eq", ["add", ["mul", ["num", "2"], ["sym", "a", "r"]], ["num", "-1"]], ["num", "0"]],
    ),
    "clear_denominator_twice_a_sum": (
        lambda: one(
            R.clear_denominator,
            Eq(1 / (2 * (c**2 + 1)), p[w]),
            Eq(-2 * c**2 * p[w] - 2 * p[w] + 1, 0),
            [Positive(c)],
        ),
        [
            "eq",
            ["add", ["num", "1"], ["mul", ["num", "-2"], ["softmax", "s", W, N, "p"]]],
            ["num", "0"],
        ],
    ),
    # δ² = δ and δ ≥ 0: √δ = δ
    "square_roots_of_a_delta": (
        lambda: one(R.square_roots, Eq(c**2, delta(u, w)), _roots(c, delta(u, w))),
        _pm(X_C, ["mul", ["num", "2"], D_UW]),
    ),
    # e^x > 0 and (e^{n/2})² = e^n
    "square_roots_of_an_exponential_times_a_delta": (
        lambda: one(
            R.square_roots,
            Eq(sigma**2, exp(n) * delta(1, m)),
            _roots(sigma, exp(n / 2) * delta(1, m)),
        ),
        _pm(X_S, ["mul", ["exp", N], ["delta", ["num", "1"], M]]),
    ),
    # (z^{1/4})⁴ = (√z)² with √z ≥ 0: z^{1/4} = √√z
    "square_roots_of_a_root": (
        lambda: one(R.square_roots, Eq(c**2, sqrt(z)), _roots(c, z ** Rational(1, 4))),
        _pm(X_C, ["pow", ["sym", "z", "inr"], ["num", "1/2"]]),
    ),
    # ∂f/∂x is real for a real f: (e^{D/2})² = e^D
    "square_roots_of_the_exponential_of_a_derivative": (
        lambda: one(
            R.square_roots,
            Eq(sigma**2, exp(Deriv(m, s[u]))),
            _roots(sigma, exp(Deriv(m, s[u]) / 2)),
        ),
        _pm(X_S, ["exp", ["deriv", M, ["entry", "s", ["sym", "u", "ir"], N]]]),
    ),
    # √p₁ is real (p₁ > 0): (e^{√p₁/2})² = e^{√p₁}
    "square_roots_of_the_exponential_of_a_root_of_a_weight": (
        lambda: one(
            R.square_roots,
            Eq(sigma**2, exp(sqrt(p[1]))),
            _roots(sigma, exp(sqrt(p[1]) / 2)),
        ),
        _pm(X_S, ["exp", ["pow", ["softmax", "s", ["num", "1"], N, "p"], ["num", "1/2"]]]),
    ),
    # √S·√S = S, and Σₜ Σₜ' S is one chain of sums whichever way it is written
    "sum_mul_sum_of_a_root_squared": (
        lambda: one(
            R.sum_mul_sum,
            s[m] * IndexSum(sqrt(IndexSum(p[j], j, n)), t, 2) ** 2,
            s[m] * IndexSum(IndexSum(IndexSum(p[j], j, n), index("t'"), 2), t, 2),
        ),
        [
            "mul",
            ["entry", "s", M, N],
            [
                "sum",
                ["sum", ["softmax", "s", ["sym", "j", "inprz"], N, "p"], ["sym", "j", "inprz"], N],
                ["sym", "t", "inprz"],
                ["num", "2"],
            ],
        ],
    ),
    # e^{2s₂} = 0 is false: the sides differ by what is positive by its form
    "count_terms_to_a_false_equation": (
        lambda: one(R.count_terms, Eq(exp(IndexSum(s[2], j, 2)), CrossSum(c, m, w, 1)), S.false),
        ["eq", ["entry", "s", ["num", "2"], N], ["num", "0"]],
    ),
    # 1/2 − z ≠ 0 for an integer z
    "substitute_moment_beside_a_half_minus_an_integer": (
        lambda: one(
            R.substitute_moment,
            Var(q[t]) + 1 / (S.Half - z),
            sigma**2 + 1 / (S.Half - z),
            [Moment(Var(q[index("i")]), sigma**2)],
        ),
        None,
    ),
}


def _audited(case: str) -> Any:
    result: Any = audit(CASES[case][0]())
    assert result.verified, result
    return result


@pytest.mark.parametrize("case", list(CASES))
def test_the_kernels_true_rewrite_is_accepted(case: str) -> None:
    verdict = check_certificate(certificate(_audited(case)))
    assert verdict.ok, str(verdict.refusal)


@pytest.mark.parametrize("case", [k for k, v in CASES.items() if v[1] is not None])
def test_the_same_certificate_with_a_false_replacement_is_refused(case: str) -> None:
    cert = copy.deepcopy(certificate(_audited(case)))
    wrong = CASES[case][1]
    step = cert["steps"][0]
    step["claim"] = cert["rhs"] = wrong
    if step["rule"] in ("clear_denominator", "square_roots"):
        step["forward"][0]["rhs"] = wrong
    verdict = check_certificate(cert)
    assert verdict.refusal is not None
    assert verdict.refusal.step in (0, 1)


def test_an_odd_root_of_what_may_be_negative_is_refused() -> None:
    # c² = √u with u an integer of any sign: √u may be imaginary, z^{1/4}-style roots fail
    cert = copy.deepcopy(certificate(_audited("square_roots_of_a_root")))
    ui = ["sym", "u", "ir"]
    cert["lhs"] = ["eq", ["pow", X_C, ["num", "2"]], ["pow", ui, ["num", "1/2"]]]
    cert["steps"][0]["forward"][0]["lhs"] = cert["lhs"]
    wrong = _pm(X_C, ["pow", ui, ["num", "1/4"]])
    cert["steps"][0]["claim"] = cert["rhs"] = cert["steps"][0]["forward"][0]["rhs"] = wrong
    assert not check_certificate(cert).ok


def _divisor(bottom: Any) -> Any:
    lhs = ["add", ["Var", ["comp", "q", ["sym", "t", "inprz"]]], ["pow", bottom, ["num", "-1"]]]
    rhs = ["add", ["pow", X_S, ["num", "2"]], ["pow", bottom, ["num", "-1"]]]
    facts = [["moment", ["Var", ["comp", "q", ["sym", "i", "inprz"]]], ["pow", X_S, ["num", "2"]]]]
    inst = {"lhs": lhs[1], "rhs": rhs[1], "facts": [0]}
    return {"format": 1, "name": "d", "kind": "calc", "facts": facts, "lhs": lhs, "rhs": rhs,
            "steps": [{"rule": "substitute_moment", "claim": rhs, "forward": [inst]}]}  # fmt: skip


def test_a_half_minus_an_integer_is_a_divisor_a_half_minus_a_real_is_not() -> None:
    half = ["num", "1/2"]
    assert check_certificate(
        _divisor(["add", half, ["mul", ["num", "-1"], ["sym", "z", "inr"]]])
    ).ok
    for x in (["sym", "c", "r"], ["mul", ["num", "1/2"], ["sym", "z", "inr"]]):
        verdict = check_certificate(_divisor(["add", half, ["mul", ["num", "-1"], x]]))
        assert verdict.refusal is not None
        assert "non-zero" in str(verdict.refusal)


def _moments(value: Any) -> Any:
    i, mm = ["sym", "i", "inprz"], ["sym", "m", "inprz"]
    facts = [["moment", ["E", ["comp", "q", i]], ["num", "0"]],
             ["moment", ["E", ["comp", "q", mm]], value], ["range", mm, N]]  # fmt: skip
    lhs = ["softmax", "s", W, N, "p"]
    j0 = ["sym", "j", "inprz"]
    rhs = ["mul", ["exp", ["entry", "s", W, N]],
           ["pow", ["sum", ["exp", ["entry", "s", j0, N]], j0, N], ["num", "-1"]]]  # fmt: skip
    return {"format": 1, "name": "mo", "kind": "calc", "facts": facts, "lhs": lhs, "rhs": rhs,
            "steps": [{"rule": "softmax_def", "claim": rhs,
                       "forward": [{"lhs": lhs, "rhs": rhs, "facts": []}]}]}  # fmt: skip


def test_two_values_of_a_moment_contradict_only_when_they_differ_by_form() -> None:
    mm = ["sym", "m", "inprz"]
    # −δ(1, m) + δ(m, m²) is 0 for every m ≥ 1: no contradiction the checker can see
    maybe = ["add", ["mul", ["num", "-1"], ["delta", ["num", "1"], mm]],
             ["delta", mm, ["pow", mm, ["num", "2"]]]]  # fmt: skip
    assert check_certificate(_moments(maybe)).ok
    for value in (["num", "1"], ["exp", ["entry", "s", mm, N]]):  # 0 and > 0: two values
        assert "two values" in str(check_certificate(_moments(value)).refusal)


def test_the_softmax_case_the_campaign_found_is_accepted() -> None:
    facts = [IndexRange(t, n), Moment(E(q[index("i")]), 0), IndexRange(m, n)]
    d = one(softmax_def, j + p[w], j + exp(s[w]) / IndexSum(exp(s[j]), j, n), facts)
    result: Any = audit(d)
    assert result.verified
    assert check_certificate(certificate(result)).ok


def test_a_sum_of_negative_terms_is_a_divisor_a_sum_of_reals_is_not() -> None:
    # Σ_{w≤n} (−1) = −n < 0 for n ≥ 1: 1/(Σ −1) is defined; 1/(Σ c) is not (c may be 0)
    w0 = ["sym", "w", "inprz"]
    neg = ["sum", ["num", "-1"], w0, N]
    assert check_certificate(_divisor(neg)).ok
    verdict = check_certificate(_divisor(["sum", ["sym", "c", "r"], w0, N]))
    assert verdict.refusal is not None
    assert "non-zero" in str(verdict.refusal)
    # up to a bound that may be 0 (z ≥ 0), the sum may be empty: 0
    assert not check_certificate(_divisor(["sum", ["num", "-1"], w0, ["sym", "z", "inr"]])).ok
