"""Forged certificates of false statements, built by hand: the checker refuses each one.

Each case is a hostile review's reproducer turned into a test (one family per test).
"""

from __future__ import annotations

from typing import Any

import pytest

from scaledattn.checker import check_certificate

ONE, TWO = ["num", "1"], ["num", "2"]
II, J, K = ["sym", "i", "ir"], ["sym", "j", "ir"], ["sym", "k", "ir"]
N, M = ["sym", "n", "ipr"], ["sym", "N", "ipr"]


def calc(
    name: str, lhs: Any, rhs: Any, steps: list[Any], facts: Any = (), kind: str = "calc"
) -> Any:
    return {"format": 1, "name": name, "kind": kind, "facts": list(facts), "lhs": lhs,
            "rhs": rhs, "steps": steps}  # fmt: skip


def step(rule: str, claim: Any, *inst: Any, back: Any = None) -> Any:
    out = {"rule": rule, "claim": claim, "forward": list(inst)}
    if back is not None:
        out["backward"] = back
    return out


def inst(lhs: Any, rhs: Any, facts: Any = (), by: Any = None) -> Any:
    out = {"lhs": lhs, "rhs": rhs, "facts": list(facts)}
    if by is not None:
        out["by"] = by
    return out


def refused(cert: Any) -> str:
    verdict = check_certificate(cert)
    assert not verdict.ok, f"{cert['name']} accepted"
    return str(verdict.refusal)


# ------------------------------------------------------- a sum's range (01, 02, 10)


def _sum(body: Any, top: Any, index: Any = II) -> Any:
    return ["sum", body, index, top]


@pytest.mark.parametrize(
    "top", [["num", "-3"], ["num", "1/2"], ["sym", "n", "ir"], ["sym", "x", "r"]]
)
def test_a_sum_up_to_what_may_be_negative_is_unreadable(top: Any) -> None:
    # count_terms (Σ 2 = −6) and sum_unroll (Σ 1 = 0) disagree below zero
    s2, s1 = _sum(TWO, top), _sum(ONE, top)
    lhs = ["add", s2, ["mul", ["num", "-2"], s1]]
    c = calc("neg", lhs, ["num", "-6"], [
        step("count_terms", ["add", ["num", "-6"], ["mul", ["num", "-2"], s1]],
             inst(s2, ["num", "-6"])),
        step("sum_unroll", ["num", "-6"], inst(s1, ["num", "0"])),
    ])  # fmt: skip
    assert "cannot read" in refused(c)
    # √(S·S) → √S·√S needs S ≥ 0
    sq = ["pow", ["mul", s1, s1], ["num", "1/2"]]
    half = ["pow", s1, ["num", "1/2"]]
    refused(calc("neg_sqrt", sq, ["num", "-3"], [
        step("sqrt_mul", s1, inst(sq, ["mul", half, half])),
        step("count_terms", ["num", "-3"], inst(s1, ["num", "-3"])),
    ]))  # fmt: skip


@pytest.mark.parametrize("top", [["num", "0"], ["sym", "n", "inr"]])
def test_a_sum_that_may_be_empty_is_not_positive(top: Any) -> None:
    x = ["sym", "x", "r"]
    s0 = _sum(ONE, top)
    lhs = ["eq", x, ONE]
    mid = ["eq", ["mul", ["add", x, ["num", "-1"]], s0], ["num", "0"]]
    c = calc("empty", lhs, ["eq", x, ["num", "0"]] if top[0] != "num" else ["true"], [
        step("clear_denominator", mid, inst(lhs, mid, by=[s0])),
    ], kind="iff")  # fmt: skip
    assert "positive denominator" in refused(c)
    div = ["mul", s0, ["pow", s0, ["num", "-1"]]]
    assert "divisor" in refused(calc("empty_div", div, ONE, [step("ring", ONE)]))


@pytest.mark.parametrize("top", [["num", "0"], ["sym", "n", "inr"]])
def test_sum_delta_needs_the_index_in_the_range(top: Any) -> None:
    s = _sum(["delta", J, ONE], top, J)
    refused(calc("delta_one", s, ONE, [step("sum_delta", ONE, inst(s, ONE))]))


def test_sum_delta_at_one_in_a_positive_range_is_accepted() -> None:
    s = _sum(["delta", J, ONE], N, J)
    assert check_certificate(calc("delta_one", s, ONE, [step("sum_delta", ONE, inst(s, ONE))])).ok


# ------------------------------------------------------------ position-blind memo (03)


def test_an_instance_valid_in_one_range_is_not_reused_in_another() -> None:
    inner = _sum(["delta", K, J], N, K)
    lhs = ["add", _sum(inner, N, J), _sum(inner, M, J)]
    mid = ["add", _sum(ONE, N, J), _sum(ONE, M, J)]
    c = calc("memo", lhs, ["add", N, M], [
        step("sum_delta", mid, inst(inner, ONE)),
        step("count_terms", ["add", N, mid[2]], inst(_sum(ONE, N, J), N)),
        step("count_terms", ["add", N, M], inst(_sum(ONE, M, J), M)),
    ])  # fmt: skip
    refused(c)
    alone = calc("memo_first", _sum(inner, N, J), N, [
        step("sum_delta", _sum(ONE, N, J), inst(inner, ONE)),
        step("count_terms", N, inst(_sum(ONE, N, J), N)),
    ])  # fmt: skip
    assert check_certificate(alone).ok


