"""Instances of a theorem (σ applied to its statement and to the assumptions it used)."""

from __future__ import annotations

import dataclasses

import pytest
from sympy import Symbol

from scaledattn.errors import MissingAssumption, UnknownRule
from scaledattn.kernel import (
    Cov,
    Derivation,
    E,
    Equation,
    Independent,
    IndependentComponents,
    IndexSum,
    Instance,
    Moment,
    Positive,
    RandomVector,
    Step,
    Var,
    audit,
    check,
    dimension,
    index,
)
from scaledattn.kernel.expr import random_variables
from scaledattn.kernel.rules import covariance_def, expectation_mul_of_indep, variance_const_mul

X, Y, Z = random_variables("X Y Z")
a, b = Symbol("a", real=True), Symbol("b", real=True)
c = Symbol("c", real=True)
sigma = Symbol("sigma", positive=True)
q, k = RandomVector("q", dimension("d_k")), RandomVector("k", dimension("d_k"))
i, j = index("i"), index("j")


def _proved(name: str, lhs: object, steps: list[tuple[object, object]], *facts: object) -> object:
    derivation = Derivation(
        name, Equation(lhs, steps[-1][1]), [Step(r, x) for r, x in steps], facts
    )
    return check(derivation)


SCALING = _proved("scaling", Var(c * X), [(variance_const_mul, c**2 * Var(X))])
#: Cov(X, Y) = 0 for independent X, Y.
UNCORRELATED = _proved(
    "uncorrelated",
    Cov(X, Y),
    [(covariance_def, E(X * Y) - E(X) * E(Y)), (expectation_mul_of_indep, 0)],
    Independent(X, Y),
)
#: Var(X/c) = Var(X)/c² for c > 0 (a theorem that uses a sign).
SCALED_DOWN = _proved("scaled_down", Var(X / c), [(variance_const_mul, Var(X) / c**2)], Positive(c))
#: E(X + 1) = 1 for E(X) = 0 (a theorem that uses a moment).
SHIFTED_MEAN = _proved(
    "shifted_mean",
    E(X + 1),
    [("expectation_linear", E(X) + 1), ("substitute_moment", 1)],
    Moment(E(X), 0),
)


def _step(rule: object, prev: object, claim: object, *facts: object) -> object:
    return audit(Derivation("mine", Equation(prev, claim), [Step(rule, claim)], facts)).steps[0]


def test_an_instance_replaces_the_theorems_names_by_terms_of_the_users() -> None:
    result = _step(Instance(SCALING, ((c, a + b), (X, Z))), Var((a + b) * Z), (a + b) ** 2 * Var(Z))
    assert result.ok, result.error


def test_an_instance_of_an_independence_holds_for_functions_of_independent_variables() -> None:
    rule = Instance(UNCORRELATED, ((X, a * X), (Y, b * Z + 1)))
    assert _step(rule, Cov(a * X, b * Z + 1), 0, Independent(X, Z)).ok


def test_an_instance_holds_for_components_of_independent_vectors() -> None:
    rule = Instance(UNCORRELATED, ((X, q[1]), (Y, k[i])))
    assert _step(rule, Cov(q[1], k[i]), 0, IndependentComponents(q, k)).ok


@pytest.mark.parametrize(
    ("mapping", "facts"),
    [
        (((X, a * X), (Y, b * X)), (Independent(X, Z),)),  # one variable on both sides
        (((Y, X),), (Independent(X, Y),)),  # Cov(X, X) is Var(X), not 0
        (((X, q[i]), (Y, q[j])), (IndependentComponents(q, k),)),  # i may be j
        (((X, Z),), (Independent(X, Y),)),  # Z is not said independent of Y
    ],
)
def test_an_instance_whose_variables_are_not_independent_is_refused(
    mapping: tuple[tuple[object, object], ...], facts: tuple[object, ...]
) -> None:
    sigma = dict(mapping)
    lhs = Cov(sigma.get(X, X), sigma.get(Y, Y))
    result = _step(Instance(UNCORRELATED, mapping), lhs, 0, *facts)
    assert not result.ok


def test_the_refusal_names_the_missing_assumption_in_the_users_terms() -> None:
    result = _step(Instance(UNCORRELATED, ((X, a * X), (Y, b * X))), Cov(a * X, b * X), 0)
    assert isinstance(result.error, MissingAssumption)
    assert "Independent(X*a, X*b)" in str(result.error)


def test_a_moment_is_instantiated_and_discharged_from_the_users_facts() -> None:
    rule = Instance(SHIFTED_MEAN, ((X, Z),))
    assert _step(rule, E(Z + 1), 1, Moment(E(Z), 0)).ok
    refused = _step(rule, E(Z + 1), 1, Moment(E(X), 0))  # E(Z) = 0 is not given
    assert isinstance(refused.error, MissingAssumption)
    assert "E(Z) = 0" in str(refused.error)


def test_a_sign_is_instantiated_and_discharged_from_the_users_facts() -> None:
    assert _step(Instance(SCALED_DOWN, ((c, sigma),)), Var(X / sigma), Var(X) / sigma**2).ok
    unsigned = Instance(SCALED_DOWN, ((c, a),))
    assert not _step(unsigned, Var(X / a), Var(X) / a**2).ok  # a > 0 is not given
    assert _step(unsigned, Var(X / a), Var(X) / a**2, Positive(a)).ok


def test_inside_a_sum_an_instance_needs_its_moment_for_every_index() -> None:
    rule = Instance(SHIFTED_MEAN, ((X, q[i]),))
    prev, claim = IndexSum(E(q[i] + 1), i, dimension("d_k")), IndexSum(1, i, dimension("d_k"))
    assert _step(rule, prev, claim, Moment(E(q[i]), 0)).ok
    assert not _step(rule, prev, claim, Moment(E(q[1]), 0)).ok


@pytest.mark.parametrize(
    "mapping",
    [
        ((Symbol("w", real=True), a),),  # not a name of the statement
        ((dimension("d_k"), a),),  # not a name of the statement either
    ],
)
def test_an_instance_replaces_only_free_names_of_the_statement(
    mapping: tuple[tuple[object, object], ...],
) -> None:
    result = _step(Instance(SCALING, mapping), Var(c * X), c**2 * Var(X))
    assert not result.ok


def test_a_constant_is_replaced_only_by_a_term_with_its_facts() -> None:
    n = Symbol("n", integer=True, positive=True)
    theorem = _proved("sum_of_ones", IndexSum(1, i, n), [("count_terms", n)])
    m = Symbol("m", integer=True, positive=True)
    assert _step(Instance(theorem, ((n, m),)), IndexSum(1, i, m), m).ok
    assert not _step(Instance(theorem, ((n, a),)), IndexSum(1, i, n), a).ok  # a: no integer


def test_an_instance_of_a_theorem_the_kernel_did_not_issue_is_no_rule() -> None:
    forged = dataclasses.replace(SCALING, statement=Equation(Var(c * X), 0))
    result = _step(Instance(forged, ((c, a),)), Var(a * X), 0)
    assert isinstance(result.error, UnknownRule)


def test_a_theorem_about_a_derivative_is_used_as_stated_never_instantiated() -> None:
    from scaledattn.derive import audit_of
    from scaledattn.registry import find_derivation

    theorem = audit_of(find_derivation("softmax_gradient")).theorem
    assert theorem is not None
    n = Symbol("n", integer=True, positive=True)
    statement = theorem.statement
    result = _step(Instance(theorem, ((n, dimension("N")),)), statement.lhs, statement.rhs)
    assert not result.ok
    assert "used as stated" in str(result.error)
