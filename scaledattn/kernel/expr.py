"""The term language: random variables, inert E/Var/Cov/Std, dot products, indexed sums.

How it works and what it trusts: docs/kernel.md, ``scaledattn.kernel.expr``.

Examples
--------
>>> X, Y = random_variables("X Y")
>>> E(X + Y)
E(X + Y)
>>> q = RandomVector("q", 3)
>>> Dot(q, q)
q·q
>>> i = index("i")
>>> IndexSum(q[i] ** 2, i, 3)
Sum(q_i**2, (i, 1, 3))
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import sympy
from sympy import Expr, Integer, Mul, Symbol
from sympy.core.assumptions import _assume_defined
from sympy.core.function import AppliedUndef, UndefinedFunction
from sympy.core.logic import fuzzy_and
from sympy.core.parameters import evaluate
from sympy.printing.precedence import PRECEDENCE

from scaledattn.errors import InvalidArgument
from scaledattn.kernel.binders import Binder, Scope, arg_scopes, subst

# --------------------------------------------------------------------------- atoms


class RandomVariable(Symbol):
    """A real random variable with no distribution attached (X, Y, Z)."""

    def __new__(cls, name: str) -> RandomVariable:
        obj: RandomVariable = Symbol.__new__(cls, name, real=True)
        return obj


def random_variables(names: str) -> tuple[RandomVariable, ...]:
    """Random variables from a space-separated list of names.

    >>> random_variables("X Y")
    (X, Y)
    """
    return tuple(RandomVariable(n) for n in names.split())


class VectorLabel(Symbol):
    """The name of a random vector; it appears only inside Component and Dot."""

    def __new__(cls, name: str) -> VectorLabel:
        obj: VectorLabel = Symbol.__new__(cls, name)
        return obj


#: The facts of an index or a dimension: a positive integer.
INDEX_FACTS = Symbol("n", integer=True, positive=True).assumptions0


def within(variable: Any, facts: dict[str, bool]) -> bool:
    """Whether ``variable`` is a symbol whose every fact ``facts`` has.

    A bound variable may know less than its range says (i integer for 1 ≤ i ≤ n),
    never more (i even) or otherwise (i < 0).
    """
    return isinstance(variable, Symbol) and all(
        facts.get(k) == v for k, v in variable.assumptions0.items()
    )


def index(name: str) -> Symbol:
    """An index symbol ranging over 1..d_k (a positive integer)."""
    return Symbol(name, integer=True, positive=True)


def dimension(name: str) -> Symbol:
    """A dimension symbol such as d_k: a positive integer.

    >>> dimension("d_k").is_positive
    True
    """
    return Symbol(name, integer=True, positive=True)


def as_term(x: Any) -> Expr:
    """``x`` as a term: a SymPy object as it is, a Python int or Fraction exactly."""
    if isinstance(x, sympy.Basic):
        refused = _refused(x)
        if refused is not None:
            raise InvalidArgument(f"not a term: {refused}")
        return x
    if isinstance(x, int) and not isinstance(x, bool):
        return Integer(x)
    if isinstance(x, Fraction):
        return sympy.Rational(x.numerator, x.denominator)
    raise InvalidArgument(f"not a term: {x!r} ({type(x).__name__}); write an int or a SymPy term")


_term = as_term

N = sympy.core.numbers
#: SymPy's classes in the kernel's language: arithmetic, exact numbers, symbols, the
#: functions its rules know and propositions. Not SymPy's binders (Sum, Integral,
#: Lambda, Derivative, Limit: the kernel's are IndexSum, CrossSum and Lim), not Float.
SYMPY_TERMS = frozenset({
    sympy.Add, sympy.Mul, sympy.Pow, Integer, sympy.Rational, N.Zero, N.One,
    N.NegativeOne, N.Half, N.Exp1, N.Pi, Symbol, sympy.Dummy, sympy.core.symbol.Str,
    sympy.exp, sympy.log, sympy.Abs, sympy.Max, sympy.Min, sympy.KroneckerDelta,
    sympy.Eq, sympy.Ne, sympy.And, sympy.Or, sympy.Not, type(sympy.true), type(sympy.false),
})  # fmt: skip


#: How many arguments SymPy's functions of a fixed arity take.
_ARITY = {sympy.Pow: 2, sympy.exp: 1, sympy.log: 1, sympy.Abs: 1, sympy.KroneckerDelta: 2}
_ARITY |= {sympy.Eq: 2, sympy.Ne: 2, sympy.Not: 1}

#: The kernel's modules: a class is the kernel's only if one of them holds it.
KERNEL_MODULES = frozenset(
    f"scaledattn.kernel.{m}"
    for m in ("assumptions", "binders", "calculus", "expr", "rules", "theorem", "vectors")
)


def _genuine(cls: type, modules: Callable[[str], bool]) -> bool:
    """Whether ``cls`` is found under its own name in its module, one of ``modules``."""
    name = cls.__module__ or ""
    module = sys.modules.get(name) if modules(name) else None
    # by its one name: a dotted one could lead through an attribute the module imports
    return module is not None and vars(module).get(cls.__qualname__) is cls


def kernel_class(cls: type) -> bool:
    """Whether ``cls`` is the kernel's own (not a class that only says so in __module__)."""
    return _genuine(cls, KERNEL_MODULES.__contains__)


