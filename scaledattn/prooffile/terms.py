"""The terms of a proof file: the claim language's expressions, plus sums and the softmax calculus.

Expressions are read by the calculator's bounded parser
(:class:`~scaledattn.language.parse.Parser`) configured with this module's
:data:`PROOF_SYNTAX`, never by ``eval`` or ``sympify``, and built into kernel terms
by :class:`TermBuilder`. Names:

- ``X``, ``Y``, ``Z``: random variables; ``q_i``, ``k_2``, ``k'_j``: components of the
  random vectors q, k, k' (``dot(q, k)`` is q·k of dimension d_k, ``dot(q, k, N)`` of N);
  ``assume: w random vector`` makes ``w`` a random vector too (components ``w_a``);
- ``i j l m t w u v``: indices, ``d_k``, ``n``, ``N``: dimensions (positive integers);
  ``sigma``, ``sigma_q``, ``sigma_k``: positive; any other name is a real constant
  (``assume: c positive`` and the like change the kind of a name); a primed index
  ``i'``, ``i''`` (as the kernel names the inner index of Σᵢ Σᵢ) has its index's kind;
- ``s_i``, ``r_i``, ``y_i``, ``g_i``: entries of real vectors of dimension n
  (``entry(s, i, N)`` for another vector or dimension, any name: ``entry(b_q, i, d_k)``);
  ``p_i`` is softmax(s)ᵢ (``softmax(r, i, n, p')`` for another score vector or name).

Functions: ``E Var Cov std sqrt exp log dot``, ``sum(BODY, i, 1, N)`` (Σᵢ₌₁ᴺ),
``cross_sum(BODY, i, j, 1, N)`` (Σ over i ≠ j), ``delta(i, j)`` (Kronecker),
``deriv(f, s_m)`` (∂f/∂sₘ), ``lim(f, lambda)`` (λ → ∞). A prime is written ``'``
after a name (``k'_i``, ``p'``).

Examples
--------
>>> build_term("Var(sum(q_i*k_i, i, 1, d_k))")
Var(Sum(k_i*q_i, (i, 1, d_k)))
>>> build_term("cross_sum(E(q_i)*E(q_j), i, j, 1, 3)")
CrossSum(E(q_i)*E(q_j), (i, j, 1, 3))
>>> build_term("sum(sum(q_i', i', 1, n), i, 1, n)")
Sum(Sum(q_i', (i', 1, n)), (i, 1, n))
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

import sympy
from sympy import Expr, KroneckerDelta, Rational, Symbol

from scaledattn.errors import InvalidArgument
from scaledattn.kernel import (
    Cov,
    CrossSum,
    Deriv,
    Dot,
    E,
    Entry,
    IndexSum,
    Lim,
    RandomVariable,
    RandomVector,
    Softmax,
    Std,
    Var,
)
from scaledattn.kernel.expr import Component, VectorLabel, is_random
from scaledattn.language.definedness import (
    Condition,
    is_plain_number,
    needs_of_power,
    number_refusal,
    unmet_in,
)
from scaledattn.language.parse import Node, Parser, Syntax, power
from scaledattn.render.proof import (
    DIMENSIONS,
    ENTRY_VECTORS,
    POSITIVE_NAMES,
    RANDOM_VECTORS,
    default_kind,
)

__all__ = [
    "KINDS",
    "MAX_LENGTH",
    "PROOF_SYNTAX",
    "Names",
    "TermBuilder",
    "build_term",
    "primes_as_underscores",
]

#: At most this many characters in one expression (a line of a proof file).
MAX_LENGTH = 20_000
#: The kinds a constant may be declared to have, and the symbol each makes.
KINDS: dict[str, dict[str, bool]] = {
    "real": {"real": True},
    "positive": {"positive": True},
    "integer": {"integer": True, "positive": True},
}

FUNCTIONS: tuple[tuple[str, int, int], ...] = (
    ("sqrt", 1, 1),
    ("exp", 1, 1),
    ("log", 1, 1),
    ("E", 1, 1),
    ("Var", 1, 1),
    ("Cov", 2, 2),
    ("std", 1, 1),
    ("dot", 2, 3),
    ("sum", 4, 4),
    ("cross_sum", 5, 5),
    ("delta", 2, 2),
    ("deriv", 2, 2),
    ("lim", 2, 2),
    ("softmax", 2, 4),
    ("entry", 3, 3),
    ("independent", 1, 8),
    ("independent_pairs", 2, 8),
)

#: The proof format's expressions: the claim language's operators and spellings,
#: with the functions above (``sum`` of a body over an index range, not of a list).
PROOF_SYNTAX = Syntax(
    functions=FUNCTIONS,
    operators=("**", "-", "+", "*", "/", "(", ")", ",", "√", "=", "<=", ">", "<", ">=",
               "!=", "<=>"),
    aliases=(
        ("^", "**"), ("−", "-"), ("·", "*"), ("×", "*"), ("==", "="), ("⇔", "<=>"),
        ("≠", "!="), ("≤", "<="), ("≥", ">="), ("Std", "std"), ("σ", "sigma"), ("ρ", "rho"),
        ("μ", "mu"), ("λ", "lambda"), ("δ", "delta"), ("Σ", "sum"),
    ),
    max_length=MAX_LENGTH,
    max_depth=60,
    max_tokens=MAX_LENGTH,
    root_prefix=True,
)  # fmt: skip

_PRIME = re.compile(r"(?<=[A-Za-z0-9_])'+")
_NAME = re.compile(r"([A-Za-z]+)(_*)(?:_([A-Za-z0-9]+)(_*))?")
SCALARS = ("X", "Y", "Z")


def primes_as_underscores(text: str) -> str:
    """``k'_i`` → ``k__i``: the same length (columns stay), a name the tokenizer reads.

    >>> primes_as_underscores("Var(k'_i) + p' + i''")
    'Var(k__i) + p_ + i__'
    """
    return _PRIME.sub(lambda primes: "_" * len(primes.group()), text)


@dataclass(frozen=True)
class Name:
    """A name split into its letters, primes and subscript: ``k'_i'`` → ('k', 1, "i'")."""

    base: str
    primes: int
    subscript: str

    @property
    def label(self) -> str:
        """The vector's name with its primes: ``k'``."""
        return self.base + "'" * self.primes

    @property
    def written(self) -> str:
        """The whole name as written, primes as primes: ``k'_i'``, ``b_q``."""
        return self.label + (f"_{self.subscript}" if self.subscript else "")


def split_name(word: str) -> Name | None:
    """The parts of a name written with primes as underscores, or None.

    >>> split_name("k__i_"), split_name("d_k")
    (Name(base='k', primes=1, subscript="i'"), Name(base='d', primes=0, subscript='k'))
    """
    match = _NAME.fullmatch(word)
    if match is None:
        return None
    base, bars, sub, sub_bars = (match.group(n) or "" for n in range(1, 5))
    return Name(base, len(bars), sub + "'" * len(sub_bars))


def unprimed(name: str) -> str:
    """A name without its trailing primes: ``i''`` → ``i``."""
    return name.rstrip("'")


@dataclass
class Names:
    """What bare names mean in one theorem: declared kinds of constants, random vectors."""

    kinds: dict[str, str] = field(default_factory=dict)
    vectors: set[str] = field(default_factory=set)

    def kind(self, name: str) -> str:
        """A name's declared kind, else its unprimed name's (i' is an index as i is)."""
        if name in self.kinds:
            return self.kinds[name]
        base = unprimed(name)
        return self.kinds.get(base, default_kind(base))

    def constant(self, name: str) -> Symbol:
        """The symbol of a constant: its declared kind, or the default kind of its name."""
        return Symbol(name, **KINDS[self.kind(name)])

    def is_vector(self, label: str) -> bool:
        """Whether ``label`` names a random vector: q, k (primed or not) or a declared one."""
        if label in self.vectors:
            return True
        return unprimed(label) in RANDOM_VECTORS and label not in self.kinds

    def is_declared(self, name: str) -> bool:
        """Whether ``name`` (or, for a primed name, its unprimed name) was declared."""
        return name in self.kinds or unprimed(name) in self.kinds or name in self.vectors

    def index(self, word: str) -> Expr:
        """An index: a number ≥ 1 or an index symbol."""
        if word.isdigit():
            value = int(word)
            if value < 1:
                raise InvalidArgument(f"an index starts at 1, got {word}")
            return sympy.Integer(value)
        symbol = self.constant(word)
        if not symbol.is_integer:
            raise InvalidArgument(f"{word} is not an index (indices are i, j, l, m, t, w, u, v)")
        return symbol


class TermBuilder:
    """Kernel terms from the syntax trees of :data:`PROOF_SYNTAX` (bounded, no ``eval``).

    Each divisor, logarithm and square root it builds is recorded as a
    :class:`~scaledattn.language.definedness.Condition` (a number is decided at once);
    :meth:`term` keeps in ``conditions`` those the built term no longer carries, for the
    checker to decide with the theorem's assumptions.
    """

    def __init__(self, names: Names | None = None, text: str = "") -> None:
        self.names = names or Names()
        self.text = text
        self.conditions: list[Condition] = []

    def term(self, node: Node) -> Expr:
        """The kernel term of a whole expression; ``conditions`` what it needs besides."""
        self.conditions = []
        value = self.build(node)
        self.conditions = unmet_in(self.conditions, value)
        return value

    def require(self, node: Node, need: str, value: Expr) -> None:
        """Record that ``value`` must be nonzero, positive or non-negative (see NEEDS)."""
        if is_plain_number(value):
            why = number_refusal(need, value)
            if why is not None:
                raise self.fail(node, why)
            return
        self.conditions.append(Condition(need, value, node.position))

    def bind(self, since: int, symbols: Iterable[Expr]) -> None:
        """Mark the conditions recorded since ``since`` as inside a binder of ``symbols``."""
        bound = frozenset(s for s in symbols if isinstance(s, Symbol))
        self.conditions[since:] = [
            replace(c, bound=c.bound | bound) for c in self.conditions[since:]
        ]

    def fail(self, node: Node, what: str) -> InvalidArgument:
        """An error at the node's column."""
        error = InvalidArgument(what)
        error.column = node.position  # type: ignore[attr-defined]
        return error

    def build(self, node: Node) -> Expr:
        """The kernel term a syntax tree stands for."""
        kind, kids = node.kind, node.children
        if kind == "num":
            assert isinstance(node.value, Rational)
            return node.value
        if kind == "name":
            return self.name(node)
        if kind == "neg":
            return -self.build(kids[0])
        if kind in ("+", "-", "*", "/", "**"):
            a, b = self.build(kids[0]), self.build(kids[1])
            return self.arithmetic(node, kind, a, b)
        method = getattr(self, f"fn_{kind}", None)
        if method is None:
            raise self.fail(node, f"{kind}(…) cannot be used in a term")
        result: Expr = method(node)
        return result

    def arithmetic(self, node: Node, op: str, a: Expr, b: Expr) -> Expr:
        """A op b, bounded as the calculator's parser bounds it."""
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            if is_random(b):
                raise self.fail(node, f"division by a random term {sympy.sstr(b)}")
            self.require(node, "nonzero", b)
            return a / b
        if is_random(b):
            raise self.fail(node, "an exponent must not be random")
        for need in needs_of_power(b):
            self.require(node, need, a)
        try:
            return power(a, b, self.text)
        except InvalidArgument as err:
            raise self.fail(node, str(err).split(" in ")[0]) from None

    # ------------------------------------------------------------- names
    def name(self, node: Node) -> Expr:
        """The term a bare name stands for."""
        word = str(node.value)
        if word in SCALARS:
            return RandomVariable(word)
        parts = split_name(word)
        written = parts.written if parts is not None else word
        names = self.names
        if parts is not None and parts.subscript and names.is_vector(parts.label):
            return Component(VectorLabel(parts.label), self._index(node, parts.subscript))
        if parts is not None and not parts.subscript and names.is_vector(parts.label):
            raise self.fail(
                node,
                f"the vector {written} appears only in dot(…); its components are {written}_i",
            )
        if written in DIMENSIONS or written in POSITIVE_NAMES or names.is_declared(written):
            return names.constant(written)
        if parts is not None and parts.subscript:
            if parts.base in ENTRY_VECTORS:
                n = names.constant("n")
                return Entry(parts.label, self._index(node, parts.subscript), n)
            if parts.base == "p":
                n = names.constant("n")
                return Softmax("s", self._index(node, parts.subscript), n, parts.label)
        if (
            parts is not None
            and parts.primes
            and (parts.subscript or names.kind(written) != "integer")
        ):
            raise self.fail(node, f"a prime belongs to a vector or an index, got {written!r}")
        return names.constant(written)

    def _index(self, node: Node, word: str) -> Expr:
        try:
            return self.names.index(word)
        except InvalidArgument as err:
            raise self.fail(node, str(err)) from None

    def _label(self, node: Node, what: str, subscripted: bool = False) -> str:
        """A vector's name; ``subscripted`` lets it have a subscript of its own (b_q)."""
        if node.kind != "name":
            raise self.fail(node, f"{what} takes a name here")
        parts = split_name(str(node.value))
        if parts is None or (parts.subscript and not subscripted):
            raise self.fail(node, f"{what} takes a vector's name, got {node.value!r}")
        return parts.written

    def _bound_index(self, node: Node) -> Symbol:
        value = self.build(node)
        if not (isinstance(value, Symbol) and value.is_integer):
            raise self.fail(node, "a sum's index is an index name such as i or j")
        return value

    def _upper(self, node: Node) -> Expr:
        value = self.build(node)
        if not ((value.is_Integer and value >= 1) or (value.is_Symbol and value.is_integer)):
            raise self.fail(node, "a sum's upper bound is a positive integer or a dimension")
        return value

    def _lower(self, node: Node) -> None:
        if not (node.kind == "num" and node.value == 1):
            raise self.fail(node, "sums run from 1: write sum(BODY, i, 1, N)")

    # --------------------------------------------------------- functions
    def fn_sqrt(self, node: Node) -> Expr:
        """√x."""
        value = self.build(node.children[0])
        return self.arithmetic(node, "**", value, Rational(1, 2))

    def fn_exp(self, node: Node) -> Expr:
        """eˣ of a non-random x."""
        value = self.build(node.children[0])
        if is_random(value):
            raise self.fail(node, "exp of a random term")
        return sympy.exp(value)

    def fn_log(self, node: Node) -> Expr:
        """Ln x of a non-random x."""
        value = self.build(node.children[0])
        if is_random(value):
            raise self.fail(node, "log takes a positive, non-random argument")
        self.require(node, "positive", value)
        return sympy.log(value)

    def fn_E(self, node: Node) -> Expr:  # noqa: N802 - the claim language's name
        """E[·]."""
        return E(self.build(node.children[0]))

    def fn_Var(self, node: Node) -> Expr:  # noqa: N802
        """Var(·)."""
        return Var(self.build(node.children[0]))

    def fn_Cov(self, node: Node) -> Expr:  # noqa: N802
        """Cov(·, ·)."""
        return Cov(self.build(node.children[0]), self.build(node.children[1]))

    def fn_std(self, node: Node) -> Expr:
        """Std(·)."""
        return Std(self.build(node.children[0]))

    def fn_dot(self, node: Node) -> Expr:
        """q·k of dimension d_k, or of the dimension given third."""
        q, k = (self._label(c, "dot") for c in node.children[:2])
        if not (self.names.is_vector(q) and self.names.is_vector(k)):
            raise self.fail(node, "dot takes the random vectors q and k: dot(q, k) or dot(q, k, N)")
        dim: Expr = self.names.constant("d_k")
        if len(node.children) == 3:
            dim = self._upper(node.children[2])
        return Dot(RandomVector(q, dim), RandomVector(k, dim))

    def fn_sum(self, node: Node) -> Expr:
        """Σᵢ₌₁ᴺ body: ``sum(BODY, i, 1, N)``."""
        body, i, lower, upper = node.children
        self._lower(lower)
        since = len(self.conditions)
        inside = self.build(body)
        index = self._bound_index(i)
        self.bind(since, [index])
        return IndexSum(inside, index, self._upper(upper))

    def fn_cross_sum(self, node: Node) -> Expr:
        """Σ over i ≠ j in 1..N: ``cross_sum(BODY, i, j, 1, N)``."""
        body, i, j, lower, upper = node.children
        self._lower(lower)
        a, b = self._bound_index(i), self._bound_index(j)
        if a == b:
            raise self.fail(j, "the two indices of a cross sum must differ")
        since = len(self.conditions)
        inside = self.build(body)
        self.bind(since, [a, b])
        return CrossSum(inside, a, b, self._upper(upper))

    def fn_delta(self, node: Node) -> Expr:
        """The Kronecker delta δᵢⱼ."""
        a, b = (self.build(c) for c in node.children)
        for value, child in zip((a, b), node.children, strict=True):
            if not value.is_integer:
                raise self.fail(child, "delta takes two indices")
        return KroneckerDelta(a, b)

    def fn_deriv(self, node: Node) -> Expr:
        """∂f/∂sₘ."""
        f, x = (self.build(c) for c in node.children)
        if not isinstance(x, Entry):
            raise self.fail(node.children[1], "a derivative is taken against an entry such as s_m")
        return Deriv(f, x)

    def fn_lim(self, node: Node) -> Expr:
        """The limit of f as λ → ∞."""
        since = len(self.conditions)
        f, lam = (self.build(c) for c in node.children)
        self.bind(since, [lam])
        if not (isinstance(lam, Symbol) and lam.is_real) or lam.is_integer:
            raise self.fail(
                node.children[1], "a limit is taken over a real constant such as lambda"
            )
        return Lim(f, lam)

    def fn_softmax(self, node: Node) -> Expr:
        """softmax(SCORES, i[, N[, NAME]]): the i-th weight of softmax of a score vector."""
        kids = node.children
        scores = self._label(kids[0], "softmax")
        i = self.build(kids[1])
        if not i.is_integer:
            raise self.fail(kids[1], "softmax(SCORES, i) takes an index")
        n = self._upper(kids[2]) if len(kids) > 2 else self.names.constant("n")
        name = self._label(kids[3], "softmax") if len(kids) > 3 else "p"
        return Softmax(scores, i, n, name)

    def fn_entry(self, node: Node) -> Expr:
        """entry(s, i, N): the i-th entry of the real vector s (any name) of dimension N."""
        name = self._label(node.children[0], "entry", subscripted=True)
        if self.names.is_vector(name):
            raise self.fail(node.children[0], f"{name} is a random vector, not a real one")
        i = self.build(node.children[1])
        if not i.is_integer:
            raise self.fail(node.children[1], "entry(s, i, N) takes an index")
        return Entry(name, i, self._upper(node.children[2]))


def parse_text(text: str) -> Parser:
    """A parser over ``text`` (primes read as underscores)."""
    return Parser(primes_as_underscores(text), PROOF_SYNTAX)


def build_term(
    text: str, kinds: Mapping[str, str] | None = None, vectors: Iterable[str] = ()
) -> Expr:
    """The kernel term written in ``text``; InvalidArgument naming the first problem.

    ``kinds`` and ``vectors`` are what ``assume:`` lines would declare: kinds of names
    (``{"a": "integer"}``) and random vectors besides q and k (``["w"]``).
    """
    parser = parse_text(text)
    node = parser.parse()
    return TermBuilder(Names(dict(kinds or {}), set(vectors)), text).term(node)
