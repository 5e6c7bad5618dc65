"""Evaluate a kernel expression to a number under a concrete model, exactly.

Symbols get the model's values, sums over 1..n are unrolled, and E[·] of a
polynomial in the random atoms is computed from the model itself: each atom is a
linear form in independent latent draws, so a polynomial in atoms is a polynomial
in latents, and E of a monomial is the product of the latents' raw moments from
the catalogue. No rule of the kernel is used: Var, Cov and Std are evaluated by
their definitions on the model's joint law.

Numbers are exact: a :class:`~fractions.Fraction`, or a SymPy number when a square
root leaves the rationals (√3). Two values are equal when they are equal as
rationals, or, for irrational ones, agree to 45 significant digits.

One of three evaluators of a term's value, kept apart on purpose: this one computes
exact moments on models with infinite laws (a Gaussian's raw moments), which the
oracle :mod:`~scaledattn.numeric.semantics` cannot (it enumerates a finite law, and
shares nothing with the rules or with this module); :mod:`~scaledattn.numeric.calculus`
evaluates the softmax calculus.

Examples
--------
>>> from scaledattn.kernel import Cov, E, Var, random_variables
>>> from scaledattn.numeric.model import Signature, build_model
>>> X, Y = random_variables("X Y")
>>> model = build_model(Signature(("X", "Y"), {}, {}), {"X": "die", "Y": {"X": 2, "noise": "coin"}})
>>> ev = Evaluator(model)
>>> ev.value(Var(X + Y)), ev.value(Var(X) + Var(Y) + 2 * Cov(X, Y))
(Fraction(109, 4), Fraction(109, 4))
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any, TypeAlias

import sympy
from sympy import Add, Mul, Pow, Symbol
from sympy.logic.boolalg import BooleanFalse, BooleanTrue

from scaledattn.errors import InvalidArgument, Unsupported
from scaledattn.kernel import Component, Cov, CrossSum, Dot, E, Group, IndexSum, Std, Var
from scaledattn.kernel.expr import RandomVariable, VectorLabel
from scaledattn.kernel.vectors import Entry
from scaledattn.numeric.distributions import to_sympy
from scaledattn.numeric.enclosure import Approx
from scaledattn.numeric.model import LatentKey, Model

__all__ = ["Evaluator", "Num", "Poly", "equal", "same_value", "show"]

#: An exact number: an int or Fraction, or a SymPy number outside the rationals
#: (SymPy is untyped, so to mypy the alias is Any).
Num: TypeAlias = Any
RATIONAL = (int, Fraction)
Mono = tuple[tuple[LatentKey, int], ...]
Poly = dict[Mono, Num]
Env = Mapping[Symbol, int]

DIGITS = 60
PROPOSITIONS = (sympy.Equality, sympy.Or, sympy.And, BooleanTrue, BooleanFalse)
TOLERANCE = sympy.Float(10) ** -45
_UNKNOWN = object()
#: Classes :meth:`Evaluator.value` tells by their exact class, before the general tests.
_MOMENTS = frozenset({E, Var, Cov})
_INTEGERS = frozenset(
    {sympy.Integer, type(sympy.S.Zero), type(sympy.S.One), type(sympy.S.NegativeOne)}
)


def _num(x: Any) -> Num:
    """A SymPy number as an int or Fraction when rational; refuse anything not real."""
    x = sympy.sympify(x)
    if x.is_Integer:
        return int(x)
    if x.is_Rational:
        return Fraction(int(x.p), int(x.q))
    if x.is_number and x.is_real and x.is_finite:
        return x
    raise InvalidArgument(f"not a finite real number: {x}")


def _tidy(x: Fraction) -> Num:
    return x.numerator if x.denominator == 1 else x


def _sym(x: Num) -> Any:
    if isinstance(x, int):
        return sympy.Integer(x)
    return to_sympy(x) if isinstance(x, Fraction) else x


def add(a: Num, b: Num) -> Num:
    """A + b."""
    if type(a) is int and type(b) is int:  # the common case, without isinstance on Fraction
        return a + b
    if isinstance(a, RATIONAL) and isinstance(b, RATIONAL):
        r = a + b
        return _tidy(r) if isinstance(r, Fraction) else r
    return _num(_sym(a) + _sym(b))


def mul(a: Num, b: Num) -> Num:
    """A · b."""
    if type(a) is int and type(b) is int:
        return a * b
    if isinstance(a, RATIONAL) and isinstance(b, RATIONAL):
        r = a * b
        return _tidy(r) if isinstance(r, Fraction) else r
    return _num(_sym(a) * _sym(b))


def power(a: Num, b: Num) -> Num:
    """aᵇ; refuses 0 to a negative power and complex results."""
    if a == 0 and (b < 0 if isinstance(b, RATIONAL) else bool(_sym(b) < 0)):
        raise InvalidArgument("division by zero in the model")
    if isinstance(a, RATIONAL) and isinstance(b, RATIONAL) and b == int(b):
        r = Fraction(a) ** int(b)
        return _tidy(r)
    return _num(sympy.Pow(_sym(a), _sym(b)))


def equal(a: Num, b: Num) -> bool:
    """Equal as rationals, or (irrational) to 45 significant digits."""
    if isinstance(a, RATIONAL) and isinstance(b, RATIONAL):
        return a == b
    diff = abs(sympy.N(_sym(a) - _sym(b), DIGITS))
    scale = max(sympy.Float(1), abs(sympy.N(_sym(a), DIGITS)))
    return bool(diff <= TOLERANCE * scale)


def show(x: Num | bool) -> str:
    """A value as text: ``35/4``, ``sqrt(3)/3``, ``true``."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, Approx):
        return str(x)
    return str(x) if isinstance(x, RATIONAL) else sympy.sstr(x)


