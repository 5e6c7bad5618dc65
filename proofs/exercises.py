"""The lesson's three exercises, answered by derivation and checked against enumeration.

    1. d_k = 2, coin components ±1:  the four combinations;  E[q·k] = 0,  Var(q·k) = 2
    2. divide by d_k instead of √d_k:  Std(q·k / d_k) = 1/√d_k,  1/8 at d_k = 64
    3. component variance 4:  Var(q·k) = 16·d_k,  so the scale becomes 4·√d_k

Main results
------------
- ``exercise1_mean``, ``exercise1_variance``: E[q·k] = 0 and Var(q·k) = 2 at d_k = 2,
  with the coin's mean 0 and variance 1 computed from its two outcomes; the 2⁴ sign
  patterns of (q, k), enumerated exactly, give the same mean and variance.
- ``exercise2_std``, ``exercise2_std_at_64``: Std(q·k / d_k) = 1/√d_k for a symbolic d_k,
  and 1/8 for d_k = 64 derived on its own.
- ``exercise3_variance``, ``exercise3_scale``: Var(q·k) = 16·d_k, and the unique c > 0 with
  Var(q·k / c) = 1 is 4·√d_k.

Every derivation is written by the calculator's automation
(:mod:`scaledattn.calculator.build`) and checked by the kernel; the enumerations are
independent numeric witnesses.

Assumptions
-----------
``IndependentComponents(q, k)`` and the component moments of each exercise: the coin's
(mean 0, variance 1) in 1 and 2, mean 0 and variance 4 in 3; ``c > 0`` for the scale.

References
----------
Lesson 000, §7 (练习, exercises): the d = 2 coin model, "list the 4 combinations, check
mean 0 and variance 2"; "divide by d_k instead of √d_k: what does σ become?"; "with
component variance 4, what does Var(q·k) become?".

Examples
--------
>>> from scaledattn.derive import prove
>>> print(prove(exercise3_variance).statement)
Var(q·k) = 16*d_k
>>> all(v.ok for v in verdicts())
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import sympy
from sympy import Expr

from scaledattn.calculator.build import (
    mean_derivation,
    scale_derivation,
    scaled_std_derivation,
    sums_lemma,
    variance_derivation,
)
from scaledattn.calculator.coin import COIN, distribution, mean_and_variance, moments, table_lines
from scaledattn.calculator.setting import setting
from scaledattn.derive import audit_of, run
from scaledattn.kernel import Derivation
from scaledattn.kernel.expr import rebuild
from scaledattn.render.display import unicode_line

# ------------------------------------------------------------- exercise 1

COIN_MEAN, COIN_VARIANCE = moments(COIN)
coin_d2 = setting(d_k=2, var_q=COIN_VARIANCE, var_k=COIN_VARIANCE, mean_q=COIN_MEAN, mean_k=COIN_MEAN)

exercise1_mean = mean_derivation(coin_d2, "exercise1_mean", "exercise 1: d_k = 2 coins, the mean")
exercise1_variance = variance_derivation(coin_d2, "exercise1_variance", "exercise 1: d_k = 2 coins, the variance")

# ------------------------------------------------------------- exercise 2

lesson = setting()
at_64 = setting(d_k=64)
exercise2_std = scaled_std_derivation(
    lesson, lesson.d, variance_derivation(lesson, "exercise2_variance"),
    "exercise2_std", "exercise 2: dividing by d_k leaves σ = 1/√d_k")
exercise2_std_at_64 = scaled_std_derivation(
    at_64, at_64.d, variance_derivation(at_64, "exercise2_variance_at_64"),
    "exercise2_std_at_64", "exercise 2 at d_k = 64")

# ------------------------------------------------------------- exercise 3

variance_4 = setting(var_q=4, var_k=4)
exercise3_variance = variance_derivation(variance_4, "exercise3_variance", "exercise 3: component variance 4")
exercise3_scale = scale_derivation(
    variance_4, "exercise3_scale", sums_lemma(variance_4, "exercise3_variance_as_sums"),
    "exercise 3: the scale that restores variance 1")

derivations = (
    exercise1_mean,
    exercise1_variance,
    exercise2_std,
    exercise2_std_at_64,
    exercise3_variance,
    exercise3_scale,
)


# ------------------------------------------------------------- verdicts


@dataclass(frozen=True)
class Verdict:
    """An exercise: its question, derivations, numeric witness and whether all agree."""

    number: int
    question: str
    derivations: tuple[Derivation, ...]
    witness: tuple[str, ...]
    answer: str
    ok: bool


def _rhs(derivation: Derivation) -> Expr | None:
    """The right side of the derivation's Theorem, or None if the kernel refused it."""
    theorem = audit_of(derivation).theorem
    if theorem is None:
        return None
    statement = theorem.statement
    rhs = statement.rhs.rhs if isinstance(statement.rhs, sympy.Equality) else statement.rhs
    result: Expr = rebuild(rhs)
    return result


