"""A first proof: variances add for independent X and Y; then the same proof gone wrong."""

from scaledattn.derive import audit_of, calc, group
from scaledattn.kernel import Cov, E, Independent, Var, random_variables
from scaledattn.kernel.rules import covariance_def, expectation_mul_of_indep, ring
from scaledattn.proofs.variance_of_sum import variance_of_sum
from scaledattn.render import render

X, Y = random_variables("X Y")

# The assumption is declared; the kernel reports whether every one was used.
proof = (
    calc("variances_add", Var(X + Y), Var(X) + Var(Y), assuming=[Independent(X, Y)])
    .eq(Var(X) + Var(Y) + 2 * Cov(X, Y), by=variance_of_sum)  # a proved theorem as a rule
    .eq(Var(X) + Var(Y) + 2 * group(E(X * Y) - E(X) * E(Y)), by=covariance_def)
    .eq(Var(X) + Var(Y) + 2 * group(E(X) * E(Y) - E(X) * E(Y)), by=expectation_mul_of_indep)
    .eq(Var(X) + Var(Y), by=ring)
    .qed()
)
print(render(audit_of(proof)))
print()

# Without the assumption the same steps fail, and the refusal names what is missing.
unassumed = (
    calc("variances_add_unassumed", Var(X + Y), Var(X) + Var(Y))
    .eq(Var(X) + Var(Y) + 2 * Cov(X, Y), by=variance_of_sum)
    .eq(Var(X) + Var(Y) + 2 * group(E(X * Y) - E(X) * E(Y)), by=covariance_def)
    .eq(Var(X) + Var(Y) + 2 * group(E(X) * E(Y) - E(X) * E(Y)), by=expectation_mul_of_indep)
    .eq(Var(X) + Var(Y), by=ring)
    .qed()
)
print(render(audit_of(unassumed)))