#: The classes found in the language so far, and the symbols found admissible (a
#: symbol's equality includes its facts): each is looked at once.
_LANGUAGE: set[type] = set(SYMPY_TERMS)
_DEFINED: set[Symbol] = set()


def in_language(cls: type) -> bool:
    """Whether ``cls`` is in ``SYMPY_TERMS`` or the kernel's own (structural equality)."""
    if cls in _LANGUAGE:
        return True
    if kernel_class(cls):
        _LANGUAGE.add(cls)
        return True
    return False


def _refused(x: sympy.Basic) -> str | None:
    """Why ``x`` is not a term of the kernel, or None (docs/kernel.md).

    A walk of every node, each checked on its own: its class, a symbol's facts, its
    arity. (The hot loop of term admission: every term constructor walks its arguments.
    Each node is decided as by the plain test ``in_language(cls) or _plain_group(cls) or
    _plain_function(cls)``, asked in that order; ``cls in _LANGUAGE`` is in_language's
    own first test, asked inline. A node's arguments are read once, and pushed in
    the same order, so the first refusal found, and its text, are the same.)
    """
    stack: list[tuple[Any, bool]] = [(x, False)]
    pop, extend = stack.pop, stack.extend
    language, arity = _LANGUAGE, _ARITY
    while stack:
        node, label_here = pop()
        cls = type(node)
        if isinstance(node, Symbol):
            why = _symbol_refused(node, label_here)
            if why is not None:
                return why
        if cls not in language and not (
            in_language(cls) or _plain_group(cls) or _plain_function(cls)
        ):
            if cls is sympy.Float:
                return f"{node} is a float, and a float is not exact (write a Rational)"
            if _genuine(cls, lambda name: name.startswith("sympy.")):
                return f"{cls.__name__} is not in the kernel's language (its sums are its own)"
            return f"{cls.__name__} is neither SymPy's nor the kernel's (its facts are on trust)"
        args = node.args
        if len(args) != arity.get(cls, len(args)):  # Expr.__new__(Pow): no args
            return f"{cls.__name__} with {len(args)} arguments"
        if not args:
            continue
        if cls is DotProduct or cls is Component:  # their vectors' labels (q, k) first
            labels = 2 if cls is DotProduct else 1
            extend((a, n < labels) for n, a in enumerate(args))
        else:
            extend(zip(args, _UNLABELLED, strict=False))  # (repeat never ends)
    return None


#: ``False`` for every argument of a node that has no vector labels among its arguments.
_UNLABELLED = itertools.repeat(False)


