"""The hostile review of the checker (F1–F5): each false certificate refused, with its
reason, and a near-true twin still accepted."""

from __future__ import annotations

from typing import Any

import pytest

from scaledattn import certificate
from scaledattn.checker import check_certificate
from scaledattn.errors import SoundnessAlarm

X, Y = ["rv", "X"], ["rv", "Y"]
ZERO_SUM = ["add", ["num", "0"], ["num", "0"]]


def neg(t: Any) -> list[Any]:
    return ["mul", ["num", "-1"], t]


def calc(lhs: Any, rhs: Any, steps: list[Any], facts: Any = (), kind: str = "calc") -> Any:
    return {"format": 1, "name": "t", "kind": kind, "facts": list(facts), "lhs": lhs,
            "rhs": rhs, "steps": steps}  # fmt: skip


def step(rule: str, claim: Any, *forward: tuple[Any, Any]) -> dict[str, Any]:
    return {"rule": rule, "claim": claim,
            "forward": [{"lhs": a, "rhs": b, "facts": []} for a, b in forward]}  # fmt: skip


def refused(cert: Any) -> str:
    verdict = check_certificate(cert)
    assert verdict.refusal is not None, "accepted"
    return str(verdict.refusal)


# ------------------------------------------------------------------ F1: 0 = 1


def test_a_divisor_that_is_a_sum_of_zeros_is_refused_and_zero_is_never_one() -> None:
    inv = ["pow", ZERO_SUM, ["num", "-1"]]
    cert = calc(["mul", ["num", "0"], inv], ["num", "1"], [step("ring", ["num", "1"])])
    assert "a divisor is zero" in refused(cert)


def test_zero_equals_one_through_expectation_linear_is_refused() -> None:
    z = ["pow", ZERO_SUM, ["num", "-1"]]
    exy, ex, ey = ["E", ["add", X, Y]], ["E", X], ["E", Y]
    w = ["add", exy, neg(ex), neg(ey)]
    t2 = ["add", ["mul", exy, z], neg(["mul", ex, z]), neg(["mul", ey, z])]
    w2 = ["add", ["add", ex, ey], neg(ex), neg(ey)]
    split = ["add", ["mul", ["add", ex, ey], z], neg(["mul", ex, z]), neg(["mul", ey, z])]
    c2 = ["add", ["mul", w2, z], neg(split)]
    cert = calc(["num", "0"], ["num", "1"], [
        step("ring", ["add", ["mul", w, z], neg(t2)]),
        step("expectation_linear", c2, (exy, ["add", ex, ey])),
        step("ring", ["num", "1"]),
    ])  # fmt: skip
    assert "a divisor is zero" in refused(cert)


def test_a_sum_of_zeros_is_not_negative_but_one_negative_term_makes_it_so() -> None:
    from scaledattn.checker.facts import Env, negative, nonzero
    from scaledattn.checker.terms import read

    assert not nonzero(read(ZERO_SUM), Env(()))
    assert negative(read(["add", ["num", "0"], ["num", "-1"]]), Env(()))


def test_a_true_quotient_by_a_non_zero_sum_is_still_accepted() -> None:
    one = ["add", ["num", "0"], ["num", "1"]]
    cert = calc(["mul", ["num", "2"], ["pow", one, ["num", "-1"]]], ["num", "2"],
                [step("ring", ["num", "2"])])  # fmt: skip
    assert check_certificate(cert).ok


# ------------------------------------------------------------------ F2: a bound variable's signs


def _clear_by_sum(index: Any, body: Any) -> Any:
    x = ["sym", "x", "r"]
    b = ["sum", body, index, ["num", "1"]]
    lhs = ["eq", x, ["num", "1"]]
    rhs = ["eq", ["mul", ["add", x, ["num", "-1"]], b], ["num", "0"]]
    inst = {"lhs": lhs, "rhs": rhs, "facts": [], "by": [b]}
    return calc(lhs, rhs, [{"rule": "clear_denominator", "claim": rhs, "forward": [inst]}],
                kind="iff")  # fmt: skip


