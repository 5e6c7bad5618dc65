"""Random models of a context: the worlds the oracle (:mod:`.semantics`) judges terms in.

:func:`draw_world` reads the terms and assumptions, then draws

- every dimension from 1..3 (1 and 2 often: the small cases break rules);
- every free index within its declared range (or 1..3), declared-distinct pairs apart;
- every constant within its sign (declared ``Positive``, or the symbol's own
  ``positive``/``nonnegative``/``integer``), a constant a moment names set from it;
- a finite joint law for the random atoms: one latent draw per atom from a small
  law (a point mass among them), an atom's declared mean and variance fitted by the
  two-point law μ ± σ, and correlations added between atoms only where no declared
  independence separates them; random variables defined by others (``Y = X``) are
  computed from them.

Then it checks the world against every assumption with the semantics
(:func:`~.semantics.check_world`); a world that fails is returned with the reason,
never used. Choices come from a :class:`Chooser`, so Hypothesis (which shrinks) or
a seeded ``random.Random`` (which is fast) can drive the same builder.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol, TypeVar

import mpmath
import sympy
from sympy import Symbol

from scaledattn.errors import Undecided, Undefined
from scaledattn.kernel.assumptions import (
    Assumption,
    Independence,
    Moment,
    Positive,
)
from scaledattn.kernel.expr import (
    Component,
    CrossSum,
    DotProduct,
    E,
    IndexSum,
    RandomVariable,
    Var,
    VectorLabel,
)
from scaledattn.kernel.vectors import Distinct, Entries, Entry, IndexRange, Softmax
from scaledattn.numeric.semantics import (
    DIGITS,
    AtomKey,
    Num,
    World,
    check_world,
    plus,
    square_root,
    times,
    value,
)

__all__ = ["TOO_LARGE", "Chooser", "RandomChooser", "draw_world", "pick", "world_of"]

T = TypeVar("T")

MAX_DIM = 3
#: Why no world was drawn when the joint law has too many outcomes to enumerate.
TOO_LARGE = "no finite law small enough to enumerate fits the declared moments"
MAX_OUTCOMES = 64
LAWS: tuple[tuple[tuple[Fraction, Fraction], ...], ...] = (
    ((Fraction(-1), Fraction(1, 2)), (Fraction(1), Fraction(1, 2))),  # a fair ±1 coin
    ((Fraction(0), Fraction(2, 3)), (Fraction(1), Fraction(1, 3))),  # Bernoulli(1/3)
    ((Fraction(-1), Fraction(1, 3)), (Fraction(0), Fraction(1, 3)), (Fraction(2), Fraction(1, 3))),
    ((Fraction(1, 2), Fraction(1)),),  # a point mass
)
REALS = tuple(Fraction(x) for x in ("-2", "-1", "-1/2", "0", "1/2", "1", "3/2", "2", "3"))
POSITIVES = tuple(x for x in REALS if x > 0)
ENTRIES = tuple(Fraction(x) for x in ("-1", "0", "1/2", "1", "2"))


class Chooser(Protocol):
    """A source of choices: an integer in lo..hi (inclusive)."""

    def integer(self, lo: int, hi: int) -> int:
        """An integer in lo..hi."""


class RandomChooser:
    """Choices from a seeded ``random.Random`` (fast, for long campaigns)."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def integer(self, lo: int, hi: int) -> int:
        """An integer in lo..hi."""
        return self.rng.randint(lo, hi)


def pick(chooser: Chooser, items: Sequence[T]) -> T:
    """One of ``items`` (the first is the simplest: shrinking moves towards it)."""
    return items[chooser.integer(0, len(items) - 1)]


# ------------------------------------------------------------------- reading


@dataclass
class _Roles:
    scalars: dict[str, None]
    vectors: dict[str, Any]  # label -> dimension expression (or None)
    reals: dict[str, Any]  # real vector name -> dimension expression
    dims: dict[Symbol, None]
    indices: dict[Symbol, None]
    constants: dict[Symbol, None]


def _nodes(items: Iterable[Any]) -> Iterable[Any]:
    for item in items:
        yield from sympy.preorder_traversal(sympy.sympify(item))


