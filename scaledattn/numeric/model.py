"""Concrete models of a derivation: values for its constants, a joint law for its variables.

A *setting* is plain data, as a proof module's ``evidence()`` returns it::

    {"X": "die", "Y": {"X": 2, "noise": "coin"}}          # Y = 2·X + ε, ε ~ coin
    {"q": "coin", "k": "gaussian:var=4", "d_k": 8, "sigma_k": 2}

Each key names a random unit of the derivation (a variable X or a vector q) or a
constant symbol (d_k, σ_q, c, …). A unit is either a catalogue spec (independent
draws; a vector's components are i.i.d.) or ``{"noise": SPEC, UNIT: a, …}``: a
linear combination of other units plus independent noise (for vectors, component
by component, so ``{"q": a, "noise": …}`` gives k_i = a·q_i + ε_i). A key
``"samples"`` sets the Monte Carlo size.

:func:`build_model` turns a setting into a :class:`Model`: every observable atom
(X, or q_i) is a linear form in independent *latent* variables, one per spec'd
unit and component. Two atoms are independent when their latent sets are disjoint,
which is how :func:`check_assumptions` verifies a derivation's ``Independent…``
declarations; declared moments are checked by evaluating both sides exactly.

One of the model builders, kept apart on purpose: it builds the model written data
describe (infinite laws included) for the numeric evidence of ``check``;
:mod:`~scaledattn.numeric.worlds` draws random finite worlds for the oracle,
:mod:`~scaledattn.numeric.settings` writes this module's data from the assumptions,
and :mod:`~scaledattn.numeric.scores` reads the softmax calculus' concrete scores. (A
*setting* here is that data; the calculator's setting is
:class:`~scaledattn.moments.setting.AttentionSetting`.)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import sympy
from sympy import Expr, Symbol
from sympy.printing.pretty.pretty_symbology import pretty_symbol

from scaledattn.errors import InvalidArgument
from scaledattn.kernel import (
    Assumption,
    Component,
    CrossSum,
    Derivation,
    Dot,
    IndependentComponents,
    IndependentPairs,
    IndexSum,
    Moment,
    Positive,
    RandomVariable,
)
from scaledattn.kernel.assumptions import Independent
from scaledattn.kernel.expr import VectorLabel
from scaledattn.kernel.vectors import Entry
from scaledattn.numeric.distributions import Distribution, distribution
from scaledattn.numeric.spec import as_fraction, format_number

__all__ = [
    "AtomKey",
    "LatentGroup",
    "LatentKey",
    "Model",
    "Signature",
    "UnitLaw",
    "build_model",
    "signature",
]

#: (latent group, index): index 0 for a scalar, 1..n for a vector's components.
LatentKey = tuple[str, int]
#: (unit name, index), same convention.
AtomKey = tuple[str, int]
Linear = dict[LatentKey, Fraction]

SAMPLES_KEY = "samples"
NOISE_KEY = "noise"


# ------------------------------------------------------------------ signature


@dataclass(frozen=True)
class Signature:
    """What a derivation talks about: scalar variables, vectors (with dims), constants."""

    scalars: tuple[str, ...]
    vectors: dict[str, Expr]
    constants: dict[str, Symbol]
    #: Fixed real vectors (Entry terms, a token x in W·x): name → dimension.
    reals: dict[str, Expr] = field(default_factory=dict)

    def units(self) -> tuple[str, ...]:
        """Every random unit's name, scalars first."""
        return (*self.scalars, *self.vectors)


def _expressions(derivation: Derivation) -> Iterator[Any]:
    st = derivation.statement
    yield st.lhs
    yield st.rhs
    for step in derivation.steps:
        yield step.claim
    for a in derivation.assumptions:
        if isinstance(a, Moment):
            yield a.lhs
            yield a.value
        elif isinstance(a, Positive):
            yield a.symbol


def _walk(expr: Any) -> Iterator[Any]:
    yield expr
    for a in getattr(expr, "args", ()):
        yield from _walk(a)


