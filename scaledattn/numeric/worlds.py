"""Random models of a context: the worlds the oracle (:mod:`.semantics`) judges terms in.

:func:`draw_world` reads the terms and assumptions, then draws

- every dimension from 1..3 (1 and 2 often: the small cases break rules);
- every free index within its declared range (or 1..3), declared-distinct pairs apart;
- every constant within its sign (declared ``Positive``, or the symbol's own
  ``positive``/``nonnegative``/``integer``), a constant a moment names set from it;
- the entries of every fixed real vector (a token x, a bias b_q) from a few small numbers;
- a finite joint law for the random atoms: one latent draw per atom from a small
  law (a point mass among them), an atom's declared mean and variance fitted by the
  two-point law μ ± σ, and correlations added between atoms only where no declared
  independence separates them; a declared Cov(X, Y), E[XY] or E[X²Y²] of two atoms
  (Cov(qᵢ, kᵢ) = ρ at every i) fitted as a correlated pair (``_pair_laws``: the jointly
  Gaussian E[qᵢ²kᵢ²] = 1 + 2ρ² included, a free ρ given a correlation in [−1, 1]);
  random variables defined by others (``Y = X``) are computed from them. A declared
  moment may depend on the component's index
  (E[qᵢ] = b_{q,i}: each component gets its own) and may be a moment of other atoms
  (Var(qᵢ) = Var(Σₐ wₐxₐ): fitted once the law of w is), as in proofs/projected_scores.py.

With ``shrink=True``, a world whose law has too many outcomes to enumerate is drawn
again with one of its largest dimensions one smaller, down to 1, rather than given up.

Then it checks the world against every assumption with the semantics
(:func:`~.semantics.check_world`); a world that fails is returned with the reason,
never used. Choices come from a :class:`Chooser`, so Hypothesis (which shrinks) or
a seeded ``random.Random`` (which is fast) can drive the same builder.

One of the model builders, kept apart on purpose: it draws *random finite* worlds for
the oracle (fuzzing, the verifier's checks), while :mod:`~scaledattn.numeric.model`
builds the model a proof module's written data describe (infinite laws included) for
the numeric evidence; :mod:`~scaledattn.numeric.settings` only writes such data from
the assumptions, and :mod:`~scaledattn.numeric.scores` the concrete scores of the
softmax calculus, which has no random variables.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Mapping, Sequence, Set
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
from scaledattn.kernel.binders import subst
from scaledattn.kernel.expr import (
    Component,
    Cov,
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
    random_vectors_of,
    square_root,
    times,
    value,
)

__all__ = ["TOO_LARGE", "Chooser", "RandomChooser", "draw_world", "pick", "world_of"]

T = TypeVar("T")
#: A finite law: (value, probability) pairs.
Law = tuple[tuple[Num, Fraction], ...]

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
#: Variances tried for an atom whose mean alone is declared (a point mass among them).
SPREADS = (Fraction(1), Fraction(0), Fraction(1, 4))
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
    summed: dict[str, set[Any]] = {}  # a vector not in a dot product: the bounds it is summed to
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
            for c in node.body.atoms(Component):  # Σₐ wₐxₐ: w has the sum's dimension
                if c.index in node.indices:
                    summed.setdefault(c.label.name, set()).add(node.upper)
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
    for label, uppers in summed.items():
        if r.vectors.get(label) is None and len(uppers) == 1:
            r.vectors[label] = next(iter(uppers))
    for a in assumptions:
        if isinstance(a, IndexRange):
            r.dims.update(dict.fromkeys(a.upper.free_symbols))
    for d in r.dims:
        r.indices.pop(d, None)
    # A symbol only a binder of the terms binds (the i of Σᵢ, the λ of a limit) is the
    # binder's: the world gives it no value (a model line never shows one).
    free: set[Any] = set()
    for item in items:
        if isinstance(item, sympy.Basic):
            free |= item.free_symbols
    r.indices = {s: None for s in r.indices if s in free}
    r.constants = {s: None for s in r.constants if s in free}
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


def _fit(mean: Num, variance: Num) -> Law | None:
    """The two-point law μ ± σ (a point mass when σ = 0); None for a negative variance."""
    if variance < 0:
        return None
    if variance == 0:
        return ((mean, Fraction(1)),)
    root = square_root(variance)
    low, high = plus(mean, times(Fraction(-1), root)), plus(mean, root)
    return ((low, Fraction(1, 2)), (high, Fraction(1, 2)))


@dataclass(frozen=True)
class _Declared:
    """One declared mean or variance of one atom: E[qᵢ] = b_{q,i} at i = 2 is E[q₂] = b_{q,2}."""

    atom: AtomKey
    moment: str  # "mean", "var" or "fourth" (E[Z⁴])
    value: Any  # a term: the assumption's value at this atom's index


def _declared_kind(lhs: Any) -> tuple[str, Any] | None:
    """("mean", Z) for E[Z], ("var", Z) for Var(Z), ("fourth", Z) for E[Z⁴]; else None."""
    if isinstance(lhs, Var):
        return "var", lhs.args[0]
    if isinstance(lhs, E):
        inner = lhs.args[0]
        if inner.is_Pow and inner.exp == 4:
            return "fourth", inner.base
        return "mean", inner
    return None


def _declarations(assumptions: Sequence[Assumption], atoms: Sequence[AtomKey]) -> list[_Declared]:
    """Each atom's declared mean, variance and E[Z⁴], a schematic index read at its index."""
    found: list[_Declared] = []
    for a in assumptions:
        kind = _declared_kind(a.lhs) if isinstance(a, Moment) else None
        if kind is None or not isinstance(a, Moment):
            continue
        moment, unit = kind
        if isinstance(unit, RandomVariable):
            found.append(_Declared((unit.name, 0), moment, a.value))
        elif isinstance(unit, Component) and isinstance(unit.index, Symbol):
            for name, i in atoms:
                if name == unit.label.name and i > 0:
                    at = a.value.xreplace({unit.index: sympy.Integer(i)})
                    found.append(_Declared((name, i), moment, at))
        elif isinstance(unit, Component) and unit.index.is_Integer:
            found.append(_Declared((unit.label.name, int(unit.index)), moment, a.value))
    return found