def test_a_sum_index_typed_negative_is_refused_so_its_sign_is_never_trusted() -> None:
    i = ["sym", "i", "gir"]  # Σ_{i=1}^{1} −(i − 1) = 0, "negative" by i's letters
    why = refused(_clear_by_sum(i, neg(["add", i, ["num", "-1"]])))
    assert "never negative" in why


def test_a_limit_variable_typed_negative_is_refused() -> None:
    lam = ["sym", "lam", "gr"]
    f = ["mul", ["pow", ["pow", lam, ["num", "2"]], ["num", "1/2"]], ["pow", lam, ["num", "-1"]]]
    lim = ["lim", f, lam]
    cert = calc(
        lim, ["num", "-1"], [step("limit_at_infinity", ["num", "-1"], (lim, ["num", "-1"]))]
    )
    assert "never negative" in refused(cert)


def test_a_sum_of_a_positive_index_still_clears_a_denominator() -> None:
    i = ["sym", "i", "inprz"]
    assert check_certificate(_clear_by_sum(i, i)).ok


# ------------------------------------------------------- F3, F5: a false step hidden as "unread"

BIG = ["pow", ["add", ["sym", "x", "r"], ["num", "1"]], ["num", "513"]]  # past the bounds


def _word(cert: Any) -> str:
    """The word the doors give on a refusal (certificate.judge): "unread: …" or "refused: …"."""
    verdict = check_certificate(cert)
    assert verdict.refusal is not None
    return certificate.judge(None, verdict)


def _false_variance(*junk: Any) -> Any:
    x2 = ["E", ["pow", X, ["num", "2"]]]
    cert = calc(["Var", X], x2, [step("variance_def", x2, (["Var", X], x2))])
    cert["steps"][0]["forward"][:0] = list(junk)
    return cert


def test_a_junk_instance_past_the_bounds_does_not_hide_a_false_step_as_unread() -> None:
    junk = {"lhs": ["Var", ["pow", X, ["num", "513"]]], "rhs": ["num", "0"], "facts": []}
    assert _word(_false_variance()).startswith("refused")
    said = _word(_false_variance(junk))
    assert said.startswith("refused: t, step 1 (variance_def): an exponent beyond the checker")


def test_a_certificate_the_reader_cannot_read_is_still_unread_before_step_1() -> None:
    junk = {"lhs": ["num", "1" * 101], "rhs": ["num", "0"], "facts": []}
    said = _word(_false_variance(junk))  # the step itself cannot be read: a gap, unread
    assert said.startswith("unread: t, step 1 (variance_def): cannot read")


def test_a_lemma_past_the_bounds_is_refused_alone_and_when_cited() -> None:
    zero = ["mul", BIG, ["num", "0"]]
    lemma = calc(zero, ["num", "0"], [step("ring", ["num", "0"])])
    lemma["name"] = "big"
    outer = calc(zero, ["num", "0"], [step("theorem:big", ["num", "0"], (zero, ["num", "0"]))])
    outer["lemmas"] = [lemma]
    assert _word(lemma).startswith("refused: big, the statement: an exponent beyond")
    assert _word(outer).startswith("refused: t, the statement: its lemma is refused")
    lemma["lhs"] = ["num", "1" * 101]  # a lemma the reader cannot read: unread alone;
    assert _word(lemma).startswith("unread")  # cited, a gap, and the citer's own statement
    assert _word(outer).startswith("refused: t, the statement: an exponent beyond")  # is read