def _symbol_refused(node: Symbol, label_here: bool) -> str | None:
    if isinstance(node, VectorLabel) and not label_here:
        return f"{node} names a random vector: write its components or a dot product"
    if node in _DEFINED:
        return None
    facts = node.assumptions0
    if not _assume_defined.issuperset(facts) or _unshown(facts):
        return f"{node} carries a fact the kernel does not take ({facts})"
    if type(node) in _KIND_FACTS and facts != _KIND_FACTS[type(node)]:
        return f"{node} carries facts a {type(node).__name__} does not have ({facts})"
    if len(_DEFINED) < 20_000:
        _DEFINED.add(node)
    return None


def _plain_group(cls: type) -> bool:
    """A display Group: it changes nothing Group has but how it is made and printed."""
    return issubclass(cls, Group) and all(
        k in _GROUP_DISPLAY or (type(getattr(Group, k, v)) is type(v) and getattr(Group, k, v) == v)
        for c in cls.__mro__
        if c not in Group.__mro__
        for k, v in vars(c).items()
    )


def _plain_function(cls: type) -> bool:
    """An undefined function ``Function(name)``: nothing in its class but SymPy's facts."""
    return (
        type(cls) is UndefinedFunction
        and cls.__bases__ == (AppliedUndef,)
        and not _unshown({k[3:]: v for k, v in vars(cls).items() if k.startswith("is_")})
        and all(
            k in _PLAIN_FUNCTION
            or (k[3:] in _assume_defined and (v is True or v is False or v is None))
            for k, v in vars(cls).items()
        )
    )


#: The conditions under which a term is defined over the reals, and how they print.
_NEEDS = {"nonzero": "≠ 0", "nonnegative": "≥ 0", "positive": "> 0", "convergent": "converges"}
_NEEDS |= {"smooth": "is differentiable", "free": "is not defined by the assumptions"}


def conditions(term: Any, smooth: bool = False) -> dict[tuple[str, Expr], frozenset[Scope]]:
    """Where ``term`` is defined: divisors ≠ 0, roots ≥ 0, logarithms > 0, limits finite.

    Under a derivative, roots' arguments > 0 and no corner (|x| needs x ≠ 0). Each with
    the scopes it stands at: the binders around it (inside lim over λ it need hold only
    for large λ; a fact about a symbol a sum rebinds is not read there). The conditions
    of the built term; what the written text needed before SymPy evaluated it away is
    the parsers' (``scaledattn.language.definedness``), as the kernel never sees text.
    """
    found: dict[tuple[str, Expr], frozenset[Scope]] = {}
    stack: list[tuple[Any, Scope, bool]] = [(term, Scope(), smooth)]
    while stack:
        n, scope, smooth = stack.pop()  # smooth: inside a derivative
        smooth = smooth or getattr(n, "is_derivative", False)
        condition = None
        if isinstance(n, sympy.log):
            condition = ("positive", _rebuild(n.args[0]))
        elif isinstance(n, sympy.Pow) and not (n.exp.is_integer and n.exp.is_nonnegative):
            root = "positive" if smooth else "nonnegative"  # √x has no derivative at 0
            kind = "nonzero" if n.exp.is_integer else root if n.exp.is_positive else "positive"
            condition = (kind, _rebuild(n.base))
        elif smooth and isinstance(n, (sympy.Abs, sympy.Max, sympy.Min)):  # corners: ties
            pairs = itertools.combinations((*n.args, 0)[: max(len(n.args), 2)], 2)  # |x|: x, 0
            condition = ("nonzero", _rebuild(sympy.Mul(*(a - b for a, b in pairs))))
        elif smooth and isinstance(n, sympy.KroneckerDelta):  # δ(s₁, 1) jumps at s₁ = 1
            if not all(a.is_Integer or a.is_Symbol for a in n.args):  # (δ of indices: no)
                condition = ("smooth", _rebuild(n))
        elif getattr(n, "is_limit", False):  # under a derivative, no limit (a step's)
            condition = ("smooth" if smooth else "convergent", _rebuild(n))
        elif getattr(n, "is_derivative", False):  # ∂s₁/∂r₁ has no meaning if r is defined
            condition = ("free", n.args[1])
        if condition is not None:
            found[condition] = found.get(condition, frozenset()) | {scope}
        if getattr(n, "args", ()):
            stack.extend((a, s, smooth) for a, s in zip(n.args, arg_scopes(n, scope), strict=True))
    return found