def _atoms_named(term: Any, atoms: Sequence[AtomKey]) -> set[AtomKey]:
    """The atoms a term's value may read: its random variables and random vectors, whole."""
    names = {s.name for s in sympy.sympify(term).atoms(RandomVariable)}
    names |= {label.name for label in random_vectors_of(term)}
    return {a for a in atoms if a[0] in names}


def _product_world(world: World, laws: Mapping[AtomKey, Law]) -> World | None:
    """``world`` with the independent product of ``laws`` as its law (None if too large)."""
    size = 1
    for law in laws.values():
        size *= len(law)
    if size > MAX_OUTCOMES:
        return None
    keys = list(laws)
    outcomes = []
    for combo in itertools.product(*(laws[k] for k in keys)):
        p = Fraction(1)
        for _v, q in combo:
            p *= q
        outcomes.append((p, {k: v for k, (v, _q) in zip(keys, combo, strict=True)}))
    return World(
        values=world.values,
        vectors=world.vectors,
        definitions=world.definitions,
        outcomes=tuple(outcomes),
        dims=world.dims,
    )


def _declared_moments(
    assumptions: Sequence[Assumption], atoms: Sequence[AtomKey], world: World
) -> dict[AtomKey, dict[str, Num]]:
    """Numeric mean and variance declared for each atom, in rounds.

    A value that reads no random atom is evaluated at once; a value that is a moment
    of other atoms (Var(qᵢ) = Var(Σₐ wₐxₐ)) once all of those have their laws fitted
    (they are then independent latent draws, so its value is that of their product
    law). A value that never gets there is left out: the world's check judges it.
    """
    pending = _declarations(assumptions, atoms)
    found: dict[AtomKey, dict[str, Num]] = {}
    while pending:
        unsettled = {d.atom for d in pending}  # an atom is fitted once all its moments are
        fitted: dict[AtomKey, Law] = {}
        for atom, moments in found.items():
            law = _fitted(moments)
            if atom not in unsettled and law is not None:
                fitted[atom] = law
        waiting: list[_Declared] = []
        for d in pending:
            reads = _atoms_named(d.value, atoms)
            if not reads <= fitted.keys():
                waiting.append(d)
                continue
            where = _product_world(world, {a: fitted[a] for a in reads})
            try:
                if where is None:
                    raise Undecided("too many outcomes")
                found.setdefault(d.atom, {})[d.moment] = value(d.value, where)
            except (Undefined, Undecided):
                continue
        if len(waiting) == len(pending):
            break
        pending = waiting
    return found


