"""Values of softmax-calculus expressions on a concrete setting, without the kernel's rules.

With n, the indices and the scores concrete (:mod:`scaledattn.numeric.scores`),
every term has a number, computed from its meaning alone:

- an entry sᵢ is the setting's value; an entry of a vector that an ``Entries``
  assumption defines (one-hot y, shifted or led scores r) is that definition at i;
- pᵢ = e^{rᵢ} / Σⱼ e^{rⱼ}; sums over 1..n are unrolled; δᵢₘ compares the indices;
- ∂f/∂sₘ: f is written out as an explicit SymPy expression in the n entries of s
  (possible now that n is a number) and differentiated by ``sympy.diff``, which is
  exact on such a finite expression, then evaluated. This shares nothing with the
  kernel's derivative rules. With ``difference=h`` the derivative is instead the
  central difference (f(sₘ + h) − f(sₘ − h)) / 2h: the statement's independent
  measurement (error h²·|f'''|/6, about 10⁻⁴² for h = 10⁻²¹);
- lim_{λ→∞} f: f at each λ of :data:`~scaledattn.numeric.enclosure.LAMBDAS`
  (the kernel's ``limit_at_infinity`` is never used; see
  :mod:`scaledattn.numeric.enclosure` for what samples can show).

Arithmetic is interval arithmetic at 384 bits, more for a sample at a large λ
(:func:`~scaledattn.numeric.enclosure.precision_for`), doubled while an enclosure
straddles the edge of √'s, log's or 1/x's domain: every value is a rigorous
enclosure (:class:`~scaledattn.numeric.enclosure.Approx`). A value whose domain
edge stays undecided raises :class:`~scaledattn.errors.Undecided`
(no witness), one surely outside it :class:`~scaledattn.errors.InvalidArgument`.

One of three evaluators of a term's value, kept apart on purpose: this one gives
rigorous interval enclosures of softmax, derivatives and limits, which a measured
statement reports with its error; the oracle :mod:`~scaledattn.numeric.semantics`
decides equality to 40 digits on finite worlds, and :mod:`~scaledattn.numeric.evaluate`
computes exact moments of random variables.

Examples
--------
>>> from scaledattn.registry import find_derivation
>>> from scaledattn.numeric.scores import read_setting
>>> d = find_derivation("softmax_gradient")
>>> ev = CalculusEvaluator(read_setting(d, {"n": 3, "i": 1, "m": 2, "s": [0, 0, 0]}))
>>> str(ev.value(d.statement.lhs)), str(ev.value(d.statement.rhs))
('-0.111111111111111', '-0.111111111111111')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import sympy
from sympy import Add, Dummy, Expr, KroneckerDelta, Mul, Pow, Symbol
from sympy.core.parameters import evaluate, global_parameters

from scaledattn.errors import InvalidArgument, Undecided, Unsupported
from scaledattn.kernel import Group, IndexSum
from scaledattn.kernel.expr import SUMS
from scaledattn.kernel.vectors import Deriv, Entry, Lim, Softmax
from scaledattn.numeric.enclosure import (
    CTX,
    LAMBDAS,
    MAX_PRECISION,
    PRECISION,
    Approx,
    Interval,
    exact,
    precision_for,
    working_precision,
)
from scaledattn.numeric.scores import ScoreSetting

__all__ = ["CalculusEvaluator", "has_derivative", "has_limit"]

Env = Mapping[Symbol, int]


def _has(expr: Any, kind: type) -> bool:
    return any(isinstance(node, kind) for node in sympy.preorder_traversal(expr))


def has_limit(expr: Any) -> bool:
    """Whether a limit occurs in ``expr``."""
    return _has(expr, Lim)


def has_derivative(expr: Any) -> bool:
    """Whether a derivative occurs in ``expr``."""
    return _has(expr, Deriv)


class CalculusEvaluator:
    """Enclosures of calculus expressions on one setting (entries, p, Σ, δ, ∂, lim).

    ``difference`` = None differentiates exactly (``sympy.diff``); a step h uses the
    central difference instead.
    """

    def __init__(self, setting: ScoreSetting, difference: Fraction | None = None) -> None:
        self.setting = setting
        self.definitions = setting.shape.definitions
        self.h = difference
        self._symbols: dict[tuple[str, int], Dummy] = {}
        self._entry_of: dict[Dummy, tuple[str, int]] = {}
        self._limits: dict[Symbol, int] = {}
        self._sample: int | None = None
        self._shift: tuple[Dummy, Interval] | None = None
        self._cache: dict[Any, Interval] = {}
        self._grounded: dict[Any, Expr] = {}
        self._diffs: dict[tuple[Expr, Dummy], Expr] = {}

    # ------------------------------------------------------------ public
    def value(self, expr: Any) -> Approx:
        """The value of ``expr``: a number, or its samples along λ if a limit occurs in it."""
        if not has_limit(expr):
            return Approx((self._precise(expr, PRECISION),))
        values = []
        try:
            for k, lam in enumerate(LAMBDAS):
                self._sample = k
                values.append(self._precise(expr, precision_for(lam)))
        finally:
            self._sample = None
        return Approx(tuple(values), LAMBDAS)

    def _precise(self, expr: Any, bits: int) -> Interval:
        """``expr`` at ``bits`` of precision, doubled while an enclosure straddles a domain edge."""
        while True:
            try:
                with working_precision(bits):
                    return self._eval(expr, {})
            except Undecided:
                if bits >= MAX_PRECISION:
                    raise
                bits *= 2

    def entries(self, name: str, n: int) -> tuple[Interval, ...]:
        """Every entry of the vector ``name`` (for a defined vector: from its definition)."""
        return tuple(self._entry(name, k, n) for k in range(1, n + 1))

    # ------------------------------------------------------------ indices
    def integer(self, expr: Any, env: Env) -> int:
        """The positive integer an index or dimension stands for here."""
        if isinstance(expr, Symbol):
            if expr in env:
                return env[expr]
            if expr.name in self.setting.integers:
                return self.setting.integers[expr.name]
            raise InvalidArgument(f"the setting gives no value for {expr.name}")
        if getattr(expr, "is_Integer", False) and expr > 0:
            return int(expr)
        raise InvalidArgument(f"an index must be a positive integer, got {expr}")

    def _checked(self, name: str, index: Any, dim: Any, env: Env) -> tuple[int, int]:
        k, n = self.integer(index, env), self.integer(dim, env)
        declared = self.setting.shape.vectors.get(name)
        if declared is not None and self.integer(declared, {}) != n:
            raise InvalidArgument(f"{name} is used with two dimensions")  # pragma: no cover
        if not 1 <= k <= n:
            raise InvalidArgument(f"index {index} = {k} is outside 1..{n} for {name}")
        return k, n

    def _context(self) -> tuple[Any, ...]:
        bound = tuple(sorted((s.name, k) for s, k in self._limits.items()))
        return (bound, self._shift, CTX.prec)

    def _bindings(self, s: IndexSum, env: Env) -> list[dict[Symbol, int]]:
        n = self.integer(s.upper, env)
        if len(s.indices) == 2:
            i, j = s.indices
            return [{**env, i: a, j: b} for a in range(1, n + 1) for b in range(1, n + 1) if a != b]
        (i,) = s.indices
        return [{**env, i: a} for a in range(1, n + 1)]

    # ------------------------------------------------------------ numbers
    def _symbol_for(self, name: str, k: int) -> Dummy:
        key = (name, k)
        if key not in self._symbols:
            self._symbols[key] = Dummy(f"{name}_{k}", real=True)
            self._entry_of[self._symbols[key]] = key
        return self._symbols[key]

    def _base(self, name: str, k: int) -> Interval:
        value = exact(self.setting.vectors[name][k - 1])
        if self._shift is not None and self._entry_of.get(self._shift[0]) == (name, k):
            value = value + self._shift[1]
        return value

    def _entry(self, name: str, k: int, n: int) -> Interval:
        if name not in self.definitions:
            if name not in self.setting.vectors:
                raise InvalidArgument(f"the setting gives no values for {name}")
            return self._base(name, k)
        key = ("entry", name, k, self._context())
        if key not in self._cache:
            given = self.definitions[name]
            self._cache[key] = self._eval(given.body, {given.index: k})
        return self._cache[key]

    def _softmax(self, name: str, k: int, n: int) -> Interval:
        key = ("p", name, k, self._context())
        if key not in self._cache:
            total_key = ("Z", name, self._context())
            if total_key not in self._cache:
                terms = [CTX.exp(self._entry(name, j, n)) for j in range(1, n + 1)]
                self._cache[total_key] = sum(terms[1:], terms[0])
            self._cache[key] = CTX.exp(self._entry(name, k, n)) / self._cache[total_key]
        return self._cache[key]

    def _symbol(self, s: Symbol, env: Env) -> Interval:
        if s in env:
            return exact(env[s])
        if s in self._limits:
            return exact(self._limits[s])
        if s in self._entry_of:
            name, k = self._entry_of[s]
            return self._base(name, k)
        if s.name in self.setting.integers:
            return exact(self.setting.integers[s.name])
        if s.name in self.setting.reals:
            return exact(self.setting.reals[s.name])
        raise InvalidArgument(f"the setting gives no value for {s.name}")

    def _eval(self, expr: Any, env: Env) -> Interval:
        if isinstance(expr, Group):
            return self._eval(expr.args[0], env)
        if isinstance(expr, Entry):
            k, n = self._checked(expr.vector, expr.index, expr.dim, env)
            return self._entry(expr.vector, k, n)
        if isinstance(expr, Softmax):
            k, n = self._checked(expr.vector, expr.index, expr.dim, env)
            return self._softmax(expr.vector, k, n)
        if isinstance(expr, SUMS):
            free = tuple(sorted(expr.free_symbols, key=str))
            key = ("sum", expr, tuple(env.get(s, 0) for s in free), self._context())
            if key not in self._cache:
                terms = [self._eval(expr.body, inner) for inner in self._bindings(expr, env)]
                self._cache[key] = sum(terms[1:], terms[0]) if terms else exact(0)
            return self._cache[key]
        if isinstance(expr, KroneckerDelta):
            a, b = (self.integer(x, env) for x in expr.args)
            return exact(1 if a == b else 0)
        if isinstance(expr, Deriv):
            return self._derivative(expr, env)
        if isinstance(expr, Lim):
            return self._limit(expr, env)
        if isinstance(expr, Symbol):
            return self._symbol(expr, env)
        return _arithmetic(expr, lambda a: self._eval(a, env))

    def _limit(self, expr: Lim, env: Env) -> Interval:
        f, lam = expr.args
        if lam in self._limits:
            raise Unsupported(f"a limit inside a limit over the same {lam}")
        if self._sample is None:  # pragma: no cover - value() sets it when a limit occurs
            raise Unsupported("a limit outside value()")
        self._limits[lam] = LAMBDAS[self._sample]
        try:
            return self._eval(f, env)
        finally:
            del self._limits[lam]

    # ------------------------------------------------------------ derivatives
    def _derivative(self, expr: Deriv, env: Env) -> Interval:
        f, x = expr.args
        if has_limit(f):
            raise Unsupported("a derivative of an expression with a limit in it")
        variable = self._variable(x, env)
        grounded = self.ground(f, env)
        if self.h is None:
            key = (grounded, variable)
            if key not in self._diffs:
                self._diffs[key] = sympy.diff(grounded, variable)
            return self._explicit(self._diffs[key])
        if self._shift is not None:
            raise Unsupported("a central difference inside a central difference")
        h = exact(self.h)
        try:
            self._shift = (variable, h)
            ahead = self._explicit(grounded)
            self._shift = (variable, -h)
            behind = self._explicit(grounded)
        finally:
            self._shift = None
        return (ahead - behind) / (2 * h)

    def _variable(self, x: Entry, env: Env) -> Dummy:
        k, _ = self._checked(x.vector, x.index, x.dim, env)
        if x.vector in self.definitions:
            raise Unsupported(f"a derivative with respect to {x.vector}, which is defined")
        return self._symbol_for(x.vector, k)

    def _explicit(self, expr: Expr) -> Interval:
        """An explicit SymPy expression (entries as symbols), with a memo per context."""
        key = ("explicit", expr, self._context())
        if key in self._cache:
            return self._cache[key]
        if isinstance(expr, Symbol):
            value = self._symbol(expr, {})
        else:
            value = _arithmetic(expr, self._explicit)
        if expr.args:
            self._cache[key] = value
        return value

    # ------------------------------------------------------------ grounding
    def ground(self, expr: Any, env: Env) -> Expr:
        """``expr`` written out for this n: a SymPy expression in the base entries' symbols."""
        if global_parameters.evaluate:  # entering evaluate() clears SymPy's cache: avoid it
            return self._ground(expr, env)
        with evaluate(True):
            return self._ground(expr, env)

    def _ground(self, expr: Any, env: Env) -> Expr:
        if isinstance(expr, Group):
            return self._ground(expr.args[0], env)
        if isinstance(expr, Entry):
            k, n = self._checked(expr.vector, expr.index, expr.dim, env)
            return self._ground_entry(expr.vector, k)
        if isinstance(expr, Softmax):
            k, n = self._checked(expr.vector, expr.index, expr.dim, env)
            key = ("Z", expr.vector, tuple(self._limits))
            if key not in self._grounded:
                self._grounded[key] = Add(
                    *(sympy.exp(self._ground_entry(expr.vector, j)) for j in range(1, n + 1))
                )
            return sympy.exp(self._ground_entry(expr.vector, k)) / self._grounded[key]
        if isinstance(expr, SUMS):
            return Add(*(self._ground(expr.body, inner) for inner in self._bindings(expr, env)))
        if isinstance(expr, KroneckerDelta):
            a, b = (self.integer(x, env) for x in expr.args)
            return sympy.S.One if a == b else sympy.S.Zero
        if isinstance(expr, Deriv):
            f, x = expr.args
            return sympy.diff(self._ground(f, env), self._variable(x, env))
        if isinstance(expr, Lim):
            raise Unsupported("a derivative of an expression with a limit in it")
        if isinstance(expr, Symbol):
            if expr in env:
                return sympy.Integer(env[expr])
            if expr in self._limits:
                return expr
            if expr.name in self.setting.integers:
                return sympy.Integer(self.setting.integers[expr.name])
            if expr.name in self.setting.reals:
                value = self.setting.reals[expr.name]
                return sympy.Rational(value.numerator, value.denominator)
            raise InvalidArgument(f"the setting gives no value for {expr.name}")
        if isinstance(expr, (Add, Mul, Pow, sympy.exp, sympy.log)):
            return expr.func(*(self._ground(a, env) for a in expr.args))
        if getattr(expr, "is_number", False) and not expr.free_symbols:
            return sympy.sympify(expr)
        raise Unsupported(f"cannot evaluate {type(expr).__name__}: {expr}")

    def _ground_entry(self, name: str, k: int) -> Expr:
        if name not in self.definitions:
            if name not in self.setting.vectors:
                raise InvalidArgument(f"the setting gives no values for {name}")
            return self._symbol_for(name, k)
        key = ("entry", name, k, tuple(self._limits))
        if key not in self._grounded:
            given = self.definitions[name]
            self._grounded[key] = self._ground(given.body, {given.index: k})
        return self._grounded[key]


