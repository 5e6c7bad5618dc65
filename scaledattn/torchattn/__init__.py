"""Attention in real code: PyTorch's SDPA and Transformer models against the theorems.

Needs the optional extra ``scaledattn[torch]`` (torch on the CPU and transformers).
Nothing here imports torch at import time: :func:`require_torch` imports it when a
command needs it, and refuses in one line (exit 2) when it is absent.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from scaledattn.errors import InvalidArgument

__all__ = ["INSTALL_HINT", "require_torch", "require_transformers"]

#: How to get the extra: torch 2.13.0 first, so pip takes the CPU build.
INSTALL_HINT = "pip install torch==2.13.0 'scaledattn[torch]'"


def _require(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError as err:
        missing = err.name or name
        what = name if missing == name else f"{name} ({missing} is missing)"
        raise InvalidArgument(
            f"this command needs {what}, which is not installed;"
            f" install the torch extra: {INSTALL_HINT}"
        ) from None


def require_torch() -> ModuleType:
    """The torch module, or InvalidArgument naming the extra to install."""
    return _require("torch")


def require_transformers() -> ModuleType:
    """The transformers module (and torch), or InvalidArgument naming the extra."""
    require_torch()
    return _require("transformers")
