"""scaledattn: why attention divides q·k by √d_k, derived step by step and checked.

The trusted kernel (:mod:`scaledattn.kernel`) checks derivations; the proof modules
(:mod:`scaledattn.proofs`, the folder ``proofs/`` of a checkout) state the theorems.
:func:`variance`, :func:`mean` and :func:`scale` answer for your own setting, each
answer the right side of a theorem the kernel checked (:mod:`scaledattn.calculator`).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

# How the kernel's terms print, and how its refusals are explained: both live outside
# the kernel and are installed first, so that every term prints the same everywhere.
from scaledattn import explain as _explain  # noqa: F401
from scaledattn.render import strings as _strings  # noqa: F401

if TYPE_CHECKING:
    from scaledattn.calculator import Answer, mean, scale, variance

__version__ = "0.1.0"
__all__ = ["Answer", "__version__", "mean", "scale", "variance"]

#: Imported on first use (PEP 562), so that `scaledattn --help` does not load SymPy.
_CALCULATOR = frozenset({"Answer", "mean", "scale", "variance"})


def __getattr__(name: str) -> Any:
    """``Answer``, ``mean``, ``scale`` and ``variance`` from :mod:`scaledattn.calculator`."""
    if name in _CALCULATOR:
        from scaledattn import calculator

        return getattr(calculator, name)
    raise AttributeError(f"module 'scaledattn' has no attribute {name!r}")


def _proofs_from_checkout() -> None:
    """In a source checkout, load ``proofs/`` as ``scaledattn.proofs``.

    An installed copy carries the proofs inside the package (setuptools maps the
    folder there). Run from a checkout, this package has no ``proofs`` subfolder,
    so the sibling folder is registered under the same name.
    """
    here = Path(__file__).resolve().parent
    folder = here.parent / "proofs"
    if (here / "proofs").is_dir() or not (folder / "__init__.py").is_file():
        return
    if "scaledattn.proofs" in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(
        "scaledattn.proofs", folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    if spec is None or spec.loader is None:  # pragma: no cover - the file exists
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["scaledattn.proofs"] = module
    spec.loader.exec_module(module)


_proofs_from_checkout()