def _assumption_parts(a: Assumption) -> list[Any]:
    if isinstance(a, Moment):
        return [a.lhs, a.value]
    if isinstance(a, Positive):
        return [a.symbol]
    if isinstance(a, Entries):
        return [a.body, a.dim, a.index]
    if isinstance(a, IndexRange):
        return [a.index, a.upper]
    if isinstance(a, Distinct):
        return list(a.pair)
    parts: list[Any] = []
    for unit in getattr(a, "units", ()) or ():
        parts.append(unit)
    return parts


def _roles(terms: Sequence[Any], assumptions: Sequence[Assumption]) -> _Roles:
    r = _Roles({}, {}, {}, {}, {}, {})
    defined = {a.name for a in assumptions if isinstance(a, Entries)}
    items = [*terms, *(p for a in assumptions for p in _assumption_parts(a))]
    for a in assumptions:
        for unit in getattr(a, "units", ()) or ():
            if isinstance(unit, RandomVariable):
                r.scalars[unit.name] = None
            elif isinstance(unit, VectorLabel):
                r.vectors.setdefault(unit.name, None)
        for v in getattr(a, "vectors", ()) or ():
            r.vectors.setdefault(v.name, None)
        if isinstance(a, Entries):
            r.dims.update(dict.fromkeys(s for s in a.dim.free_symbols))
    for node in _nodes(items):
        if isinstance(node, RandomVariable):
            r.scalars[node.name] = None
        elif isinstance(node, Component):
            r.vectors.setdefault(node.label.name, None)
        elif isinstance(node, DotProduct):
            for label in node.args[:2]:
                r.vectors[label.name] = node.dim
            r.dims.update(dict.fromkeys(node.dim.free_symbols))
        elif isinstance(node, (IndexSum, CrossSum)):
            r.dims.update(dict.fromkeys(node.upper.free_symbols))
        elif isinstance(node, (Entry, Softmax)):
            r.dims.update(dict.fromkeys(node.dim.free_symbols))
            if node.vector not in defined:
                r.reals[node.vector] = node.dim
        elif isinstance(node, IndexRange):
            r.dims.update(dict.fromkeys(node.upper.free_symbols))
        elif isinstance(node, Symbol) and not isinstance(node, (RandomVariable, VectorLabel)):
            if node.is_integer:
                r.indices[node] = None
            else:
                r.constants[node] = None
    for a in assumptions:
        if isinstance(a, IndexRange):
            r.dims.update(dict.fromkeys(a.upper.free_symbols))
    for d in r.dims:
        r.indices.pop(d, None)
    return r


# ------------------------------------------------------------------- drawing


def _constant_value(s: Symbol, positive: set[Symbol], chooser: Chooser) -> Fraction:
    if s.is_integer:
        low = 1 if (s.is_positive or s in positive) else (0 if s.is_nonnegative else -2)
        return Fraction(chooser.integer(low, 3))
    if s.is_positive or s in positive:
        return pick(chooser, POSITIVES)
    if s.is_nonnegative:
        return pick(chooser, (Fraction(0), *POSITIVES))
    if s.is_nonzero:
        return pick(chooser, tuple(x for x in REALS if x != 0))
    return pick(chooser, (Fraction(1, 2), *REALS))


def _fit(mean: Num, variance: Num) -> tuple[tuple[Num, Fraction], ...] | None:
    """The two-point law μ ± σ (a point mass when σ = 0); None for a negative variance."""
    if variance < 0:
        return None
    if variance == 0:
        return ((mean, Fraction(1)),)
    root = square_root(variance)
    low, high = plus(mean, times(Fraction(-1), root)), plus(mean, root)
    return ((low, Fraction(1, 2)), (high, Fraction(1, 2)))


def _declared_moments(assumptions: Sequence[Assumption], world: World) -> dict[str, dict[str, Num]]:
    """Numeric mean and variance declared for a scalar or for every component of a vector."""
    found: dict[str, dict[str, Num]] = {}
    for a in assumptions:
        if not (isinstance(a, Moment) and isinstance(a.lhs, (E, Var))):
            continue
        atom = a.lhs.args[0]
        if isinstance(atom, RandomVariable):
            name = atom.name
        elif isinstance(atom, Component) and isinstance(atom.index, Symbol):
            name = atom.label.name
        else:
            continue
        if a.value.free_symbols & {atom.index} if isinstance(atom, Component) else False:
            continue  # a moment that depends on the index: checked, not fitted
        try:
            v = value(a.value, world)
        except (Undefined, Undecided):
            continue
        found.setdefault(name, {})["mean" if isinstance(a.lhs, E) else "var"] = v
    return found