def _sufficient(kind: str, base: Expr) -> list[tuple[str, Expr]]:
    """Conditions that together give ``base`` ``kind``: 2c ≠ 0 from c ≠ 0, c²V ≥ 0 from V ≥ 0."""
    coeff, rest = base.as_coeff_Mul()
    if coeff == 0 or (kind != "nonzero" and coeff.is_negative) or kind in ("convergent", "smooth"):
        return [(kind, base)]
    found = []
    for f in Mul.make_args(rest):
        g, k = (f.base, f.exp) if f.is_Pow and f.exp.is_integer else (f, sympy.S.One)
        if kind == "nonzero" or (k.is_even and (kind == "positive" or k.is_negative)):
            found.append(("nonzero", g))
        elif not k.is_even:
            found.append((kind, f))
    return found


def by_own_facts(kind: str, term: Expr, scope: Any = None) -> bool:
    """Whether ``term`` is ``kind`` (nonzero, nonnegative, positive) by its symbols' facts."""
    return getattr(term, f"is_{kind}", None) is True


def unclaimable(
    term: sympy.Basic,
    holds: Callable[..., bool] = by_own_facts,
    total: bool = False,
    smooth: bool = False,
) -> str | None:
    """Why a claim's, statement's or assumption's term may not be one, or None.

    Evaluated, each of its parts must still be in the language (1/0 in 1/(1/0) is
    not), and it may hold no Dummy free: Dummies are the kernel's bound and fresh
    names, which a free one would capture. The conditions it is real under must hold
    (``holds(kind, base, scope)`` at each scope it stands at): all of them when
    ``total``, else those evaluating drops (x/x is 1 only where x ≠ 0). ``smooth``:
    as if under a derivative (a definition's body must be differentiable).
    """
    found: list[str | None] = [None]

    def evaluate_part(e: Any) -> Any:
        if isinstance(e, (sympy.UnevaluatedExpr, Group)):
            return evaluate_part(e.args[0])
        if not e.args or e.is_Atom:
            return e
        made = e.func(*map(evaluate_part, e.args))
        found[0] = found[0] or _refused(made)  # its atoms where they stand
        return made

    with evaluate(True):
        evaluated = evaluate_part(term)
        why = found[0] or _refused(term) or _refused(evaluated)
        if why is None and any(isinstance(s, sympy.Dummy) for s in evaluated.free_symbols):
            why = f"{evaluated} holds a name the kernel keeps for bound indices (a Dummy)"
        if why is not None:
            return why
        written, made = conditions(term, smooth), conditions(evaluated, smooth)
        where = {c: written.get(c, set()) | made.get(c, set()) for c in {*written, *made}}
        kept = set(made) | {(k, b) for p, b in made if p == "positive" for k in _NEEDS}
        needed = sorted(set(written) | set(made) if total else set(written) - kept, key=str)
        met = [(n in kept and not total, n, c) for c in needed for n in _sufficient(*c)]
        lost = [
            (k, b) for ok, (k, b), c in met if not (ok or all(holds(k, b, s) for s in where[c]))
        ]
    if lost:  # c(c − 1)/(c − 1) is c only where c ≠ 1
        needs = ", ".join(dict.fromkeys(f"{b} {_NEEDS[k]}" for k, b in lost))
        why = f"{term} is defined only where {needs}, which is not assumed"
    return why


