"""A corpus of wrong derivations: each must be rejected, at the right step, with the right error.

Every entry is a mistake a learner or an author could make (and several that the
source texts make). Each names the step the kernel must reject and the error class.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from scaledattn.proofs.dot_product_variance import LESSON, diagonal_and_cross, dot_product_variance
from scaledattn.proofs.dot_product_variance import d as d_k
from scaledattn.proofs.dot_product_variance import k as k_vec
from scaledattn.proofs.dot_product_variance import q as q_vec
from scaledattn.proofs.unique_scale import scaled_variance
from sympy import Eq, Or, S, Symbol, sqrt

from scaledattn.derive import audit_of, calc, equivalence
from scaledattn.errors import (
    MissingAssumption,
    ProofError,
    StatementMismatch,
    StepMismatch,
    UnknownRule,
)
from scaledattn.kernel import (
    Cov,
    CrossSum,
    Derivation,
    Dot,
    E,
    Independent,
    IndependentComponents,
    IndependentPairs,
    IndexSum,
    Mean,
    Positive,
    RandomVector,
    UnitVariance,
    Var,
    Variance,
    ZeroMean,
    dimension,
    index,
    random_variables,
)
from scaledattn.kernel import rules as R

X, Y, Z = random_variables("X Y Z")
d = dimension("d_k")
q, k = RandomVector("q", d), RandomVector("k", d)
i, j = index("i"), index("j")
c = Symbol("c", real=True)
mu_q, mu_k = Symbol("mu_q", real=True), Symbol("mu_k", real=True)
sigma = Symbol("sigma", positive=True)


@dataclass(frozen=True)
class Wrong:
    """A wrong derivation, the step that must be rejected (0: the statement) and the error."""

    name: str
    build: Callable[[], Derivation]
    step: int
    error: type[ProofError]


def _var_sum_prefix(name: str, rhs: object, assuming: list[object] | None = None) -> object:
    return (
        calc(name, Var(X + Y), rhs, assuming=assuming or [])
        .eq(E((X + Y) ** 2) - E(X + Y) ** 2, by=R.variance_def)
        .eq(E(X**2) + 2 * E(X * Y) + E(Y**2) - (E(X) + E(Y)) ** 2, by=R.expectation_linear)
    )


CORPUS: list[Wrong] = [
    Wrong(
        "dropping 2Cov(X, Y) without independence",
        lambda: (
            _var_sum_prefix("drop_cov", Var(X) + Var(Y))  # type: ignore[attr-defined]
            .eq(Var(X) + Var(Y), by=R.variance_def)
            .qed()
        ),
        3,
        StepMismatch,
    ),
    Wrong(
        "using an independence that was not declared",
        lambda: (
            _var_sum_prefix("undeclared", Var(X) + Var(Y))  # type: ignore[attr-defined]
            .eq(
                E(X**2) + 2 * E(X) * E(Y) + E(Y**2) - (E(X) + E(Y)) ** 2,
                by=R.expectation_mul_of_indep,
            )
            .eq(Var(X) + Var(Y), by=R.variance_def)
            .qed()
        ),
        3,
        MissingAssumption,
    ),
    Wrong(
        "independence declared for a different pair",
        lambda: (
            _var_sum_prefix("other_pair", Var(X) + Var(Y), [Independent(X, Z)])  # type: ignore[attr-defined]
            .eq(
                E(X**2) + 2 * E(X) * E(Y) + E(Y**2) - (E(X) + E(Y)) ** 2,
                by=R.expectation_mul_of_indep,
            )
            .qed()
        ),
        3,
        MissingAssumption,
    ),
    Wrong(
        "a sign error in Var Z = E[Z²] − E[Z]²",
        lambda: (
            calc("sign", Var(X + Y), E(X + Y) ** 2 - E((X + Y) ** 2))
            .eq(E(X + Y) ** 2 - E((X + Y) ** 2), by=R.variance_def)
            .qed()
        ),
        1,
        StepMismatch,
    ),
    Wrong(
        "pairwise independence used for a product of three",
        lambda: (
            calc(
                "pairwise",
                E(X * Y * Z),
                E(X) * E(Y) * E(Z),
                assuming=[Independent(X, Y), Independent(Y, Z), Independent(X, Z)],
            )
            .eq(E(X) * E(Y) * E(Z), by=R.expectation_mul_of_indep)
            .qed()
        ),
        1,
        MissingAssumption,
    ),
    Wrong(
        "Cov(X, X) taken to be 0",
        lambda: calc("cov_self", Cov(X, X), S.Zero).eq(S.Zero, by=R.covariance_def).qed(),
        1,
        StepMismatch,
    ),
    Wrong(
        "counting d_k² cross terms (means make the count matter)",
        lambda: (
            diagonal_and_cross(
                calc(
                    "d_squared_cross",
                    Var(Dot(q_vec, k_vec)),
                    d_k * (1 + mu_q**2 + mu_k**2),
                    assuming=[
                        IndependentComponents(q_vec, k_vec),
                        Mean(q_vec, mu_q),
                        Mean(k_vec, mu_k),
                        UnitVariance(q_vec),
                        UnitVariance(k_vec),
                    ],
                )
            )
            .eq(
                IndexSum((1 + mu_q**2) * (1 + mu_k**2), i, d_k)
                + CrossSum(mu_q**2 * mu_k**2, i, j, d_k)
                - IndexSum(mu_q * mu_k, i, d_k) ** 2,
                by=R.substitute_moment,
            )
            .eq(
                d_k * (1 + mu_q**2) * (1 + mu_k**2)
                + d_k**2 * mu_q**2 * mu_k**2
                - (d_k * mu_q * mu_k) ** 2,
                by=R.count_terms,
            )
            .qed()
        ),
        9,
        StepMismatch,
    ),
    Wrong(
        "an off-by-one in the count of cross terms",
        lambda: (
            calc("off_by_one", CrossSum(mu_q, i, j, d), d * (d + 1) * mu_q)
            .eq(d * (d + 1) * mu_q, by=R.count_terms)
            .qed()
        ),
        1,
        StepMismatch,
    ),
    Wrong(
        "a step true only for d_k = 1: no cross terms at all",
        lambda: calc("only_d1", CrossSum(mu_q, i, j, d), S.Zero).eq(S.Zero, by=R.count_terms).qed(),
        1,
        StepMismatch,
    ),
    Wrong(
        "E[q_i²] = 1 without a variance assumption",
        lambda: (
            calc("no_variance", E(q[i] ** 2), S.One, assuming=[ZeroMean(q)])
            .eq(S.One, by=R.substitute_moment)
            .qed()
        ),
        1,
        MissingAssumption,
    ),
    Wrong(
        "a moment substituted for the wrong variable",
        lambda: (
            calc("wrong_var", E(k[i]), mu_q, assuming=[Mean(q, mu_q), Mean(k, mu_k)])
            .eq(mu_q, by=R.substitute_moment)
            .qed()
        ),
        1,
        StepMismatch,
    ),
    Wrong(
        "factoring E[q_i q_j] in a full double sum, where i may equal j",
        lambda: (
            calc(
                "diag_included",
                IndexSum(IndexSum(E(q[i] * q[j]), j, d), i, d),
                IndexSum(IndexSum(E(q[i]) * E(q[j]), j, d), i, d),
                assuming=[IndependentComponents(q)],
            )
            .eq(IndexSum(IndexSum(E(q[i]) * E(q[j]), j, d), i, d), by=R.expectation_mul_of_indep)
            .qed()
        ),
        1,
        MissingAssumption,
    ),
    Wrong(
        "factoring E[q_i² k_i²] when only the pairs are independent (q_i, k_i correlated)",
        lambda: (
            calc(
                "pairs",
                E(q[i] ** 2 * k[i] ** 2),
                E(q[i] ** 2) * E(k[i] ** 2),
                assuming=[IndependentPairs(q, k)],
            )
            .eq(E(q[i] ** 2) * E(k[i] ** 2), by=R.expectation_mul_of_indep)
            .qed()
        ),
        1,
        MissingAssumption,
    ),
    Wrong(
        "Var(q·k/c) = d_k/c (the square forgotten)",
        lambda: (
            calc("no_square", Var(Dot(q_vec, k_vec) / c), d_k / c, assuming=[*LESSON, Positive(c)])
            .eq(Var(Dot(q_vec, k_vec)) / c, by=R.variance_const_mul)
            .eq(d_k / c, by=dot_product_variance)
            .qed()
        ),
        1,
        StepMismatch,
    ),
    Wrong(
        "a division by c where c could be 0",
        lambda: (
            calc(
                "c_zero", Var(Dot(q_vec, k_vec) / c), Var(Dot(q_vec, k_vec)) / c**2, assuming=LESSON
            )
            .eq(Var(Dot(q_vec, k_vec)) / c**2, by=R.variance_const_mul)
            .qed()
        ),
        1,
        MissingAssumption,
    ),
    Wrong(
        "c = d_k as the scale",
        lambda: (
            equivalence("c_is_d", Eq(d_k / c**2, 1), Eq(c, d_k), assuming=[*LESSON, Positive(c)])
            .iff(Eq(d_k - c**2, 0), by=R.clear_denominator)
            .iff(Or(Eq(c, d_k), Eq(c, -d_k)), by=R.square_roots)
            .iff(Eq(c, d_k), by=R.exclude_by_sign)
            .qed()
        ),
        2,
        StepMismatch,
    ),
    Wrong(
        "the negative root kept: c = −√d_k",
        lambda: (
            equivalence(
                "negative_root",
                Eq(Var(Dot(q_vec, k_vec) / c), 1),
                Eq(c, -sqrt(d_k)),
                assuming=[*LESSON, Positive(c)],
            )
            .iff(Eq(d_k / c**2, 1), by=scaled_variance)
            .iff(Eq(d_k - c**2, 0), by=R.clear_denominator)
            .iff(Or(Eq(c, sqrt(d_k)), Eq(c, -sqrt(d_k))), by=R.square_roots)
            .iff(Eq(c, -sqrt(d_k)), by=R.exclude_by_sign)
            .qed()
        ),
        4,
        StepMismatch,
    ),
    Wrong(
        "the negative root excluded without declaring c > 0",
        lambda: (
            equivalence("no_domain", Eq(c**2, d), Eq(c, sqrt(d)))
            .iff(Or(Eq(c, sqrt(d)), Eq(c, -sqrt(d))), by=R.square_roots)
            .iff(Eq(c, sqrt(d)), by=R.exclude_by_sign)
            .qed()
        ),
        2,
        MissingAssumption,
    ),
    Wrong(
        "linearity used to factor a product",
        lambda: (
            calc("linear_product", E(X * Y), E(X) * E(Y))
            .eq(E(X) * E(Y), by=R.expectation_linear)
            .qed()
        ),
        1,
        StepMismatch,
    ),
    Wrong(
        "the square of a sum taken as the sum of squares",
        lambda: (
            calc("sum_sq", E(Dot(q, k) ** 2), IndexSum(E(q[i] ** 2 * k[i] ** 2), i, d))
            .eq(E(IndexSum(q[i] * k[i], i, d) ** 2), by=R.dot_def)
            .eq(E(IndexSum(q[i] ** 2 * k[i] ** 2, i, d)), by=R.sum_mul_sum)
            .eq(IndexSum(E(q[i] ** 2 * k[i] ** 2), i, d), by=R.expectation_linear)
            .qed()
        ),
        2,
        StepMismatch,
    ),
    Wrong(
        "a chain that stops short of its statement",
        lambda: (
            calc("short", Var(X + Y), Var(X) + Var(Y) + 2 * Cov(X, Y))
            .eq(E((X + Y) ** 2) - E(X + Y) ** 2, by=R.variance_def)
            .qed()
        ),
        0,
        StatementMismatch,
    ),
    Wrong(
        "a rule that does not exist",
        lambda: (
            calc("unknown", Var(X + Y), Var(X) + Var(Y))
            .eq(Var(X) + Var(Y), by="variance_add_magic")
            .qed()
        ),
        1,
        UnknownRule,
    ),
    Wrong(
        "Var(2X) = 2Var(X)",
        lambda: (
            calc("var_scale", Var(2 * X), 2 * Var(X)).eq(2 * Var(X), by=R.variance_const_mul).qed()
        ),
        1,
        StepMismatch,
    ),
    Wrong(
        "a variance for q used for k",
        lambda: (
            calc("var_wrong_vector", Var(k[i]), sigma**2, assuming=[Variance(q, sigma**2)])
            .eq(sigma**2, by=R.substitute_moment)
            .qed()
        ),
        1,
        MissingAssumption,
    ),
]


@pytest.mark.parametrize("wrong", CORPUS, ids=[w.name for w in CORPUS])
def test_kernel_rejects_the_wrong_derivation_at_the_right_step(wrong: Wrong) -> None:
    result = audit_of(wrong.build())
    assert not result.verified
    first = result.errors[0]
    assert isinstance(first, wrong.error), str(first)
    if wrong.step:
        assert first.step == wrong.step, str(first)
        assert result.steps[wrong.step - 1].error is first
        assert all(r.ok for r in result.steps[: wrong.step - 1])
    else:
        assert all(r.ok for r in result.steps)


def test_the_corpus_holds_at_least_fifteen_wrong_derivations() -> None:
    assert len(CORPUS) >= 15
