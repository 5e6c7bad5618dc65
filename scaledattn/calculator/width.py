"""Why the mean of q·k matters as the model widens: the argument behind 1/d_k scaling (μP).

Four theorems about the setting, each checked by the kernel: E[q·k/√d_k], Std(q·k/√d_k),
E[q·k/d_k] and Std(q·k/d_k). When E[qᵢkᵢ] ≠ 0 the mean of q·k grows like d_k and its
spread only like √d_k, so 1/√d_k keeps the spread of order 1 but lets the mean grow,
and 1/d_k (the choice of μP, Yang et al. 2021) keeps both of order 1. ``scaledattn mean
--explain`` prints it.

Examples
--------
>>> from scaledattn.moments.setting import setting
>>> print(width_argument(setting(corr="1/2"))[0])
Why the mean matters (the argument behind 1/d_k scaling, μP); each line is a
"""

from __future__ import annotations

import sympy

from scaledattn.derive import prove
from scaledattn.kernel import Derivation
from scaledattn.kernel.expr import rebuild
from scaledattn.moments.build import (
    mean_derivation,
    scaled_mean_derivation,
    scaled_std_derivation,
    variance_derivation,
)
from scaledattn.moments.setting import AttentionSetting
from scaledattn.render.display import statement_parts, unicode_line

__all__ = ["width_argument"]


def _statement_line(derivation: Derivation) -> str:
    lhs, _, rhs = statement_parts(prove(derivation).statement)
    return f"{unicode_line(lhs)} = {unicode_line(rebuild(rhs))}"


def width_argument(s: AttentionSetting) -> list[str]:
    """Why a non-zero E[qᵢkᵢ] calls for 1/d_k: four more theorems, each checked."""
    mean = mean_derivation(s)
    var = variance_derivation(s)
    root = sympy.sqrt(s.d)
    checked = [
        scaled_mean_derivation(s, root, mean, "mean_over_sqrt_d_k"),
        scaled_std_derivation(s, root, var, "std_over_sqrt_d_k"),
        scaled_mean_derivation(s, s.d, mean, "mean_over_d_k"),
        scaled_std_derivation(s, s.d, var, "std_over_d_k"),
    ]
    rows = [_statement_line(d) for d in checked]
    width = max(len(r) for r in rows[::2])
    lines = ["Why the mean matters (the argument behind 1/d_k scaling, μP); each line is a"]
    lines.append("theorem the kernel checked:")
    lines += [f"  {rows[n]:<{width}}   {rows[n + 1]}" for n in (0, 2)]
    per_index = prove(mean).statement.rhs
    if rebuild(per_index) == 0:
        lines += [
            "Here E[q_i k_i] = 0: the mean of q·k stays 0 at every width, its spread grows",
            "like √d_k, and 1/√d_k is the scale that keeps the scores of order 1. Once",
            "training correlates q and k (try --corr 1/2), E[q·k] = d_k·E[q_i k_i] grows like",
            "d_k, faster than the spread.",
        ]
    else:
        lines += [
            "E[q_i k_i] ≠ 0: the mean of q·k grows like d_k, its spread only like √d_k.",
            "Divided by √d_k the scores keep a spread of order 1 but their mean still grows",
            "like √d_k, so softmax saturates as the model widens; divided by d_k the mean stays",
            "of order 1. When training makes q and k correlated, 1/d_k is the scale that keeps",
            "the scores of order 1 at every width: the choice of μP (Yang et al. 2021,",
            '"Tensor Programs V").',
        ]
    return lines
