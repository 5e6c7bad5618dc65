"""The exact semantics of kernel terms: the oracle every rule is fuzzed against.

A :class:`World` is one concrete model of a context: a number for every free
symbol (constants, dimensions, free indices, λ), a vector of numbers for every
real vector that no definition gives, the definitions themselves, and a *finite*
joint law of the random atoms (outcomes ω with probabilities). :func:`value`
evaluates any term of the kernel's language in a world, by the textbook meaning
of each construct and nothing else:

- ``Σᵢ₌₁ⁿ body`` is a loop over i = 1..n (n may be an outer index); ``Σ_{i≠j}``
  over ordered pairs of distinct indices; ``δᵢⱼ`` is 1 or 0;
- ``E[Z] = Σ_ω P(ω) Z(ω)``, ``Var(Z) = E[(Z − E Z)²]``, ``Cov(Y, Z) =
  E[(Y − E Y)(Z − E Z)]``, ``Std(Z) = √Var(Z)``; a random term outside E is a
  function of ω, and two random terms are equal when they agree at every ω;
- an entry rⱼ of a defined vector is the definition's body at j; its other symbols
  are the free ones (a sum binding w at the use site does not reach the w of
  rⱼ = sⱼ + λδⱼw), except a variable an enclosing limit binds: under lim_{λ→∞} the
  definition's λ is the limit's (that is how ``Lead`` makes the scores depend on λ);
  ``pᵢ = e^{sᵢ} / Σⱼ e^{sⱼ}``;
- ``∂f/∂sₘ`` is ``sympy.diff`` of f unrolled in the model (every sum and delta
  expanded, every other entry a number), evaluated at the model's point;
- ``lim_{λ→∞} f`` is f along λ = 16, 33, 64, 129, 256: converged when the last
  differences shrink below 10⁻²⁰, otherwise undecided (odd and even points: a sequence
  such as δ((−1)^λ, 1) that alternates for ever does not look converged).

It shares no code with the rules (it imports the term classes, not
``kernel.rules`` or ``kernel.calculus``), so a rule that changes a value cannot
hide behind the same mistake in its judge. Numbers are exact fractions while
arithmetic stays rational, and 60-digit (limits: 150-digit) floats after e^x, log
or an irrational root. A division by zero, the log of a number ≤ 0, an even root
of a negative number, or an index outside its vector make a term *undefined*
(:class:`Undefined`); what the oracle cannot judge (a limit that has not
converged, an unknown construct) raises :class:`Undecided`.

Three evaluators give terms a value, and stay apart on purpose. This one is the oracle
the rules are judged against, so it shares no code with the rules nor with the other
two, and it needs a *finite* joint law (every outcome enumerated).
:mod:`~scaledattn.numeric.evaluate` computes exact moments of models with infinite
laws (Gaussian components, from the catalogue's raw moments) for ``check``'s numeric
witnesses, which a finite world cannot hold; :mod:`~scaledattn.numeric.calculus`
encloses softmax-calculus values in interval arithmetic for their numeric evidence.

Examples
--------
>>> from scaledattn.kernel.expr import IndexSum, index, dimension
>>> i, n = index("i"), dimension("n")
>>> world = World(values={n: Fraction(3)})
>>> value(IndexSum(IndexSum(i, i, n), i, n), world)   # inner i shadows the outer
Fraction(18, 1)
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, TypeAlias

import mpmath
import sympy
from sympy import Add, KroneckerDelta, Mul, Pow, Symbol
from sympy.logic.boolalg import BooleanFalse, BooleanTrue

from scaledattn.errors import OutOfRange, Undecided, Undefined
from scaledattn.kernel.assumptions import (
    Assumption,
    Independence,
    Independent,
    IndependentComponents,
    IndependentPairs,
    Moment,
    Positive,
)
from scaledattn.kernel.expr import (
    Component,
    Cov,
    CrossSum,
    DotProduct,
    E,
    Group,
    IndexSum,
    RandomVariable,
    Std,
    Var,
    VectorLabel,
)
from scaledattn.kernel.vectors import (
    Deriv,
    Distinct,
    Entries,
    Entry,
    IndexRange,
    Lim,
    Softmax,
)

__all__ = [
    "AtomKey",
    "World",
    "Meaning",
    "agree",
    "check_world",
    "compare",
    "meaning",
    "meanings",
    "plus",
    "square_root",
    "times",
    "equal",
    "truth",
    "value",
    "value_at_every_outcome",
]

#: A number of the semantics: an exact Fraction or a 60-digit mpmath float.
Num: TypeAlias = Any
#: A random atom: ("X", 0) for a scalar, ("q", i) for a vector's component.
AtomKey = tuple[str, int]
Outcome = tuple[Fraction, Mapping[AtomKey, Num]]

DIGITS = 60
LIMIT_DIGITS = 150
LIMIT_POINTS = (16, 33, 64, 129, 256)
LIMIT_TOLERANCE = mpmath.mpf(10) ** -20
#: A converged limit within its error of a fraction with at most this denominator is it.
MAX_SNAP_DENOMINATOR = 64
#: A limit snaps to a fraction only below this size: e^{e^{e²}} ≈ 5.8·10⁷⁰² is no 30-digit
#: integer, though within 10⁻³⁰ of one relative to its size (fuzz seed 20261204).
MAX_SNAP = 10**12
TOLERANCE = mpmath.mpf(10) ** -40
#: An inexact number below this is not told from 0 at a singularity (1/x, √x, log x).
NEAR_ZERO = mpmath.mpf(10) ** -30
#: Exponents (of e, or of a power) beyond which the oracle gives up (undecided).
MAX_EXPONENT = 10_000
#: Evaluation steps allowed per term and world before the oracle gives up (undecided).
MAX_STEPS = 200_000


@dataclass
class World:
    """One model of a context: values of symbols, free vectors, definitions, a finite law.

    ``outcomes`` lists (P(ω), atom values at ω); the empty law has the one outcome
    of probability 1 at which no atom has a value. ``dims`` gives each random
    vector's dimension (used by assumption checks).
    """

    values: dict[Symbol, Num] = field(default_factory=dict)
    vectors: dict[str, tuple[Num, ...]] = field(default_factory=dict)
    definitions: dict[str, Entries] = field(default_factory=dict)
    outcomes: tuple[Outcome, ...] = ((Fraction(1), {}),)
    dims: dict[str, int] = field(default_factory=dict)
    named: dict[str, Num] = field(default_factory=dict)

    def describe(self) -> str:
        """One line: symbol values, then the joint law's size."""
        parts = [f"{s} = {show(v)}" for s, v in sorted(self.values.items(), key=str)]
        parts += [f"{k} = ({', '.join(show(x) for x in v)})" for k, v in self.vectors.items()]
        if len(self.outcomes) > 1:
            parts.append(f"{len(self.outcomes)} outcomes")
        return ", ".join(parts)