# ------------------------------------------------------- an undefined instance (12)


def _x(i: Any) -> Any:
    return ["entry", "x", i, N]


def test_an_instance_whose_lhs_may_be_undefined_is_refused() -> None:
    d = ["delta", J, ONE]
    fake = _sum(["mul", d, ["pow", d, ["num", "-1"]], _x(J)], N, J)
    c = calc("first", _sum(_x(J), N, J), _x(ONE), [step("sum_delta", _x(ONE), inst(fake, _x(ONE)))])
    assert "divisor" in refused(c)
    b = ["sym", "b", "ir"]
    db = ["delta", ONE, b]
    rhs = ["mul", db, TWO, _x(ONE)]
    lhs = ["mul", db, ["pow", db, ["num", "-1"]], TWO, _x(b)]
    refused(calc("eq", ["mul", TWO, _x(b)], rhs, [step("delta_eq", rhs, inst(lhs, rhs))]))


# --------------------------------------------------- a lemma and definitions (04)


def test_a_lemma_about_a_free_vector_is_not_cited_where_it_is_defined() -> None:
    r1, s1 = ["entry", "r", ONE, N], ["entry", "s", ONE, N]
    d = ["deriv", r1, s1]
    zero = ["num", "0"]
    lemma = calc("L", d, zero, [step("deriv_linear", zero, inst(d, zero))])
    assert check_certificate(lemma).ok  # r free: ∂r₁/∂s₁ = 0
    define = ["define", "r", ["entry", "s", J, N], J, N]
    main = calc("M", d, zero, [step("theorem:L", zero, inst(d, zero))], [define])
    main["lemmas"] = [lemma]
    assert "other definitions" in refused(main)
    same = calc("M0", d, zero, [step("theorem:L", zero, inst(d, zero))])
    same["lemmas"] = [lemma]
    assert check_certificate(same).ok


# ------------------------------------------------ contradictory facts (07, 11)


def _delta_zero(facts: Any, x: Any) -> Any:
    return calc("one_is_zero", ["delta", x, x], ["num", "0"], [
        step("delta_distinct", ["num", "0"], inst(["delta", x, x], ["num", "0"], [0])),
    ], facts)  # fmt: skip


def _excluded(lhs: Any, facts: Any = ()) -> Any:
    return calc("excl", lhs, ["false"], [step("exclude_by_sign", ["false"], inst(lhs, ["false"]))],
                facts, kind="iff")  # fmt: skip


def test_contradictory_facts_and_types_are_refused() -> None:
    assert "contradict" in refused(_delta_zero([["distinct", II, II]], II))
    x = ["sym", "x", "gp"]
    assert "contradict" in refused(_excluded(["eq", x, x]))
    y = ["sym", "y", "gr"]
    assert "contradict" in refused(_excluded(["eq", y, ["num", "-1"]], [["positive", y]]))
    # one name, two types: two different atoms printed alike
    assert "two types" in refused(_excluded(["eq", ["sym", "x", "p"], ["sym", "x", "g"]]))
    # an index in an empty range
    assert "contradict" in refused(_delta_zero([["range", II, ["num", "0"]]], II))
    assert "contradict" in refused(_delta_zero([["range", ["sym", "m", "gr"], N]], II))
    v = ["Var", ["rv", "X"]]
    assert "contradict" in refused(_delta_zero([["moment", v, ["num", "-1"]]], II))
    two = [["moment", ["E", ["rv", "X"]], ONE], ["moment", ["E", ["rv", "X"]], TWO]]
    assert "contradict" in refused(_delta_zero(two, II))


def test_inconsistent_definitions_are_refused() -> None:
    r1, s1 = ["entry", "r", ONE, N], ["entry", "s", ONE, N]
    twice = [["define", "r", ["entry", "s", J, N], J, N],
             ["define", "r", ["add", ["entry", "s", J, N], ONE], J, N]]  # fmt: skip
    c = calc("two_defs", r1, ["add", r1, ["num", "-1"]], [
        step("entries_def", s1, inst(r1, s1, [0])),
        step("entries_def", ["add", r1, ["num", "-1"]], back=[inst(r1, ["add", s1, ONE], [1])]),
    ], twice)  # fmt: skip
    assert "defined twice" in refused(c)
    itself = [["define", "r", ["add", ["entry", "r", J, N], ONE], J, N]]
    c = calc("self_def", r1, ["add", r1, ONE], [
        step("entries_def", ["add", r1, ONE], inst(r1, ["add", r1, ONE], [0])),
    ], itself)  # fmt: skip
    assert "through itself" in refused(c)
    loop = [
        ["define", "r", ["entry", "s", J, N], J, N],
        ["define", "s", ["entry", "r", J, N], J, N],
    ]
    assert "through itself" in refused(calc("loop", r1, r1, [step("ring", r1)], loop))