def signature(derivation: Derivation) -> Signature:
    """The units and constants of a derivation, read from its expressions and assumptions."""
    scalars: dict[str, None] = {}
    vectors: dict[str, Expr | None] = {}
    indices: set[Symbol] = set()
    symbols: dict[str, Symbol] = {}
    reals: dict[str, Expr] = {}
    for top in _expressions(derivation):
        for node in _walk(top):
            if isinstance(node, Entry):
                reals[node.vector] = node.dim
            if isinstance(node, RandomVariable):
                scalars[node.name] = None
            elif isinstance(node, Component):
                vectors.setdefault(node.label.name, None)
                if isinstance(node.index, Symbol):
                    indices.add(node.index)
            elif isinstance(node, Dot):
                for label in node.args[:2]:
                    vectors[label.name] = node.dim
            elif isinstance(node, (IndexSum, CrossSum)):
                bound = set(node.indices)
                for c in node.body.atoms(Component):
                    if c.index in bound and vectors.get(c.label.name) is None:
                        vectors[c.label.name] = node.upper
            elif isinstance(node, Symbol) and not isinstance(node, VectorLabel):
                symbols.setdefault(node.name, node)
    for a in derivation.assumptions:
        for unit in getattr(a, "units", ()):
            if isinstance(unit, RandomVariable):
                scalars[unit.name] = None
    constants = {
        name: s
        for name, s in symbols.items()
        if not isinstance(s, RandomVariable) and s not in indices and not _bound_only(s, derivation)
    }
    missing = [name for name, dim in vectors.items() if dim is None]
    if missing:
        raise InvalidArgument(f"cannot tell the dimension of {', '.join(missing)}")
    dims = {name: dim for name, dim in vectors.items() if dim is not None}
    return Signature(tuple(scalars), dims, constants, reals)


def _bound_only(s: Symbol, derivation: Derivation) -> bool:
    """True for a symbol that occurs only as a summation index (never free)."""
    for top in _expressions(derivation):
        if s in getattr(sympy.sympify(top), "free_symbols", set()):
            return False
    return True


# ---------------------------------------------------------------------- model


@dataclass(frozen=True)
class LatentGroup:
    """Independent latent draws from one law: one (dim 0) or one per component."""

    name: str
    distribution: Distribution
    dim: int


@dataclass(frozen=True)
class UnitLaw:
    """How a unit is made: coefficients on other units plus independent noise."""

    name: str
    dim: int
    parents: tuple[tuple[str, Fraction], ...]
    noise: Distribution | None

    def describe(self) -> str:
        """``X ~ die`` or ``Y = 2·X + ε, ε ~ coin``."""
        if not self.parents:
            assert self.noise is not None
            return f"{self.name} ~ {self.noise.spec}"
        terms = [f"{_coefficient(a)}{p}" for p, a in self.parents]
        text = f"{self.name} = " + " + ".join(terms).replace("+ -", "- ")
        if self.noise is not None:
            text += f" + ε, ε ~ {self.noise.spec}"
        return text


def _coefficient(a: Fraction) -> str:
    if a == 1:
        return ""
    if a == -1:
        return "-"
    return f"{format_number(a)}·"


@dataclass(frozen=True)
class Model:
    """A concrete joint law: constants, and each atom as a linear form in latents."""

    values: dict[str, Fraction]
    units: tuple[UnitLaw, ...]
    groups: tuple[LatentGroup, ...]
    forms: dict[AtomKey, Linear]
    samples: int | None = None
    #: Fixed real vectors (name → entries 1..n).
    reals: dict[str, tuple[Fraction, ...]] = field(default_factory=dict)

    def entry(self, name: str, index: int) -> Fraction:
        """Entry ``index`` (1-based) of the fixed real vector ``name``."""
        entries = self.reals.get(name)
        if entries is None:
            raise InvalidArgument(f"the setting gives no entries for {name}")
        if not 1 <= index <= len(entries):
            raise InvalidArgument(f"index {index} is outside 1..{len(entries)} for {name}")
        return entries[index - 1]

    def form(self, name: str, index: int) -> Linear:
        """The linear form of atom (name, index); InvalidArgument if it does not exist."""
        try:
            return self.forms[(name, index)]
        except KeyError:
            unit = next((u for u in self.units if u.name == name), None)
            if unit is None:
                raise InvalidArgument(f"the model has no random unit {name!r}") from None
            raise InvalidArgument(f"index {index} is outside 1..{unit.dim} for {name}") from None

    def group(self, name: str) -> LatentGroup:
        """The latent group called ``name``."""
        return next(g for g in self.groups if g.name == name)

    def unit(self, name: str) -> UnitLaw:
        """The unit law called ``name``."""
        return next(u for u in self.units if u.name == name)

    def latents_of(self, name: str) -> set[LatentKey]:
        """Every latent any component of the unit depends on."""
        return {key for (unit, _), form in self.forms.items() if unit == name for key in form}

    @property
    def finite(self) -> bool:
        """True when every latent law is finite (so exact laws exist)."""
        return all(g.distribution.finite for g in self.groups)

    def describe(self) -> str:
        """One line: the units' laws, then the constants."""
        parts = [u.describe() for u in self.units]
        parts += [f"{pretty_symbol(k)} = {format_number(v)}" for k, v in self.values.items()]
        return ", ".join(parts)