def _check_dim(n: Any) -> Expr:
    n = _term(n)
    if n.is_Integer and n > 0:
        return n
    if n.is_Symbol and n.is_integer and n.is_positive:
        return n
    raise InvalidArgument(
        f"dimension must be a positive integer or a positive-integer symbol, got {n!r}"
    )


def _check_index(i: Any, dim: Any = 0) -> Expr:
    i = _term(i)
    if i.is_Integer and _term(dim).is_Integer and i > dim > 0:  # s₅ of s = (s₁, s₂, s₃)
        raise InvalidArgument(f"the index {i} is beyond the dimension {dim}")
    if (i.is_Integer and i > 0) or (within(i, INDEX_FACTS) and i.is_integer):  # (not i < 0)
        return i
    raise InvalidArgument(f"an index must be a positive integer or an index symbol, got {i!r}")


class Component(Expr):
    """The i-th component q_i of a random vector q: a real random variable."""

    is_commutative = True
    is_real = True

    def __new__(cls, label: VectorLabel, i: Any) -> Component:
        if not isinstance(label, VectorLabel):
            raise InvalidArgument(f"Component needs a vector label, got {label!r}")
        obj: Component = Expr.__new__(cls, label, _check_index(i))
        return obj

    @property
    def label(self) -> VectorLabel:
        """The vector this component belongs to."""
        label: VectorLabel = self.args[0]
        return label

    @property
    def index(self) -> Expr:
        """The component's index."""
        return self.args[1]


class RandomVector:
    """A random vector q = (q_1, ..., q_n) of real components; q[i] is a Component.

    >>> q = RandomVector("q", dimension("d_k"))
    >>> q[index("i")]
    q_i
    """

    def __init__(self, name: str, dim: Any) -> None:
        self.label = VectorLabel(name)
        self.dim = _check_dim(dim)

    def __getitem__(self, i: Any) -> Component:
        return Component(self.label, _check_index(i, self.dim))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, RandomVector)
            and other.label == self.label
            and bool(other.dim == self.dim)
        )

    def __hash__(self) -> int:
        return hash((self.label, self.dim))


# ----------------------------------------------------------------- inert operators


class OpaqueTerm(Expr):
    """Base class of terms defined outside this module that :func:`same` treats as unknowns."""


class _Operator(Expr):
    """An inert operator applied to random expressions; its value is a constant."""

    is_commutative = True
    arity = 1

    def __new__(cls, *args: Any) -> _Operator:
        if len(args) != cls.arity:
            raise InvalidArgument(f"{cls.__name__} takes {cls.arity} argument(s)")
        obj: _Operator = Expr.__new__(cls, *(_term(a) for a in args))
        return obj

    def _eval_is_real(self) -> bool | None:
        real: bool | None = fuzzy_and(a.is_real for a in self.args)
        return real


class E(_Operator):
    """Expectation E[Z] of a random expression Z, kept unevaluated."""


class Var(_Operator):
    """Variance Var(Z), kept unevaluated."""


class Cov(_Operator):
    """Covariance Cov(Y, Z), kept unevaluated."""

    arity = 2


class Std(_Operator):
    """Standard deviation Std(Z) = √Var(Z), kept unevaluated."""


MOMENT_OPERATORS = (E, Var, Cov, Std)


class DotProduct(Expr):
    """The dot product q·k = Σᵢ qᵢkᵢ of two random vectors of the same dimension."""

    is_commutative = True
    is_real = True
    precedence = PRECEDENCE["Mul"]

    def __new__(cls, q: Any, k: Any, dim: Any = None) -> DotProduct:
        if isinstance(q, RandomVector) and isinstance(k, RandomVector):
            if bool(q.dim != k.dim):
                raise InvalidArgument(f"dimensions differ: {q} has {q.dim}, {k} has {k.dim}")
            q_label, k_label, n = q.label, k.label, q.dim
        elif isinstance(q, VectorLabel) and isinstance(k, VectorLabel):
            q_label, k_label, n = q, k, _check_dim(dim)
        else:
            raise InvalidArgument("Dot takes two random vectors")
        obj: DotProduct = Expr.__new__(cls, q_label, k_label, n)
        return obj

    @property
    def dim(self) -> Expr:
        """The common dimension."""
        return self.args[2]