# ----------------------------------------------------------- polynomials


def _add_into(out: Poly, q: Poly) -> None:
    """``out`` += ``q`` in place, for an ``out`` without a 0 coefficient (it keeps none).

    In place, so that a sum of n terms costs n, not n² (a copy of ``out`` per term):
    a term that cancels is dropped where it cancels, a new one goes last.
    """
    for mono, c in q.items():
        if mono in out:
            total = add(out[mono], c)
            if total != 0:
                out[mono] = total
            else:
                del out[mono]
        elif c != 0:
            out[mono] = c


def _mono_mul(a: Mono, b: Mono) -> Mono:
    powers = dict(a)
    for key, n in b:
        powers[key] = powers.get(key, 0) + n
    return tuple(sorted(powers.items()))


def _poly_mul(p: Poly, q: Poly) -> Poly:
    out: dict[Mono, Num] = {}
    for ma, ca in p.items():
        for mb, cb in q.items():
            mono = _mono_mul(ma, mb)
            c = mul(ca, cb)
            out[mono] = add(out[mono], c) if mono in out else c
    return {m: c for m, c in out.items() if c != 0}


def _constant(c: Num) -> Poly:
    return {(): c} if c != 0 else {}


def _is_constant(p: Poly) -> bool:
    return all(m == () for m in p)


def _constant_value(p: Poly) -> Num:
    return p.get((), 0)