def build_model(sig: Signature, data: Mapping[str, Any]) -> Model:
    """The model a setting describes; InvalidArgument naming what is wrong or missing."""
    if not isinstance(data, Mapping):
        raise InvalidArgument(f"a setting is a mapping of names to laws and values, got {data!r}")
    units = sig.units()
    values: dict[str, Fraction] = {}
    samples = None
    for key, value in data.items():
        if key in units or key in sig.reals:
            continue
        if key == SAMPLES_KEY:
            samples = int(as_fraction(value, SAMPLES_KEY))
            if samples < 2:
                raise InvalidArgument(f"samples must be at least 2, got {samples}")
        elif key in sig.constants:
            values[key] = as_fraction(value, key)
        else:
            known = ", ".join((*units, *sig.constants)) or "none"
            raise InvalidArgument(
                f"the setting names {key!r}, which the derivation lacks ({known})"
            )
    for name, symbol in sig.constants.items():
        if name not in values:
            raise InvalidArgument(f"the setting gives no value for {name}")
        _check_symbol(symbol, values[name])
    for name in units:
        if name not in data:
            raise InvalidArgument(f"the setting gives no law for {name}")
    dims = {name: _dimension(dim, values, name) for name, dim in sig.vectors.items()}
    dims.update(dict.fromkeys(sig.scalars, 0))
    laws = [_unit_law(name, data[name], dims) for name in units]
    ordered = _dependency_order(laws)
    groups: list[LatentGroup] = []
    forms: dict[AtomKey, Linear] = {}
    for law in ordered:
        noise_group = None
        if law.noise is not None:
            noise_group = law.name if not law.parents else f"{law.name}.noise"
            groups.append(LatentGroup(noise_group, law.noise, law.dim))
        for i in _indices(law.dim):
            form: Linear = {}
            for parent, a in law.parents:
                for latent, coef in forms[(parent, i)].items():
                    form[latent] = form.get(latent, Fraction(0)) + a * coef
            if noise_group is not None:
                form[(noise_group, i)] = Fraction(1)
            forms[(law.name, i)] = {k: c for k, c in form.items() if c}
    reals = {
        name: _real_vector(name, data.get(name), dim, values) for name, dim in sig.reals.items()
    }
    return Model(values, tuple(laws), tuple(groups), forms, samples, reals)


def _real_vector(
    name: str, raw: Any, dim: Expr, values: Mapping[str, Fraction]
) -> tuple[Fraction, ...]:
    """The entries of a fixed real vector: a list of numbers of its dimension."""
    if not isinstance(raw, (list, tuple)):
        raise InvalidArgument(f"the setting gives no entries for {name} (a list of numbers)")
    n = _dimension(dim, values, name)
    if len(raw) != n:
        raise InvalidArgument(f"{name} has dimension {n}, the setting lists {len(raw)} entries")
    return tuple(as_fraction(v, f"{name}_{i}") for i, v in enumerate(raw, 1))


def _indices(dim: int) -> range:
    return range(1) if dim == 0 else range(1, dim + 1)


