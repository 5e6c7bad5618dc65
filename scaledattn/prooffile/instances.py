"""Theorems as schemas: the instances of a cited theorem that a written step may use.

A step ``= CLAIM  by NAME`` cites a proved theorem ``lhs = rhs`` whose free names
(random variables X, Y, constants c, …) stand for any terms. This module finds σ, a
replacement of those names, such that σ(lhs) is a subterm of the previous expression
(first-order matching, modulo the order of the arguments of + and ·), and proposes
the kernel step ``Step(Instance(theorem, σ), CLAIM)``. It is automation, trusted for
nothing: the kernel checks every instance (σ(lhs) is rewritten to σ(rhs) only where σ
of each assumption the theorem used follows from the file's), and a step is accepted
only by the kernel's audit of the whole chain.

- ``by NAME(X := a*X, Y := Z)`` gives σ explicitly: nothing is matched.
- A step that uses the theorem at several places with different σ (Var(a·X) and
  Var(b·Z) in one line) becomes several kernel steps, one instance each, the later
  ones from what the kernel derived.
- When no instance justifies the step, the refusal is the kernel's on the instance
  that came closest: its lhs matched, and the missing assumption is σ of the
  theorem's, in the user's own variables.

Examples
--------
>>> from scaledattn.kernel import Var, random_variables
>>> X, Y, Z = random_variables("X Y Z")
>>> found = matches(Var(X + Y), Var(X + Z), [X, Y])
>>> [sorted((str(k), str(v)) for k, v in s.items()) for s in found]
[[('X', 'X'), ('Y', 'Z')], [('X', 'Z'), ('Y', 'X')]]
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sympy
from sympy import Add, Mul, Symbol

from scaledattn.errors import MissingAssumption
from scaledattn.kernel import (
    Derivation,
    Equation,
    Independent,
    Instance,
    RandomVariable,
    Step,
    StepResult,
    Theorem,
    normal_form,
    same,
)
from scaledattn.kernel.binders import subst
from scaledattn.kernel.expr import as_term, is_random, random_atoms, rebuild
from scaledattn.kernel.theorem import check_step

__all__ = [
    "MAX_CANDIDATES",
    "MAX_USES",
    "Resolution",
    "independence_hint",
    "matches",
    "resolve",
    "rule_shown",
    "schematic_names",
]

#: At most this many σ are tried (each is one kernel check) for one written step.
MAX_CANDIDATES = 24
#: A written step may use the theorem at most this many times (kernel steps).
MAX_USES = 8
#: The arguments of a sum or product grouped in every way only up to this many.
_MAX_ARGS = 6


def schematic_names(theorem: Theorem) -> list[Symbol]:
    """The free names of ``theorem``'s statement an instance may replace, in a fixed order."""
    statement = theorem.statement
    if not isinstance(statement, Equation):
        return []
    free: set[Any] = set()
    for side in (statement.lhs, statement.rhs):
        free |= as_term(side).free_symbols
    names = [s for s in free if type(s) in (Symbol, RandomVariable)]
    return sorted(names, key=lambda s: s.name)


def _fits(name: Symbol, term: Any) -> bool:
    """Whether ``term`` may stand for ``name``: random for a random variable, else a constant."""
    if isinstance(name, RandomVariable):
        return bool(is_random(term))
    if is_random(term) or not isinstance(term, sympy.Expr):
        return False
    return all(
        getattr(term, f"is_{fact}") is True
        for fact in ("integer", "real")
        if getattr(name, f"is_{fact}")
    )


def _groupings(args: Sequence[Any], parts: int) -> Iterator[list[list[Any]]]:
    """Every way to share ``args`` among ``parts`` non-empty groups (each assignment once)."""
    for labels in itertools.product(range(parts), repeat=len(args)):
        groups: list[list[Any]] = [[] for _ in range(parts)]
        for arg, label in zip(args, labels, strict=True):
            groups[label].append(arg)
        if all(groups):
            yield groups


def _match(
    pattern: Any, term: Any, names: frozenset[Any], sigma: dict[Any, Any]
) -> Iterator[dict[Any, Any]]:
    if pattern in names:
        bound = sigma.get(pattern)
        if bound is None:
            if _fits(pattern, term):
                yield {**sigma, pattern: term}
        elif bound == term or same(bound, term) is True:
            yield sigma
        return
    if not pattern.free_symbols & names:
        if pattern == term:
            yield sigma
        return
    if not isinstance(term, sympy.Basic) or pattern.func != term.func:
        return
    if pattern.func in (Add, Mul):
        p_args, t_args = list(pattern.args), list(term.args)
        if len(t_args) > _MAX_ARGS or len(p_args) > len(t_args):
            return
        for groups in _groupings(t_args, len(p_args)):
            parts = [g[0] if len(g) == 1 else pattern.func(*g) for g in groups]
            yield from _match_all(p_args, parts, names, sigma)
        return
    if len(pattern.args) != len(term.args):
        return
    yield from _match_all(list(pattern.args), list(term.args), names, sigma)