Dot = DotProduct


# ---------------------------------------------------------------------- sums


class IndexSum(Binder):
    """Σ_{i=1}^{n} body: a finite sum over one index, n a dimension."""

    is_commutative = True
    precedence = PRECEDENCE["Add"]

    def __new__(cls, body: Any, i: Symbol, upper: Any) -> IndexSum:
        if not within(i, INDEX_FACTS):
            raise InvalidArgument(f"a summation index is a positive-integer symbol, got {i!r}")
        obj = Expr.__new__(cls, _term(body), i, _check_dim(upper))
        made: IndexSum = obj.unshadowed()
        return made

    @property
    def body(self) -> Expr:
        """The summand."""
        return self.args[0]

    @property
    def indices(self) -> tuple[Symbol, ...]:
        """The bound index symbols."""
        return self.bound

    @property
    def upper(self) -> Expr:
        """The upper bound n (the lower bound is 1)."""
        return self.args[-1]

    def remake(self, body: Any, indices: tuple[Symbol, ...], upper: Any) -> IndexSum:
        """A sum of the same kind with another body, indices or bound."""
        return IndexSum(body, indices[0], upper)

    def _eval_is_real(self) -> bool | None:
        real: bool | None = self.body.is_real
        return real


class CrossSum(IndexSum):
    """Σ_{i≠j} body: the sum over ordered pairs of distinct indices i, j in 1..n."""

    bound_at = (1, 2)

    def __new__(cls, body: Any, i: Symbol, j: Symbol, upper: Any) -> CrossSum:
        for s in (i, j):
            if not within(s, INDEX_FACTS):
                raise InvalidArgument(f"a summation index is a positive-integer symbol, got {s!r}")
        if i == j:
            raise InvalidArgument("the two indices of a cross sum must differ")
        obj = Expr.__new__(cls, _term(body), i, j, _check_dim(upper))
        made: CrossSum = obj.unshadowed()
        return made

    @property
    def distinct_pairs(self) -> tuple[tuple[Symbol, Symbol], ...]:
        """The pair of indices the sum keeps apart (i ≠ j)."""
        i, j = self.bound
        return ((i, j),)

    def remake(self, body: Any, indices: tuple[Symbol, ...], upper: Any) -> IndexSum:
        """A cross sum with another body, indices or bound."""
        return CrossSum(body, indices[0], indices[1], upper)


SUMS = (IndexSum, CrossSum)


class Group(Expr):
    """Parentheses kept for display: ``Group(a - b)`` prints as ``(a − b)``."""

    is_commutative = True

    def __new__(cls, inner: Any) -> Group:
        obj: Group = Expr.__new__(cls, _term(inner))
        return obj


# ------------------------------------------------------------------ utilities


def as_written() -> Any:
    """Context manager: build expressions exactly as written, unevaluated, for display."""
    return evaluate(False)


def random_atoms(expr: Expr) -> set[Expr]:
    """The random atoms of ``expr`` (variables, components, dot products) outside E/Var/Cov.

    >>> X, Y = random_variables("X Y")
    >>> sorted(map(str, random_atoms(X * E(Y) + 2)))
    ['X']
    """
    if isinstance(expr, MOMENT_OPERATORS):
        return set()
    if isinstance(expr, (RandomVariable, Component, Dot)):
        return {expr}
    found: set[Expr] = set()
    for a in expr.args:
        found |= random_atoms(a)
    return found


def is_random(expr: Expr) -> bool:
    """True when ``expr`` depends on a random variable outside an expectation."""
    return bool(random_atoms(expr))