def _blocks(family: Independence, atom: AtomKey) -> Any:
    name, i = atom
    if i == 0:
        return family.block_key(RandomVariable(name))
    return family.block_key(Component(VectorLabel(name), i))


def _may_share(atoms: Sequence[AtomKey], families: Sequence[Independence]) -> bool:
    """Whether these atoms may share a latent draw under every declared independence."""
    for family in families:
        keys = {k for k in (_blocks(family, a) for a in atoms) if k is not None}
        if len(keys) > 1:
            return False
    return True


def draw_world(
    terms: Sequence[Any],
    assumptions: Sequence[Assumption],
    chooser: Chooser,
    *,
    defined: Mapping[str, Any] | None = None,
    fixed: Mapping[Symbol, Fraction] | None = None,
) -> tuple[World | None, str]:
    """A random world of the context, checked against every assumption.

    Returns (world, '') or (None, why no world was made): a failed check, or a law
    too large to enumerate. ``defined`` gives random variables as functions of the
    others (``{"Y": X}``), ``fixed`` values for some symbols.
    """
    defined = dict(defined or {})
    roles = _roles([*terms, *defined.values()], assumptions)
    positive = {a.symbol for a in assumptions if isinstance(a, Positive)}
    values: dict[Symbol, Num] = {}
    for d in roles.dims:
        values[d] = Fraction(pick(chooser, (1, 2, 3, 2)))
    ranges = {a.index: a.upper for a in assumptions if isinstance(a, IndexRange)}
    top = max((int(v) for v in values.values()), default=MAX_DIM) if values else MAX_DIM
    distinct = [tuple(a.pair) for a in assumptions if isinstance(a, Distinct)]
    for s in roles.indices:
        upper = ranges.get(s)
        if upper is not None:
            try:
                hi = int(value(upper, World(values=values)))
            except (Undefined, Undecided, TypeError):
                hi = top
        else:
            hi = max(top, 1)
        values[s] = Fraction(chooser.integer(1, max(hi, 1)))
    for t, w in distinct:
        if t in values and w in values and values[t] == values[w]:
            values[w] = Fraction(int(values[w]) % max(top, 2) + 1)
    for s in roles.constants:
        values[s] = _constant_value(s, positive, chooser)
    for s, v in (fixed or {}).items():
        values[s] = v
    world = World(values=values)
    world.definitions = {a.name: a for a in assumptions if isinstance(a, Entries)}
    world.vectors = {
        name: tuple(pick(chooser, ENTRIES) for _ in range(MAX_DIM)) for name in roles.reals
    }
    dims: dict[str, int] = {}
    for label, dim in roles.vectors.items():
        try:
            dims[label] = int(value(dim, world)) if dim is not None else top
        except (Undefined, Undecided, TypeError):
            dims[label] = top
    world.dims = dims
    try:
        with mpmath.workdps(DIGITS):
            outcomes = _law(roles, dims, assumptions, world, chooser, defined)
    except Undefined as err:
        return None, str(err)
    if outcomes is None:
        return None, TOO_LARGE
    world.outcomes = outcomes
    _solve_named_moments(assumptions, world)
    problem = check_world(world, tuple(assumptions))
    if problem:
        return None, problem
    return world, ""


