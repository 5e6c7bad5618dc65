"""The checker fuzzed with hostile certificates: whatever it accepts is true.

Each property draws certificates of one family a hostile review found (the review's
reproducer is the family's ``@example``), or mutates a built-in theorem's true
certificate, and asserts: if the checker accepts, every term of the chain (the
statement's sides and each step's claim) is defined and has one value at every sampled
point (:func:`tests.checker.certificate_fuzz.falsity`, an evaluator that shares no code
with the checker). A refusal is always allowed, but for the bounds family: a false step
checked past step 0 is refused, never judged "not read yet".
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any, TypeVar

from hypothesis import example, given, settings
from hypothesis import strategies as st

from scaledattn.certificate import READ_FAILURE
from scaledattn.checker import check_certificate
from tests.checker import certificate_fuzz as cf
from tests.checker.certificate_fuzz import calc, inst, inv, neg, num, step
from tests.profiles import profile_name

T = TypeVar("T")

SEEDS = st.integers(0, 2**32 - 1)


def _few(n: int) -> Callable[[T], T]:
    """``n`` examples under the suite's profile (each one costs more); others keep theirs."""
    if profile_name() == "repeatable":
        return settings(max_examples=n)
    return lambda test: test


def assert_never_accepted_false(cert: Any, seed: int, reference: Any = None) -> None:
    """If the checker accepts ``cert``, its chain is one truth at the sampled points."""
    verdict = check_certificate(cert)
    if verdict.ok:
        why = cf.falsity(cert, seed, reference=reference)
        assert why is None, f"the checker accepted a false certificate: {why}\n{cert}"


# ----------------------------------------------- the review's reproducers (examples)

_Z = inv(["add", num(0), num(0)])
_X, _Y = ["rv", "X"], ["rv", "Y"]
_W = ["add", ["E", ["add", _X, _Y]], neg(["E", _X]), neg(["E", _Y])]
_DIST = ["add", ["mul", ["E", ["add", _X, _Y]], _Z], neg(["mul", ["E", _X], _Z]),
         neg(["mul", ["E", _Y], _Z])]  # fmt: skip
_W2 = ["add", ["add", ["E", _X], ["E", _Y]], neg(["E", _X]), neg(["E", _Y])]
_DIST2 = ["add", ["mul", ["add", ["E", _X], ["E", _Y]], _Z], neg(["mul", ["E", _X], _Z]),
          neg(["mul", ["E", _Y], _Z])]  # fmt: skip
F1_ZERO_IS_ONE = calc("zero_is_one", num(0), num(1), [
    step("ring", ["add", ["mul", _W, _Z], neg(_DIST)]),
    step("expectation_linear", ["add", ["mul", _W2, _Z], neg(_DIST2)],
         inst(["E", ["add", _X, _Y]], ["add", ["E", _X], ["E", _Y]])),
    step("ring", num(1)),
])  # fmt: skip
F1_BY_RING = calc("undef", ["mul", num(0), _Z], num(1), [step("ring", num(1))])

_I = ["sym", "i", "gir"]
_B = ["sum", neg(["add", _I, num(-1)]), _I, num(1)]
_X1 = ["eq", ["sym", "x", "r"], num(1)]
_X1B = ["eq", ["mul", ["add", ["sym", "x", "r"], num(-1)], _B], num(0)]
F2_CLEAR = calc("x_is_1_iff_true", _X1, _X1B, [
    step("clear_denominator", _X1B, inst(_X1, _X1B, by=[_B])),
], kind="iff")  # fmt: skip
_L = ["sym", "lam", "gr"]
_ROOT = ["pow", ["pow", _L, num(2)], num(Fraction(1, 2))]
_HALF = ["pow", neg(_L), num(Fraction(1, 2))]
_G = ["mul", _HALF, _HALF, inv(_L)]
F2_LIMIT = calc("lim_neg", ["lim", ["mul", _ROOT, inv(_L)], _L], num(-1), [
    step("sqrt_mul", ["lim", _G, _L], inst(_ROOT, ["mul", _HALF, _HALF])),
    step("limit_at_infinity", num(-1), inst(["lim", _G, _L], num(-1))),
])  # fmt: skip

_LAM, _IDX = ["sym", "lam", "ipr"], ["sym", "i", "ipr"]
_BL = ["add", ["exp", _LAM], neg(["exp", _IDX])]
_DECAY = ["exp", neg(_LAM)]
F4_RANGE = calc("undefined_sum",
    ["lim", ["mul", ["sum", ["mul", _BL, inv(_BL)], _IDX, _LAM], _DECAY], _LAM],
    ["lim", ["mul", _LAM, _DECAY], _LAM], [
    step("ring", ["lim", ["mul", ["sum", num(1), _IDX, _LAM], _DECAY], _LAM]),
    step("count_terms", ["lim", ["mul", _LAM, _DECAY], _LAM],
         inst(["sum", num(1), _IDX, _LAM], _LAM)),
])  # fmt: skip

