"""Variance of a sum.

    Var(X + Y) = Var(X) + Var(Y) + 2·Cov(X, Y)

Main results
------------
- ``variance_of_sum``: the identity, for any X, Y with finite second moments, from
  the definition Var Z = E[Z²] − E[Z]² and linearity of expectation.
- ``variance_of_sum_of_indep``: if X and Y are independent, Cov(X, Y) = 0 and
  Var(X + Y) = Var(X) + Var(Y) ("variances add").

Assumptions
-----------
None for the identity; ``Independent(X, Y)`` for the corollary.

References
----------
Mathlib: ``ProbabilityTheory.variance_add``, ``ProbabilityTheory.IndepFun.variance_add``.
Lesson 000, §2 (the coin model: "方差可加律的发明").

Examples
--------
>>> from scaledattn.derive import prove
>>> print(prove(variance_of_sum).statement)
Var(X + Y) = 2*Cov(X, Y) + Var(X) + Var(Y)
"""

from __future__ import annotations

from scaledattn.derive import calc, group
from scaledattn.kernel import Cov, E, Independent, Var, as_written, random_variables
from scaledattn.kernel.rules import (
    covariance_def,
    expectation_linear,
    expectation_mul_of_indep,
    ring,
    variance_def,
)
from scaledattn.render import run

X, Y = random_variables("X Y")

with as_written():
    variance_of_sum = (
        calc("variance_of_sum", Var(X + Y), Var(X) + Var(Y) + 2 * Cov(X, Y),
             title="Var(X + Y) = Var X + Var Y + 2 Cov(X, Y)")
        .eq(E((X + Y) ** 2) - E(X + Y) ** 2,                       by=variance_def)
        .eq(E(X**2 + 2 * X * Y + Y**2) - E(X + Y) ** 2,             by=ring,
            note="expand the square inside E")
        .eq(E(X**2) + 2 * E(X * Y) + E(Y**2) - (E(X) + E(Y)) ** 2,  by=expectation_linear)
        .eq(group(E(X**2) - E(X) ** 2) + group(E(Y**2) - E(Y) ** 2)
            + 2 * group(E(X * Y) - E(X) * E(Y)),                    by=ring,
            note="regroup: the middle terms are the cross term")
        .eq(Var(X) + Var(Y) + 2 * group(E(X * Y) - E(X) * E(Y)),    by=variance_def)
        .eq(Var(X) + Var(Y) + 2 * Cov(X, Y),                        by=covariance_def)
        .qed()
    )

    variance_of_sum_of_indep = (
        calc("variance_of_sum_of_indep", Var(X + Y), Var(X) + Var(Y),
             assuming=[Independent(X, Y)],
             title="independent X, Y: variances add")
        .eq(Var(X) + Var(Y) + 2 * Cov(X, Y),                        by=variance_of_sum)
        .eq(Var(X) + Var(Y) + 2 * group(E(X * Y) - E(X) * E(Y)),    by=covariance_def)
        .eq(Var(X) + Var(Y) + 2 * group(E(X) * E(Y) - E(X) * E(Y)), by=expectation_mul_of_indep,
            note="independence: E[XY] = E[X]E[Y]")
        .eq(Var(X) + Var(Y),                                        by=ring,
            note="the covariance vanishes")
        .qed()
    )

derivations = (variance_of_sum, variance_of_sum_of_indep)


def evidence() -> dict[str, tuple[dict[str, object], ...]]:
    """Concrete models on which ``scaledattn check`` evaluates every step.

    Y = a·X + ε makes X and Y dependent, so the covariance term is not zero; the
    corollary gets independent X and Y, as it assumes.
    """
    return {
        "variance_of_sum": (
            {"X": "die", "Y": {"X": 2, "noise": "coin"}},
            {"X": "bernoulli:p=1/3", "Y": {"X": "-3/2", "noise": "finite:values=0|1|5,probs=1/2|1/4|1/4"}},
            {"X": "gaussian:mean=1,var=2", "Y": {"X": "-1/2", "noise": "laplace"}},
        ),
        "variance_of_sum_of_indep": (
            {"X": "die", "Y": "bernoulli:p=1/4"},
            {"X": "uniform:low=-1,high=3", "Y": "student-t:nu=6"},
        ),
    }

if __name__ == "__main__":
    raise SystemExit(run(derivations))
