"""Find theorems by name: the proof modules and the derivations they define."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

from scaledattn.errors import InvalidArgument
from scaledattn.kernel import Derivation


@dataclass(frozen=True)
class TheoremModule:
    """A proof module: its name, first docstring line, and derivations (main first)."""

    name: str
    summary: str
    derivations: tuple[Derivation, ...]
    module: ModuleType


def theorem_modules() -> tuple[TheoremModule, ...]:
    """Every proof module listed in ``scaledattn.proofs.MODULES``, imported."""
    proofs = importlib.import_module("scaledattn.proofs")
    found = []
    for name in proofs.MODULES:
        module = importlib.import_module(f"scaledattn.proofs.{name}")
        summary = (module.__doc__ or name).strip().splitlines()[0]
        found.append(TheoremModule(name, summary, tuple(module.derivations), module))
    return tuple(found)


def all_derivations() -> tuple[Derivation, ...]:
    """Every derivation of every proof module, in order."""
    return tuple(d for m in theorem_modules() for d in m.derivations)


def find_derivation(name: str) -> Derivation:
    """The derivation called ``name``; InvalidArgument listing the known names if none."""
    for d in all_derivations():
        if d.name == name:
            return d
    known = ", ".join(d.name for d in all_derivations())
    raise InvalidArgument(f"unknown theorem {name!r}; known: {known}")