def _law(
    roles: _Roles,
    dims: Mapping[str, int],
    assumptions: Sequence[Assumption],
    world: World,
    chooser: Chooser,
    defined: Mapping[str, Any],
) -> tuple[tuple[Fraction, dict[AtomKey, Num]], ...] | None:
    atoms: list[AtomKey] = [(s, 0) for s in roles.scalars if s not in defined]
    for label, n in dims.items():
        atoms += [(label, i) for i in range(1, n + 1)]
    declared = _declared_moments(assumptions, world)
    families = [a for a in assumptions if isinstance(a, Independence)]
    laws: dict[AtomKey, tuple[tuple[Num, Fraction], ...]] = {}
    for atom in atoms:
        moments = declared.get(atom[0])
        if moments:
            law = _fit(moments.get("mean", Fraction(0)), moments.get("var", Fraction(1)))
            if law is None:
                raise Undefined(f"a declared variance of {atom[0]} is negative")
            laws[atom] = law
        else:
            laws[atom] = pick(chooser, LAWS)
    size = 1
    for law in laws.values():
        size *= len(law)
    if size > MAX_OUTCOMES:
        laws = {a: (law if a[0] in declared else LAWS[-1]) for a, law in laws.items()}
        size = 1
        for law in laws.values():
            size *= len(law)
        if size > MAX_OUTCOMES:
            return None  # too many outcomes to enumerate (q of dimension 64)
    forms: dict[AtomKey, dict[AtomKey, Fraction]] = {a: {a: Fraction(1)} for a in atoms}
    free = [a for a in atoms if a[0] not in declared]
    for _ in range(chooser.integer(0, 2) if len(free) > 1 else 0):
        a, b = pick(chooser, free), pick(chooser, free)
        if a == b:
            continue
        users = [x for x in atoms if a in forms[x]] + [b]
        if _may_share(users, families):
            forms[b][a] = forms[b].get(a, Fraction(0)) + pick(
                chooser, (Fraction(1), Fraction(-1), Fraction(2))
            )
    latents = list(laws)
    outcomes: list[tuple[Fraction, dict[AtomKey, Num]]] = []
    for combo in itertools.product(*(laws[x] for x in latents)):
        p = Fraction(1)
        draw: dict[AtomKey, Num] = {}
        for x, (v, q) in zip(latents, combo, strict=True):
            p *= q
            draw[x] = v
        omega: dict[AtomKey, Num] = {}
        for atom, form in forms.items():
            total: Num = Fraction(0)
            for x, c in form.items():
                total = plus(total, times(c, draw[x]))
            omega[atom] = total
        outcomes.append((p, omega))
    for name, expr in defined.items():
        for _p, omega in outcomes:
            try:
                omega[(name, 0)] = value(expr, world, omega)
            except Undecided as err:
                raise Undefined(f"the definition of {name} has no value: {err}") from None
    return tuple(outcomes)


def _solve_named_moments(assumptions: Sequence[Assumption], world: World) -> None:
    """A moment whose value is a lone constant (Cov(X, Y) = ρ) gives that constant's value."""
    for a in assumptions:
        if not isinstance(a, Moment) or not isinstance(a.value, Symbol):
            continue
        s = a.value
        if s.is_integer or isinstance(s, RandomVariable):
            continue
        schematic = sorted(
            {c.index for c in a.lhs.atoms(Component) if isinstance(c.index, Symbol)}, key=str
        )
        lhs = a.lhs.xreplace({i: sympy.Integer(1) for i in schematic})
        try:
            world.values[s] = value(lhs, world)
        except (Undefined, Undecided):
            continue


#: A catalogue model is turned into a world only if its joint law has at most this many outcomes.
MAX_MODEL_OUTCOMES = 4096


def world_of(model: Any, defined: Mapping[str, Any] | None = None) -> World | None:
    """The world of a catalogue :class:`~scaledattn.numeric.model.Model` with finite laws.

    Its latent draws are enumerated (None when a law is not finite or there are too many
    outcomes); random variables in ``defined`` are computed from the others at each
    outcome, whatever law the model gave them.
    """
    latents: list[tuple[tuple[str, int], list[tuple[Fraction, Fraction]]]] = []
    size = 1
    for group in model.groups:
        if not group.distribution.finite:
            return None
        law = sorted(group.distribution.pmf().items())
        for i in range(1) if group.dim == 0 else range(1, group.dim + 1):
            latents.append(((group.name, i), law))
            size *= len(law)
            if size > MAX_MODEL_OUTCOMES:
                return None
    world = World(named=dict(model.values))
    world.dims = {u.name: u.dim for u in model.units if u.dim}
    outcomes: list[tuple[Fraction, dict[AtomKey, Num]]] = []
    with mpmath.workdps(DIGITS):
        for combo in itertools.product(*(law for _, law in latents)):
            p = Fraction(1)
            draw: dict[tuple[str, int], Fraction] = {}
            for (key, _), (v, q) in zip(latents, combo, strict=True):
                p *= q
                draw[key] = v
            omega: dict[AtomKey, Num] = {
                atom: sum((c * draw[k] for k, c in form.items()), Fraction(0))
                for atom, form in model.forms.items()
            }
            outcomes.append((p, omega))
        world.outcomes = tuple(outcomes)
        for name, expr in (defined or {}).items():
            for _p, omega in outcomes:
                try:
                    omega[(name, 0)] = value(expr, world, omega)
                except (Undefined, Undecided):
                    return None
    return world
