"""Explicit assumptions: independence, known moments, positivity. Nothing is implicit.

How it works and what it trusts: docs/kernel.md, ``scaledattn.kernel.assumptions``.

Examples
--------
>>> from scaledattn.kernel.expr import RandomVector, dimension
>>> q = RandomVector("q", dimension("d_k"))
>>> print(ZeroMean(q))
E[q_i] = 0 for every i
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import sympy
from sympy import Expr, Symbol

from scaledattn.errors import InvalidArgument
from scaledattn.kernel.binders import Scope, bound_symbols, subst
from scaledattn.kernel.expr import (
    MOMENT_OPERATORS,
    Component,
    E,
    RandomVariable,
    RandomVector,
    Var,
    VectorLabel,
    as_term,
    index,
    is_random,
    kernel_class,
    normal_form,
    rebuild,
    unclaimable,
)

#: A block key: (tag, index or None). Atoms in different blocks are independent.
BlockKey = tuple[Any, Expr | None]


class Assumption:
    """Base class: an assumption is a frozen, printable, hashable fact."""

    def constrains(self) -> set[Symbol]:
        """The symbols whose particular value this fact is about (c in c > 0, t in t ≠ w)."""
        found: set[Symbol] = set()
        for value in vars(self).values():
            found |= getattr(value, "free_symbols", set())
        return found

    def parameters(self) -> set[Symbol]:
        """The symbols a definition is read with (w, λ in rⱼ = sⱼ + λδⱼw); none for a fact."""
        return set()

    def __str__(self) -> str:  # pragma: no cover - every subclass overrides it
        return repr(self)


def _check_unit(unit: Any) -> Any:
    if isinstance(unit, RandomVector):
        return unit.label
    if isinstance(unit, RandomVariable):
        return unit
    raise InvalidArgument(
        f"independence is declared between random variables or vectors, got {unit!r}"
    )


class Independence(Assumption):
    """A family of mutually independent blocks; each random atom maps to a block key."""

    def block_key(self, atom: Expr) -> BlockKey | None:  # pragma: no cover - abstract
        """The block of ``atom`` in this family, or None if the family does not cover it."""
        raise NotImplementedError

    def constrains(self) -> set[Symbol]:
        """None: independence is about random variables, whatever the indices."""
        return set()


@dataclass(frozen=True)
class Independent(Independence):
    """Mutual independence of whole random variables or vectors: ``Independent(X, Y)``."""

    units: tuple[Any, ...]

    def __init__(self, *units: Any) -> None:
        if len(units) < 2:
            raise InvalidArgument("Independent needs at least two random variables")
        labels = tuple(_check_unit(u) for u in units)
        if len(set(labels)) != len(labels):
            raise InvalidArgument("Independent lists the same variable twice")
        object.__setattr__(self, "units", labels)

    def block_key(self, atom: Expr) -> BlockKey | None:
        """Each unit is one block (a vector's components all share its block)."""
        unit = atom.label if isinstance(atom, Component) else atom
        return (unit, None) if unit in self.units else None


@dataclass(frozen=True)
class IndependentComponents(Independence):
    """All components of the listed vectors are mutually independent."""

    vectors: tuple[VectorLabel, ...]

    def __init__(self, *vectors: RandomVector) -> None:
        if not vectors or not all(isinstance(v, RandomVector) for v in vectors):
            raise InvalidArgument("IndependentComponents takes random vectors")
        object.__setattr__(self, "vectors", tuple(v.label for v in vectors))

    def block_key(self, atom: Expr) -> BlockKey | None:
        """Each component q_i is its own block."""
        if isinstance(atom, Component) and atom.label in self.vectors:
            return (atom.label, atom.index)
        return None


@dataclass(frozen=True)
class IndependentPairs(Independence):
    """The tuples (q_i, k_i, ...) are mutually independent across i."""

    vectors: tuple[VectorLabel, ...]

    def __init__(self, *vectors: RandomVector) -> None:
        if len(vectors) < 2 or not all(isinstance(v, RandomVector) for v in vectors):
            raise InvalidArgument("IndependentPairs takes two or more random vectors")
        object.__setattr__(self, "vectors", tuple(v.label for v in vectors))

    def block_key(self, atom: Expr) -> BlockKey | None:
        """Components with the same index share a block; different indices do not."""
        if isinstance(atom, Component) and atom.label in self.vectors:
            return (self.vectors, atom.index)
        return None


def _schematic_indices(expr: Expr) -> tuple[Symbol, ...]:
    """The index symbols free in ``expr``: i in E[qᵢ], none in E[Σᵢ qᵢ] (i is bound there)."""
    found = {c.index for c in expr.atoms(Component) if isinstance(c.index, Symbol)}
    return tuple(sorted(found & expr.free_symbols, key=str))


@dataclass(frozen=True)
class Moment(Assumption):
    """A known moment ``lhs = value``, where lhs is E[..], Var(..) or Cov(..)."""

    lhs: Expr
    value: Expr

    def __init__(self, lhs: Any, value: Any) -> None:
        lhs, value = rebuild(as_term(lhs)), rebuild(as_term(value))
        if not isinstance(lhs, MOMENT_OPERATORS):
            raise InvalidArgument(f"a moment assumption is about E, Var or Cov, got {lhs}")
        if is_random(value):
            raise InvalidArgument(f"a moment's value must not be random, got {value}")
        try:
            negative = value.is_negative
        except Exception:  # SymPy's deduction can fail on a term; then it is not known < 0
            negative = None
        if isinstance(lhs, Var) and negative:
            raise InvalidArgument(f"a variance cannot be negative: {lhs} = {value}")
        escaping = bound_symbols(lhs) & value.free_symbols
        if escaping:  # E[Σᵢ qᵢ] = i would let a bound i out of its sum (docs/soundness.md)
            names = ", ".join(sorted(map(str, escaping)))
            raise InvalidArgument(
                f"a moment's value may not mention {names}, which its left side {lhs} binds"
            )
        object.__setattr__(self, "lhs", lhs)
        object.__setattr__(self, "value", value)

    @property
    def indices(self) -> tuple[Symbol, ...]:
        """The schematic index symbols of the left side."""
        return _schematic_indices(self.lhs)

    def constrains(self) -> set[Symbol]:
        """The symbols it mentions besides its schematic indices (t in E[X] = t)."""
        mentioned: set[Symbol] = self.lhs.free_symbols | self.value.free_symbols
        return mentioned - set(self.indices)

    def instances(self, term: Expr) -> Iterator[Expr]:
        """Values this assumption gives for ``term``, trying each index binding.

        A schematic index is bound only to an index free in ``term``: a bound one could
        not match (renaming bound names keeps free ones) and must never reach the value.
        """
        schematic = self.indices
        free = term.free_symbols
        indices = {c.index for c in term.atoms(Component)}
        candidates = sorted((x for x in indices if x.free_symbols <= free), key=str)
        for binding in _bindings(schematic, candidates):
            lhs = subst(self.lhs, binding)
            if normal_form(lhs) == normal_form(term):
                yield subst(self.value, binding)


def _bindings(
    schematic: tuple[Symbol, ...], candidates: list[Expr]
) -> Iterator[dict[Symbol, Expr]]:
    if not schematic:
        yield {}
        return
    head, rest = schematic[0], schematic[1:]
    for value in candidates:
        for tail in _bindings(rest, candidates):
            yield {head: value, **tail}


def _component_or_variable(unit: Any, i: Symbol) -> Expr:
    return unit[i] if isinstance(unit, RandomVector) else unit


def ZeroMean(unit: Any) -> Moment:  # noqa: N802 - reads as a predicate
    """E[X] = 0, or E[q_i] = 0 for every component of a vector."""
    return Moment(_mean_of(unit), 0)


def Mean(unit: Any, value: Any) -> Moment:  # noqa: N802
    """E[X] = value, or E[q_i] = value for every component."""
    return Moment(_mean_of(unit), value)


def Variance(unit: Any, value: Any) -> Moment:  # noqa: N802
    """Var(X) = value, or Var(q_i) = value for every component."""
    return Moment(Var(_component_or_variable(unit, index("i"))), value)


def UnitVariance(unit: Any) -> Moment:  # noqa: N802
    """Var(X) = 1, or Var(q_i) = 1 for every component."""
    return Variance(unit, 1)


def _mean_of(unit: Any) -> Expr:
    return E(_component_or_variable(unit, index("i")))


@dataclass(frozen=True)
class Positive(Assumption):
    """The (non-random) constant ``symbol`` is positive."""

    symbol: Symbol

    def __init__(self, symbol: Any) -> None:
        if not isinstance(symbol, Symbol) or isinstance(symbol, (RandomVariable, VectorLabel)):
            raise InvalidArgument(f"Positive takes a constant symbol, got {symbol!r}")
        if symbol.is_real is not True:
            raise InvalidArgument(f"Positive needs a real symbol, got {symbol!r}")
        object.__setattr__(self, "symbol", symbol)

    def constrains(self) -> set[Symbol]:
        """The symbol said to be positive."""
        return {self.symbol}


def _acyclic(items: list[Assumption]) -> None:
    """Refuse definitions that reach themselves: r_j = g_j + 1, g_j = r_j gives r = r + 1.

    Also through a moment declared to be a defined vector's entry (r_j = E[X] + 1, E[X] = r_1).
    """
    moments = [m.value for m in items if isinstance(m, Moment)]
    for a in items:
        name, body = getattr(a, "name", None), getattr(a, "body", None)
        if body is None:
            continue
        inner = reached(items, body)
        bodies = (getattr(d, "body", sympy.S.Zero) for d in {a} | inner)
        moment = any(isinstance(n, MOMENT_OPERATORS) for b in bodies for n in b.atoms(Expr))
        if a in inner or (moment and a in reached(items, *moments)):
            raise InvalidArgument(f"the definition of {name} refers back to it")


def reached(assumptions: Iterable[Any], *terms: Any) -> frozenset[Any]:
    """The definitions the vectors ``terms`` name reach, through their bodies too."""
    definitions = [a for a in assumptions if hasattr(a, "body")]
    named = {getattr(n, "vector", None) for t in terms for n in sympy.preorder_traversal(t)}
    found: set[Any] = set()
    while new := {d for d in definitions if d.name in named} - found:
        found |= new
        named |= {getattr(n, "vector", None) for d in new for n in sympy.preorder_traversal(d.body)}
    return frozenset(found)


def terms_of(values: Iterable[Any], labels: bool = False) -> Iterator[sympy.Basic]:
    """The terms of ``values``: terms, or tuples and sets of them.

    The names of vectors (``Independent(q, k)``) only with ``labels``.
    """
    for v in values:
        if isinstance(v, (tuple, frozenset)):
            yield from terms_of(v, labels)
        elif isinstance(v, sympy.Basic) and (labels or not isinstance(v, VectorLabel)):
            yield v


@dataclass(frozen=True)
class Context:
    """The declared assumptions of a derivation."""

    assumptions: tuple[Assumption, ...] = ()
    unreadable: tuple[Assumption, ...] = ()

    @classmethod
    def of(cls, assumptions: Iterable[Assumption]) -> Context:
        """A context from an iterable of assumptions (validated, duplicates removed)."""
        items: list[Assumption] = []
        for a in assumptions:
            # A class of one's own could state anything (a block_key, a moment's instances).
            if not kernel_class(type(a)):
                raise InvalidArgument(f"not an assumption of the kernel: {a!r}")
            for why in map(unclaimable, terms_of(vars(a).values())):
                if why is not None:
                    raise InvalidArgument(f"{a}: {why}")
            if a not in items:
                name = getattr(a, "body", None) is not None and getattr(a, "name", None)
                if name and any(getattr(b, "name", None) == name for b in items):
                    raise InvalidArgument(f"{name} is defined twice")
                items.append(a)
        _acyclic(items)
        return cls(tuple(items))

    def independences(self) -> tuple[Independence, ...]:
        """The declared independence families."""
        return tuple(a for a in self.assumptions if isinstance(a, Independence))

    def moments(self) -> tuple[Moment, ...]:
        """The declared known moments."""
        return tuple(a for a in self.assumptions if isinstance(a, Moment))

    def positives(self) -> tuple[Positive, ...]:
        """The declared positive constants."""
        return tuple(a for a in self.assumptions if isinstance(a, Positive))

    def visible(self, scope: Scope) -> Context:
        """The facts that hold at a position whose path binds ``scope.bound``.

        Under ∂/∂sₘ a fact that names s (E[X] = s₁) holds at one point, not as s varies:
        it is not read there (a definition is: it holds for every s).
        """
        bound = scope.bound
        if not bound and not scope.varied:
            return self
        sums = bound - scope.limits
        keep = tuple(
            a
            for a in self.assumptions
            if not (self._reach(a) & bound or (scope.varied and self._names(a) & scope.varied))
        )
        readable = tuple(a for a in keep if not (a.parameters() & sums))
        if len(readable) == len(self.assumptions):
            return self
        return Context(readable, tuple(a for a in keep if a not in readable))

    def _reach(self, a: Assumption) -> set[Symbol]:
        """What a fact is about: its symbols, and the definitions' of the vectors it names.

        E[q_i] = r_i with r_j = s_j + λδ_jw is about the λ of that moment.
        """
        found = a.constrains()
        if hasattr(a, "body"):  # a definition: read with its parameters wherever it is used
            return found
        for d in reached(self.assumptions, *terms_of(vars(a).values())):
            found |= d.constrains() | d.parameters()
        return found

    def _names(self, a: Assumption) -> set[Any]:
        """The vectors a fact names, also through the definitions it reaches (none: one)."""
        if hasattr(a, "body"):
            return set()
        terms = list(terms_of(vars(a).values()))
        found = reached(self.assumptions, *terms)
        nodes = (n for t in (*terms, *(d.body for d in found)) for n in sympy.preorder_traversal(t))
        return {getattr(n, "vector", None) for n in nodes} - {None}

    def entails(self, assumption: Assumption) -> bool:
        """True when ``assumption`` is declared here (syntactically)."""
        return assumption in self.assumptions


def sign_facts(expr: Expr, ctx: Context) -> tuple[Expr, frozenset[Assumption]]:
    """``expr`` with each declared-positive symbol replaced by a positive dummy."""
    used: set[Assumption] = set()
    mapping: dict[Symbol, Symbol] = {}
    for p in ctx.positives():
        if p.symbol in expr.free_symbols:
            mapping[p.symbol] = sympy.Dummy(p.symbol.name, positive=True)
            used.add(p)
    return subst(expr, mapping), frozenset(used)


def provably_positive(expr: Expr, ctx: Context) -> tuple[bool, frozenset[Assumption]]:
    """Whether ``expr > 0`` follows from the declared Positive facts and symbol types."""
    e, used = sign_facts(rebuild(expr), ctx)
    return (e.is_positive is True), used


def provably_negative(expr: Expr, ctx: Context) -> tuple[bool, frozenset[Assumption]]:
    """Whether ``expr < 0`` follows from the declared Positive facts and symbol types."""
    e, used = sign_facts(rebuild(expr), ctx)
    return (e.is_negative is True), used
