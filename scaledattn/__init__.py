"""scaledattn: why attention divides q·k by √d_k, derived step by step and checked.

The trusted kernel (:mod:`scaledattn.kernel`) checks derivations; the proof modules
(:mod:`scaledattn.proofs`; ``python proofs/NAME.py`` runs one) state the theorems.
:func:`variance`, :func:`mean` and :func:`scale` answer for your own setting, each
answer the right side of a theorem the kernel checked (:mod:`scaledattn.calculator`).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from typing import TYPE_CHECKING, Any


class _AfterKernel(importlib.abc.MetaPathFinder):
    """Install term printing, refusal hints and the gate as soon as the kernel is imported.

    All live outside the trusted kernel (``scaledattn.render.strings``,
    ``scaledattn.explain``, ``scaledattn.gate``, whose check of a model of the
    assumptions the renderers call before they print VERIFIED); installing them here,
    when ``scaledattn.kernel`` has loaded, rather than when ``scaledattn`` is imported
    keeps `scaledattn --help` free of SymPy (tests/cli/test_lazy.py), and every term
    prints the same everywhere.
    """

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        """The kernel's own spec, its loader wrapped to install the three afterwards."""
        if name != "scaledattn.kernel":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module: Any) -> None:
            run(module)
            importlib.import_module("scaledattn.render.strings")
            importlib.import_module("scaledattn.explain")
            importlib.import_module("scaledattn.gate")

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


if "scaledattn.kernel" in sys.modules:  # a reload: the kernel is there already
    importlib.import_module("scaledattn.render.strings")
    importlib.import_module("scaledattn.explain")
    importlib.import_module("scaledattn.gate")
else:
    sys.meta_path.insert(0, _AfterKernel())

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