def _fitted(moments: Mapping[str, Num]) -> Law | None:
    """The law fitted to an atom's declared moments (mean 0 and variance 1 if not declared)."""
    mean, variance = moments.get("mean", Fraction(0)), moments.get("var", Fraction(1))
    if "fourth" in moments:
        law = _fit_fourth(mean, variance, moments["fourth"])
        if law is not None:
            return law
    return _fit(mean, variance)


def _fit_fourth(mean: Num, variance: Num, fourth: Num) -> Law | None:
    """The symmetric three-point law μ, μ ± a with P(μ ± a) = p/2 and a declared E[Z⁴].

    Its variance is p·a² and its central fourth moment p·a⁴, so a² = κ/σ² and p = σ⁴/κ,
    where κ = E[Z⁴] − μ⁴ − 6μ²σ² (a symmetric law has no third central moment). A normal
    law's E[Z⁴] = 3σ⁴ (μ = 0) gives p = 1/3 and a = √3·σ. None where no such law exists
    (κ < σ⁴, a probability that is not a fraction): the two-point law is fitted instead,
    and the world's check judges it.
    """
    if not all(isinstance(x, Fraction) for x in (mean, variance, fourth)) or variance <= 0:
        return None
    central = fourth - mean**4 - 6 * mean**2 * variance
    if central < variance**2:
        return None
    p = variance**2 / central
    a = square_root(central / variance)
    low, high = plus(mean, times(Fraction(-1), a)), plus(mean, a)
    law = ((low, p / 2), (mean, 1 - p), (high, p / 2))
    return tuple((v, q) for v, q in law if q)


# ------------------------------------------------------------- correlated pairs

#: Correlations tried for a pair whose declared covariance is a free constant
#: (Cov(qᵢ, kᵢ) = ρ): each with a rational √(1 − r²), and the bounds ±1 (kᵢ = ±qᵢ).
CORRELATIONS = (Fraction(0), Fraction(3, 5), Fraction(-4, 5), Fraction(1), Fraction(-1))


def _unit_atoms(unit: Any, atoms: Sequence[AtomKey]) -> dict[Any, AtomKey] | None:
    """The atoms one unit of a pair moment names: {index value or None: atom}, else None.

    A scalar X is ("X", 0) (key None); qᵢ with a schematic i is every (q, n) (key n);
    q₂ is ("q", 2) (key None).
    """
    if isinstance(unit, RandomVariable):
        return {None: (unit.name, 0)} if (unit.name, 0) in atoms else None
    if isinstance(unit, Component) and isinstance(unit.index, Symbol) and unit.index.is_integer:
        found = {i: (n, i) for n, i in atoms if n == unit.label.name and i > 0}
        return found or None
    if isinstance(unit, Component) and unit.index.is_Integer:
        key = (unit.label.name, int(unit.index))
        return {None: key} if key in atoms else None
    return None


def _pair_kind(lhs: Any) -> tuple[str, Any, Any] | None:
    """("cov", X, Y) for Cov(X, Y), ("mixed", X, Y) for E[XY], ("cross", X, Y) for E[X²Y²]."""
    if isinstance(lhs, Cov):
        return "cov", lhs.args[0], lhs.args[1]
    if not isinstance(lhs, E) or not isinstance(lhs.args[0], sympy.Mul):
        return None
    factors = lhs.args[0].args
    if len(factors) != 2:
        return None
    bases = [f.base if f.is_Pow else f for f in factors]
    powers = [f.exp if f.is_Pow else sympy.Integer(1) for f in factors]
    if powers == [1, 1]:
        return "mixed", bases[0], bases[1]
    if powers == [2, 2]:
        return "cross", bases[0], bases[1]
    return None


