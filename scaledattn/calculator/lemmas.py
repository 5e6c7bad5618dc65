"""The calculator's derivations by name: ``variance(var_q=4, var_k=4)`` opens that derivation.

The calculator names each derivation it writes as the Python call that answers it
(:meth:`scaledattn.moments.setting.AttentionSetting.call`): ``variance``, ``mean``,
``scale`` and the scale's lemma ``variance_as_sums``, each followed by the options
that differ from the lesson's setting. :func:`calculator_derivation` reads such a
name back (with the bounded parser, never ``eval``) and writes the derivation again,
so that every name a derivation cites can be opened with ``scaledattn derive``.

Examples
--------
>>> calculator_derivation("variance(var_q=4, var_k=4)").name
'variance(var_q=4, var_k=4)'
>>> calculator_derivation("variance_as_sums").name
'variance_as_sums'
>>> calculator_derivation("dot_product_variance") is None
True
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from scaledattn.errors import InvalidArgument
from scaledattn.kernel import Derivation
from scaledattn.moments.build import (
    mean_derivation,
    scale_derivation,
    sums_lemma,
    variance_derivation,
)
from scaledattn.moments.setting import OPTIONS, AttentionSetting, setting

__all__ = ["CALLS", "calculator_derivation"]

#: Each name the calculator gives a derivation, and what it states.
CALLS: dict[str, tuple[Callable[[AttentionSetting], Derivation], str]] = {
    "variance": (variance_derivation, "Var(q·k) for the setting"),
    "mean": (mean_derivation, "E[q·k] for the setting"),
    "scale": (scale_derivation, "the unique c > 0 with Var(q·k / c) = target_var"),
    "variance_as_sums": (sums_lemma, "Var(q·k) as sums of known terms (the scale's lemma)"),
}

_CALL = re.compile(r"\s*([A-Za-z_]+)\s*(?:\((.*)\))?\s*", re.S)


def calculator_derivation(name: str) -> Derivation | None:
    """The derivation the calculator names ``name``, written again; None if not its name.

    InvalidArgument (one line) when the name is the calculator's but an option is not.
    """
    match = _CALL.fullmatch(name)
    if match is None or match.group(1) not in CALLS:
        return None
    function, inside = match.group(1), match.group(2)
    options: dict[str, Any] = {}
    for part in (inside or "").split(","):
        if not part.strip():
            continue
        key, equals, value = part.partition("=")
        key = key.strip()
        if not equals or key not in OPTIONS:
            raise InvalidArgument(
                f"{function}(…) takes options {', '.join(OPTIONS)} as key=value,"
                f" got {part.strip()!r}"
            )
        options[key] = value.strip()
    build, _ = CALLS[function]
    return build(setting(**options))
