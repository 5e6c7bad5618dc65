"""Concrete settings for the softmax calculus: n, the indices, the constants, the scores.

A setting is plain data, as a proof module's ``evidence()`` returns it::

    {"n": 3, "i": 1, "m": 2, "s": ["1/2", -1, 2]}
    {"n": 8, "i": 4, "m": 4, "s": {"seed": 1, "scale": 3}}
    {"n": 3, "t": 2, "s": [1, 0, -1], "y": [0, 1, 0]}

Each dimension (n) and each free index (i, m, t, w) gets a positive integer, each
real constant (a, c, λ) an exact number, and each vector that no assumption
defines (the scores s, an upstream gradient g) n exact numbers: a list, or
``{"seed": S, "scale": σ}`` for n draws from N(0, σ²) with numpy's generator
seeded S, rounded to three decimals (so exact rationals from then on). A vector
that an ``Entries`` assumption defines (one-hot y, shifted or led scores r) is
computed from its definition; if the setting lists it too, the list is checked
against the definition (see :mod:`scaledattn.numeric.calculus`).

Apart from the random-variable models (:mod:`~scaledattn.numeric.model`,
:mod:`~scaledattn.numeric.worlds`) on purpose: the softmax calculus has no random
variables, only numbers, vectors of numbers and indices.

Examples
--------
>>> from scaledattn.registry import find_derivation
>>> d = find_derivation("softmax_gradient")
>>> setting = read_setting(d, {"n": 3, "i": 1, "m": 2, "s": ["1/2", -1, 2]})
>>> setting.describe()
'n = 3, i = 1, m = 2, s = (1/2, -1, 2)'
>>> [float(x) for x in read_setting(d, {"n": 3, "i": 1, "m": 1, "s": {"seed": 1}}).vectors["s"]]
[0.346, 0.822, 0.33]
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import sympy
from sympy import Expr, Symbol
from sympy.printing.pretty.pretty_symbology import pretty_symbol

from scaledattn.errors import InvalidArgument
from scaledattn.kernel import Component, Derivation, IndexSum
from scaledattn.kernel.vectors import (
    Deriv,
    Distinct,
    Entries,
    Entry,
    IndexRange,
    Lim,
    Softmax,
)
from scaledattn.numeric.spec import as_fraction, format_number

__all__ = [
    "Draw",
    "ScoreSetting",
    "Shape",
    "default_score_settings",
    "is_calculus",
    "read_setting",
    "shape",
]

DIMENSIONS = (3, 8)
POSITIVE = (Fraction(2), Fraction(1, 2))
REAL = (Fraction(1, 2), Fraction(-1))
#: Index values tried in order: equal indices where allowed at n = 3, all distinct at n = 8.
INDEX_ORDER = ((2, 3, 1), (3, 6, 1, 8, 5, 2, 7, 4))
DEFAULT_SCALE = Fraction(2)
DECIMALS = 1000
CALCULUS_TERMS = (Entry, Softmax, Deriv, Lim)
CALCULUS_ASSUMPTIONS = (Entries, IndexRange, Distinct)


def _walk(expr: Any) -> Iterator[Any]:
    yield expr
    for a in getattr(expr, "args", ()):
        yield from _walk(a)


def _expressions(derivation: Derivation) -> Iterator[Any]:
    yield derivation.statement.lhs
    yield derivation.statement.rhs
    for step in derivation.steps:
        yield step.claim


def is_calculus(derivation: Derivation) -> bool:
    """Whether the derivation speaks of scores, softmax, derivatives or limits."""
    if any(isinstance(a, CALCULUS_ASSUMPTIONS) for a in derivation.assumptions):
        return True
    nodes = [node for top in _expressions(derivation) for node in _walk(top)]
    if any(isinstance(node, Component) for node in nodes):
        return False  # random vectors beside fixed real ones (W·x): the model evaluates them
    return any(isinstance(node, CALCULUS_TERMS) for node in nodes)


@dataclass(frozen=True)
class Shape:
    """What a calculus derivation needs from a setting.

    ``vectors`` maps every vector to its dimension (an Expr); ``definitions`` the
    vectors an Entries assumption defines; ``dims`` and ``indices`` the free
    integer symbols; ``reals`` the free real constants (a λ that only a limit
    binds is not one).
    """

    vectors: dict[str, Expr]
    definitions: dict[str, Entries]
    dims: dict[str, Symbol]
    indices: dict[str, Symbol]
    reals: dict[str, Symbol]

    @property
    def base(self) -> tuple[str, ...]:
        """The vectors the setting must give (no assumption defines them)."""
        return tuple(v for v in self.vectors if v not in self.definitions)


def shape(derivation: Derivation) -> Shape:
    """The vectors, dimensions, indices and constants of a calculus derivation."""
    vectors: dict[str, Expr] = {}
    dims: set[Symbol] = set()
    free: set[Symbol] = set()
    definitions = {a.name: a for a in derivation.assumptions if isinstance(a, Entries)}
    limits: set[Symbol] = set()

    def scan(expr: Any) -> None:
        for node in _walk(expr):
            if isinstance(node, (Entry, Softmax)):
                vectors.setdefault(node.vector, node.dim)
                dims.update(node.dim.free_symbols)
            elif isinstance(node, IndexSum):
                dims.update(node.upper.free_symbols)
            elif isinstance(node, Lim):
                limits.add(node.variable)

    for top in _expressions(derivation):
        scan(top)
        free.update(sympy.sympify(top).free_symbols)
    for a in derivation.assumptions:
        if isinstance(a, Entries):
            vectors.setdefault(a.name, a.dim)
            dims.update(a.dim.free_symbols)
            scan(a.body)
            # λ in "score w leads by λ" is a setting value only where no limit binds it
            inner = a.body.free_symbols - {a.index}
            free.update(s for s in inner if s.is_integer or s not in limits)
        elif isinstance(a, IndexRange):
            free.update({a.index, *a.upper.free_symbols})
            dims.update(a.upper.free_symbols)
        elif isinstance(a, Distinct):
            free.update(a.pair)
    free |= dims
    return Shape(
        vectors,
        definitions,
        {s.name: s for s in sorted(dims, key=str)},
        {s.name: s for s in sorted(free - dims, key=str) if s.is_integer},
        {s.name: s for s in sorted(free - dims, key=str) if not s.is_integer},
    )


@dataclass(frozen=True)
class Draw:
    """A vector drawn from N(0, scale²) with a seeded generator, rounded to 1/1000."""

    seed: int
    scale: Fraction

    def values(self, n: int) -> tuple[Fraction, ...]:
        """The n drawn values, as exact rationals."""
        rng = np.random.default_rng(self.seed)
        raw = rng.normal(0.0, float(self.scale), n)
        return tuple(Fraction(round(float(x) * DECIMALS), DECIMALS) for x in raw)

    def describe(self) -> str:
        """``N(0, 3²) seed 1``."""
        spread = "1" if self.scale == 1 else f"{format_number(self.scale)}²"
        return f"N(0, {spread}) seed {self.seed}"


@dataclass(frozen=True)
class ScoreSetting:
    """One concrete setting of a calculus derivation, read and checked for shape."""

    shape: Shape
    integers: dict[str, int]
    reals: dict[str, Fraction]
    vectors: dict[str, tuple[Fraction, ...]]
    given: dict[str, tuple[Fraction, ...]] = field(default_factory=dict)
    draws: dict[str, Draw] = field(default_factory=dict)

    def describe(self) -> str:
        """One line: dimensions, indices, constants, then the vectors."""
        parts = [f"{pretty_symbol(k)} = {v}" for k, v in self.integers.items()]
        parts += [f"{pretty_symbol(k)} = {format_number(v)}" for k, v in self.reals.items()]
        for name, values in (*self.vectors.items(), *self.given.items()):
            if name in self.draws:
                parts.append(f"{name} ~ {self.draws[name].describe()}")
            else:
                parts.append(f"{name} = ({', '.join(format_number(x) for x in values)})")
        return ", ".join(parts)

    def as_json(self) -> dict[str, Any]:
        """Every value, exact rationals as strings (drawn vectors included)."""
        out: dict[str, Any] = dict(self.integers)
        out.update({k: format_number(v) for k, v in self.reals.items()})
        for name, values in (*self.vectors.items(), *self.given.items()):
            out[name] = [format_number(x) for x in values]
        return out


def _positive_integer(value: Any, what: str) -> int:
    x = as_fraction(value, what)
    if x.denominator != 1 or x < 1:
        raise InvalidArgument(f"{what} must be a positive integer, got {format_number(x)}")
    return int(x)


def _draw(raw: Mapping[str, Any], name: str) -> Draw:
    unknown = set(raw) - {"seed", "scale"}
    if unknown or "seed" not in raw:
        raise InvalidArgument(
            f"{name}: give a list of numbers or {{'seed': S, 'scale': σ}}, got {dict(raw)!r}"
        )
    seed = as_fraction(raw["seed"], f"{name}'s seed")
    if seed.denominator != 1 or seed < 0:
        raise InvalidArgument(f"{name}'s seed must be a non-negative integer")
    scale = as_fraction(raw.get("scale", 1), f"{name}'s scale")
    if scale <= 0:
        raise InvalidArgument(f"{name}'s scale must be positive, got {format_number(scale)}")
    return Draw(int(seed), scale)


def _listed(raw: Any, name: str, n: int) -> tuple[Fraction, ...]:
    if isinstance(raw, (str, bytes)) or not isinstance(raw, Sequence):
        raise InvalidArgument(f"{name}: give a list of {n} numbers, got {raw!r}")
    if len(raw) != n:
        raise InvalidArgument(f"{name} has {len(raw)} entries, but its dimension is {n}")
    return tuple(as_fraction(x, f"{name}'s entry {k}") for k, x in enumerate(raw, 1))


def _dimension(dim: Expr, integers: Mapping[str, int], name: str) -> int:
    if dim.is_Integer:
        return int(dim)
    if dim.name not in integers:
        raise InvalidArgument(f"the setting gives no value for {dim.name}")
    return integers[dim.name]


def read_setting(derivation: Derivation, data: Mapping[str, Any]) -> ScoreSetting:
    """The setting ``data`` describes for ``derivation``; InvalidArgument naming any problem."""
    if not isinstance(data, Mapping):
        raise InvalidArgument(f"a setting is a mapping of names to values, got {data!r}")
    sh = shape(derivation)
    known = [*sh.dims, *sh.indices, *sh.reals, *sh.vectors]
    for key in data:
        if key not in known:
            listed = ", ".join(known) or "none"
            raise InvalidArgument(
                f"the setting names {key!r}, which the derivation lacks ({listed})"
            )
    for name in (*sh.dims, *sh.indices, *sh.reals):
        if name not in data:
            raise InvalidArgument(f"the setting gives no value for {name}")
    integers = {name: _positive_integer(data[name], name) for name in (*sh.dims, *sh.indices)}
    reals: dict[str, Fraction] = {}
    for name, symbol in sh.reals.items():
        reals[name] = as_fraction(data[name], name)
        if symbol.is_positive and reals[name] <= 0:
            raise InvalidArgument(f"{name} is positive, got {format_number(reals[name])}")
    vectors: dict[str, tuple[Fraction, ...]] = {}
    given: dict[str, tuple[Fraction, ...]] = {}
    draws: dict[str, Draw] = {}
    for name, dim in sh.vectors.items():
        n = _dimension(dim, integers, name)
        if name in sh.definitions:
            if name in data:
                given[name] = _listed(data[name], name, n)
            continue
        if name not in data:
            raise InvalidArgument(f"the setting gives no values for {name}")
        raw = data[name]
        if isinstance(raw, Mapping):
            draws[name] = _draw(raw, name)
            vectors[name] = draws[name].values(n)
        else:
            vectors[name] = _listed(raw, name, n)
    return ScoreSetting(sh, integers, reals, vectors, given, draws)


def _seed(derivation: Derivation, name: str, n: int) -> int:
    return zlib.crc32(f"{derivation.name}/{name}/{n}".encode()) % 2**16


def _index_values(
    derivation: Derivation, indices: Sequence[str], order: Sequence[int], distinct: bool
) -> dict[str, int]:
    """Index values in ``order``: equal unless declared Distinct (or ``distinct``)."""
    apart = [{s.name for s in a.pair} for a in derivation.assumptions if isinstance(a, Distinct)]
    values: dict[str, int] = {}
    for name in indices:
        banned = {values[o] for pair in apart if name in pair for o in pair if o in values}
        if distinct:
            banned |= set(values.values())
        values[name] = next(v for v in order if v not in banned)
    return values


def default_score_settings(derivation: Derivation) -> list[dict[str, Any]]:
    """Two settings from the declared assumptions alone: n = 3, then n = 8.

    At n = 3 the indices are equal where no ``Distinct`` forbids it (i = m), at
    n = 8 all different; real constants get 1/2 and −1 (positive ones 2 and 1/2);
    the free vectors are seeded draws, the seed taken from the derivation's name.
    """
    sh = shape(derivation)
    out = []
    for k, n in enumerate(DIMENSIONS):
        setting: dict[str, Any] = dict.fromkeys(sh.dims, n)
        setting.update(_index_values(derivation, list(sh.indices), INDEX_ORDER[k], k == 1))
        for name, symbol in sh.reals.items():
            setting[name] = format_number(POSITIVE[k] if symbol.is_positive else REAL[k])
        for name in sh.base:
            setting[name] = {"seed": _seed(derivation, name, n), "scale": str(DEFAULT_SCALE)}
        out.append(setting)
    return out