# ------------------------------------------------------------------- numbers


def _mpf(x: Num) -> Any:
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return x


def _exact(x: Num) -> bool:
    return isinstance(x, Fraction)


def _add(a: Num, b: Num) -> Num:
    if _exact(a) and _exact(b):
        return a + b
    return _mpf(a) + _mpf(b)


def _mul(a: Num, b: Num) -> Num:
    if _exact(a) and _exact(b):
        return a * b
    if a == 0 or b == 0:
        return Fraction(0)
    return _mpf(a) * _mpf(b)


def _near_zero(a: Num) -> bool:
    """An inexact number too close to 0 to tell from it (float noise of an exact 0)."""
    return not _exact(a) and abs(a) < NEAR_ZERO


def _inverse(a: Num) -> Num:
    if a == 0:
        raise Undefined("division by zero")
    if _near_zero(a):
        raise Undecided("division by a number the oracle cannot tell from 0")
    return 1 / a if _exact(a) else 1 / _mpf(a)


def _sqrt(a: Num) -> Num:
    if _near_zero(a):  # √ turns float noise of 10⁻⁶¹ into 10⁻³¹, past the tolerance
        raise Undecided("the root of a number the oracle cannot tell from 0")
    if a < 0:
        raise Undefined("the square root of a negative number")
    if _exact(a):
        p, q = mpmath.sqrt(a.numerator), mpmath.sqrt(a.denominator)
        rp, rq = int(p), int(q)
        if rp * rp == a.numerator and rq * rq == a.denominator:
            return Fraction(rp, rq)
    return mpmath.sqrt(_mpf(a))


def _power(base: Num, exponent: Num) -> Num:
    if abs(exponent) > MAX_EXPONENT and base not in (0, 1, -1):
        raise Undecided("a power too large for the oracle's arithmetic")
    if _exact(exponent) and exponent.denominator == 1:
        n = int(exponent)
        if n < 0:
            return _power(_inverse(base), Fraction(-n))
        if _exact(base):
            return base**n
        return _mpf(base) ** n
    if _exact(exponent) and exponent.denominator == 2:
        return _power(_sqrt(base), Fraction(exponent.numerator))
    if _near_zero(base):
        raise Undecided("a power of a number the oracle cannot tell from 0")
    if base < 0:
        raise Undefined("a negative number to a non-integer power")
    if base == 0:
        if exponent > 0:
            return Fraction(0)
        raise Undefined("0 to a non-positive power")
    return mpmath.power(_mpf(base), _mpf(exponent))


def _exp(a: Num) -> Num:
    if a == 0:
        return Fraction(1)
    if abs(a) > MAX_EXPONENT:
        raise Undecided("e^x of an |x| too large for the oracle's arithmetic")
    return mpmath.exp(_mpf(a))


