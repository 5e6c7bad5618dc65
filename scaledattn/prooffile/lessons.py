"""The lesson's three exercises as a learner writes them, and five typical mistakes.

Plain proof texts, no ``by`` anywhere: the search finds each rule. They are the
examples of docs/your_own_derivation.md and of the tests; nothing here is a result,
every verdict is computed when the text is checked.

Each mistake records the step at which it must be rejected and a word the likely
cause must contain.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["EXERCISES", "MISTAKES", "TOOLS", "Mistake"]

#: Theorems used as tools: cited by name, applied to the learner's own terms.
TOOLS: dict[str, str] = {
    "scaled_sum": """\
# Var(a·X + b·Z) from two theorems, in your own letters.
theorem scaled_sum: Var(a*X + b*Z) = a**2*Var(X) + b**2*Var(Z)
assume: independent(X, Z)
  = Var(a*X) + Var(b*Z)          by variance_of_sum_of_indep
  = a**2*Var(X) + b**2*Var(Z)    by variance_of_scaled
""",
}

#: The three exercises of lesson 000, §7, written as on paper.
EXERCISES: dict[str, str] = {
    "exercise1": """\
# Exercise 1: d_k = 2, coin components (mean 0, variance 1): Var(q·k) = 2.
theorem exercise1: Var(dot(q, k, 2)) = 2
  Var(dot(q, k, 2))
  = Var(q_1*k_1 + q_2*k_2)
  = Var(q_1*k_1) + Var(q_2*k_2)
  = Var(q_1)*Var(k_1) + Var(q_2)*Var(k_2)
  = 2
""",
    "exercise2": """\
# Exercise 2: divide by d_k instead of sqrt(d_k): the spread is 1/sqrt(d_k).
theorem exercise2: std(dot(q, k)/d_k) = 1/sqrt(d_k)
  std(dot(q, k)/d_k)
  = sqrt(Var(dot(q, k)/d_k))
  = sqrt(Var(dot(q, k))/d_k**2)
  = sqrt(d_k/d_k**2)
  = 1/sqrt(d_k)
""",
    "exercise3": """\
# Exercise 3: component variance 4: Var(q·k) = 16·d_k.
theorem exercise3: Var(dot(q, k)) = 16*d_k
assume: Var(q_i) = 4
assume: Var(k_i) = 4
  Var(dot(q, k))
  = Var(sum(q_i*k_i, i, 1, d_k))
  = sum(Var(q_i*k_i), i, 1, d_k)
  = sum(Var(q_i)*Var(k_i), i, 1, d_k)
  = 16*d_k
""",
}


@dataclass(frozen=True)
class Mistake:
    """A wrong derivation: what it shows, its text, the step to reject, a word of the cause."""

    title: str
    text: str
    step: int
    cause: str


MISTAKES: dict[str, Mistake] = {
    "dropped_cross_term": Mistake(
        "the cross terms dropped from E[(q·k)²] (means 1)",
        """\
theorem with_means: Var(dot(q, k)) = 3*d_k
assume: E(q_i) = 1
assume: E(k_i) = 1
  Var(dot(q, k))
  = E(dot(q, k)**2) - E(dot(q, k))**2
  = sum(E(q_i**2)*E(k_i**2), i, 1, d_k) - d_k**2
  = 4*d_k - d_k**2
""",
        2,
        "cross term",
    ),
    "d_k_squared_cross_terms": Mistake(
        "d_k² cross terms instead of d_k(d_k − 1)",
        """\
theorem second_moment: E(dot(q, k)**2) = 4*d_k + d_k**2
assume: E(q_i) = 1
assume: E(k_i) = 1
  E(dot(q, k)**2)
  = sum(E(q_i**2)*E(k_i**2), i, 1, d_k) + cross_sum(E(q_i)*E(k_i)*E(q_j)*E(k_j), i, j, 1, d_k)
  = sum(4, i, 1, d_k) + cross_sum(1, i, j, 1, d_k)
  = 4*d_k + d_k**2
""",
        3,
        "count",
    ),
    "variance_not_squared": Mistake(
        "a variance not squared when scaling",
        """\
theorem scaled: Var(dot(q, k)/c) = d_k/c
  Var(dot(q, k)/c)
  = Var(dot(q, k))/c
  = d_k/c
""",
        1,
        "squared",
    ),
    "c_equals_d_k": Mistake(
        "c = d_k taken for the scale that gives variance 1",
        """\
theorem scale_by_d_k: Var(dot(q, k)/d_k) = 1
  Var(dot(q, k)/d_k)
  = Var(dot(q, k))/d_k**2
  = d_k/d_k**2
  = 1
""",
        3,
        "c = d_k",
    ),
    "sum_for_product": Mistake(
        "a sum where a product belongs",
        """\
theorem product: Var(q_i*k_i) = 2
  Var(q_i*k_i)
  = Var(q_i) + Var(k_i)
  = 2
""",
        1,
        "a sum where a product belongs",
    ),
    "doubled_cross_term": Mistake(
        "the cross term counted twice",
        """\
theorem sum_of_two: Var(X + Y) = Var(X) + Var(Y) + 4*Cov(X, Y)
  Var(X + Y)
  = Var(X) + Var(Y) + 4*Cov(X, Y)
""",
        1,
        "doubled cross term",
    ),
    "negative_variance": Mistake(
        "a variance claimed negative",
        """\
theorem negative: Var(q_i*k_i) = -7/9
  Var(q_i*k_i)
  = -7/9
""",
        1,
        "claimed negative",
    ),
    "forgotten_default": Mistake(
        "a default forgotten: the component variances never declared",
        """\
theorem general: Var(dot(q, k)) = d_k*sigma_q**2*sigma_k**2
  Var(dot(q, k))
  = d_k*sigma_q**2*sigma_k**2
""",
        1,
        "a default you forgot",
    ),
    "independence_not_declared": Mistake(
        "independence never declared",
        """\
theorem sum_of_variances: Var(X + Y) = Var(X) + Var(Y)
  Var(X + Y)
  = Var(X) + Var(Y) + 2*Cov(X, Y)
  = Var(X) + Var(Y)
""",
        2,
        "independent(X, Y)",
    ),
}
