"""The lesson's exercises graded: each derived answer against an exact enumeration.

The derivations live in the proof module ``scaledattn.proofs.exercises``; here, above
both the proofs and :mod:`scaledattn.numeric`, each answer is compared with the exact
law of q·k for finite component laws (the coin ±1, and ±2 for component variance 4),
computed by :mod:`scaledattn.numeric.exact` without the variance rule being checked.

Examples
--------
>>> [v.ok for v in verdicts()]
[True, True, True]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import sympy
from sympy import Expr

from scaledattn.certificate import confirm
from scaledattn.derive import audit_of
from scaledattn.kernel import Derivation
from scaledattn.kernel.expr import rebuild
from scaledattn.numeric.distributions import Coin, Distribution, Finite
from scaledattn.numeric.exact import combinations, score_law
from scaledattn.proofs import exercises as proved
from scaledattn.render.display import unicode_line

__all__ = ["ExerciseVerdict", "combination_lines", "verdicts"]

#: Components ±2 with probability ½ each: variance 4 (exercise 3).
PLUS_MINUS_TWO = Finite(values=(-2, 2))


@dataclass(frozen=True)
class ExerciseVerdict:
    """An exercise: its question, derivations, numeric witness and whether all agree."""

    number: int
    question: str
    derivations: tuple[Derivation, ...]
    witness: tuple[str, ...]
    answer: str
    ok: bool


def _rhs(derivation: Derivation) -> Expr | None:
    """The right side of the derivation's Theorem, or None if the kernel refused it."""
    audited = audit_of(derivation)
    if audited.theorem is None:
        return None
    confirm(audited)  # an exercise's answer passes the checker too (else SoundnessAlarm)
    rhs = audited.theorem.statement.rhs
    result: Expr = rebuild(rhs.rhs if isinstance(rhs, sympy.Equality) else rhs)
    return result


def _rational(x: Fraction) -> Expr:
    return sympy.Rational(x.numerator, x.denominator)


def _at(expr: Expr | None, symbol: Expr, d: int) -> Expr | None:
    return None if expr is None else expr.subs(symbol, d)


def _show(expr: Expr | None) -> str:
    if expr is None:
        return "(not derived)"
    text = unicode_line(expr)
    return text if expr.is_Atom else f"({text})"


def _plain(expr: Expr | None) -> str:
    return "(not derived)" if expr is None else unicode_line(expr)


def _signed(x: Fraction) -> str:
    return ("+" if x > 0 else "") + str(x)


def combination_lines(law: Distribution, d: int) -> tuple[str, ...]:
    """The exact listing of (q₁k₁, …, q_dk_d) with q·k and its probability."""
    listing = combinations(law, law, d)
    head = "(" + ", ".join(
        unicode_line(sympy.Symbol(f"q_{i}")) + unicode_line(sympy.Symbol(f"k_{i}"))
        for i in range(1, d + 1)
    )
    lines = [f"{head})  q·k  probability"]
    for row in listing.rows:
        products = "(" + ", ".join(_signed(p) for p in row.products) + ")"
        lines.append(f"{products:<{len(head) + 1}}  {row.score!s:>3}  {row.probability!s:>11}")
    lines.append(f"enumerated: E[q·k] = {listing.mean}, Var(q·k) = {listing.variance}")
    return tuple(lines)


def _exercise1() -> ExerciseVerdict:
    m = proved
    law = score_law(Coin(), Coin(), 2)
    mean, var = law.mean(), law.variance()
    got_mean, got_var = _rhs(m.exercise1_mean), _rhs(m.exercise1_variance)
    ok = got_mean == _rational(mean) and got_var == _rational(var)
    coin = Coin()
    witness = (
        f"one coin: E = {coin.mean()}, Var = {coin.variance()} (from its outcomes ±1, ½ each)",
        *combination_lines(coin, 2),
    )
    answer = f"E[q·k] = {got_mean}, Var(q·k) = {got_var} (enumeration: {mean}, {var})"
    question = "d_k = 2 coin model: list the 4 combinations, check mean 0 and variance 2"
    derivations = (m.exercise1_mean, m.exercise1_variance)
    return ExerciseVerdict(1, question, derivations, witness, answer, ok)


def _exercise2() -> ExerciseVerdict:
    m = proved
    d_k = m.lesson.d
    sigma, sigma_64 = _rhs(m.exercise2_std), _rhs(m.exercise2_std_at_64)
    ok = sigma is not None and sigma_64 is not None and _at(sigma, d_k, 64) == sigma_64
    witness = []
    for d in (1, 2, 4):
        scaled = _rational(score_law(Coin(), Coin(), d).variance()) / d**2
        derived = _at(sigma, d_k, d)
        agrees = derived is not None and sympy.expand(derived**2 - scaled) == 0
        ok = ok and agrees
        square = None if derived is None else derived**2
        witness.append(
            f"coins, d_k = {d}: enumerated Var(q·k / {d}) = {scaled};"
            f" the derived σ there is {_plain(derived)}, σ² = {_plain(square)}"
            + ("" if agrees else "  ✗")
        )
    witness.append(f"1/√d_k at d_k = 64 is {_at(sigma, d_k, 64)}; derived separately: {sigma_64}")
    answer = f"σ = {sigma}; at d_k = 64, σ = {sigma_64} (scores squeezed toward 0)"
    derivations = (m.exercise2_std, m.exercise2_std_at_64)
    question = "divide by d_k instead of √d_k: what is σ?"
    return ExerciseVerdict(2, question, derivations, tuple(witness), answer, ok)


def _exercise3() -> ExerciseVerdict:
    m = proved
    d_k = m.lesson.d
    var, c = _rhs(m.exercise3_variance), _rhs(m.exercise3_scale)
    ok = var is not None and c is not None
    witness = []
    for d in (1, 2, 3):
        enumerated = _rational(score_law(PLUS_MINUS_TWO, PLUS_MINUS_TWO, d).variance())
        c_d = _at(c, d_k, d)
        scaled = None if c_d is None else enumerated / c_d**2
        agrees = _at(var, d_k, d) == enumerated and scaled == 1
        ok = ok and agrees
        witness.append(
            f"components ±2, d_k = {d}: enumerated Var(q·k) = {enumerated},"
            f" derived {_show(_at(var, d_k, d))}; Var(q·k / {_show(c_d)}) = {scaled}"
            + ("" if agrees else "  ✗")
        )
    answer = f"Var(q·k) = {var}; the scale becomes c = {c}"
    derivations = (m.exercise3_variance, m.exercise3_scale)
    question = "component variance 4: what is Var(q·k)?"
    return ExerciseVerdict(3, question, derivations, tuple(witness), answer, ok)


EXERCISES: tuple[Callable[[], ExerciseVerdict], ...] = (_exercise1, _exercise2, _exercise3)


def verdicts() -> tuple[ExerciseVerdict, ...]:
    """Each exercise: derivations checked, witnesses computed, agreement decided."""
    return tuple(exercise() for exercise in EXERCISES)