def _log(a: Num) -> Num:
    if _near_zero(a):
        raise Undecided("the log of a number the oracle cannot tell from 0")
    if a <= 0:
        raise Undefined("the log of a number ≤ 0")
    return Fraction(0) if a == 1 else mpmath.log(_mpf(a))


def plus(a: Num, b: Num) -> Num:
    """A + b, exact while both are fractions."""
    return _add(a, b)


def times(a: Num, b: Num) -> Num:
    """A · b, exact while both are fractions."""
    return _mul(a, b)


def square_root(a: Num) -> Num:
    """√a, exact for the square of a fraction; Undefined for a < 0."""
    with mpmath.workdps(DIGITS):
        return _sqrt(a)


def _number(x: Any) -> Num:
    if x.is_Integer:
        return Fraction(int(x))
    if x.is_Rational:
        return Fraction(int(x.p), int(x.q))
    if x in (sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        raise Undefined(f"{x} is not a number")
    if x.is_real is True:
        return mpmath.mpf(sympy.N(x, DIGITS + 10))
    raise Undecided(f"not a real number: {x}")


def show(x: Num) -> str:
    """A value as short text."""
    if isinstance(x, Fraction):
        return str(x)
    return str(mpmath.nstr(x, 12))


def equal(a: Num, b: Num, slack: Any = 0) -> bool:
    """Equal exactly (two fractions, no slack) or to 40 digits (plus the limits' slack)."""
    if _exact(a) and _exact(b) and not slack:
        return bool(a == b)
    with mpmath.workdps(max(DIGITS, mpmath.mp.dps)):
        x, y = _mpf(a), _mpf(b)
        scale = max(mpmath.mpf(1), abs(x), abs(y))
        return bool(abs(x - y) <= TOLERANCE * scale + slack * scale)


# ----------------------------------------------------------------- evaluation


@dataclass
class _State:
    world: World
    slack: Any = 0
    expectations: dict[Any, Any] = field(default_factory=dict)
    steps: int = 0


Env = dict[Symbol, Num]


#: The key under which an environment keeps the variables of the enclosing limits.
LIMITS = sympy.Dummy("limits")


def _definition_env(env: Env, j: Symbol, i: int) -> Env:
    """Where a definition's body is read: its index j at i, the enclosing limits' variables.

    A definition's other symbols (w in rⱼ = sⱼ + λδⱼw) are the free ones, whatever a
    sum at the use site binds, except a limit's variable: under lim_{λ→∞} the λ of a
    definition is the limit's λ (that is how ``Lead`` makes the scores depend on λ).
    """
    limits = env.get(LIMITS, {})
    return {**limits, j: Fraction(i), LIMITS: limits}


def _env_key(env: Env) -> frozenset[tuple[Symbol, Num]]:
    return frozenset((k, v) for k, v in env.items() if k is not LIMITS)


def _positive_integer(x: Num, what: str) -> int:
    if not (_exact(x) and x.denominator == 1):
        raise Undefined(f"{what} is not an integer: {show(x)}")
    if x < 1:
        raise Undefined(f"{what} is not positive: {show(x)}")
    return int(x)


class _Evaluator:
    def __init__(self, state: _State) -> None:
        self.state = state
        self.world = state.world

    def atom(self, key: AtomKey, omega: Mapping[AtomKey, Num] | None) -> Num:
        if omega is None:
            raise Undecided("a random term outside an expectation")
        if key not in omega:
            name, i = key
            raise OutOfRange(f"{name}_{i} is not an atom of the model" if i else f"no {name}")
        return omega[key]

    def expect(self, expr: Any, env: Env) -> Num:
        key = (expr, _env_key(env))
        cached = self.state.expectations.get(key)
        if cached is not None:
            return cached
        total: Num = Fraction(0)
        for p, omega in self.world.outcomes:
            total = _add(total, _mul(p, self.eval(expr, env, omega)))
        self.state.expectations[key] = total
        return total

    def central(self, y: Any, z: Any, env: Env) -> Num:
        """E[(Y − E Y)(Z − E Z)]: Var(Z) when Y = Z, Cov(Y, Z) otherwise."""
        key = ("central", y, z, _env_key(env))
        cached = self.state.expectations.get(key)
        if cached is not None:
            return cached
        my, mz = self.expect(y, env), self.expect(z, env)
        total: Num = Fraction(0)
        for p, omega in self.world.outcomes:
            dy = _add(self.eval(y, env, omega), _mul(Fraction(-1), my))
            dz = dy if y == z else _add(self.eval(z, env, omega), _mul(Fraction(-1), mz))
            total = _add(total, _mul(p, _mul(dy, dz)))
        self.state.expectations[key] = total
        return total

    def eval(self, expr: Any, env: Env, omega: Mapping[AtomKey, Num] | None) -> Num:
        self.state.steps += 1
        if self.state.steps > MAX_STEPS:
            raise Undecided("the term is too large to evaluate in this world")
        if isinstance(expr, Symbol):
            if expr in env:
                return env[expr]
            if isinstance(expr, RandomVariable):
                return self.atom((expr.name, 0), omega)
            if expr in self.world.values:
                return self.world.values[expr]
            if expr.name in self.world.named:
                return self.world.named[expr.name]
            raise Undecided(f"the world gives no value for {expr}")
        if expr.is_Atom and expr.is_number:
            return _number(expr)
        if isinstance(expr, Add):
            total: Num = Fraction(0)
            for a in expr.args:
                total = _add(total, self.eval(a, env, omega))
            return total
        if isinstance(expr, Mul):
            product: Num = Fraction(1)
            values = [self.eval(a, env, omega) for a in expr.args]
            for v in values:
                product = _mul(product, v)
            return product
        if isinstance(expr, Pow):
            return _power(self.eval(expr.base, env, omega), self.eval(expr.exp, env, omega))
        if isinstance(expr, sympy.exp):
            return _exp(self.eval(expr.args[0], env, omega))
        if isinstance(expr, sympy.log):
            return _log(self.eval(expr.args[0], env, omega))
        if isinstance(expr, sympy.Abs):
            return abs(self.eval(expr.args[0], env, omega))
        if isinstance(expr, KroneckerDelta):
            a, b = (self.eval(x, env, omega) for x in expr.args)
            return Fraction(1) if a == b else Fraction(0)
        if isinstance(expr, Group):
            return self.eval(expr.args[0], env, omega)
        if isinstance(expr, (IndexSum, CrossSum)):
            total = Fraction(0)
            for inner in self.bindings(expr, env, omega):
                total = _add(total, self.eval(expr.body, inner, omega))
            return total
        if isinstance(expr, Component):
            i = _positive_integer(self.eval(expr.index, env, omega), "an index or dimension")
            return self.atom((expr.label.name, i), omega)
        if isinstance(expr, DotProduct):
            q, k = expr.args[0].name, expr.args[1].name
            n = _positive_integer(self.eval(expr.dim, env, omega), "a dimension")
            total = Fraction(0)
            for i in range(1, n + 1):
                total = _add(total, _mul(self.atom((q, i), omega), self.atom((k, i), omega)))
            return total
        if isinstance(expr, E):
            return self.expect(expr.args[0], env)
        if isinstance(expr, Var):
            return self.central(expr.args[0], expr.args[0], env)
        if isinstance(expr, Cov):
            return self.central(expr.args[0], expr.args[1], env)
        if isinstance(expr, Std):
            return _sqrt(self.eval(Var(expr.args[0]), env, omega))
        if isinstance(expr, _Const):
            return expr.number
        if isinstance(expr, Entry):
            return self.entry(expr, env, omega)
        if isinstance(expr, Softmax):
            return self.softmax(expr, env, omega)
        if isinstance(expr, Lim):
            return self.limit(expr, env, omega)
        if isinstance(expr, Deriv):
            return self.derivative(expr, env, omega)
        if isinstance(expr, (BooleanTrue, BooleanFalse)):
            raise Undecided("a truth value where a number is expected")
        raise Undecided(f"the semantics does not know {type(expr).__name__}: {expr}")

    def bindings(self, s: IndexSum, env: Env, omega: Mapping[AtomKey, Num] | None) -> Iterator[Env]:
        n = _positive_integer(self.eval(s.upper, env, omega), "an index or dimension")
        if isinstance(s, CrossSum):
            i, j = s.indices
            for a in range(1, n + 1):
                for b in range(1, n + 1):
                    if a != b:
                        yield {**env, i: Fraction(a), j: Fraction(b)}
        else:
            (i,) = s.indices
            for a in range(1, n + 1):
                yield {**env, i: Fraction(a)}

    # -- vectors ------------------------------------------------------------
    def entry(self, e: Entry, env: Env, omega: Mapping[AtomKey, Num] | None) -> Num:
        i = _positive_integer(self.eval(e.index, env, omega), "an index or dimension")
        n = _positive_integer(self.eval(e.dim, env, omega), "an index or dimension")
        if i > n:
            raise OutOfRange(f"{e.vector}_{i} of a vector of dimension {n}")
        given = self.world.definitions.get(e.vector)
        if given is not None:
            dim = _positive_integer(self.eval(given.dim, env, omega), "a dimension")
            if dim != n:
                raise OutOfRange(f"{e.vector} is defined with dimension {dim}, used with {n}")
            return self.eval(given.body, _definition_env(env, given.index, i), omega)
        values = self.world.vectors.get(e.vector)
        if values is None:
            raise Undecided(f"the world gives no values for {e.vector}")
        if n > len(values):
            raise Undecided(f"the world gives {e.vector} only {len(values)} entries")
        return values[i - 1]

    def softmax(self, p: Softmax, env: Env, omega: Mapping[AtomKey, Num] | None) -> Num:
        n = _positive_integer(self.eval(p.dim, env, omega), "an index or dimension")
        i = _positive_integer(self.eval(p.index, env, omega), "an index or dimension")
        if i > n:
            raise OutOfRange(f"{p.shown}_{i} of a softmax of dimension {n}")
        weights = [_exp(self.entry(Entry(p.vector, j, n), env, omega)) for j in range(1, n + 1)]
        total: Num = Fraction(0)
        for w in weights:
            total = _add(total, w)
        return _mul(weights[i - 1], _inverse(total))

    # -- limits -------------------------------------------------------------
    def limit(self, lim: Lim, env: Env, omega: Mapping[AtomKey, Num] | None) -> Num:
        f, lam = lim.args
        points: list[Num] = []
        undefined = 0
        with mpmath.workdps(LIMIT_DIGITS):
            for x in LIMIT_POINTS:
                try:
                    at = Fraction(x)
                    limits = {**env.get(LIMITS, {}), lam: at}
                    points.append(self.eval(f, {**env, lam: at, LIMITS: limits}, omega))
                except Undefined:
                    undefined += 1
                    points = []
        if undefined == len(LIMIT_POINTS):
            raise Undefined(f"the body of {lim} is undefined for large λ")
        if len(points) < 3:
            raise Undecided(f"the body of {lim} is undefined along the sequence")
        last, before, first = points[-1], points[-2], points[-3]
        d1, d2 = (
            abs(_mpf(_add(before, _mul(Fraction(-1), first)))),
            abs(_mpf(_add(last, _mul(Fraction(-1), before)))),
        )
        scale = max(mpmath.mpf(1), abs(_mpf(last)))
        if d2 == 0 and d1 == 0:
            return last
        if d2 > LIMIT_TOLERANCE * scale or (d2 > d1 and d2 > mpmath.mpf(10) ** -100):
            raise Undecided(f"{lim} has not converged along λ = {LIMIT_POINTS}")
        error = 10 * d2 + mpmath.mpf(10) ** -30 * scale
        near = Fraction(str(mpmath.nstr(_mpf(last), 30))).limit_denominator(MAX_SNAP_DENOMINATOR)
        # 0 only where the sequence itself reaches it (e^{−88.7} ≈ 3·10⁻³⁹ is no 0: seed
        # 20261205); another simple fraction within the sequence's error of its last value
        close = abs(_mpf(near) - _mpf(last)) <= (10 * d2 if near == 0 else error)
        if abs(near) < MAX_SNAP and close:
            return near  # within the sequence's error of a simple fraction: that fraction
        self.state.slack = max(self.state.slack, error / scale)
        return +_mpf(last)

    # -- derivatives --------------------------------------------------------
    def derivative(self, d: Deriv, env: Env, omega: Mapping[AtomKey, Num] | None) -> Num:
        x = d.variable
        if x.vector in self.world.definitions:
            raise Undecided(f"a derivative with respect to a defined vector {x.vector}")
        m = _positive_integer(self.eval(x.index, env, omega), "an index or dimension")
        n = _positive_integer(self.eval(x.dim, env, omega), "an index or dimension")
        if m > n:
            raise OutOfRange(f"{x.vector}_{m} of a vector of dimension {n}")
        unroller = _Unroller(self, x.vector, n, omega)
        f = unroller.unroll(d.args[0], env)
        target = unroller.symbol(m)
        derivative = sympy.diff(f, target)
        point = {unroller.symbol(j): v for j, v in unroller.point().items()}
        return self.eval(derivative.xreplace({k: _Const(v) for k, v in point.items()}), {}, omega)


class _Const(sympy.Expr):
    """A number of the semantics inside a SymPy expression (never simplified)."""

    is_commutative = True
    number: Num

    def __new__(cls, number: Num) -> _Const:
        obj: _Const = sympy.Expr.__new__(cls)
        obj.number = number
        return obj

    def _hashable_content(self) -> tuple[Any, ...]:
        return (id(self),)

    def _eval_derivative(self, s: Any) -> Any:
        return sympy.S.Zero


class _Unroller:
    """A term in one world as a plain SymPy expression of the entries of one vector."""

    def __init__(
        self,
        ev: _Evaluator,
        vector: str,
        n: int,
        omega: Mapping[AtomKey, Num] | None,
    ) -> None:
        self.ev, self.vector, self.n, self.omega = ev, vector, n, omega
        self.symbols = {j: Symbol(f"{vector}__{j}", real=True) for j in range(1, n + 1)}

    def symbol(self, j: int) -> Symbol:
        return self.symbols[j]

    def point(self) -> dict[int, Num]:
        values = self.ev.world.vectors.get(self.vector)
        if values is None or len(values) < self.n:
            raise Undecided(f"the world gives no values for {self.vector}")
        return {j: values[j - 1] for j in range(1, self.n + 1)}

    def mentions(self, expr: Any) -> bool:
        seen: set[str] = set()

        def visit(e: Any) -> bool:
            for node in sympy.preorder_traversal(e):
                if isinstance(node, (Entry, Softmax)):
                    if node.vector == self.vector:
                        return True
                    given = self.ev.world.definitions.get(node.vector)
                    if given is not None and node.vector not in seen:
                        seen.add(node.vector)
                        if visit(given.body):
                            return True
                if isinstance(node, Deriv) and node.variable.vector == self.vector:
                    return True
            return False

        return visit(expr)

    def unroll(self, expr: Any, env: Env) -> Any:
        if not self.mentions(expr):
            return _Const(self.ev.eval(expr, env, self.omega))
        if isinstance(expr, Add):
            return Add(*(self.unroll(a, env) for a in expr.args))
        if isinstance(expr, Mul):
            return Mul(*(self.unroll(a, env) for a in expr.args))
        if isinstance(expr, Pow):
            return Pow(self.unroll(expr.base, env), self.unroll(expr.exp, env))
        if isinstance(expr, (sympy.exp, sympy.log)):
            return expr.func(self.unroll(expr.args[0], env))
        if isinstance(expr, Group):
            return self.unroll(expr.args[0], env)
        if isinstance(expr, (IndexSum, CrossSum)):
            return Add(
                *(
                    self.unroll(expr.body, inner)
                    for inner in self.ev.bindings(expr, env, self.omega)
                )
            )
        if isinstance(expr, Entry):
            i = _positive_integer(self.ev.eval(expr.index, env, self.omega), "an index")
            n = _positive_integer(self.ev.eval(expr.dim, env, self.omega), "a dimension")
            if i > n:
                raise OutOfRange(f"{expr.vector}_{i} of a vector of dimension {n}")
            if expr.vector == self.vector:
                if n != self.n:
                    raise OutOfRange(f"{self.vector} used with dimensions {n} and {self.n}")
                return self.symbols[i]
            given = self.ev.world.definitions[expr.vector]
            return self.unroll(given.body, _definition_env(env, given.index, i))
        if isinstance(expr, Softmax):
            n = _positive_integer(self.ev.eval(expr.dim, env, self.omega), "a dimension")
            i = _positive_integer(self.ev.eval(expr.index, env, self.omega), "an index")
            if i > n:
                raise OutOfRange(f"{expr.shown}_{i} of a softmax of dimension {n}")
            terms = [sympy.exp(self.unroll(Entry(expr.vector, j, n), env)) for j in range(1, n + 1)]
            return terms[i - 1] / Add(*terms)
        raise Undecided(f"cannot differentiate through {type(expr).__name__}")


# ------------------------------------------------------------------- public


def value(expr: Any, world: World, omega: Mapping[AtomKey, Num] | None = None) -> Num:
    """The value of a term in ``world`` (at outcome ``omega`` for a random term)."""
    with mpmath.workdps(DIGITS):
        return _Evaluator(_State(world)).eval(sympy.sympify(expr), {}, omega)


def truth(prop: Any, world: World) -> bool:
    """The truth value of an equation, a disjunction or conjunction of them, or true/false."""
    result, _ = _truth(prop, world)
    return result


def _truth(prop: Any, world: World) -> tuple[bool, Any]:
    state = _State(world)
    with mpmath.workdps(DIGITS):
        ev = _Evaluator(state)
        result = _prop(prop, ev)
    return result, state.slack


def _prop(prop: Any, ev: _Evaluator) -> bool:
    """Truth: a = b needs both sides defined (else Undefined); ∨ is true if a part is."""
    if isinstance(prop, sympy.Equality):
        outcomes = ev.world.outcomes if _random(prop, ev.world, set()) else ((Fraction(1), None),)
        return all(
            equal(ev.eval(prop.lhs, {}, omega), ev.eval(prop.rhs, {}, omega), ev.state.slack)
            for _, omega in outcomes
        )
    if isinstance(prop, (sympy.Or, sympy.And)):
        want = isinstance(prop, sympy.Or)
        undefined = None
        for a in prop.args:
            try:
                if _prop(a, ev) is want:
                    return want
            except Undefined as err:
                undefined = err
        if undefined is not None:
            raise undefined
        return not want
    if isinstance(prop, (BooleanTrue, BooleanFalse)):
        return bool(prop)
    raise Undecided(f"the semantics does not know the proposition {prop}")


def value_at_every_outcome(
    expr: Any, world: World, state: _State | None = None
) -> tuple[tuple[Num, ...], Any]:
    """The term's value at each outcome ω (one value for a non-random term), and the slack.

    ``state``: the expectations already computed in this world (:func:`meanings`).
    """
    state = _State(world) if state is None else state
    state.steps = 0  # the size limit is per term
    with mpmath.workdps(DIGITS):
        ev = _Evaluator(state)
        expr = sympy.sympify(expr)
        if not _random(expr, world, set()):
            return (ev.eval(expr, {}, None),), state.slack
        values = tuple(ev.eval(expr, {}, omega) for _, omega in world.outcomes)
    return values, state.slack


def _random(expr: Any, world: World, seen: set[str]) -> bool:
    """Whether the term depends on the outcome ω (a random atom outside every moment)."""
    if isinstance(expr, (E, Var, Cov, Std)):
        return False
    if isinstance(expr, (RandomVariable, Component, DotProduct)):
        return True
    if isinstance(expr, (Entry, Softmax)):
        given = world.definitions.get(expr.vector)
        inner = seen | {expr.vector}
        if given is not None and expr.vector not in seen and _random(given.body, world, inner):
            return True
    return any(_random(a, world, seen) for a in expr.args)


Verdict = str  # "agree", "differ", "undecided"
PROPOSITION_TYPES = (sympy.Equality, sympy.Or, sympy.And, BooleanTrue, BooleanFalse)


@dataclass(frozen=True)
class Meaning:
    """What a term means in one world: "value" (values and slack), "undefined", "undecided"."""

    kind: str
    values: tuple[Any, ...] = ()
    slack: Any = 0


def meaning(x: Any, world: World) -> Meaning:
    """The meaning of a term (its value at every outcome) or of a proposition (its truth)."""
    try:
        if isinstance(x, PROPOSITION_TYPES):
            result, slack = _truth(x, world)
            return Meaning("value", (result,), slack)
        values, slack = value_at_every_outcome(x, world)
        return Meaning("value", values, slack)
    except Undefined:
        return Meaning("undefined")
    except (Undecided, ValueError, ZeroDivisionError, OverflowError, TypeError, RecursionError):
        return Meaning("undecided")


def meanings(terms: Sequence[Any], world: World) -> list[Meaning]:
    """:func:`meaning` of each term in one world, the expectations computed once for all.

    An expectation's value depends on the world alone, so the terms of a chain (which
    share most of their moments) reuse one table of them. Each meaning gets the largest
    slack any of the terms' limits needed: a value read from the table may come from a
    limit another term evaluated first, and its slack must go with it.
    """
    state = _State(world)
    found: list[Meaning] = []
    for x in terms:
        if isinstance(x, PROPOSITION_TYPES):
            found.append(meaning(x, world))
            continue
        try:
            values, _ = value_at_every_outcome(x, world, state)
            found.append(Meaning("value", values))
        except Undefined:
            found.append(Meaning("undefined"))
        except (Undecided, ValueError, ZeroDivisionError, OverflowError, TypeError, RecursionError):
            found.append(Meaning("undecided"))
    slack = max([state.slack, *(m.slack for m in found)])
    return [Meaning(m.kind, m.values, slack) for m in found]


def compare(a: Meaning, b: Meaning) -> Verdict:
    """How two meanings compare: "agree", "differ", "partial" or "undecided".

    "agree": the same values, or both undefined; "differ": two different values;
    "partial": only one of them is undefined.
    """
    if "undecided" in (a.kind, b.kind):
        return "undecided"
    if "undefined" in (a.kind, b.kind):
        return "agree" if a.kind == b.kind else "partial"
    slack = max(a.slack, b.slack)
    if isinstance(a.values[0], bool) or isinstance(b.values[0], bool):
        if a.values == b.values:
            return "agree"
        return "undecided" if slack else "differ"
    if len(a.values) != len(b.values):  # one is random, the other constant
        a, b = (a, b) if len(a.values) > len(b.values) else (b, a)
        b = Meaning(b.kind, b.values * len(a.values), b.slack)
    with mpmath.workdps(DIGITS):
        pairs = zip(a.values, b.values, strict=True)
        return "agree" if all(equal(p, q, slack) for p, q in pairs) else "differ"


def agree(a: Any, b: Any, world: World) -> Verdict:
    """Whether two terms (or two propositions) mean the same in ``world``.

    "agree" when both have the same value at every outcome or both are undefined,
    "differ" when they have different values or only one is undefined, "undecided"
    when the oracle cannot tell either one.
    """
    return compare(meaning(a, world), meaning(b, world))


# ------------------------------------------------------------------ assumptions


def _index_of(lhs: Any, i: Symbol, world: World) -> int:
    """The range of a schematic index: the dimension of a vector it indexes (else 1)."""
    dims = [
        world.dims[c.label.name]
        for c in lhs.atoms(Component)
        if c.index == i and c.label.name in world.dims
    ]
    return min(dims) if dims else 1


def _schematic(lhs: Any) -> list[Symbol]:
    """The indices free in a moment's left side ("for every i"); a bound one is its sum's."""
    found = {c.index for c in lhs.atoms(Component) if isinstance(c.index, Symbol)}
    return sorted(found & lhs.free_symbols, key=str)


def _independent(world: World, blocks: list[list[AtomKey]]) -> bool:
    """The blocks' joint law is the product of their marginals (checked on every outcome)."""
    joint: dict[tuple[Any, ...], Fraction] = {}
    margins: list[dict[tuple[Any, ...], Fraction]] = [{} for _ in blocks]
    for p, omega in world.outcomes:
        parts = tuple(tuple(_key(omega[a]) for a in block) for block in blocks)
        joint[parts] = joint.get(parts, Fraction(0)) + p
        for margin, part in zip(margins, parts, strict=True):
            margin[part] = margin.get(part, Fraction(0)) + p
    for parts in itertools.product(*(list(m) for m in margins)):
        product = Fraction(1)
        for margin, part in zip(margins, parts, strict=True):
            product *= margin[part]
        if joint.get(parts, Fraction(0)) != product:
            return False
    return True


def _key(x: Num) -> Any:
    return x if _exact(x) else mpmath.nstr(x, 40)


def _atoms_of(world: World, name: str) -> list[AtomKey]:
    keys = world.outcomes[0][1].keys() if world.outcomes else ()
    return sorted(k for k in keys if k[0] == name)


def _independence_holds(a: Independence, world: World) -> bool:
    if isinstance(a, Independent):
        blocks = [_atoms_of(world, u.name) for u in a.units]
    elif isinstance(a, IndependentComponents):
        blocks = [[atom] for v in a.vectors for atom in _atoms_of(world, v.name)]
    elif isinstance(a, IndependentPairs):
        names = [v.name for v in a.vectors]
        dim = min(world.dims.get(n, 0) for n in names)
        blocks = [[(n, i) for n in names] for i in range(1, dim + 1)]
    else:
        raise Undecided(f"the semantics does not know the independence {a}")
    if any(not b for b in blocks):
        raise Undecided(f"the world has no atoms for a unit of {a}")
    return _independent(world, blocks)


def _symbol_problem(s: Symbol, x: Num) -> str:
    if s.is_integer and not (_exact(x) and x.denominator == 1):
        return "an integer"
    if s.is_positive and not x > 0:
        return "positive"
    if s.is_nonnegative and not x >= 0:
        return "non-negative"
    if s.is_nonzero and x == 0:
        return "non-zero"
    return ""


def check_world(world: World, assumptions: tuple[Assumption, ...] | list[Assumption]) -> str:
    """'' when ``world`` satisfies every assumption and every symbol's declared kind.

    Otherwise the first failure, in words. Each check is by the semantics: a moment by
    evaluating both sides at every binding of its indices, an independence by
    comparing the joint law of the blocks with the product of their marginals.
    """
    for s, x in world.values.items():
        kind = _symbol_problem(s, x)
        if kind:
            return f"{s} is declared {kind}, the world gives {show(x)}"
    for a in assumptions:
        problem = _assumption_problem(a, world)
        if problem:
            return f"the world breaks {a}: {problem}"
    return ""


def _assumption_problem(a: Assumption, world: World) -> str:
    try:
        if isinstance(a, Independence):
            return "" if _independence_holds(a, world) else "the joint law does not factor"
        if isinstance(a, Moment):
            schematic = _schematic(a.lhs)
            ranges = [range(1, _index_of(a.lhs, i, world) + 1) for i in schematic]
            for binding in itertools.product(*ranges):
                # the schematic indices bound in the environment, never substituted: an
                # index a sum of the left side binds shadows them, as in the term
                at: Env = {i: Fraction(v) for i, v in zip(schematic, binding, strict=True)}
                with mpmath.workdps(DIGITS):
                    got = _Evaluator(_State(world)).eval(sympy.sympify(a.lhs), at, None)
                    want = _Evaluator(_State(world)).eval(sympy.sympify(a.value), at, None)
                if not equal(got, want):
                    where = ", ".join(f"{i} = {v}" for i, v in at.items())
                    return f"{a.lhs} = {show(got)}, not {show(want)}" + (
                        f" at {where}" if where else ""
                    )
            return ""
        if isinstance(a, Positive):
            x = value(a.symbol, world)
            return "" if x > 0 else f"{a.symbol} = {show(x)}"
        if isinstance(a, IndexRange):
            m, n = value(a.index, world), value(a.upper, world)
            return "" if 1 <= m <= n else f"{a.index} = {show(m)} outside 1..{show(n)}"
        if isinstance(a, Distinct):
            t, w = (value(s, world) for s in sorted(a.pair, key=str))
            return "" if t != w else f"both are {show(t)}"
        if isinstance(a, Entries):
            given = world.definitions.get(a.name)
            return "" if given == a else f"the world does not define {a.name} so"
    except Undefined as err:
        return f"undefined: {err}"
    except Undecided as err:
        return f"undecided: {err}"
    return f"the semantics cannot check {type(a).__name__}"


def random_vectors_of(expr: Any) -> set[VectorLabel]:
    """The labels of random vectors a term mentions (components and dot products)."""
    found: set[VectorLabel] = set()
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, Component):
            found.add(node.label)
        elif isinstance(node, DotProduct):
            found.update(node.args[:2])
    return found
