"""Score vectors, softmax, derivatives and limits: the terms of the softmax calculus.

How it works and what it trusts: docs/kernel.md, ``scaledattn.kernel.vectors``.

Examples
--------
>>> from scaledattn.kernel.expr import dimension, index
>>> n, i = dimension("n"), index("i")
>>> s = RealVector("s", n)
>>> p = SoftmaxVector(s, "p")
>>> p[i], s[i]
(p_i, s_i)
>>> Deriv(p[i], s[index("m")])
∂(p_i)/∂s_m
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy
from sympy import Expr, Symbol
from sympy.core.symbol import Str

from scaledattn.errors import InvalidArgument
from scaledattn.kernel.assumptions import Assumption
from scaledattn.kernel.binders import Binder, Scope, arg_scopes, subst
from scaledattn.kernel.expr import (
    INDEX_FACTS,
    MOMENT_OPERATORS,
    Component,
    E,
    IndexSum,
    OpaqueTerm,
    Std,
    Var,
    _check_dim,
    _check_index,
    as_term,
    is_random,
    rebuild,
    unclaimable,
    within,
)


def _name(name: Any) -> Str:
    if isinstance(name, Str):
        return name
    if isinstance(name, str) and name.replace("'", "").isidentifier():
        return Str(name)
    raise InvalidArgument(f"a vector name must be an identifier (primes allowed), got {name!r}")


# --------------------------------------------------------------------------- terms


class Entry(OpaqueTerm):
    """The i-th entry sᵢ of a real vector s of dimension n (a real variable)."""

    is_commutative = True
    is_real = True

    def __new__(cls, name: Any, i: Any, n: Any) -> Entry:
        obj: Entry = Expr.__new__(cls, _name(name), _check_index(i, n), _check_dim(n))
        return obj

    @property
    def vector(self) -> str:
        """The vector's name."""
        return str(self.args[0].name)

    @property
    def index(self) -> Expr:
        """The entry's index."""
        return self.args[1]

    @property
    def dim(self) -> Expr:
        """The vector's dimension."""
        return self.args[2]


class Softmax(OpaqueTerm):
    """The i-th softmax weight pᵢ = e^{sᵢ} / Σⱼ e^{sⱼ} of the score vector s (positive)."""

    is_commutative = True
    is_real = True
    is_positive = True

    def __new__(cls, scores: Any, i: Any, n: Any, name: Any = "p") -> Softmax:
        if _name(name) == _name(scores):  # pᵢ would be shown as sᵢ
            raise InvalidArgument(f"the softmax of {scores} needs a name of its own")
        obj: Softmax = Expr.__new__(
            cls, _name(scores), _check_index(i, n), _check_dim(n), _name(name)
        )
        return obj

    @property
    def vector(self) -> str:
        """The name of the score vector."""
        return str(self.args[0].name)

    @property
    def index(self) -> Expr:
        """The weight's index."""
        return self.args[1]

    @property
    def dim(self) -> Expr:
        """The number of scores."""
        return self.args[2]

    @property
    def shown(self) -> str:
        """The name it is shown with (p)."""
        return str(self.args[3].name)


class RealVector:
    """A vector s = (s₁, …, sₙ) of real variables; ``s[i]`` is an Entry."""

    def __init__(self, name: str, dim: Any) -> None:
        self.name = str(_name(name).name)
        self.dim = _check_dim(dim)

    def __getitem__(self, i: Any) -> Entry:
        return Entry(self.name, i, self.dim)


class SoftmaxVector:
    """p = softmax(s), shown as ``name``; ``p[i]`` is the Softmax term pᵢ."""

    def __init__(self, scores: RealVector, name: str = "p") -> None:
        if not isinstance(scores, RealVector):
            raise InvalidArgument(f"softmax takes a RealVector, got {scores!r}")
        self.scores, self.name = scores, str(_name(name).name)

    def __getitem__(self, i: Any) -> Softmax:
        return Softmax(self.scores.name, i, self.scores.dim, self.name)


