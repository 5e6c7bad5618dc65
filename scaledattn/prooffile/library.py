"""Lemmas a proof file may cite, and the search may use, besides the built-in theorems.

They are written in the proof format and proved by the kernel, through the same
checker as any learner's file, the first time they are needed; every step names its
rule. They are the steps learners take on paper that no single rule makes:

- ``variance_of_independent_sum``: Var(Σᵢ qᵢkᵢ) = Σᵢ Var(qᵢkᵢ) when the components are
  independent (the cross covariances vanish); Mathlib: ``IndepFun.variance_sum``.
- ``variance_of_independent_product``: Var(qᵢkᵢ) = Var(qᵢ)Var(kᵢ) for independent
  factors of mean 0.
- ``variance_of_scaled``: Var(c·X) = c²·Var(X) for any real c (a schema: cited as
  ``by variance_of_scaled`` it applies to Var(a·Z), Var(σ·qᵢ), …).
"""

from __future__ import annotations

LEMMAS = """\
theorem variance_of_independent_sum: Var(sum(q_i*k_i, i, 1, d_k)) = sum(Var(q_i*k_i), i, 1, d_k)
assume: no defaults
assume: independent(q, k)
  Var(sum(q_i*k_i, i, 1, d_k))
  = E(sum(q_i*k_i, i, 1, d_k)**2) - E(sum(q_i*k_i, i, 1, d_k))**2    by variance_def
  = E(sum(q_i*k_i, i, 1, d_k)**2) - sum(E(q_i*k_i), i, 1, d_k)**2    by expectation_linear
  = E(sum(sum(q_i*k_i*q_j*k_j, j, 1, d_k), i, 1, d_k))
    - sum(sum(E(q_i*k_i)*E(q_j*k_j), j, 1, d_k), i, 1, d_k)    by sum_mul_sum
  = sum(sum(E(q_i*k_i*q_j*k_j), j, 1, d_k), i, 1, d_k)
    - sum(sum(E(q_i*k_i)*E(q_j*k_j), j, 1, d_k), i, 1, d_k)    by expectation_linear
  = sum(E(q_i**2*k_i**2), i, 1, d_k) + cross_sum(E(q_i*k_i*q_j*k_j), i, j, 1, d_k)
    - sum(E(q_i*k_i)**2, i, 1, d_k)
    - cross_sum(E(q_i*k_i)*E(q_j*k_j), i, j, 1, d_k)    by split_diagonal
  = sum(E(q_i**2*k_i**2), i, 1, d_k) + cross_sum(E(q_i*k_i)*E(q_j*k_j), i, j, 1, d_k)
    - sum(E(q_i*k_i)**2, i, 1, d_k)
    - cross_sum(E(q_i*k_i)*E(q_j*k_j), i, j, 1, d_k)    by expectation_mul_of_indep
  = sum(E(q_i**2*k_i**2), i, 1, d_k) - sum(E(q_i*k_i)**2, i, 1, d_k)    by ring
  = sum(E(q_i**2*k_i**2) - E(q_i*k_i)**2, i, 1, d_k)    by sum_linear
  = sum(Var(q_i*k_i), i, 1, d_k)    by variance_def

theorem variance_of_independent_product: Var(q_i*k_i) = Var(q_i)*Var(k_i)
assume: no defaults
assume: independent(q, k)
assume: E(q_i) = 0
assume: E(k_i) = 0
  Var(q_i*k_i)
  = E(q_i**2*k_i**2) - E(q_i*k_i)**2    by variance_def
  = E(q_i**2)*E(k_i**2) - E(q_i)**2*E(k_i)**2    by expectation_mul_of_indep
  = E(q_i**2)*E(k_i**2)    by substitute_moment
  = (Var(q_i) + E(q_i)**2)*(Var(k_i) + E(k_i)**2)    by variance_def
  = Var(q_i)*Var(k_i)    by substitute_moment

theorem variance_of_scaled: Var(c*X) = c**2*Var(X)
assume: no defaults
  = c**2*Var(X)    by variance_const_mul
"""

#: The names of the lemmas, in order.
NAMES = ("variance_of_independent_sum", "variance_of_independent_product", "variance_of_scaled")
