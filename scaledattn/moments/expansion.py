"""The variance expansion of q·k: the one home of the chain every Var(q·k) derivation shares.

Var(q·k) → E[(q·k)²] − E[q·k]² → the square of the sum as a double sum → its split
into the d_k diagonal terms (i = j) and the d_k(d_k − 1) cross terms (i ≠ j):

    Var(q·k) = Σᵢ E[qᵢ²kᵢ²] + Σ_{i≠j} E[qᵢkᵢqⱼkⱼ] − (Σᵢ E[qᵢkᵢ])²        (:func:`to_sums`)

and, for q independent of k, every term factored and E[X²] = Var(X) + E[X]²
(:func:`factored`). The theorems of :mod:`scaledattn.proofs.dot_product_variance` and
:mod:`scaledattn.proofs.projected_scores` and the calculator's derivations for a
setting (:mod:`scaledattn.moments.build`) all write these steps with these
functions; the kernel checks each step wherever it is used.

Examples
--------
>>> from scaledattn.derive import audit_of, calc
>>> from scaledattn.kernel import Dot, E, RandomVector, Var, as_written, dimension, index
>>> d = dimension("d_k")
>>> q, k, i, j = RandomVector("q", d), RandomVector("k", d), index("i"), index("j")
>>> split = sums(E(q[i]**2 * k[i]**2), E(q[i] * k[i] * q[j] * k[j]), E(q[i] * k[i]), i, j, d)
>>> with as_written():
...     expanded = to_sums(calc("expanded", Var(Dot(q, k)), split), q, k, i, j).qed()
>>> len(expanded.steps), audit_of(expanded).verified
(5, True)
"""

from __future__ import annotations

from sympy import Expr

from scaledattn.derive import Builder, group
from scaledattn.kernel import CrossSum, Dot, E, IndexSum, RandomVector, Var
from scaledattn.kernel.rules import (
    dot_def,
    expectation_linear,
    expectation_mul_of_indep,
    split_diagonal,
    sum_mul_sum,
    variance_def,
)

__all__ = ["diagonal_and_cross", "factored", "sums", "to_sums"]


def sums(diagonal: Expr, cross: Expr, mean: Expr, i: Expr, j: Expr, d: Expr) -> Expr:
    """Σᵢ diagonal + Σ_{i≠j} cross − (Σᵢ mean)², as written."""
    return IndexSum(diagonal, i, d) + CrossSum(cross, i, j, d) - IndexSum(mean, i, d) ** 2


def to_sums(proof: Builder, q: RandomVector, k: RandomVector, i: Expr, j: Expr) -> Builder:
    """Var(q·k) → Σᵢ E[qᵢ²kᵢ²] + Σ_{i≠j} E[qᵢkᵢqⱼkⱼ] − (Σᵢ E[qᵢkᵢ])²: five steps."""
    d = q.dim
    qk_i = q[i] * k[i]
    return (
        proof.eq(E(Dot(q, k) ** 2) - E(Dot(q, k)) ** 2, by=variance_def)
        .eq(E(IndexSum(qk_i, i, d) ** 2) - E(IndexSum(qk_i, i, d)) ** 2, by=dot_def)
        .eq(
            E(IndexSum(IndexSum(qk_i * q[j] * k[j], j, d), i, d)) - E(IndexSum(qk_i, i, d)) ** 2,
            by=sum_mul_sum,
            note="the square of a sum is a double sum",
        )
        .eq(
            IndexSum(IndexSum(E(qk_i * q[j] * k[j]), j, d), i, d) - IndexSum(E(qk_i), i, d) ** 2,
            by=expectation_linear,
        )
        .eq(
            sums(E(q[i] ** 2 * k[i] ** 2), E(qk_i * q[j] * k[j]), E(qk_i), i, j, d),
            by=split_diagonal,
            note="d_k diagonal terms (i = j) and d_k(d_k − 1) cross terms (i ≠ j)",
        )
    )


def factored(proof: Builder, q: RandomVector, k: RandomVector, i: Expr, j: Expr) -> Builder:
    """For q ⊥ k: every term factored, then E[X²] = Var(X) + E[X]²: two steps."""
    d = q.dim
    cross = E(q[i]) * E(k[i]) * E(q[j]) * E(k[j])
    mean = E(q[i]) * E(k[i])
    return proof.eq(
        sums(E(q[i] ** 2) * E(k[i] ** 2), cross, mean, i, j, d),
        by=expectation_mul_of_indep,
        note="independence factors every term",
    ).eq(
        sums(
            group(Var(q[i]) + E(q[i]) ** 2) * group(Var(k[i]) + E(k[i]) ** 2), cross, mean, i, j, d
        ),
        by=variance_def,
        note="E[X²] = Var(X) + E[X]²",
    )


def diagonal_and_cross(
    proof: Builder, q: RandomVector, k: RandomVector, i: Expr, j: Expr
) -> Builder:
    """Var(q·k) → Σᵢ (Var qᵢ + E[qᵢ]²)(Var kᵢ + E[kᵢ]²) + Σ_{i≠j} E[qᵢ]E[kᵢ]E[qⱼ]E[kⱼ] − ….

    :func:`to_sums`, then :func:`factored`: the seven steps every theorem about
    Var(q·k) for q independent of k begins with.
    """
    return factored(to_sums(proof, q, k, i, j), q, k, i, j)