def _pair_declarations(
    assumptions: Sequence[Assumption], atoms: Sequence[AtomKey]
) -> dict[tuple[AtomKey, AtomKey], dict[str, Any]]:
    """Each pair of atoms' declared Cov, E[XY] and E[X²Y²], a schematic index read at each index.

    Cov(qᵢ, kᵢ) = ρ "for every i" pairs (q, n) with (k, n) at every n both vectors have;
    two different schematic indices (Cov(qᵢ, kⱼ)) pair nothing here.
    """
    found: dict[tuple[AtomKey, AtomKey], dict[str, Any]] = {}
    for a in assumptions:
        kind = _pair_kind(a.lhs) if isinstance(a, Moment) else None
        if kind is None or not isinstance(a, Moment):
            continue
        moment, x, y = kind
        xs, ys = _unit_atoms(x, atoms), _unit_atoms(y, atoms)
        if xs is None or ys is None:
            continue
        ix = x.index if None not in xs else None
        iy = y.index if None not in ys else None
        if ix is not None and iy is not None and ix != iy:
            continue
        index = ix if ix is not None else iy
        for n in sorted(set(xs) | set(ys), key=lambda k: -1 if k is None else k):
            first, second = xs.get(n, xs.get(None)), ys.get(n, ys.get(None))
            if first is None or second is None or first == second:
                continue
            at = a.value if index is None or n is None else a.value.xreplace(
                {index: sympy.Integer(n)}
            )  # fmt: skip
            key = (first, second) if first < second else (second, first)
            found.setdefault(key, {}).setdefault(moment, at)
    return found