# ------------------------------------------------ hostile data refused in time (08)


def _ring(t: Any) -> Any:
    return calc("t", t, t, [step("ring", t)])


def _cycle() -> Any:
    c = _ring(ONE)
    c["lemmas"] = [c]
    return c


def _deep() -> Any:
    t: Any = ONE
    for _ in range(100_000):
        t = ["E", t]
    return _ring(t)


X, Y = ["sym", "x", "r"], ["sym", "y", "r"]
HOSTILE = {
    "fact_index_inf": lambda: calc(
        "t",
        ONE,
        ONE,
        [step("variance_def", ONE, {"lhs": ONE, "rhs": ONE, "facts": [float("inf")]})],
    ),
    "iroot_overflow": lambda: _ring(["pow", ["num", "9" * 150], ["num", "3/2"]]),
    "huge_power": lambda: _ring(["pow", TWO, ["num", "1" + "0" * 150]]),
    "big_power": lambda: _ring(["pow", ["num", "3"], ["num", "100000"]]),
    "huge_poly_power": lambda: _ring(["pow", ["add", X, Y], ["num", "1000"]]),
    "huge_root": lambda: _ring(["pow", TWO, ["num", "1/1" + "0" * 90]]),
    "blowup": lambda: _ring(
        ["mul"] + [["add", ["sym", f"x{k}", "r"], ["sym", f"y{k}", "r"]] for k in range(40)]
    ),
    "cycle": _cycle,
    "num_over_zero": lambda: _ring(["num", "1/0"]),
    "lemmas_is_dict": lambda: dict(_ring(ONE), lemmas={"a": 1}),
    "step_is_list": lambda: calc("t", ONE, ONE, [["ring"]]),
    "lemma_is_str": lambda: dict(_ring(ONE), lemmas=["x"]),
    "facts_not_list": lambda: dict(_ring(ONE), facts=5),
    "sym_name_list": lambda: _ring(["sym", ["x"], "r"]),
    "deep_nesting": _deep,
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_data_is_refused_in_time(case: str) -> None:
    import time

    start = time.process_time()
    verdict = check_certificate(HOSTILE[case]())
    assert not verdict.ok
    assert time.process_time() - start < 5


# ------------------------------------------- a verdict kept for an edited dict (09)


def test_a_certificate_edited_after_its_verdict_is_checked_again() -> None:
    c = calc("alias", ["add", ONE, ONE], TWO, [step("ring", TWO)])
    assert check_certificate(c).ok
    c["rhs"] = ["num", "3"]
    c["steps"][0]["claim"] = ["num", "3"]
    verdict = check_certificate(c)
    assert not verdict.ok
    assert check_certificate(calc("alias", ["add", ONE, ONE], TWO, [step("ring", TWO)])).ok


def test_a_softmax_over_what_may_be_no_entries_is_not_positive() -> None:
    n0 = ["sym", "n", "inr"]  # may be 0
    x = ["sym", "x", "r"]
    p = ["softmax", "s", ONE, n0, "p"]
    lhs = ["eq", x, ONE]
    mid = ["eq", ["mul", ["add", x, ["num", "-1"]], p], ["num", "0"]]
    c = calc("soft", lhs, mid, [step("clear_denominator", mid, inst(lhs, mid, by=[p]))], kind="iff")
    assert "positive denominator" in refused(c)
    j = ["sym", "j", "ir"]
    e = ["exp", ["entry", "s", ONE, n0]]
    rhs = ["mul", e, ["pow", ["sum", ["exp", ["entry", "s", j, n0]], j, n0], ["num", "-1"]]]
    assert "divisor" in refused(calc("soft_def", p, rhs, [step("softmax_def", rhs, inst(p, rhs))]))


def test_a_range_whose_bound_names_its_own_index_is_not_read() -> None:
    up = ["add", N, ["mul", ["num", "-1"], II]]
    inner = _sum(["delta", K, II], up, K)
    lhs = _sum(inner, up)
    mid = _sum(ONE, up)
    c = calc("shadow", lhs, up, [
        step("sum_delta", mid, inst(inner, ONE)),
        step("count_terms", up, inst(mid, up)),
    ])  # fmt: skip
    refused(c)
    # a bound that names the index but counts: the range is not taken inside the body
    i0 = ["sym", "i", "inr"]
    up2 = ["add", N, i0]
    inner2 = _sum(["delta", K, i0], up2, K)
    lhs2 = _sum(inner2, up2, i0)
    refused(calc("shadow2", lhs2, up2, [step("sum_delta", _sum(ONE, up2, i0), inst(inner2, ONE))]))


def test_one_moment_declared_with_two_values_under_two_index_names_is_refused() -> None:
    facts = [
        ["moment", ["E", ["comp", "q", II]], ["num", "0"]],
        ["moment", ["E", ["comp", "q", J]], ONE],
    ]
    assert "two values" in refused(_delta_zero(facts, II))
