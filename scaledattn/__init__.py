"""scaledattn: why attention divides q·k by √d_k, derived step by step and checked.

The trusted kernel (:mod:`scaledattn.kernel`) checks derivations; the proof modules
(:mod:`scaledattn.proofs`; ``python proofs/NAME.py`` runs one) state the theorems.
:func:`variance`, :func:`mean` and :func:`scale` answer for your own setting, each
answer the right side of a theorem the kernel checked (:mod:`scaledattn.calculator`).

Importing the package loads nothing else (``scaledattn --help`` loads no SymPy). The
presentation the kernel leaves outside itself, its terms' plain strings
(:mod:`scaledattn.strings`) and the report of a refused step (:mod:`scaledattn.explain`),
is installed by :mod:`scaledattn.derive` and :mod:`scaledattn.render` when they are
imported, by name: a program that uses the kernel alone imports one of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scaledattn.calculator import Answer, mean, scale, variance

__version__ = "0.1.0"
__all__ = ["Answer", "__version__", "mean", "scale", "variance"]

#: Imported on first use (PEP 562), so that `scaledattn --help` does not load SymPy.
_CALCULATOR = frozenset({"Answer", "mean", "scale", "variance"})


def __dir__() -> list[str]:
    """The public API (``__all__``): what ``dir(scaledattn)`` and tab completion offer."""
    return sorted(__all__)


def __getattr__(name: str) -> Any:
    """``Answer``, ``mean``, ``scale`` and ``variance`` from :mod:`scaledattn.calculator`."""
    if name in _CALCULATOR:
        from scaledattn import calculator

        return getattr(calculator, name)
    raise AttributeError(f"module 'scaledattn' has no attribute {name!r}")