def _pair_laws(
    first: AtomKey,
    second: AtomKey,
    declared: Mapping[str, Any],
    marginals: Mapping[AtomKey, Mapping[str, Num]],
    world: World,
    chooser: Chooser,
    keep: frozenset[Symbol],
    chosen: set[Symbol],
) -> tuple[Law, Law, Num] | None:
    """Latent laws for a correlated pair (X, Y) and the coefficient c/σ_X² of X in Y.

    X = μ_X + σ_X·U and Y = (c/σ_X²)·X + Y₀ with Y₀ = μ_Y − (c/σ_X²)·μ_X + g·V,
    g² = σ_Y² − c²/σ_X², U and V independent with mean 0, variance 1, no third moment:
    then E[X] = μ_X, Var(X) = σ_X², E[Y] = μ_Y, Var(Y) = σ_Y² and Cov(X, Y) = c. A
    declared E[X²Y²] = K fixes E[U⁴] = m, since
    E[X²Y²] = μ_X²(μ_Y² + σ_Y²) + 4μ_Xμ_Y·c + σ_X²(μ_Y² + g²) + c²·m: for the jointly
    Gaussian K = σ_X²σ_Y² + 2c² (zero means) m = 3, U the three-point law 0, ±√3. A
    declared E[Y⁴] fixes E[V⁴] likewise. A covariance that is a free constant (ρ) takes
    r·σ_Xσ_Y for an r of :data:`CORRELATIONS`, and the constant that value (added to
    ``chosen``: its exact value stays, not the float the law's moments give; the pairs of
    every other index read it). None when no covariance is declared or it cannot be read;
    Undefined when |c| > σ_Xσ_Y (Cauchy–Schwarz: no law at all has it).
    """
    mx, my = marginals.get(first, {}), marginals.get(second, {})
    mean_x, var_x = mx.get("mean", Fraction(0)), mx.get("var", Fraction(1))
    mean_y, var_y = my.get("mean", Fraction(0)), my.get("var", Fraction(1))
    term, shift = declared.get("cov"), Fraction(0)
    if term is None:
        term, shift = declared.get("mixed"), times(mean_x, mean_y)
    if term is None:
        return None
    if (
        isinstance(term, Symbol)
        and not term.is_integer
        and not isinstance(term, RandomVariable)
        and term not in keep
        and term not in chosen  # every index's pair of Cov(qᵢ, kᵢ) = ρ: one ρ
    ):
        r = pick(chooser, CORRELATIONS)
        cov = times(r, square_root(times(var_x, var_y)))
        world.values[term] = plus(cov, shift)
        chosen.add(term)
    else:
        try:
            cov = plus(value(term, world), times(Fraction(-1), shift))
        except (Undefined, Undecided):
            return None
    if cov != 0 and ("var" not in mx or "var" not in my):
        var_x, var_y = _free_variances(
            (mean_x, var_x, "var" not in mx), (mean_y, var_y, "var" not in my), cov,
            declared.get("cross"), world,
        )  # fmt: skip
    if var_x == 0 or var_y == 0:
        if cov != 0:
            raise Undefined(f"a covariance of {first[0]} and {second[0]} with a constant is not 0")
        return None
    slope = times(cov, 1 / var_x if isinstance(var_x, Fraction) else 1 / mpmath.mpf(var_x))
    gap = plus(var_y, times(Fraction(-1), times(slope, cov)))  # g² = σ_Y² − c²/σ_X²
    if not isinstance(gap, Fraction) and abs(gap) < mpmath.mpf(10) ** (-(DIGITS - 10)):
        gap = Fraction(0)
    if gap < 0:
        raise Undefined(
            f"a declared covariance of {first[0]} and {second[0]} exceeds the product of their"
            " standard deviations (Cauchy–Schwarz)"
        )
    # U's fourth moment: from a declared E[X²Y²], else X's declared E[X⁴], else a coin.
    fourth_u: Num | None = None
    cross = declared.get("cross")
    if cross is not None and cov != 0:
        try:
            want = value(cross, world)
        except (Undefined, Undecided):
            want = None
        if want is not None:
            rest = plus(
                plus(
                    times(times(mean_x, mean_x), plus(times(mean_y, mean_y), var_y)),
                    times(Fraction(4), times(times(mean_x, mean_y), cov)),
                ),
                times(var_x, plus(times(mean_y, mean_y), gap)),
            )
            fourth_u = times(plus(want, times(Fraction(-1), rest)), _inverse_of(times(cov, cov)))
    if fourth_u is None and "fourth" in mx:
        central = plus(mx["fourth"], times(Fraction(-1), plus(mean_x**4, 6 * mean_x**2 * var_x)))
        fourth_u = times(central, _inverse_of(times(var_x, var_x)))
    law_x, m = _standard_law(mean_x, var_x, fourth_u)
    shifted = plus(mean_y, times(Fraction(-1), times(slope, mean_x)))
    fourth_v: Num | None = None
    if "fourth" in my and gap != 0:
        beta2 = times(slope, cov)  # c²/σ_X², the square of Y's coefficient of U
        central_y = plus(my["fourth"], times(Fraction(-1), plus(mean_y**4, 6 * mean_y**2 * var_y)))
        rest_y = plus(times(times(beta2, beta2), m), times(Fraction(6), times(beta2, gap)))
        fourth_v = times(plus(central_y, times(Fraction(-1), rest_y)), _inverse_of(gap * gap))
    law_y, _ = _standard_law(shifted, gap, fourth_v)
    if law_x is None or law_y is None:
        return None
    return law_x, law_y, slope