def rebuild(expr: Expr) -> Expr:
    """Re-evaluate an expression built unevaluated (``as_written``) bottom-up."""
    with evaluate(True):
        return _rebuild(expr)


def _rebuild(expr: Any) -> Any:
    if isinstance(expr, (sympy.UnevaluatedExpr, Group)):
        return _rebuild(expr.args[0])
    if not getattr(expr, "args", ()) or expr.is_Atom:
        return expr
    return expr.func(*(_rebuild(a) for a in expr.args))


_BOUND = tuple(sympy.Dummy(f"ι{n}", integer=True, positive=True) for n in range(64))
_CANONICAL: dict[tuple[int, tuple[tuple[str, bool], ...]], Symbol] = {}
#: What a display Group's class may set of what Group has: how it is made and printed.
_GROUP_DISPLAY = frozenset({
    "__new__", "__module__", "__qualname__", "__doc__", "__dict__", "__weakref__",
    "__slots__", "__annotations__", "_sympystr", "_latex", "_pretty",
})  # fmt: skip


def _unshown(facts: dict[str, Any]) -> bool:
    """Facts no term may carry (the others are shown where they are carried).

    Zero, imaginary, polar, infinite, not commuting, extended real but not real (±∞).
    """
    bad = ("zero", "imaginary", "polar", "infinite", "antihermitian")
    return (
        any(facts.get(k) is True for k in bad)
        or facts.get("commutative") is False
        or (facts.get("extended_real") is True and facts.get("real") is not True)
    )


#: The facts each of the kernel's kinds of symbol has, and no other.
_KIND_FACTS = {
    RandomVariable: RandomVariable("X").assumptions0,
    VectorLabel: VectorLabel("q").assumptions0,
}
#: What ``Function("f")`` puts in the class it makes (a user class may add nothing).
_PLAIN_FUNCTION = frozenset(vars(sympy.Function("f")))


def canonical_indices(expr: Expr) -> Expr:
    """Rename bound symbols to fixed dummies, in a canonical order."""
    return _canon(expr, 0)


MAX_PERMUTED_BINDERS = 4


def _canon(expr: Any, depth: int) -> Any:
    if type(expr) is IndexSum:
        # Open each sum with a fresh symbol, so that a free i in a bound is never taken
        # for a bound i (Σ_{j≤i} Σ_{i≤n}: the first i is free).
        binders: list[tuple[Symbol, Expr]] = []
        e = expr
        while type(e) is IndexSum:
            opened = sympy.Dummy(integer=True, positive=True)
            binders.append((opened, e.upper))
            e = subst(e.body, {e.indices[0]: opened})
        orders = (
            itertools.permutations(binders)
            if len(binders) <= MAX_PERMUTED_BINDERS
            else iter([tuple(binders)])
        )
        valid = [o for o in orders if _respects_bounds(o)]
        return min((_rebind(e, order, depth) for order in valid), key=sympy.srepr)
    if isinstance(expr, CrossSum):
        i, j = expr.indices
        swapped = expr.remake(expr.body, (j, i), expr.upper)
        return min((_canon_cross(expr, depth), _canon_cross(swapped, depth)), key=sympy.srepr)
    if isinstance(expr, Binder) and not expr.renameable:
        return expr.func(*(_canon(a, depth) for a in expr.args))
    if isinstance(expr, Binder):
        dummies = tuple(_canonical_dummy(depth + n, s) for n, s in enumerate(expr.bound))
        renamed = expr.with_bound(dummies)
        inner = depth + len(dummies)
        args = [
            _canon(a, inner) if n in renamed.scope_at else _canon(a, depth)
            for n, a in enumerate(renamed.args)
        ]
        return renamed.func(*args)
    if not getattr(expr, "args", ()) or expr.is_Atom:
        return expr
    return expr.func(*(_canon(a, depth) for a in expr.args))


