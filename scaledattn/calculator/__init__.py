"""The calculator: E[q·k], Var(q·k) and the attention scale for a user's own setting.

Untrusted automation on top of the kernel. For a setting (d_k, component variances
and means, a correlation between qᵢ and kᵢ, heads) it *writes* the derivation, the
kernel checks it, and the answer is the right side of the Theorem the kernel
returns — never a number computed beside it.

- the expressions are read by the one language, :mod:`scaledattn.language` (no ``eval``);
- :mod:`scaledattn.moments`: the setting, and the derivations for it (shared with the
  theorem modules, which import nothing of the calculator);
- :mod:`~scaledattn.calculator.answer`: :func:`variance`, :func:`mean`, :func:`scale`;
- :mod:`~scaledattn.calculator.width`: why the mean of q·k matters as the model widens;
- :mod:`~scaledattn.calculator.lemmas`: the calculator's derivations cited by name.
"""

from scaledattn.calculator.answer import Answer, answer, mean, scale, variance
from scaledattn.errors import CannotDerive
from scaledattn.language.parse import parse_expression
from scaledattn.moments.setting import AttentionSetting, setting

__all__ = [
    "Answer",
    "CannotDerive",
    "AttentionSetting",
    "answer",
    "mean",
    "parse_expression",
    "scale",
    "setting",
    "variance",
]