def _rational(x: Fraction) -> Expr:
    return sympy.Rational(x.numerator, x.denominator)


def _at(expr: Expr | None, d: int) -> Expr | None:
    return None if expr is None else expr.subs(lesson.d, d)


def _squared(expr: Expr | None) -> Expr | None:
    return None if expr is None else expr**2


def _show(expr: Expr | None) -> str:
    if expr is None:
        return "(not derived)"
    text = unicode_line(expr)
    return text if expr.is_Atom else f"({text})"


def _exercise1() -> Verdict:
    mean, var = mean_and_variance(distribution(2))
    got_mean, got_var = _rhs(exercise1_mean), _rhs(exercise1_variance)
    ok = got_mean == _rational(mean) and got_var == _rational(var)
    witness = (
        f"one coin: E = {COIN_MEAN}, Var = {COIN_VARIANCE} (from its outcomes ±1, ½ each)",
        *table_lines(2),
    )
    answer = f"E[q·k] = {got_mean}, Var(q·k) = {got_var} (enumeration: {mean}, {var})"
    return Verdict(1, "d_k = 2 coin model: list the 4 combinations, check mean 0 and variance 2",
                   (exercise1_mean, exercise1_variance), witness, answer, ok)  # fmt: skip


def _exercise2() -> Verdict:
    sigma, sigma_64 = _rhs(exercise2_std), _rhs(exercise2_std_at_64)
    witness = []
    ok = sigma is not None and sigma_64 is not None and _at(sigma, 64) == sigma_64
    for d in (1, 2, 4):
        _, var = mean_and_variance(distribution(d))
        scaled = _rational(var) / d**2
        derived = _at(sigma, d)
        agrees = derived is not None and sympy.expand(derived**2 - scaled) == 0
        ok = ok and agrees
        witness.append(
            f"coins, d_k = {d}: enumerated Var(q·k / {d}) = {scaled};"
            f" the derived σ there is {_show(derived)}, σ² = {_show(_squared(derived))}"
            + ("" if agrees else "  ✗")
        )
    witness.append(f"1/√d_k at d_k = 64 is {_at(sigma, 64)}; derived separately: {sigma_64}")
    answer = f"σ = {sigma}; at d_k = 64, σ = {sigma_64} (scores squeezed toward 0)"
    return Verdict(2, "divide by d_k instead of √d_k: what is σ?",
                   (exercise2_std, exercise2_std_at_64), tuple(witness), answer, ok)  # fmt: skip


def _exercise3() -> Verdict:
    var, c = _rhs(exercise3_variance), _rhs(exercise3_scale)
    pmf = {2: Fraction(1, 2), -2: Fraction(1, 2)}
    witness = []
    ok = var is not None and c is not None
    for d in (1, 2, 3):
        _, enumerated = mean_and_variance(distribution(d, pmf))
        c_d = _squared(_at(c, d))
        scaled = None if c_d is None else _rational(enumerated) / c_d
        agrees = _at(var, d) == _rational(enumerated) and scaled == 1
        ok = ok and agrees
        witness.append(
            f"components ±2, d_k = {d}: enumerated Var(q·k) = {enumerated},"
            f" derived {_show(_at(var, d))}; Var(q·k / {_show(_at(c, d))}) = {scaled}"
            + ("" if agrees else "  ✗")
        )
    answer = f"Var(q·k) = {var}; the scale becomes c = {c}"
    return Verdict(3, "component variance 4: what is Var(q·k)?",
                   (exercise3_variance, exercise3_scale), tuple(witness), answer, ok)  # fmt: skip


EXERCISES: tuple[Callable[[], Verdict], ...] = (_exercise1, _exercise2, _exercise3)


def verdicts() -> tuple[Verdict, ...]:
    """Each exercise: derivations checked, witnesses computed, agreement decided."""
    return tuple(exercise() for exercise in EXERCISES)


if __name__ == "__main__":
    for verdict in verdicts():
        print(f"Exercise {verdict.number}: {verdict.question}")
        print("\n".join("  " + line for line in verdict.witness))
        print()
    raise SystemExit(run(derivations))