def _canonical_dummy(depth: int, like: Symbol) -> Symbol:
    key = (depth, tuple(sorted(like.assumptions0.items())))
    if key not in _CANONICAL:
        _CANONICAL[key] = sympy.Dummy(f"β{depth}", **like.assumptions0)
    return _CANONICAL[key]


def _respects_bounds(order: tuple[tuple[Symbol, Expr], ...]) -> bool:
    """Whether each sum's bound mentions only indices of sums outside it in ``order``."""
    chain = {i for i, _ in order}
    outer: set[Symbol] = set()
    for i, upper in order:
        if (upper.free_symbols & chain) - outer:
            return False
        outer.add(i)
    return True


def _bound_names(depth: int, count: int) -> tuple[Symbol, ...]:
    """The kernel's names for the bound indices of sums nested depth+1..depth+count deep."""
    if depth + count > len(_BOUND):
        raise InvalidArgument(f"more than {len(_BOUND)} sums nested in one another")
    return _BOUND[depth : depth + count]


def _rebind(body: Expr, order: tuple[tuple[Symbol, Expr], ...], depth: int) -> Expr:
    new = _bound_names(depth, len(order))
    mapping = {old: n for (old, _), n in zip(order, new, strict=True)}
    inner = _canon(subst(body, mapping), depth + len(order))
    for n in reversed(range(len(order))):
        inner = IndexSum(inner, new[n], subst(order[n][1], mapping))
    return inner


def _canon_cross(expr: IndexSum, depth: int) -> Expr:
    new = _bound_names(depth, 2)
    body = subst(expr.body, dict(zip(expr.indices, new, strict=True)))
    return expr.remake(_canon(body, depth + 2), new, expr.upper)


_NORMAL_FORMS: dict[Expr, Expr] = {}
NORMAL_FORMS_KEPT = 20_000


def normal_form(expr: Expr) -> Expr:
    """The kernel's normal form: evaluate, rename bound indices, ``expand``.

    Kept per term of SymPy's and the kernel's classes only (docs/kernel.md).
    """
    try:
        found = _NORMAL_FORMS.get(expr)
        keep = found is None and _structural(expr)
    except TypeError:  # unhashable: computed every time, never kept
        found, keep = None, False
    if found is None:
        with evaluate(True):
            found = sympy.expand(canonical_indices(sympy.expand(_rebuild(expr))))
    if keep:
        if len(_NORMAL_FORMS) >= NORMAL_FORMS_KEPT:
            _NORMAL_FORMS.clear()
        _NORMAL_FORMS[expr] = found
    return found


def _structural(expr: Any) -> bool:
    """Whether ``expr`` holds only the language's classes (their equality is structural)."""
    return isinstance(expr, sympy.Basic) and all(
        in_language(type(n)) for n in sympy.preorder_traversal(expr)
    )


#: Ways to show a difference non-zero, filled outside the kernel (``scaledattn.explain``):
#: ``nonzero(diff)`` is True when it finds a point where ``diff`` is not 0. They only
#: tell a refusal "mismatch" (False) from "undecided" (None); they never accept.
NONZERO_TESTS: list[Callable[[Expr], bool]] = []


def same(a: Expr, b: Expr) -> bool | None:
    """Decide ``a == b`` up to ring algebra: True, False, or None when undecided."""
    diff = normal_form(a) - normal_form(b)
    with evaluate(True):
        diff = sympy.expand(diff)
    if diff == 0:
        return True
    return False if any(nonzero(diff) for nonzero in NONZERO_TESTS) else None


def fresh_index(avoid: set[Symbol], preferred: str = "j") -> Symbol:
    """An index symbol named ``preferred`` or the next free letter, not in ``avoid``."""
    names = {s.name for s in avoid if isinstance(s, Symbol)}
    for name in (preferred, "i", "j", "l", "m", "r", "s", "t", "u", "v", "w"):
        if name not in names:
            return index(name)
    n = 1
    while f"i{n}" in names:
        n += 1
    return index(f"i{n}")