class Evaluator:
    """Values of kernel expressions under one model (moments cached per latent law)."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self._moments: dict[tuple[str, int], Num] = {}
        # E[·], Var and Cov already computed, by term and the values of the bound
        # indices it mentions: an unrolled double sum asks for E[qᵢkᵢ] at each i once
        # per j, and a derivation's steps share most of their terms. Terms are
        # immutable SymPy objects compared by structure; each object met is kept by
        # id (held, so that its id is not reused) with the first equal term met, which
        # stands for it in the keys (compared by identity, not structure, after the
        # first lookup), and the free symbols it mentions.
        self._known: dict[tuple[Any, tuple[int, ...]], Num] = {}
        self._terms: dict[int, tuple[Any, Any, tuple[Symbol, ...]]] = {}
        self._first: dict[Any, Any] = {}

    # -- expectation ------------------------------------------------------
    def moment(self, group: str, n: int) -> Num:
        """E[Lⁿ] for a latent draw L of the group, exactly; InvalidArgument if infinite."""
        key = (group, n)
        if key not in self._moments:
            dist = self.model.group(group).distribution
            value = sympy.sympify(dist.raw_moment(n))
            if not value.is_finite:
                raise InvalidArgument(f"{dist.spec} has no finite moment of order {n}")
            self._moments[key] = _num(value)
        return self._moments[key]

    def expect(self, p: Poly) -> Num:
        """E of a polynomial in independent latents: Σ c·Π E[Lᵖ]."""
        total: Num = 0
        for mono, c in p.items():
            term = c
            for (group, _), n in mono:
                term = mul(term, self.moment(group, n))
            total = add(total, term)
        return total

    # -- random expressions to polynomials ---------------------------------
    def poly(self, expr: Any, env: Env | None = None) -> Poly:
        """``expr`` (random) as a polynomial in the model's latent draws."""
        env = env or {}
        if isinstance(expr, Group):
            return self.poly(expr.args[0], env)
        if isinstance(expr, RandomVariable):
            return self._atom(expr.name, 0)
        if isinstance(expr, Component):
            return self._atom(expr.label.name, self.index(expr.index, env))
        if isinstance(expr, Dot):
            q, k = expr.args[0].name, expr.args[1].name
            n = self.index(expr.dim, env)
            out: Poly = {}
            for i in range(1, n + 1):
                _add_into(out, _poly_mul(self._atom(q, i), self._atom(k, i)))
            return out
        if isinstance(expr, (IndexSum, CrossSum)):
            out = {}
            for inner in self._bindings(expr, env):
                _add_into(out, self.poly(expr.body, inner))
            return out
        if isinstance(expr, Add):
            out = {}
            for a in expr.args:
                _add_into(out, self.poly(a, env))
            return out
        if isinstance(expr, Mul):
            out = {(): 1}
            for a in expr.args:
                out = _poly_mul(out, self.poly(a, env))
            return out
        if isinstance(expr, Pow):
            base = self.poly(expr.base, env)
            exponent = self.value(expr.exp, env)
            if _is_constant(base):
                return _constant(power(_constant_value(base), exponent))
            if not (isinstance(exponent, RATIONAL) and exponent == int(exponent) and exponent >= 0):
                raise InvalidArgument(f"not a polynomial in the random variables: {expr}")
            out = {(): 1}
            for _ in range(int(exponent)):
                out = _poly_mul(out, base)
            return out
        return _constant(self.value(expr, env))

    def _atom(self, name: str, index: int) -> Poly:
        return {((key, 1),): _tidy(c) for key, c in self.model.form(name, index).items()}

    def index(self, expr: Any, env: Env) -> int:
        """The positive integer an index or dimension expression stands for."""
        value = self.value(expr, env)
        if not (isinstance(value, RATIONAL) and value == int(value) and value >= 1):
            raise InvalidArgument(f"an index or dimension must be a positive integer, got {value}")
        return int(value)

    def _bindings(self, s: IndexSum, env: Env) -> list[dict[Symbol, int]]:
        n = self.index(s.upper, env)
        if isinstance(s, CrossSum):
            i, j = s.indices
            return [{**env, i: a, j: b} for a in range(1, n + 1) for b in range(1, n + 1) if a != b]
        (i,) = s.indices
        return [{**env, i: a} for a in range(1, n + 1)]

    # -- non-random expressions to numbers ---------------------------------
    def value(self, expr: Any, env: Env | None = None) -> Num:
        """The exact number ``expr`` (non-random) stands for under the model."""
        env = env or {}
        kind = type(expr)  # the commonest classes first, by their exact class
        if kind is Mul:
            product: Num = 1
            for a in expr.args:
                product = mul(product, self.value(a, env))
            return product
        if kind is Add:
            total: Num = 0
            for a in expr.args:
                total = add(total, self.value(a, env))
            return total
        if kind in _MOMENTS:
            return self._moment_of(expr, env)
        if kind in _INTEGERS:
            return int(expr)
        if isinstance(expr, Group):
            return self.value(expr.args[0], env)
        if isinstance(expr, (RandomVariable, VectorLabel, Component, Dot)):
            raise InvalidArgument(f"{expr} is random: only E, Var, Cov, Std of it have a value")
        if isinstance(expr, Entry):
            return _tidy(self.model.entry(expr.vector, self.index(expr.index, env)))
        if isinstance(expr, Symbol):
            if expr in env:
                return env[expr]
            if expr.name in self.model.values:
                return _tidy(self.model.values[expr.name])
            raise InvalidArgument(f"the setting gives no value for {expr.name}")
        if isinstance(expr, (E, Var, Cov)):
            return self._moment_of(expr, env)
        if isinstance(expr, Std):
            return power(self.value(Var(expr.args[0]), env), Fraction(1, 2))
        if isinstance(expr, (IndexSum, CrossSum)):
            total = 0
            for inner in self._bindings(expr, env):
                total = add(total, self.value(expr.body, inner))
            return total
        if isinstance(expr, Add):
            total = 0
            for a in expr.args:
                total = add(total, self.value(a, env))
            return total
        if isinstance(expr, Mul):
            product = 1
            for a in expr.args:
                product = mul(product, self.value(a, env))
            return product
        if isinstance(expr, Pow):
            return power(self.value(expr.base, env), self.value(expr.exp, env))
        if getattr(expr, "is_number", False):
            return _num(expr)
        raise Unsupported(f"cannot evaluate {type(expr).__name__}: {expr}")

    def _moment_of(self, expr: Any, env: Env) -> Num:
        """E[X], Var X or Cov(X, Y), computed once per term and values of its free indices."""
        seen = self._terms.get(id(expr))
        if seen is None or seen[0] is not expr:
            first = self._first.setdefault(expr, expr)
            seen = self._terms[id(expr)] = (expr, first, tuple(sorted(expr.free_symbols, key=str)))
        _, first, free = seen
        key = (first, tuple(env.get(s, 0) for s in free))
        value = self._known.get(key, _UNKNOWN)
        if value is _UNKNOWN:
            value = self._known[key] = self._moment_value(expr, env)
        return value

    def _moment_value(self, expr: Any, env: Env) -> Num:
        """E[X], Var X or Cov(X, Y), from the polynomials of their arguments."""
        if isinstance(expr, E):
            return self.expect(self.poly(expr.args[0], env))
        if isinstance(expr, Var):
            p = self.poly(expr.args[0], env)
            mean = self.expect(p)
            return add(self.expect(_poly_mul(p, p)), mul(-1, mul(mean, mean)))
        p, q = (self.poly(a, env) for a in expr.args)
        cross = self.expect(_poly_mul(p, q))
        return add(cross, mul(-1, mul(self.expect(p), self.expect(q))))

    def truth(self, prop: Any) -> bool:
        """The truth value of an equation, or a disjunction or conjunction of them."""
        if isinstance(prop, sympy.Equality):
            return equal(self.value(prop.lhs), self.value(prop.rhs))
        if isinstance(prop, sympy.Or):
            return any(self.truth(a) for a in prop.args)
        if isinstance(prop, sympy.And):
            return all(self.truth(a) for a in prop.args)
        if isinstance(prop, (BooleanTrue, BooleanFalse)):
            return bool(prop)
        raise Unsupported(f"cannot evaluate the proposition {prop}")

    def evaluate(self, item: Any) -> Num | bool:
        """A value for an expression, a truth value for a proposition."""
        if isinstance(item, PROPOSITIONS):
            return self.truth(item)
        return self.value(item)


def same_value(a: Num | bool, b: Num | bool) -> bool:
    """Two evaluation results agree (truth values, or numbers by :func:`equal`)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return equal(a, b)
