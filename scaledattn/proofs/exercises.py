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
(:mod:`scaledattn.moments.build`) and checked by the kernel; the enumerations are
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
"""

from __future__ import annotations

from scaledattn.moments.build import (
    mean_derivation,
    scale_derivation,
    scaled_std_derivation,
    sums_lemma,
    variance_derivation,
)
from scaledattn.moments.setting import setting
from scaledattn.numeric.distributions import Coin
from scaledattn.render import run

# ------------------------------------------------------------- exercise 1

COIN_MEAN, COIN_VARIANCE = Coin().mean(), Coin().variance()  # computed from its pmf
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


if __name__ == "__main__":
    raise SystemExit(run(derivations))