def _check_symbol(symbol: Symbol, value: Fraction) -> None:
    if symbol.is_integer and value.denominator != 1:
        raise InvalidArgument(f"{symbol.name} is an integer, got {format_number(value)}")
    if symbol.is_positive and value <= 0:
        raise InvalidArgument(f"{symbol.name} is positive, got {format_number(value)}")
    if symbol.is_nonnegative and value < 0:
        raise InvalidArgument(f"{symbol.name} is non-negative, got {format_number(value)}")


def _dimension(dim: Expr, values: Mapping[str, Fraction], name: str) -> int:
    if isinstance(dim, Symbol):
        if dim.name not in values:
            raise InvalidArgument(f"the setting gives no value for {dim.name}")
        value = values[dim.name]
    else:
        value = Fraction(int(dim))
    if value.denominator != 1 or value < 1:
        raise InvalidArgument(f"the dimension of {name} must be a positive integer")
    return int(value)


def _unit_law(name: str, raw: Any, dims: Mapping[str, int]) -> UnitLaw:
    if isinstance(raw, str):
        return UnitLaw(name, dims[name], (), distribution(raw))
    if not isinstance(raw, Mapping):
        raise InvalidArgument(f"{name}: give a spec or {{'noise': SPEC, UNIT: coefficient}}")
    parents = []
    noise = None
    for key, value in raw.items():
        if key == NOISE_KEY:
            noise = distribution(value)
        elif key in dims:
            if dims[key] != dims[name]:
                raise InvalidArgument(f"{name} and {key} differ in shape; cannot combine them")
            parents.append((key, as_fraction(value, f"{name}'s coefficient on {key}")))
        else:
            raise InvalidArgument(f"{name} refers to {key!r}, which is not a unit")
    if not parents and noise is None:
        raise InvalidArgument(f"{name}: a combination needs at least one unit or a noise")
    return UnitLaw(name, dims[name], tuple(parents), noise)


def _dependency_order(laws: Iterable[UnitLaw]) -> list[UnitLaw]:
    pending = {law.name: law for law in laws}
    done: list[UnitLaw] = []
    names: set[str] = set()
    while pending:
        ready = [law for law in pending.values() if all(p in names for p, _ in law.parents)]
        if not ready:
            raise InvalidArgument(f"the units {', '.join(pending)} are defined in a cycle")
        for law in ready:
            done.append(law)
            names.add(law.name)
            del pending[law.name]
    return done


# ----------------------------------------------------------- independence


def independent_blocks(model: Model, blocks: Iterable[tuple[str, set[AtomKey]]]) -> str:
    """'' when the blocks' latent sets are pairwise disjoint, else why not."""
    seen: dict[LatentKey, str] = {}
    for label, atoms in blocks:
        latents = {key for atom in atoms for key in model.forms[atom]}
        for key in latents:
            if key in seen and seen[key] != label:
                return f"{seen[key]} and {label} share the latent draw {_latent_name(key)}"
            seen[key] = label
    return ""


def _latent_name(key: LatentKey) -> str:
    return key[0] if key[1] == 0 else f"{key[0]}_{key[1]}"


def _atoms_of(model: Model, name: str) -> set[AtomKey]:
    return {atom for atom in model.forms if atom[0] == name}


def independence_problem(model: Model, assumption: Assumption) -> str | None:
    """For an Independent… assumption: '' if the model satisfies it, a reason if not.

    None when ``assumption`` is not about independence.
    """
    if isinstance(assumption, Independent):
        names = [u.name for u in assumption.units]
        return independent_blocks(model, ((n, _atoms_of(model, n)) for n in names))
    if isinstance(assumption, IndependentComponents):
        blocks = [
            (f"{atom[0]}_{atom[1]}", {atom})
            for v in assumption.vectors
            for atom in sorted(_atoms_of(model, v.name))
        ]
        return independent_blocks(model, blocks)
    if isinstance(assumption, IndependentPairs):
        names = [v.name for v in assumption.vectors]
        dim = model.unit(names[0]).dim
        blocks = [(f"index {i}", {(n, i) for n in names}) for i in range(1, dim + 1)]
        return independent_blocks(model, blocks)
    return None
