"""The helpers that build assumptions state what they say, and refuse what is not an assumption.

``ZeroMean``, ``UnitVariance``, ``OneHot``, ``Lead``, ``Shift`` and the independence
families are built here, inside the tests, and each is checked by a step the kernel
must accept and one it must reject.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sympy import KroneckerDelta, S, Symbol

from scaledattn.definitions import Lead, OneHot, Shift
from scaledattn.errors import InvalidArgument, MissingAssumption
from scaledattn.kernel import (
    CrossSum,
    Distinct,
    E,
    Entries,
    Independent,
    IndependentComponents,
    IndependentPairs,
    IndexRange,
    Mean,
    Moment,
    Positive,
    RandomVector,
    RealVector,
    SoftmaxVector,
    UnitVariance,
    Var,
    Variance,
    ZeroMean,
    dimension,
    index,
    random_variables,
)
from scaledattn.kernel import calculus as C
from scaledattn.kernel import rules as R

from .helpers import accepts, rejection


def test_a_one_hot_target_at_an_index_named_j_is_a_delta_not_one() -> None:
    n, i, j = dimension("n"), index("i"), index("j")
    y = RealVector("y", n)
    target = OneHot(y, j)
    assert accepts(C.entries_def, y[i], KroneckerDelta(i, j), [target])
    assert not accepts(C.entries_def, y[i], S.One, [target])


@pytest.mark.parametrize("name", ["t", "j", "k", "J", "K", "m", "w"])
def test_a_one_hot_target_is_a_delta_whatever_its_index_is_called(name: str) -> None:
    n, i, target = dimension("n"), index("i"), index(name)
    y = RealVector("y", n)
    assert accepts(C.entries_def, y[i], KroneckerDelta(i, target), [OneHot(y, target)])
    assert not accepts(C.entries_def, y[i], S.One, [OneHot(y, target)])


def test_a_lead_at_an_index_named_j_goes_to_that_score_only() -> None:
    n, i, j = dimension("n"), index("i"), index("j")
    lam = Symbol("lambda", real=True)
    r, s = RealVector("r", n), RealVector("s", n)
    lead = Lead(r, s, j, lam)
    assert accepts(C.entries_def, r[i], s[i] + lam * KroneckerDelta(i, j), [lead])
    assert not accepts(C.entries_def, r[i], s[i] + lam, [lead])
    assert not accepts(C.entries_def, r[i], s[i] - lam * KroneckerDelta(i, j), [lead])


def test_shifted_scores_are_the_scores_plus_the_shift() -> None:
    n, i = dimension("n"), index("i")
    a = Symbol("a", real=True)
    r, s = RealVector("r", n), RealVector("s", n)
    shift = Shift(r, s, a)
    assert accepts(C.entries_def, r[i], s[i] + a, [shift])
    assert not accepts(C.entries_def, r[i], s[i] - a, [shift])


def test_the_moment_helpers_state_the_value_they_name() -> None:
    d, i = dimension("d_k"), index("i")
    q = RandomVector("q", d)
    (x,) = random_variables("X")
    mu, v = Symbol("mu", real=True), Symbol("v", positive=True)
    cases: list[tuple[Any, Any, Any, Any]] = [
        (ZeroMean(q), E(q[i]), S.Zero, S.One),
        (UnitVariance(q), Var(q[i]), S.One, S(2)),
        (Mean(x, mu), E(x), mu, S.Zero),
        (Variance(x, v), Var(x), v, S.One),
        (UnitVariance(x), Var(x), S.One, S.Zero),
    ]
    for moment, lhs, value, other in cases:
        assert accepts(R.substitute_moment, lhs, value, [moment]), moment
        assert not accepts(R.substitute_moment, lhs, other, [moment]), moment


def test_whole_vectors_declared_independent_factor_across_the_vectors_only() -> None:
    d, i, j = dimension("d_k"), index("i"), index("j")
    q, k = RandomVector("q", d), RandomVector("k", d)
    both = [Independent(q, k)]
    assert accepts(R.expectation_mul_of_indep, E(q[i] * k[j]), E(q[i]) * E(k[j]), both)
    error = rejection(
        R.expectation_mul_of_indep,
        CrossSum(E(q[i] * q[j]), i, j, d),
        CrossSum(E(q[i]) * E(q[j]), i, j, d),
        both,
    )
    assert isinstance(error, MissingAssumption)


def test_independent_pairs_say_nothing_about_a_vector_outside_the_pairs() -> None:
    d, i, j = dimension("d_k"), index("i"), index("j")
    q, k, k2 = RandomVector("q", d), RandomVector("k", d), RandomVector("k'", d)
    pairs = [IndependentPairs(q, k)]
    assert accepts(
        R.expectation_mul_of_indep,
        CrossSum(E(q[i] * k[j]), i, j, d),
        CrossSum(E(q[i]) * E(k[j]), i, j, d),
        pairs,
    )
    error = rejection(
        R.expectation_mul_of_indep,
        CrossSum(E(q[i] * k2[j]), i, j, d),
        CrossSum(E(q[i]) * E(k2[j]), i, j, d),
        pairs,
    )
    assert isinstance(error, MissingAssumption)


def test_a_random_vector_is_equal_to_one_with_the_same_name_and_dimension_only() -> None:
    d = dimension("d_k")
    q = RandomVector("q", d)
    assert q == RandomVector("q", d)
    assert q != RandomVector("k", d)
    assert q != RandomVector("q", 3)
    assert q != "q"


def _bad_builders() -> list[tuple[Callable[[], object], str]]:
    d, n = dimension("d_k"), dimension("n")
    q = RandomVector("q", d)
    s = RealVector("s", n)
    x, y = random_variables("X Y")
    t, j = index("t"), index("j")
    return [
        (lambda: IndependentComponents(), "IndependentComponents takes random vectors"),
        (lambda: IndependentComponents(x), "IndependentComponents takes random vectors"),
        (lambda: IndependentPairs(q), "two or more random vectors"),
        (lambda: IndependentPairs(q, x), "two or more random vectors"),
        (lambda: Independent(x, 3), "between random variables or vectors"),
        (lambda: Positive(x), "Positive takes a constant symbol"),
        (lambda: Positive(Symbol("z")), "Positive needs a real symbol"),
        (lambda: Moment(x, 1), "about E, Var or Cov"),
        (lambda: Moment(E(x), y), "must not be random"),
        (lambda: Entries(s, s[j] + 1, j), "cannot be defined by themselves"),
        (lambda: Entries("s", j, j), "Entries defines a RealVector"),
        (lambda: Distinct(t, t), "two different index symbols"),
        (lambda: Distinct(t, 2), "expected an index symbol"),
        (lambda: IndexRange(Symbol("x", real=True), n), "expected an index symbol"),
        (lambda: SoftmaxVector("s"), "softmax takes a RealVector"),  # type: ignore[arg-type]
    ]


@pytest.mark.parametrize(("build", "message"), _bad_builders())
def test_what_is_not_an_assumption_is_refused_with_a_message(
    build: Callable[[], object], message: str
) -> None:
    with pytest.raises(InvalidArgument, match=None) as err:
        build()
    assert message in str(err.value)