def _free_variances(
    x: tuple[Num, Num, bool], y: tuple[Num, Num, bool], cov: Num, cross: Any, world: World
) -> tuple[Num, Num]:
    """Variances no assumption declares ((mean, variance, free) each), fitted to the pair.

    With a declared E[X²Y²] = K, a free σ_Y² is the one that makes E[U⁴] = 3 (the jointly
    Gaussian pair): K = μ_X²μ_Y² + 4μ_Xμ_Y·c + σ_X²μ_Y² + 2c² + σ_Y²(μ_X² + σ_X²), and
    alike for σ_X² (both free: σ_X² = 1 first). Without one, a free variance is
    max(1, c²/σ²) of the other's σ², so that |c| ≤ σ_Xσ_Y. A fit that breaks
    Cauchy–Schwarz keeps the variances given (the world's check then judges them).
    """
    (mean_x, var_x, free_x), (mean_y, var_y, free_y) = x, y
    square = times(cov, cov)
    want: Num | None = None
    if cross is not None:
        try:
            want = value(cross, world)
        except (Undefined, Undecided):
            want = None
    exact = (want, cov, mean_x, mean_y, var_x, var_y)
    if want is None or not all(isinstance(v, Fraction) for v in exact):
        if free_x and free_y:
            top = _larger(Fraction(1), abs(cov))
            return top, top
        given = var_y if free_x else var_x
        if given == 0:  # a declared variance 0: nothing to fit; the world's check judges
            return var_x, var_y
        if free_x:
            return _larger(var_x, times(square, _inverse_of(var_y))), var_y
        return var_x, _larger(var_y, times(square, _inverse_of(var_x)))
    if free_x and free_y:
        var_x, free_x = Fraction(1), False
    both = mean_x * mean_x * mean_y * mean_y + 4 * mean_x * mean_y * cov + 2 * square
    if (mean_x * mean_x + var_x if free_y else mean_y * mean_y + var_y) == 0:
        return var_x, var_y  # E[X²] = 0 (or E[Y²]): X is 0, so no fit; the check judges
    if free_y:
        fitted = (want - both - var_x * mean_y * mean_y) / (mean_x * mean_x + var_x)
        ok = fitted * var_x >= square
        return (var_x, fitted) if ok else (var_x, var_y)
    fitted = (want - both - var_y * mean_x * mean_x) / (mean_y * mean_y + var_y)
    ok = fitted * var_y >= square
    return (fitted, var_y) if ok else (var_x, var_y)


def _larger(a: Num, b: Num) -> Num:
    """The larger of two numbers, a fraction or a 60-digit float each."""
    as_float = [
        mpmath.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else x for x in (a, b)
    ]
    return b if as_float[1] > as_float[0] else a


def _rational(x: Num) -> Fraction | None:
    """``x`` as a fraction: itself, or the small fraction a 60-digit float equals to 45 digits."""
    if isinstance(x, Fraction):
        return x
    near = Fraction(
        mpmath.nstr(x, 50, min_fixed=-mpmath.inf, max_fixed=mpmath.inf)
    ).limit_denominator(10**6)
    return (
        near
        if abs(x - mpmath.mpf(near.numerator) / near.denominator) < mpmath.mpf(10) ** -45
        else None
    )


def _inverse_of(x: Num) -> Num:
    return 1 / x if isinstance(x, Fraction) else 1 / mpmath.mpf(x)


def _standard_law(mean: Num, variance: Num, fourth: Num | None) -> tuple[Law | None, Num]:
    """(μ + σ·U, E[U⁴] = m): U the symmetric three-point law 0, ±√m where m > 1, else ±1.

    P(U = ±√m) = 1/(2m) and P(U = 0) = 1 − 1/m give E[U] = 0, E[U²] = 1, E[U⁴] = m (m = 3
    for a normal law); m is the fraction ``fourth`` is (a float equal to a small fraction
    to 45 digits counts), so the probabilities stay exact. The two-point law μ ± σ has
    E[U⁴] = 1; U has no third moment either way.
    """
    m = None if fourth is None else _rational(fourth)
    if m is None or m <= 1 or not variance > 0:
        return _fit(mean, variance), Fraction(1)
    spread = times(square_root(variance), square_root(m))
    low, high = plus(mean, times(Fraction(-1), spread)), plus(mean, spread)
    return ((low, 1 / (2 * m)), (mean, 1 - 1 / m), (high, 1 / (2 * m))), m


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
    shrink: bool = False,
) -> tuple[World | None, str]:
    """A random world of the context, checked against every assumption.

    Returns (world, '') or (None, why no world was made): a failed check, or a law
    too large to enumerate. ``defined`` gives random variables as functions of the
    others (``{"Y": X}``), ``fixed`` values for some symbols. With ``shrink``, a law
    too large to enumerate is drawn again with a largest (unfixed) dimension one
    smaller, until it fits or every dimension is 1.
    """
    defined = dict(defined or {})
    roles = _roles([*terms, *defined.values()], assumptions)
    dims = {d: Fraction(pick(chooser, (1, 2, 3, 2))) for d in roles.dims}
    cap = MAX_DIM  # the size of a vector whose dimension no term names, and of its indices
    while True:
        world, why = _draw_at(dims, roles, assumptions, chooser, defined, fixed or {}, cap)
        smaller = [d for d in dims if dims[d] > 1 and d not in (fixed or {})]
        if not (shrink and why == TOO_LARGE and (smaller or cap > 1)):
            return world, why
        if not smaller:  # q_i alone names no dimension: its vector drawn smaller
            cap -= 1
            continue
        top = max(dims[d] for d in smaller)
        dims[pick(chooser, sorted((d for d in smaller if dims[d] == top), key=str))] -= 1