def test_a_mutated_kernels_false_step_past_the_bounds_is_the_alarm(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sympy import Symbol, exp

    from scaledattn.derive import audit_of
    from scaledattn.kernel import CrossSum
    from scaledattn.kernel import rules as R
    from tests.checker import test_mutants as tm

    _, mutant, _ = next(m for m in tm.MUTANTS if "diagonal" in m[0])  # Σ_{i≠j} c = n²·c
    tm._fresh_caches(monkeypatch)
    monkeypatch.setattr(certificate, "_WORDS", {})
    mutant(monkeypatch)
    c = exp(513) * Symbol("x", real=True)
    d = tm.one(R.count_terms, CrossSum(c, tm.i, tm.j, tm.n), tm.n**2 * c)
    assert audit_of(d).verified
    with pytest.raises(SoundnessAlarm, match=r"step 1 \(count_terms\): an exponent beyond"):
        certificate.confirm(audit_of(d))


# ------------------------------------------------- F4: a divisor under a sum that grows with λ


def _late_divisor_sum(top: Any) -> Any:
    lam, i = ["sym", "lam", "ipr"], ["sym", "i", "ipr"]
    b = ["add", ["exp", lam], neg(["exp", i])]  # e^λ − e^i: 0 at i = λ
    decay = ["exp", neg(lam)]
    lhs = ["lim", ["mul", ["sum", ["mul", b, ["pow", b, ["num", "-1"]]], i, top], decay], lam]
    mid = ["lim", ["mul", ["sum", ["num", "1"], i, top], decay], lam]
    rhs = ["lim", ["mul", top, decay], lam]
    count = step("count_terms", rhs, (["sum", ["num", "1"], i, top], top))
    return calc(lhs, rhs, [step("ring", mid), count])


def test_a_divisor_zero_at_the_last_term_of_a_sum_up_to_the_limits_variable_is_refused() -> None:
    why = refused(_late_divisor_sum(["sym", "lam", "ipr"]))
    assert "the statement: a divisor is not non-zero" in why


def test_the_same_divisor_under_a_sum_of_fixed_range_is_non_zero_for_large_lambda() -> None:
    assert check_certificate(_late_divisor_sum(["sym", "n", "ipr"])).ok


# ---- second review: nothing unread anywhere hides a false step that can be read --------

XR = ["sym", "x", "r"]
X_PLUS_1 = ["add", XR, ["num", "1"]]
FALSE_RING = {"rule": "ring", "claim": X_PLUS_1, "forward": []}
JUNK_LEMMA = {
    "format": 1, "name": "junk", "kind": "calc", "facts": [], "lhs": ["foo"],
    "rhs": ["num", "1"], "steps": [{"rule": "ring", "claim": ["num", "1"], "forward": []}],
}  # fmt: skip
NO_RULE_LEMMA = dict(JUNK_LEMMA, lhs=["num", "1"], steps=[{"rule": "no", "claim": ["num", "1"]}])


def _x_to_x_plus_1(steps: list[Any], lemmas: list[Any] | None = None) -> dict[str, Any]:
    cert = calc(XR, X_PLUS_1, steps)
    if lemmas is not None:
        cert["lemmas"] = lemmas
    return cert


@pytest.mark.parametrize(
    ("steps", "lemmas"),
    [
        ([FALSE_RING], [JUNK_LEMMA]),  # an uncited lemma the reader cannot read
        ([FALSE_RING], [NO_RULE_LEMMA]),
        ([FALSE_RING, {"rule": "no_such_rule", "claim": X_PLUS_1, "forward": []}], None),
        ([FALSE_RING, {"rule": "ring", "claim": ["foo"], "forward": []},
          {"rule": "ring", "claim": X_PLUS_1, "forward": []}], None),
        ([FALSE_RING, {"rule": "sum_linear", "claim": X_PLUS_1,
                       "forward": [{"lhs": XR, "rhs": XR, "facts": [7]}]}], None),
        ([{"rule": "axiom:anything", "claim": XR, "forward": []}, FALSE_RING], None),
    ],
    ids=["junk lemma", "lemma of no rule", "later unknown rule", "later unreadable claim",
         "later undeclared fact", "an axiom first"],
)  # fmt: skip
def test_a_false_step_is_refused_whatever_else_the_certificate_cannot_read(
    steps: list[Any], lemmas: list[Any] | None
) -> None:
    said = _word(_x_to_x_plus_1(steps, lemmas))
    assert said.startswith("refused"), said
    assert "(ring): the claim is not what the rule's instances give" in said


def test_a_gap_is_unread_only_when_every_step_read_passed() -> None:
    axiom = {"rule": "axiom:lead", "claim": X_PLUS_1, "forward": []}
    assert _word(_x_to_x_plus_1([axiom])).startswith("unread: t, step 1 (axiom:lead)")
    after = {"rule": "ring", "claim": ["add", ["num", "1"], XR], "forward": []}
    assert _word(_x_to_x_plus_1([axiom, after])).startswith("unread")  # step 2 checked, true