def _arithmetic(expr: Any, recurse: Callable[[Any], Interval]) -> Interval:
    """+, ×, powers, e^x, log x and numbers, each argument valued by ``recurse``."""
    if isinstance(expr, Add):
        terms = [recurse(a) for a in expr.args]
        return sum(terms[1:], terms[0])
    if isinstance(expr, Mul):
        out = recurse(expr.args[0])
        for a in expr.args[1:]:
            out = out * recurse(a)
        return out
    if isinstance(expr, Pow):
        return _power(recurse(expr.base), expr.exp, recurse)
    if isinstance(expr, sympy.exp):
        return CTX.exp(recurse(expr.args[0]))
    if isinstance(expr, sympy.log):
        x = recurse(expr.args[0])
        _require(x, "log of a number that is not positive", zero_allowed=False)
        return CTX.log(x)
    if getattr(expr, "is_Rational", False):
        return exact(Fraction(int(expr.p), int(expr.q)))
    if expr is sympy.S.Exp1:
        return CTX.e
    if expr is sympy.S.Pi:
        return CTX.pi
    raise Unsupported(f"cannot evaluate {type(expr).__name__}: {expr}")


def _require(x: Interval, what: str, zero_allowed: bool) -> None:
    """Require x > 0 (x ≥ 0): InvalidArgument if it surely fails, Undecided if x straddles 0."""
    lo, hi = x.a, x.b
    if lo > 0 or (zero_allowed and lo >= 0):
        return
    if hi < 0 or (not zero_allowed and hi <= 0):
        raise InvalidArgument(what)
    raise Undecided(f"{what}? The enclosure straddles 0")


def _power(base: Interval, exponent: Any, recurse: Callable[[Any], Interval]) -> Interval:
    if getattr(exponent, "is_Integer", False):
        e = int(exponent)
        if e < 0 and not (base.a > 0 or base.b < 0):
            if base.a == 0 == base.b:
                raise InvalidArgument("division by 0")
            raise Undecided("division by 0? The enclosure contains 0")
        return base**e
    if exponent == sympy.S.Half:
        _require(base, "square root of a negative number", zero_allowed=True)
        return CTX.sqrt(base)
    _require(base, "a non-integer power of a number that is not positive", zero_allowed=False)
    return CTX.exp(recurse(exponent) * CTX.log(base))
