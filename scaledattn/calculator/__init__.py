"""The calculator: E[q·k], Var(q·k) and the attention scale for a user's own setting.

Untrusted automation on top of the kernel. For a setting (d_k, component variances
and means, a correlation between qᵢ and kᵢ, heads) it *writes* the derivation, the
kernel checks it, and the answer is the right side of the Theorem the kernel
returns — never a number computed beside it.

- the expressions are read by the one language, :mod:`scaledattn.language` (no ``eval``);
- :mod:`~scaledattn.calculator.setting`: reading and validating a setting;
- :mod:`~scaledattn.calculator.gaussian`: joint moments of a correlated Gaussian pair;
- :mod:`~scaledattn.calculator.build`: the derivations;
- :mod:`~scaledattn.calculator.answer`: :func:`variance`, :func:`mean`, :func:`scale`;

It imports only the kernel, :mod:`scaledattn.derive` and SymPy, so the proof
modules may use it.
"""

from scaledattn.calculator.answer import Answer, answer, mean, scale, variance
from scaledattn.calculator.setting import Setting, setting
from scaledattn.errors import CannotDerive
from scaledattn.language.parse import parse_expression

__all__ = [
    "Answer",
    "CannotDerive",
    "Setting",
    "answer",
    "mean",
    "parse_expression",
    "scale",
    "setting",
    "variance",
]