def _draw_at(
    dims: Mapping[Symbol, Fraction],
    roles: _Roles,
    assumptions: Sequence[Assumption],
    chooser: Chooser,
    defined: Mapping[str, Any],
    fixed: Mapping[Symbol, Fraction],
    cap: int = MAX_DIM,
) -> tuple[World | None, str]:
    """A world with these dimensions: indices, constants, vectors, the law, then the check.

    ``cap`` bounds the size of a vector whose dimension no term names (and so its indices).
    """
    positive = {a.symbol for a in assumptions if isinstance(a, Positive)}
    values: dict[Symbol, Num] = dict(dims)
    ranges = {a.index: a.upper for a in assumptions if isinstance(a, IndexRange)}
    top = max((int(v) for v in values.values()), default=MAX_DIM) if values else MAX_DIM
    top = top if dims else min(top, cap)
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
        # An index of a range starts at 1; an integer symbol without one at the lowest
        # value its facts allow (0 for a non-negative one, -1 for any integer).
        low = 1 if upper is not None or s.is_positive else (0 if s.is_nonnegative else -1)
        values[s] = Fraction(chooser.integer(low, max(hi, 1)))
    for t, w in distinct:
        if t in values and w in values and values[t] == values[w]:
            values[w] = Fraction(int(values[w]) % max(top, 2) + 1)
    for s in roles.constants:
        values[s] = _constant_value(s, positive, chooser)
    for s, v in fixed.items():
        values[s] = v
    world = World(values=values)
    world.definitions = {a.name: a for a in assumptions if isinstance(a, Entries)}
    world.vectors = {
        name: tuple(pick(chooser, ENTRIES) for _ in range(MAX_DIM)) for name in roles.reals
    }
    sizes: dict[str, int] = {}
    for label, dim in roles.vectors.items():
        try:
            sizes[label] = int(value(dim, world)) if dim is not None else top
        except (Undefined, Undecided, TypeError):
            sizes[label] = top
    world.dims = sizes
    keep, chosen = frozenset(fixed), set[Symbol]()
    try:
        with mpmath.workdps(DIGITS):
            outcomes = _law(roles, sizes, assumptions, world, chooser, defined, keep, chosen)
    except Undefined as err:
        return None, str(err)
    if outcomes is None:
        return None, TOO_LARGE
    world.outcomes = outcomes
    _solve_named_moments(assumptions, world, keep=keep | chosen)
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
    keep: frozenset[Symbol] = frozenset(),
    chosen: set[Symbol] | None = None,
) -> tuple[tuple[Fraction, dict[AtomKey, Num]], ...] | None:
    """The joint law: each atom's fitted or drawn law, correlated pairs, added correlations.

    ``keep``: constants whose values the caller fixed (a pair's covariance that is one of
    them is read, never chosen); ``chosen`` collects the constants a pair's fit set.
    """
    chosen = set() if chosen is None else chosen
    atoms: list[AtomKey] = [(s, 0) for s in roles.scalars if s not in defined]
    for label, n in dims.items():
        atoms += [(label, i) for i in range(1, n + 1)]
    declared = _declared_moments(assumptions, atoms, world)
    families = [a for a in assumptions if isinstance(a, Independence)]
    laws: dict[AtomKey, Law] = {}
    forms: dict[AtomKey, dict[AtomKey, Num]] = {a: {a: Fraction(1)} for a in atoms}
    paired: set[AtomKey] = set()
    for (first, second), joint in _pair_declarations(assumptions, atoms).items():
        if {first, second} & (paired | defined.keys()) or not _may_share([first, second], families):
            continue  # each atom in one pair; a declared independence keeps them apart
        fitted = _pair_laws(first, second, joint, declared, world, chooser, keep, chosen)
        if fitted is None:
            continue
        laws[first], laws[second], slope = fitted
        if slope != 0:
            forms[second] = {first: slope, second: Fraction(1)}
        paired |= {first, second}
    for atom in atoms:
        if atom in paired:
            continue
        moments = declared.get(atom)
        if moments:
            if "var" not in moments:  # a declared mean alone: the spread is free
                moments = {**moments, "var": pick(chooser, SPREADS)}
            law = _fitted(moments)
            if law is None:
                raise Undefined(f"a declared variance of {atom[0]} is negative")
            laws[atom] = law
        else:
            laws[atom] = pick(chooser, LAWS)
    size = 1
    for law in laws.values():
        size *= len(law)
    if size > MAX_OUTCOMES:
        laws = {a: (law if a in declared or a in paired else LAWS[-1]) for a, law in laws.items()}
        size = 1
        for law in laws.values():
            size *= len(law)
        if size > MAX_OUTCOMES:
            return None  # too many outcomes to enumerate (q of dimension 64)
    free = [a for a in atoms if a not in declared and a not in paired]
    for _ in range(chooser.integer(0, 2) if len(free) > 1 else 0):
        a, b = pick(chooser, free), pick(chooser, free)
        if a == b:
            continue
        users = [x for x in atoms if a in forms[x]] + [b]
        if _may_share(users, families):
            forms[b][a] = forms[b].get(a, Fraction(0)) + pick(
                chooser, (Fraction(1), Fraction(-1), Fraction(2))
            )
    _copy_declared(atoms, declared, laws, forms, families, chooser, paired)
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