_N, _XS = ["sym", "n", "ipr"], ["sym", "x", "r"]
_S = ["sum", _XS, _IDX, _N]
_BIG = ["pow", ["add", _XS, num(1)], num(513)]
_NNX = ["mul", _N, _N, _XS]
F3_PAST_BOUNDS = calc("count_bound", _S, _NNX, [
    step("count_terms", ["add", _NNX, ["mul", num(0), _BIG]], inst(_S, _NNX)),
    step("ring", _NNX),
])  # fmt: skip
F3_JUNK = calc("count_junk", _S, _NNX, [
    step("count_terms", _NNX, inst(_BIG, num(0)), inst(_S, _NNX)),
])  # fmt: skip
_V, _EX2 = ["Var", _X], ["E", ["pow", _X, num(2)]]
F3_VAR_JUNK = calc("false", _V, _EX2, [
    step("variance_def", _EX2, inst(["Var", ["pow", _X, num(513)]], num(0)), inst(_V, _EX2)),
])  # fmt: skip


def test_the_review_reproducers_are_false_by_the_evaluator() -> None:
    # the evaluator, not the checker, says so: otherwise the properties prove nothing
    for cert in (
        F1_ZERO_IS_ONE,
        F1_BY_RING,
        F2_CLEAR,
        F2_LIMIT,
        F4_RANGE,
        F3_PAST_BOUNDS,
        F3_JUNK,
        F3_VAR_JUNK,
    ):
        assert cf.falsity(cert, 0) is not None, cert["name"]


def test_the_evaluator_finds_the_built_in_theorems_it_can_evaluate_true() -> None:
    # those whose facts it models (no independence or moment: those it cannot hold)
    certs = _builtins()
    assert len(certs) >= 8
    for cert in certs:
        assert cf.falsity(cert, 1) is None, cert["name"]


# ------------------------------------------------------------------- the families


@given(cf.zero_divisors(), SEEDS)
@example(F1_ZERO_IS_ONE, 0)
@example(F1_BY_RING, 0)
def test_a_divisor_that_is_zero_in_disguise_never_makes_a_false_certificate_accepted(
    cert: Any, seed: int
) -> None:
    assert_never_accepted_false(cert, seed)


@given(cf.negative_binders(), SEEDS)
@example(F2_CLEAR, 0)
@example(F2_LIMIT, 0)
def test_a_bound_variable_typed_against_its_binder_never_makes_a_false_certificate_accepted(
    cert: Any, seed: int
) -> None:
    assert_never_accepted_false(cert, seed)


@given(cf.growing_ranges(), SEEDS)
@example(F4_RANGE, 0)
@_few(40)
def test_a_limit_whose_sum_grows_with_lambda_is_never_accepted_undefined(
    cert: Any, seed: int
) -> None:
    assert_never_accepted_false(cert, seed)


@given(cf.bounds_and_junk(), SEEDS)
@example(F3_PAST_BOUNDS, 0)
@example(F3_JUNK, 0)
@example(F3_VAR_JUNK, 0)
def test_a_false_step_beside_a_term_past_the_bounds_is_refused_as_a_step_not_unread(
    cert: Any, seed: int
) -> None:
    assert_never_accepted_false(cert, seed)
    refusal = check_certificate(cert).refusal
    assert refusal is not None
    if refusal.step >= 1:  # the statement was read: the false step is the alarm
        unread = refusal.unread or refusal.reason.startswith(READ_FAILURE)
        assert not unread, f"a false step judged not read yet: {refusal}\n{cert}"


@given(cf.gaps_elsewhere())
def test_a_false_step_is_refused_whatever_gap_another_step_leaves(drawn: Any) -> None:
    cert, false_at = drawn
    refusal = check_certificate(cert).refusal
    assert refusal is not None
    assert not refusal.unread, f"a false step hidden by a gap: {refusal}\n{cert}"
    assert refusal.step == false_at, refusal


_BUILTINS: list[Any] = []


def _builtins() -> list[Any]:
    if not _BUILTINS:
        small = profile_name() == "repeatable"  # the suite: those under 6,000 characters
        _BUILTINS.extend(c for c in cf.builtin_certificates(small) if cf.evaluable(c))
    return _BUILTINS


@given(st.data(), SEEDS)
@_few(60)
def test_a_mutated_built_in_certificate_is_accepted_only_when_still_true(
    data: st.DataObject, seed: int
) -> None:
    cert, ref = data.draw(cf.mutants(_builtins()))
    assert_never_accepted_false(cert, seed, reference=ref)