def _match_all(
    patterns: list[Any], terms: list[Any], names: frozenset[Any], sigma: dict[Any, Any]
) -> Iterator[dict[Any, Any]]:
    if not patterns:
        yield sigma
        return
    for found in _match(patterns[0], terms[0], names, sigma):
        yield from _match_all(patterns[1:], terms[1:], names, found)


def matches(pattern: Any, term: Any, names: Sequence[Any]) -> list[dict[Any, Any]]:
    """Every σ of ``names`` with σ(pattern) = a subterm of ``term`` (as written or normalised)."""
    found: list[dict[Any, Any]] = []
    keys: set[tuple[tuple[str, str], ...]] = set()
    pattern = rebuild(as_term(pattern))
    free = frozenset(names)
    for form in (rebuild(term), normal_form(term)):
        for sub in sympy.preorder_traversal(form):
            if not isinstance(sub, sympy.Expr) or (sub.is_Atom and sub not in free):
                continue
            for sigma in _match(pattern, sub, free, {}):
                k = tuple(sorted((str(a), sympy.srepr(b)) for a, b in sigma.items()))
                if k not in keys:
                    keys.add(k)
                    found.append(sigma)
                if len(found) >= MAX_CANDIDATES:
                    return found
    return found


@dataclass(frozen=True)
class Resolution:
    """The kernel steps a cited theorem's step becomes, or the closest refusal.

    ``steps``: the chain to audit (one instance a step); ``refusal``: when no instance
    justified the written step, the kernel's result on the one that came closest.
    """

    steps: tuple[Step, ...]
    refusal: StepResult | None = None


def _instance(theorem: Theorem, sigma: Mapping[Any, Any]) -> Any:
    moved = tuple((k, v) for k, v in sigma.items() if k != v)
    return Instance(theorem, moved) if moved else theorem


def resolve(
    prev: Any,
    claim: Any,
    theorem: Theorem,
    number: int,
    derivation: Derivation,
    theorems: Mapping[str, Theorem],
    explicit: Mapping[Any, Any] | None = None,
) -> Resolution:
    """The kernel steps that take ``prev`` to ``claim`` by instances of ``theorem``.

    ``explicit``: σ as the user wrote it (``by NAME(X := a*X)``); then that instance only.
    Otherwise the theorem as stated, then each matched σ, then a chain of matched
    instances (at most :data:`MAX_USES`), each step checked by the kernel as it goes.
    """
    if explicit is not None:
        return Resolution((Step(_instance(theorem, explicit), claim),))
    first = check_step(prev, Step(theorem, claim), number, derivation, theorems)
    if first.ok:
        return Resolution((Step(theorem, claim),))
    names = schematic_names(theorem)
    if not names:
        return Resolution((Step(theorem, claim),), None)
    lhs = theorem.statement.lhs
    closest: StepResult | None = None
    chain: list[Step] = []
    current = prev
    for _ in range(MAX_USES):
        moved: tuple[Any, Any] | None = None
        for sigma in matches(lhs, current, names):
            rule = _instance(theorem, sigma)
            result = check_step(current, Step(rule, claim), number, derivation, theorems)
            if result.ok:
                return Resolution((*chain, Step(rule, claim)))
            if isinstance(result.error, MissingAssumption) and closest is None and not chain:
                closest = result
            derived = result.derived
            if (
                moved is None
                and derived is not None
                and not isinstance(result.error, MissingAssumption)
                and same(derived, current) is not True
            ):
                moved = (rule, derived)
        if moved is None:
            break
        chain.append(Step(moved[0], moved[1]))
        current = moved[1]
    return Resolution((Step(theorem, claim),), closest)


def rule_shown(rule: Any, fallback: str) -> str:
    """The name of a step's rule as a proof file writes it: ``scaling(c := a, X := Z)``."""
    if not isinstance(rule, Instance):
        return fallback
    from scaledattn.render.proof import proof_term

    pairs = ", ".join(f"{k} := {proof_term(v)}" for k, v in rule.mapping)
    return f"{rule.theorem.name}({pairs})"


def independence_hint(rule: Any) -> str:
    """What to declare when an instance's σ(Independent(X, Y)) is not met, in the user's words.

    σ(X) and σ(Y) are independent when their random variables are in different blocks
    of one family: ``assume: independent(X, Z)`` for σ = {X: a·X, Y: b·Z}. When the
    images share a random variable, no declaration makes them independent: it says so.
    """
    if not isinstance(rule, Instance):
        return ""
    sigma = dict(rule.mapping)
    for a in rule.theorem.used:
        if not isinstance(a, Independent):
            continue
        images = [subst(u, sigma) for u in a.units]
        if all(i == u for i, u in zip(images, a.units, strict=True)):
            continue
        groups = [random_atoms(as_term(i)) for i in images]
        seen: set[Any] = set()
        for g in groups:
            shared = seen & g
            if shared:
                names = ", ".join(sorted(map(str, shared)))
                terms = ", ".join(map(sympy.sstr, images))
                return f"the terms {terms} share {names}: they are not independent"
            seen |= g
        atoms = sorted(map(str, seen))
        if all(isinstance(x, RandomVariable) for x in seen) and len(atoms) >= 2:
            return f"assume: independent({', '.join(atoms)})"
    return ""