def _copy_declared(
    atoms: Sequence[AtomKey],
    declared: Mapping[AtomKey, Any],
    laws: Mapping[AtomKey, Law],
    forms: dict[AtomKey, dict[AtomKey, Num]],
    families: Sequence[Independence],
    chooser: Chooser,
    paired: Set[AtomKey] = frozenset(),
) -> None:
    """Sometimes one unit a copy of another (kᵢ = qᵢ at every i) where their laws agree.

    Atoms with declared moments are fitted one law each and get no added correlation
    (it would change their variance); a copy keeps every marginal, and gives the
    dependent models a declared E[qᵢkᵢ] = 1 next to E[qᵢ] = 0 needs.
    """
    units = sorted({a[0] for a in atoms if a in declared})
    if len(units) < 2 or chooser.integer(0, 2) == 0:
        return
    source, target = pick(chooser, units), pick(chooser, units)
    if source == target:
        return
    for atom in atoms:
        if atom[0] != target:
            continue
        twin = (source, atom[1])
        if {twin, atom} & paired:
            continue  # a correlated pair keeps its fitted joint law
        if twin not in laws or twin not in declared or laws[twin] != laws[atom]:
            continue
        if forms[twin] == {twin: Fraction(1)} and _may_share([twin, atom], families):
            forms[atom] = {twin: Fraction(1)}


def _solve_named_moments(
    assumptions: Sequence[Assumption], world: World, keep: frozenset[Symbol] = frozenset()
) -> None:
    """A moment whose value is a lone constant (Cov(X, Y) = ρ) gives that constant's value.

    A constant in ``keep`` (a value the caller fixed, such as a trial value) is never
    overwritten: the check of the world then says honestly whether the value fits.
    """
    for a in assumptions:
        if not isinstance(a, Moment) or not isinstance(a.value, Symbol):
            continue
        s = a.value
        if s.is_integer or isinstance(s, RandomVariable) or s in keep:
            continue
        schematic = sorted(
            {c.index for c in a.lhs.atoms(Component) if isinstance(c.index, Symbol)}
            & a.lhs.free_symbols,
            key=str,
        )  # the free ones: an index a sum of the left side binds is the sum's
        lhs = subst(a.lhs, {i: sympy.Integer(1) for i in schematic})
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
