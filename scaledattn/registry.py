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


def cited_lemmas(citing: tuple[Derivation, ...] | None = None) -> tuple[Derivation, ...]:
    """Derivations that registered ones cite (``by=``) without being registered themselves.

    The exercises' intermediate lemmas (``exercise2_variance``,
    ``exercise3_variance_as_sums``) are such; each is listed and opened by name.
    ``citing`` narrows the search to the lemmas those derivations cite (one module's).
    """
    registered = {d.name for d in all_derivations()}
    found: dict[str, Derivation] = {}

    def walk(d: Derivation) -> None:
        for step in d.steps:
            if isinstance(step.rule, Derivation):
                walk(step.rule)
                if step.rule.name not in registered:
                    found.setdefault(step.rule.name, step.rule)

    for d in all_derivations() if citing is None else citing:
        walk(d)
    return tuple(found.values())


def theorem_names() -> tuple[str, ...]:
    """Every name ``find_derivation`` opens: the theorems, then the lemmas they cite."""
    return tuple(d.name for d in (*all_derivations(), *cited_lemmas()))


def find_derivation(name: str) -> Derivation:
    """The derivation called ``name``, or a lemma one cites; InvalidArgument names the closest."""
    derivations = all_derivations()
    for d in derivations:
        if d.name == name:
            return d
    for d in cited_lemmas():  # walked only for a name no module registers
        if d.name == name:
            return d
    raise InvalidArgument(f"unknown theorem {name!r}{closest_name(name, theorem_names())}")


def closest_name(name: str, known: tuple[str, ...]) -> str:
    """``; did you mean 'NAME'?`` for the closest of ``known``, or where to look."""
    import difflib

    found = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
    return f"; did you mean {found[0]!r}?" if found else " (see 'scaledattn list')"