class Deriv(OpaqueTerm):
    """The partial derivative ∂f/∂x of f with respect to one entry x = sₘ, kept unevaluated."""

    is_commutative = True
    is_derivative = True  # inside, √x needs x > 0 and |x| needs x ≠ 0 (``conditions``)

    def __new__(cls, f: Any, x: Any) -> Deriv:
        if not isinstance(x, Entry):
            raise InvalidArgument(f"a derivative is taken with respect to an entry, got {x!r}")
        obj: Deriv = Expr.__new__(cls, as_term(f), x)
        return obj

    def _eval_is_real(self) -> bool | None:
        real: bool | None = self.args[0].is_real
        return real

    @property
    def variable(self) -> Entry:
        """The entry differentiated against."""
        x: Entry = self.args[1]
        return x


#: What λ → ∞ may know of λ: that it is a positive real, or a positive integer (the
#: limit of a sequence); no other fact (λ < 0, λ even) holds for every large λ.
_TOWARDS_INFINITY = tuple(Symbol("λ", positive=True, integer=n).assumptions0 for n in (None, True))


class Lim(Binder, OpaqueTerm):
    """The limit of f as the real parameter λ tends to +∞, kept unevaluated."""

    is_commutative = True
    is_limit = True
    renameable = False  # Lead(r, s, w, λ) makes rⱼ depend on the limit's λ by its name

    def __new__(cls, f: Any, variable: Any) -> Lim:
        if not (any(within(variable, f) for f in _TOWARDS_INFINITY) and variable.is_real):
            raise InvalidArgument(f"a limit is taken over a real symbol, got {variable!r}")
        if indexed_by(as_term(f), variable):  # r_λ: for large λ no vector has that entry
            raise InvalidArgument(f"an index cannot tend to ∞ with the limit's {variable}")
        obj = Expr.__new__(cls, as_term(f), variable)
        made: Lim = obj.unshadowed()
        return made

    @property
    def variable(self) -> Symbol:
        """The parameter that tends to +∞."""
        lam: Symbol = self.args[1]
        return lam


def indexed_by(f: Any, lam: Any) -> bool:
    """Whether an entry, a softmax weight or a component in ``f`` has an index growing with λ.

    λ itself (r_λ), or the index of a sum up to it (s_j in Σ_{j≤λ} s_j: ``Scope.growing``).
    """
    stack: list[tuple[Any, Scope]] = [(f, Scope())]
    while stack:
        e, scope = stack.pop()
        if isinstance(e, (Entry, Softmax, Component)) and e.index in {lam, *scope.growing(lam)}:
            return True
        stack.extend(zip(e.args, arg_scopes(e, scope), strict=True))
    return False


# --------------------------------------------------------------------- assumptions


def _index_symbol(i: Any) -> Symbol:
    if within(i, INDEX_FACTS) and i.is_integer:  # with no fact an index may not have
        return i
    raise InvalidArgument(f"expected an index symbol, got {i!r}")


@dataclass(frozen=True)
class Entries(Assumption):
    """The entries of a vector are given: ``r_j = body`` for every j in 1..n."""

    name: str
    dim: Expr
    body: Expr
    index: Symbol
    label: str = ""

    def __init__(self, vector: RealVector, body: Any, j: Any, label: str = "") -> None:
        if not isinstance(vector, RealVector):
            raise InvalidArgument(f"Entries defines a RealVector, got {vector!r}")
        j = _index_symbol(j)
        body = rebuild(as_term(body))
        if body.is_extended_real is not True:  # r is real, so every entry of it
            raise InvalidArgument(f"the entries of {vector.name} are real: {sympy.sstr(body)}")
        if is_random(body):
            raise InvalidArgument(
                f"the entries of {vector.name} are real numbers, not random: {sympy.sstr(body)}"
            )
        why = unclaimable(body, total=True, smooth=True)  # ∂r₁/∂s₁ must exist: no |s_j|
        if why is not None:
            raise InvalidArgument(f"the entries of {vector.name} are defined and smooth: {why}")
        nodes = sympy.preorder_traversal(body)
        if any(getattr(a, "vector", None) == vector.name for a in nodes):  # r_j, p(r)_j
            raise InvalidArgument(f"the entries of {vector.name} cannot be defined by themselves")
        object.__setattr__(self, "name", vector.name)
        object.__setattr__(self, "dim", vector.dim)
        object.__setattr__(self, "body", body)
        object.__setattr__(self, "index", j)
        object.__setattr__(self, "label", label)

    def at(self, i: Expr) -> Expr:
        """The body at index i (a capture-avoiding substitution)."""
        return subst(self.body, {self.index: i})

    def constrains(self) -> set[Symbol]:
        """None: a definition holds whatever its symbols' values (see ``parameters``)."""
        return set()

    def parameters(self) -> set[Symbol]:
        """The symbols the body mentions besides its own index (w and λ in sⱼ + λδⱼw)."""
        mentioned: set[Symbol] = self.body.free_symbols
        return mentioned - {self.index}


@dataclass(frozen=True)
class IndexRange(Assumption):
    """The free index symbol m ranges over 1..n."""

    index: Symbol
    upper: Expr

    def __init__(self, m: Any, n: Any) -> None:
        object.__setattr__(self, "index", _index_symbol(m))
        object.__setattr__(self, "upper", _check_dim(n))

    def constrains(self) -> set[Symbol]:
        """The index and the symbols of its bound."""
        upper: set[Symbol] = self.upper.free_symbols
        return {self.index} | upper


@dataclass(frozen=True)
class Distinct(Assumption):
    """Two index symbols denote different indices: t ≠ w, hence δₜw = 0."""

    pair: frozenset[Symbol]

    def __init__(self, t: Any, w: Any) -> None:
        t, w = _index_symbol(t), _index_symbol(w)
        if t == w:
            raise InvalidArgument("Distinct needs two different index symbols")
        object.__setattr__(self, "pair", frozenset((t, w)))

    def constrains(self) -> set[Symbol]:
        """The two indices."""
        return set(self.pair)


# ------------------------------------------------------------------------ helpers


def definitions(ctx: Any, readable: bool = False) -> dict[str, Entries]:
    """The vectors whose entries the context defines, by name."""
    found = ctx.assumptions if readable else (*ctx.assumptions, *ctx.unreadable)
    return {a.name: a for a in found if isinstance(a, Entries)}


def depends_on(expr: Expr, name: str, defs: dict[str, Entries], symbol: Any = None) -> bool:
    """Whether ``expr`` may depend on the vector ``name`` (or on ``symbol``)."""
    seen: set[str] = set()

    def visit(e: Expr) -> bool:
        for node in sympy.preorder_traversal(e):
            if symbol is not None and node == symbol:
                return True
            if symbol is None and isinstance(node, MOMENT_OPERATORS):
                return True  # a moment may be declared to be an entry (E[X] = s₁)
            if isinstance(node, (Entry, Softmax)):
                if node.vector == name:
                    return True
                if node.vector in defs and node.vector not in seen:
                    seen.add(node.vector)
                    if visit(defs[node.vector].body):
                        return True
        return False

    return visit(expr)


def positive(expr: Expr) -> bool:
    """True when expr > 0 follows from its form."""
    if isinstance(expr, Softmax):
        return True
    if isinstance(expr, sympy.exp):
        return expr.args[0].is_real is True
    if type(expr) is IndexSum:
        return positive(expr.body)
    if isinstance(expr, (sympy.Add, sympy.Mul)):
        return all(positive(a) for a in expr.args)
    if isinstance(expr, sympy.Pow):
        return positive(expr.base) and expr.exp.is_real is True
    return expr.is_positive is True


def nonnegative(expr: Expr) -> bool:
    """True when expr ≥ 0 follows from its form: variances, deviations, squares, positives."""
    if isinstance(expr, (Var, Std)):
        return expr.args[0].is_real is True
    if isinstance(expr, E) or type(expr) is IndexSum:  # a mean or sum of what is never < 0
        return nonnegative(expr.args[0])
    if isinstance(expr, sympy.Add):  # c·E[Y²] − c·E[Y]² is c·Var(Y) ≥ 0 (c > 0)
        rest = list(expr.args)
        for t in expr.args:
            c, f = t.as_coeff_Mul()
            if c < 0 and f.is_Pow and f.exp == 2 and isinstance(f.base, E) and t in rest:
                square = -c * E(f.base.args[0] ** 2)
                if square in rest and f.base.args[0].is_real:
                    rest.remove(t)
                    rest.remove(square)
        return all(nonnegative(a) for a in rest)
    if isinstance(expr, sympy.Mul):
        return all(nonnegative(a) for a in expr.args)
    if isinstance(expr, sympy.Pow) and expr.exp.is_real:
        return (expr.exp.is_even and expr.base.is_real) is True or nonnegative(expr.base)
    return positive(expr) or expr.is_nonnegative is True


def nonzero(expr: Expr) -> bool:
    """True when expr ≠ 0 follows from its form (positive or negative)."""
    return positive(expr) or positive(-expr)
