"""The one term builder: kernel terms and SymPy numbers from a syntax tree, within bounds.

Every door builds its terms here (``verify`` and ``--assume``, proof files, the API), so a
term reads the same wherever it is written; the names mean what :mod:`scaledattn.language.names`
says. A value is a SymPy expression or a tuple of them (a list, ``[1, 2, 3]``). User text is
never handed to ``eval`` or ``sympify``.

Each divisor, logarithm and square root it builds is recorded as a
:class:`~scaledattn.language.definedness.Condition` (a number is decided at once); a
whole term keeps in ``conditions`` those its built value no longer carries (and adds them
to ``needs``), for the door to decide with its assumptions.

Examples
--------
>>> build_term("Var(sum(q_i*k_i, i, 1, d_k))")
Var(Sum(k_i*q_i, (i, 1, d_k)))
>>> build_term("cross_sum(E(q_i)*E(q_j), i, j, 1, 3)")
CrossSum(E(q_i)*E(q_j), (i, j, 1, 3))
>>> build_term("sum(sum(q_i', i', 1, n), i, 1, n)")
Sum(Sum(q_i', (i', 1, n)), (i, 1, n))
>>> build_term("norm(q - k)**2")
Sum((-k_i + q_i)**2, (i, 1, d_k))
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import TypeAlias

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
from scaledattn.kernel.expr import MOMENT_OPERATORS, Component, VectorLabel, is_random
from scaledattn.language.definedness import (
    Condition,
    is_plain_number,
    needs_of_power,
    number_refusal,
    unmet_in,
)
from scaledattn.language.hints import suggestion, unknown_name
from scaledattn.language.names import (
    ALIASED,
    DIMENSIONS,
    ENTRY_VECTORS,
    INDEX_LETTERS,
    KINDS,
    POSITIVE_NAMES,
    RANDOM_VARIABLES,
    SOFTMAX_WEIGHTS,
    Name,
    Names,
    is_constant_name,
    split_name,
)
from scaledattn.language.parse import MAX_BITS, Node, Parser, names_in, power, quote
from scaledattn.language.table import FUNCTIONS, LANGUAGE

__all__ = [
    "MAX_DIMENSION",
    "MAX_EXP",
    "Box",
    "Meanings",
    "TermBuilder",
    "Value",
    "build_term",
    "has_moments",
    "read",
    "read_value",
    "shown",
]

#: A number or term, or a list of them (SymPy is untyped, so to mypy Expr is Any).
Value: TypeAlias = "Expr | tuple[Expr, ...]"

#: The largest written dimension or index (dot(q, k, N), sum(…, i, 1, N), q_N).
MAX_DIMENSION = 1 << 20
#: |x| of exp(x) for a number x (e^100000 ≈ 10^43429 is still a number).
MAX_EXP = 100_000
#: Definitions may refer to each other at most this deep.
MAX_DEFINITION_DEPTH = 8
#: At most this many weights in jacobian_norm(p) (its size is a sum of n² terms).
MAX_JACOBIAN = 64
#: A vector's name with a subscript of its own, then an index: b_q_i.
_SUBSCRIPTED_LABEL = re.compile(r"[A-Za-z]+_[A-Za-z0-9]+_[A-Za-z]'*")
#: A letter another sum's index may be named with (Σ_{a=1..N}), primed or not.
_LETTER = re.compile(r"[A-Za-df-z]'*")


@dataclass(frozen=True)
class Box:
    """The range a placeholder stands for: a rounded number, or a measurement's interval."""

    kind: str
    label: str
    low: Fraction | None = None
    high: Fraction | None = None


@dataclass(frozen=True)
class Meanings:
    """What names of proved things and experiments stand for, given by the door above.

    ``limit(NAME)`` is (the limit's name, its value) of a limit the kernel proved;
    ``measurement(NAME)`` refuses an unknown measurement; ``softmax_witness(scores)`` is a
    line on the float64 softmax of numeric scores. None: not available here.
    """

    limit: Callable[[str], tuple[str, Expr]] | None = None
    measurement: Callable[[str], None] | None = None
    softmax_witness: Callable[[Sequence[float]], str] | None = None


def has_moments(expr: Expr) -> bool:
    """True when ``expr`` holds E, Var, Cov or Std (a term the kernel must reduce)."""
    return bool(expr.atoms(*MOMENT_OPERATORS)) or isinstance(expr, MOMENT_OPERATORS)


def tolerance(node: Node) -> tuple[Fraction, Fraction] | None:
    """(value, half a unit of the last written digit) of a literal, or None.

    >>> tolerance(read("0.659"))
    (Fraction(659, 1000), Fraction(1, 2000))
    >>> tolerance(read("65.9%"))
    (Fraction(659, 1000), Fraction(1, 2000))
    """
    if node.kind == "neg":
        inner = tolerance(node.children[0])
        return None if inner is None else (-inner[0], inner[1])
    scale = Fraction(1)
    if node.kind == "percent":
        node, scale = node.children[0], Fraction(1, 100)
    if node.kind != "num":
        return None
    mantissa, _, exponent = node.text.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    power10 = (int(exponent) if exponent else 0) - decimals
    half = Fraction(1, 2) * Fraction(10) ** power10
    value = node.value
    assert isinstance(value, Rational)
    return Fraction(int(value.p), int(value.q)) * scale, half * scale


@dataclass
class TermBuilder:
    """Kernel terms from the syntax trees of :data:`~scaledattn.language.table.LANGUAGE`.

    ``names`` says what bare names mean; ``text`` is the text read (quoted in messages
    when ``quoted``). Building records placeholders (``boxes``), the limits and
    dimensions used, the witnesses the door's :class:`Meanings` give, ``notes`` on how a
    name was read (``d`` as ``d_k``), and the conditions of each whole term.
    """

    names: Names = field(default_factory=Names)
    text: str = ""
    meanings: Meanings = field(default_factory=Meanings)
    quoted: bool = True
    #: |x| of exp(x) for a number x; None: the door bounds it itself (a proof file's caps).
    exp_limit: int | None = MAX_EXP
    boxes: dict[Symbol, Box] = field(default_factory=dict)
    limits: list[str] = field(default_factory=list)
    dimensions: set[Expr] = field(default_factory=set)
    witnesses: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: What the last whole term needs besides (see the module's docstring).
    conditions: list[Condition] = field(default_factory=list)
    #: What every whole term built so far needs besides.
    needs: list[Condition] = field(default_factory=list)
    _depth: int = 0
    _building: list[Condition] | None = None
    _norm: tuple[Symbol, list[Expr]] | None = None
    #: (name, free symbols of its term) of each definition expanded so far, in order.
    _expanded: list[tuple[str, frozenset[Expr]]] = field(default_factory=list)
    #: (index, upper bound) of each sum around the term being built, innermost last.
    _sums: list[tuple[Symbol, Expr]] = field(default_factory=list)

    # --------------------------------------------------------------- errors
    def fail(self, node: Node | None, what: str, hint: str = "") -> InvalidArgument:
        """An InvalidArgument at ``node``'s column: ``what``, the quoted text, the ``hint``."""
        where = f" in {quote(self.text)}" if self.text and self.quoted else ""
        error = InvalidArgument(what + where + hint)
        error.column = node.position if node is not None else 1  # type: ignore[attr-defined]
        return error

    # ------------------------------------------------------------ whole terms
    def build(self, node: Node) -> Value:
        """The value of a syntax tree; a whole term records what it needs besides."""
        if self._building is not None:
            return self._build(node)
        self._building = []
        try:
            value = self._build(node)
            items = value if isinstance(value, tuple) else (value,)
            self.conditions = unmet_in(self._building, *items)
            self.needs += [c for c in self.conditions if c not in self.needs]
        finally:
            self._building = None
        return value

    def term(self, node: Node) -> Expr:
        """The value of a whole term, which must not be a list."""
        return self.scalar(node, "a term")

    def scalar(self, node: Node, what: str) -> Expr:
        """The value of ``node``, which must not be a list."""
        value = self.build(node)
        if isinstance(value, tuple):
            raise self.fail(node, f"{what} must be a number or a term, not a list")
        return value

    def require(self, need: str, value: Expr, node: Node | None = None) -> None:
        """Record that ``value`` must be nonzero, positive or non-negative (a number: now)."""
        if is_plain_number(value):
            why = number_refusal(need, value)
            if why is not None:
                raise self.fail(node, why)
            return
        condition = Condition(need, value, node.position if node else 0, source=self.text)
        if self._building is not None:
            self._building.append(condition)
        elif condition not in self.needs:  # outside a whole term: nothing can carry it
            self.needs.append(condition)

    def bind(self, since: int, symbols: Iterable[Expr]) -> None:
        """Mark the conditions recorded since ``since`` as inside a binder of ``symbols``."""
        if self._building is None:  # pragma: no cover - binders are inside a whole term
            return
        bound = frozenset(s for s in symbols if isinstance(s, Symbol))
        self._building[since:] = [replace(c, bound=c.bound | bound) for c in self._building[since:]]

    def _recorded(self) -> int:
        return len(self._building) if self._building is not None else 0

    # ---------------------------------------------------------------- trees
    def _build(self, node: Node) -> Value:
        kind, kids = node.kind, node.children
        if kind == "num":
            assert isinstance(node.value, Rational)
            return node.value
        if kind == "percent":
            return self.scalar(kids[0], "a percentage") / 100
        if kind == "name":
            return self.name(node)
        if kind == "list":
            return tuple(self.scalar(k, "a list item") for k in kids)
        if kind == "neg":
            return _map(lambda x: -x, self._build(kids[0]))
        if kind == "**" and kids[0].kind == "norm":
            squares = self.norm_squared(kids[0])
            half = self.scalar(kids[1], "an exponent") / 2
            return self.arithmetic(node, "**", squares, half)
        if kind in ("+", "-", "*", "/", "**"):
            return self.arithmetic(node, kind, self._build(kids[0]), self._build(kids[1]))
        function = FUNCTIONS.get(kind)
        if function is not None and len(kids) not in function.arities:
            forms = " or ".join(function.forms)
            raise self.fail(node, f"{kind} is written {forms}")
        method = getattr(self, f"fn_{kind}", None)
        if method is None:
            raise self.fail(node, f"{kind}(…) cannot be used in a term")
        result: Value = method(node)
        return result

    def arithmetic(self, node: Node, op: str, a: Value, b: Value) -> Value:
        """A op b for numbers and terms, elementwise for lists of the same length."""
        if isinstance(a, tuple) and isinstance(b, tuple) and len(a) != len(b):
            raise self.fail(node, f"lists of different lengths ({len(a)} and {len(b)})")
        if isinstance(a, tuple) or isinstance(b, tuple):
            n = len(a) if isinstance(a, tuple) else len(b)
            left = a if isinstance(a, tuple) else (a,) * n
            right = b if isinstance(b, tuple) else (b,) * n
            pairs = zip(left, right, strict=True)
            return tuple(self.arithmetic(node, op, x, y) for x, y in pairs)
        result: Expr
        if op == "+":
            result = a + b
        elif op == "-":
            result = a - b
        elif op == "*":
            result = a * b
        elif op == "/":
            if is_random(b):
                raise self.fail(node, f"division by a random term {sympy.sstr(b)}")
            self.require("nonzero", b, node)
            result = a / b
        else:
            if is_random(b) or has_moments(b):
                raise self.fail(node, "an exponent must not be random")
            for need in needs_of_power(b):
                self.require(need, a, node)
            try:
                result = power(a, b, self.text)
            except InvalidArgument as err:
                raise self.fail(node, str(err).split(" in ")[0], _exponent_hint(b)) from None
        if result.is_Rational and _bits(result) > MAX_BITS:
            raise self.fail(node, f"number too large (at most {MAX_BITS} bits)")
        if result.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
            raise self.fail(node, "division by zero")
        return result

    # ---------------------------------------------------------------- names
    def name(self, node: Node) -> Expr:
        """The term a bare name stands for (:mod:`scaledattn.language.names`)."""
        word = str(node.value)
        names = self.names
        if word in names.definitions:
            return self._defined(node, word)
        if word in RANDOM_VARIABLES:
            return RandomVariable(word)
        for index, _ in reversed(self._sums):
            if index.name == word:
                return index
        if word in names.values:
            return names.values[word]
        parts = split_name(word)
        if parts is None and _SUBSCRIPTED_LABEL.fullmatch(word):  # b_q_i: b_q's i-th entry
            label, _, subscript = word.rpartition("_")
            summed = self._summed_entry(Name(label, 0, subscript))
            if summed is not None:
                return summed
        written = parts.written if parts is not None else word
        if parts is not None and names.is_vector(parts.label):
            if parts.subscript:
                return Component(VectorLabel(parts.label), self.index(node, parts.subscript))
            if self._norm is not None:
                return self._norm_component(parts.label, names.dimension())
            raise self.fail(
                node,
                f"the vector {written} appears only in dot(…) (also written q·k) and"
                f" norm(…); its components are {written}_i",
                suggestion(self.text, written, f"{written}_i", self._reads),
            )
        if written in ALIASED and not names.is_declared(written):
            meant = ALIASED[written]
            note = f"{written} is read as {meant}, the dimension of q and k"
            if note not in self.notes:
                self.notes.append(note)
            return self.name(Node("name", meant, position=node.position))
        if written in DIMENSIONS or written in POSITIVE_NAMES or names.is_declared(written):
            return names.constant(written)
        in_norm = self._norm is not None and parts is not None and not parts.subscript
        if in_norm and parts is not None and parts.base in ENTRY_VECTORS:
            return self._norm_component(parts.label, names.constant("n"))
        if parts is not None and parts.subscript:
            if parts.base == SOFTMAX_WEIGHTS:
                n = names.constant("n")
                return Softmax("s", self.index(node, parts.subscript), n, parts.label)
            summed = self._summed_entry(parts)
            if summed is not None:
                return summed
            if parts.base in ENTRY_VECTORS:
                n = names.constant("n")
                return Entry(parts.label, self.index(node, parts.subscript), n)
        if (
            parts is not None
            and parts.primes
            and (parts.subscript or names.kind(written) != "integer")
        ):
            raise self.fail(node, f"a prime belongs to a vector or an index, got {written!r}")
        if is_constant_name(written):
            return names.constant(written)
        raise self.fail(node, *unknown_name(written, self.text, node.position, self._reads))

    def _summed_entry(self, parts: Name) -> Expr | None:
        """``x_a`` inside ``Σ_{a=1..N}``: the a-th entry of the real vector x of dimension N.

        A name subscripted by the index of a sum around it varies with the index: it is
        an entry of a vector (``entry(x, a, N)``), not one constant named ``x_a``
        (which would make the sum N·x_a); s, r, y, g too take the sum's dimension
        there (elsewhere theirs is n), and a vector named with a subscript (``b_q_i``,
        the i-th entry of b_q) has one there. Declared names keep their declaration.
        """
        if self.names.is_declared(parts.written) or self.names.is_declared(parts.label):
            return None
        for index, upper in reversed(self._sums):
            if index.name == parts.subscript:
                return Entry(parts.label, index, upper)
        return None

    def _defined(self, node: Node, word: str) -> Expr:
        if self._depth >= MAX_DEFINITION_DEPTH:
            raise self.fail(node, f"definitions refer to each other too deeply (at {word})")
        definition = self.names.definitions[word]
        assert isinstance(definition, Node)
        self._depth += 1
        try:
            value = self.scalar(definition, f"the definition of {word}")
        finally:
            self._depth -= 1
        self._expanded.append((word, frozenset(value.free_symbols)))
        return value

    def _uncaptured(self, node: Node, since: int, symbols: Iterable[Expr], binder: str) -> None:
        """Refuse a binder of a name free in a definition expanded in its body since ``since``.

        A definition's free names are those of the top level (``Y = q_m``: Y is the m-th
        component for the m outside); a binder of m around Y would capture it and read Y as
        a different term. The binder must take another name.
        """
        bound = [s for s in symbols if isinstance(s, Symbol)]
        for word, free in self._expanded[since:]:
            for symbol in bound:
                if symbol in free:
                    raise self.fail(
                        node,
                        f"{binder} binds {symbol}, which is free in the definition of {word}"
                        f" (its {symbol} is the one outside); give {binder} another"
                        " index name",
                    )

    def _reads(self, text: str) -> bool:
        """Whether ``text`` reads as terms whose names all mean something (for a hint)."""
        try:
            parser = Parser(text, LANGUAGE)
            trees = [parser.expr()]
            while (token := parser.peek()) is not None and token[0] == "op":
                parser.pos += 1
                trees.append(parser.expr())
            if parser.peek() is not None:
                return False
            probe = TermBuilder(self.names, text, self.meanings)
            for tree in trees:
                probe.build(tree)
        except InvalidArgument:
            return False
        return True

    def index(self, node: Node, word: str) -> Expr:
        """An index: a number from 1 (up to d_k's value, if it has one) or an index symbol."""
        if word.isdigit():
            value = int(word)
            if value < 1:
                raise self.fail(node, f"an index starts at 1, got {word}")
            if value > MAX_DIMENSION:
                raise self.fail(node, f"an index is at most {MAX_DIMENSION}, got {word}")
            d = self.names.values.get("d_k")
            if d is not None and d.is_Integer and value > d:
                raise self.fail(node, f"the index {value} is beyond d_k = {d}")
            return sympy.Integer(value)
        for index, _ in reversed(self._sums):
            if index.name == word:
                return index
        symbol = self.names.constant(word)
        if not symbol.is_integer:
            letters = ", ".join(sorted(INDEX_LETTERS))
            raise self.fail(node, f"{word} is not an index (indices are {letters})")
        return symbol

    def _label(self, node: Node, what: str, subscripted: bool = False) -> str:
        """A vector's name; ``subscripted`` lets it have a subscript of its own (b_q)."""
        if node.kind != "name":
            raise self.fail(node, f"{what} takes a name here")
        parts = split_name(str(node.value))
        if parts is None or (parts.subscript and not subscripted):
            raise self.fail(node, f"{what} takes a vector's name, got {node.value!r}")
        return parts.written

    def _bound_index(self, node: Node) -> Symbol:
        """A sum's index: an index name (i, j, …), or any other letter (Σ_{a=1..N}) inside it."""
        word = str(node.value) if node.kind == "name" else ""
        if (
            _LETTER.fullmatch(word)
            and word not in RANDOM_VARIABLES
            and not self.names.is_vector(word)
            and not self.names.is_declared(word)
            and self.names.kind(word) == "real"
            and word not in self.names.values
        ):
            return Symbol(word, **KINDS["integer"])
        value = self.scalar(node, "an index")
        if not (isinstance(value, Symbol) and value.is_integer):
            raise self.fail(node, "a sum's index is an index name such as i or j")
        return value

    def _dimension(self, node: Node, what: str = "a sum's upper bound") -> Expr:
        value = self.scalar(node, what)
        if value.is_Integer and 1 <= value <= MAX_DIMENSION:
            return value
        if value.is_Symbol and value.is_integer and value.is_positive:
            return value
        if value.is_Integer and value > MAX_DIMENSION:
            raise self.fail(node, f"dimension {shown(value)} too large (at most {MAX_DIMENSION})")
        raise self.fail(
            node, f"{what} is a positive integer (at most {MAX_DIMENSION}) or a dimension"
        )

    def _lower(self, node: Node) -> None:
        if not (node.kind == "num" and node.value == 1):
            raise self.fail(node, "sums run from 1: write sum(BODY, i, 1, N)")

    # ---------------------------------------------------------------- norms
    def norm_squared(self, node: Node) -> Expr:
        """‖x‖² = Σᵢ xᵢ² of a vector written as a combination of vectors (q − k, 2s)."""
        (arg,) = node.children
        taken = set()
        for written in self._names_through_definitions(arg):
            taken.add(written[:1])
            parts = split_name(written)
            if parts is not None and parts.subscript:  # q_i inside the norm: i is taken
                taken.add(parts.subscript[:1])
        free = [c for c in sorted(INDEX_LETTERS) if c not in taken]
        if not free:  # pragma: no cover - eight index letters all written in one norm
            raise self.fail(node, "a norm needs an index letter its vector does not use")
        outer, self._norm = self._norm, (self.names.constant(free[0]), [])
        try:
            since = self._recorded()
            body = self.scalar(arg, "a norm's vector")
            index, dims = self._norm
        finally:
            self._norm = outer
        if not dims:
            raise self.fail(node, "norm(…) takes a vector, such as norm(q - k) or norm(s)")
        if len(set(dims)) > 1:
            raise self.fail(node, "norm(…) of vectors of different dimensions")
        self.bind(since, [index])
        return IndexSum(body**2, index, dims[0])

    def _names_through_definitions(self, node: Node, depth: int = 0) -> set[str]:
        """The names ``node`` mentions, with those of the definitions it uses."""
        found = names_in(node)
        if depth < MAX_DEFINITION_DEPTH:
            for word in list(found):
                definition = self.names.definitions.get(word)
                if isinstance(definition, Node):
                    found |= self._names_through_definitions(definition, depth + 1)
        return found

    def _norm_component(self, label: str, dim: Expr) -> Expr:
        """The component at the norm's index of a vector inside norm(…)."""
        assert self._norm is not None
        index, dims = self._norm
        dims.append(dim)
        if self.names.is_vector(label):
            return Component(VectorLabel(label), index)
        return Entry(label, index, dim)

    def fn_norm(self, node: Node) -> Expr:
        """‖x‖ = √(Σᵢ xᵢ²)."""
        return self.arithmetic(node, "**", self.norm_squared(node), Rational(1, 2))

    # ------------------------------------------------------------ functions
    def fn_sqrt(self, node: Node) -> Value:
        """√x, of a number or of each item of a list."""

        def root(x: Expr) -> Expr:
            if x.is_number and x.is_negative:
                raise self.fail(node, f"sqrt of a negative number ({sympy.sstr(x)})")
            result = self.arithmetic(node, "**", x, Rational(1, 2))
            assert not isinstance(result, tuple)
            return result

        return _map(root, self._build(node.children[0]))

    def fn_exp(self, node: Node) -> Value:
        """eˣ, of a number or of each item of a list (|x| ≤ MAX_EXP)."""

        def exp(x: Expr) -> Expr:
            if is_random(x):
                raise self.fail(node, "exp of a random term")
            limit = self.exp_limit
            if limit is not None and x.is_number and abs(float(sympy.N(x, 20))) > limit:
                raise self.fail(node, f"exp({sympy.sstr(x)}) is out of range (|x| ≤ {limit})")
            return sympy.exp(x)

        return _map(exp, self._build(node.children[0]))

    def fn_log(self, node: Node) -> Value:
        """Ln x of a positive number, or of each item of a list."""

        def log(x: Expr) -> Expr:
            if is_random(x):
                raise self.fail(node, "log takes a positive, non-random argument")
            if x.is_number and not x.is_positive:
                raise self.fail(node, f"log of a number that is not positive ({sympy.sstr(x)})")
            self.require("positive", x, node)
            return sympy.log(x)

        return _map(log, self._build(node.children[0]))

    def fn_abs(self, node: Node) -> Value:
        """|x|, of a term or of each item of a list."""
        return _map(sympy.Abs, self._build(node.children[0]))

    def fn_E(self, node: Node) -> Expr:  # noqa: N802 - the language's name
        """The expectation E[·] of a term (inert until the kernel rewrites it)."""
        return E(self.scalar(node.children[0], "E(…)"))

    def fn_Var(self, node: Node) -> Expr:  # noqa: N802
        """The variance Var(·) of a term."""
        return Var(self.scalar(node.children[0], "Var(…)"))

    def fn_Cov(self, node: Node) -> Expr:  # noqa: N802
        """The covariance Cov(·, ·) of two terms."""
        a, b = (self.scalar(k, "Cov(…)") for k in node.children)
        return Cov(a, b)

    def fn_std(self, node: Node) -> Expr:
        """The standard deviation Std(·) = √Var(·) of a term."""
        return Std(self.scalar(node.children[0], "std(…)"))

    def fn_dot(self, node: Node) -> Expr:
        """q·k of dimension d_k, or of the dimension given third."""
        q, k = (self._label(c, "dot") for c in node.children[:2])
        if not (self.names.is_vector(q) and self.names.is_vector(k)):
            raise self.fail(node, "dot takes the random vectors q and k: dot(q, k) or dot(q, k, N)")
        d = self.names.dimension()
        if len(node.children) == 3:
            given = self._dimension(node.children[2], "the dimension of dot(q, k, N)")
            if "d_k" in self.names.values and given != d:  # one q and one k: d_k components
                raise self.fail(
                    node, f"dot(q, k, {given}): q and k have d_k = {d} components, as assumed"
                )
            d = given
        self.dimensions.add(d)
        return Dot(RandomVector(q, d), RandomVector(k, d))

    def fn_sum(self, node: Node) -> Expr:
        """The sum of a list; Σᵢ₌₁ᴺ BODY: ``sum(BODY, i, 1, N)``."""
        if len(node.children) == 1:
            return sympy.Add(*self.items(node.children[0], "sum"))
        body, i, lower, upper = node.children
        self._lower(lower)
        since, used = self._recorded(), len(self._expanded)
        index, dimension = self._bound_index(i), self._dimension(upper)
        inside = self._summed(body, [(index, dimension)])
        self._uncaptured(node, used, [index], "the sum")
        self.bind(since, [index])
        return IndexSum(inside, index, dimension)

    def _summed(self, body: Node, indices: list[tuple[Symbol, Expr]]) -> Expr:
        """A sum's body, built with its indices and their upper bounds known (x_a)."""
        self._sums += indices
        try:
            return self.scalar(body, "a sum's body")
        finally:
            del self._sums[len(self._sums) - len(indices) :]

    def fn_cross_sum(self, node: Node) -> Expr:
        """Σ over i ≠ j in 1..N: ``cross_sum(BODY, i, j, 1, N)``."""
        body, i, j, lower, upper = node.children
        self._lower(lower)
        a, b = self._bound_index(i), self._bound_index(j)
        if a == b:
            raise self.fail(j, "the two indices of a cross sum must differ")
        dimension = self._dimension(upper)
        since, used = self._recorded(), len(self._expanded)
        inside = self._summed(body, [(a, dimension), (b, dimension)])
        self._uncaptured(node, used, [a, b], "the cross sum")
        self.bind(since, [a, b])
        return CrossSum(inside, a, b, dimension)

    def fn_delta(self, node: Node) -> Expr:
        """The Kronecker delta δᵢⱼ."""
        a, b = (self.scalar(c, "delta(…)") for c in node.children)
        for value, child in zip((a, b), node.children, strict=True):
            if not value.is_integer:
                raise self.fail(child, "delta takes two indices")
        return KroneckerDelta(a, b)

    def fn_deriv(self, node: Node) -> Expr:
        """∂f/∂sₘ."""
        f, x = (self.scalar(c, "deriv(…)") for c in node.children)
        if not isinstance(x, Entry):
            raise self.fail(node.children[1], "a derivative is taken against an entry such as s_m")
        return Deriv(f, x)

    def fn_lim(self, node: Node) -> Expr:
        """The limit of f as λ → ∞: ``lim(f, lambda)``; ``lim(NAME)``, a limit the kernel proved."""
        if len(node.children) == 1:
            arg = node.children[0]
            if arg.kind != "name":
                raise self.fail(node, "lim(…) takes a name, such as lim(p_minus_y)")
            if self.meanings.limit is None:
                raise self.fail(node, "lim(NAME) names a limit of 'scaledattn list'; not here")
            name, value = self.meanings.limit(str(arg.value))
            self.limits.append(name)
            return value
        since, used = self._recorded(), len(self._expanded)
        f, lam = (self.scalar(c, "lim(…)") for c in node.children)
        self._uncaptured(node, used, [lam], "the limit")
        self.bind(since, [lam])
        if not (isinstance(lam, Symbol) and lam.is_real) or lam.is_integer:
            raise self.fail(
                node.children[1], "a limit is taken over a real constant such as lambda"
            )
        return Lim(f, lam)

    def fn_softmax(self, node: Node) -> Value:
        """The weights e^{sᵢ}/Σⱼ e^{sⱼ} of a list; ``softmax(s, i[, n[, p]])``, the weight pᵢ."""
        kids = node.children
        if len(kids) == 1:
            return self._softmax_of_list(kids[0])
        scores = self._label(kids[0], "softmax")
        i = self.scalar(kids[1], "softmax's index")
        if not i.is_integer:
            raise self.fail(kids[1], "softmax(SCORES, i) takes an index")
        n = self._dimension(kids[2]) if len(kids) > 2 else self.names.constant("n")
        name = self._label(kids[3], "softmax") if len(kids) > 3 else SOFTMAX_WEIGHTS
        return Softmax(scores, i, n, name)

    def _softmax_of_list(self, node: Node) -> Value:
        scores = self.items(node, "softmax")
        exps = [sympy.exp(s) for s in scores]
        total = sympy.Add(*exps)
        witness = self.meanings.softmax_witness
        if witness is not None and not any(s.free_symbols for s in scores):
            self.witnesses.append(witness([float(sympy.N(s, 20)) for s in scores]))
        return tuple(e / total for e in exps)

    def fn_entry(self, node: Node) -> Expr:
        """entry(s, i, N): the i-th entry of the real vector s (any name) of dimension N."""
        name = self._label(node.children[0], "entry", subscripted=True)
        if self.names.is_vector(name):
            raise self.fail(node.children[0], f"{name} is a random vector, not a real one")
        i = self.scalar(node.children[1], "entry's index")
        if not i.is_integer:
            raise self.fail(node.children[1], "entry(s, i, N) takes an index")
        return Entry(name, i, self._dimension(node.children[2]))

    # ---------------------------------------------------------------- lists
    def items(self, node: Node, what: str) -> tuple[Expr, ...]:
        """The value of ``node``, which must be a non-empty list of numbers."""
        value = self._build(node)
        if not isinstance(value, tuple) or not value:
            raise self.fail(node, f"{what} takes a list such as [1, 2, 3]")
        for x in value:
            self.numeric(node, x, what)
        return value

    def numeric(self, node: Node, x: Expr, what: str) -> Expr:
        """``x``, refused unless it is a real number (placeholders allowed)."""
        free = x.free_symbols - set(self.boxes)
        if free or is_random(x) or has_moments(x):
            raise self.fail(node, f"{what} needs numbers, got {sympy.sstr(x)}")
        if x.is_real is False:
            raise self.fail(node, f"{what} needs real numbers, got {sympy.sstr(x)}")
        return x

    def fn_entropy(self, node: Node) -> Expr:
        """H(p) = −Σ pᵢ ln pᵢ (nats) of a list of weights."""
        weights = self.items(node.children[0], "entropy")
        for w in weights:
            if w.is_number and w.is_negative:
                raise self.fail(node, "entropy needs non-negative weights")
        return -sympy.Add(*(w * sympy.log(w) for w in weights if w != 0))

    def fn_jacobian_norm(self, node: Node) -> Expr:
        """‖diag(p) − ppᵀ‖_F, the softmax Jacobian's size at weights p (Σp = 1).

        Written as √(Σᵢ pᵢ²(Σ_{j≠i} pⱼ)² + Σ_{i≠j} pᵢ²pⱼ²), using 1 − pᵢ = Σ_{j≠i} pⱼ: a sum
        of squares, so interval arithmetic meets no cancellation near a one-hot p.
        """
        weights = self.items(node.children[0], "jacobian_norm")
        if len(weights) > MAX_JACOBIAN:
            raise self.fail(node, f"jacobian_norm takes at most {MAX_JACOBIAN} weights")
        diagonal = [
            w**2 * sympy.Add(*(v for j, v in enumerate(weights) if j != i)) ** 2
            for i, w in enumerate(weights)
        ]
        off = [(w * v) ** 2 for i, w in enumerate(weights) for j, v in enumerate(weights) if i != j]
        return sympy.sqrt(sympy.Add(*diagonal, *off))

    def fn_max(self, node: Node) -> Expr:
        """The largest item of a list."""
        return sympy.Max(*self.items(node.children[0], "max"), evaluate=False)

    def fn_min(self, node: Node) -> Expr:
        """The smallest item of a list."""
        return sympy.Min(*self.items(node.children[0], "min"), evaluate=False)

    def fn_uniform(self, node: Node) -> Value:
        """N weights 1/n: the uniform distribution over n keys."""
        n = self.scalar(node.children[0], "uniform(n)")
        most = LANGUAGE.max_list
        if not (n.is_Integer and 1 <= n <= most):
            raise self.fail(node, f"uniform(n) takes a whole number n from 1 to {most}")
        return (Rational(1, int(n)),) * int(n)

    def fn_rounded(self, node: Node) -> Expr:
        """A written number known only to its digits: 2.95 stands for [2.945, 2.955]."""
        written = tolerance(node.children[0])
        if written is None:
            raise self.fail(node, "rounded(…) takes a written number, such as rounded(2.95)")
        value, half = written
        placeholder = Symbol(f"rounded({node.children[0].text or value})", real=True)
        self.boxes[placeholder] = Box("rounded", str(placeholder), value - half, value + half)
        return placeholder

    def fn_measured(self, node: Node) -> Expr:
        """A measurement of the lesson's experiments (a placeholder until it is run)."""
        arg = node.children[0]
        if arg.kind != "name":
            raise self.fail(
                node, "measured(…) takes a measurement name, such as measured(gap_ratio)"
            )
        if self.meanings.measurement is None:
            raise self.fail(node, "measured(NAME) is a claim's (scaledattn verify); not here")
        self.meanings.measurement(str(arg.value))  # refuses an unknown name now
        placeholder = Symbol(f"measured({arg.value})", real=True)
        self.boxes[placeholder] = Box("measured", str(arg.value))
        return placeholder

    def fn_theorem(self, node: Node) -> Expr:
        """Refused here: theorem(NAME) is a whole claim."""
        raise self.fail(node, "theorem(NAME) is a claim by itself, not part of an expression")

    def fn_independent(self, node: Node) -> Expr:
        """Refused here: independent(…) is an assumption."""
        raise self.fail(
            node, "independent(…) is an assumption (--assume, assume:), not part of a term"
        )

    fn_independent_pairs = fn_independent


def _map(fn: Callable[[Expr], Expr], value: Value) -> Value:
    return tuple(fn(x) for x in value) if isinstance(value, tuple) else fn(value)


def _bits(value: Expr) -> int:
    num, den = sympy.fraction(value)
    return max(int(abs(num)).bit_length(), int(abs(den)).bit_length())


def shown(value: Expr) -> str:
    """A number as a power of 10 when it is one, else at most 40 characters of it.

    >>> shown(sympy.Integer(10) ** 30)
    '10**30'
    """
    if isinstance(value, sympy.Integer) and value > 10**6:
        digits = len(str(int(value))) - 1
        if value == 10**digits:
            return f"10**{digits}"
    text: str = sympy.sstr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _exponent_hint(exponent: Expr) -> str:
    """How to write a power the parser does not take (a symbolic or a third power)."""
    if exponent.free_symbols:
        return f"; for x to a symbolic power write exp({sympy.sstr(exponent)}*log(x)) (x > 0)"
    return ""


def read(text: str) -> Node:
    """The syntax tree of one term of the language.

    >>> read("E[X]").kind
    'E'
    """
    return Parser(text, LANGUAGE).parse()


def read_value(text: str, names: Names | None = None, meanings: Meanings | None = None) -> Value:
    """The value written in ``text``: a term, or a list of them (``[1, 2]/2``).

    >>> read_value("softmax([0, 0])")
    (1/2, 1/2)
    """
    return TermBuilder(names or Names(), text, meanings or Meanings()).build(read(text))


def build_term(
    text: str,
    kinds: Mapping[str, str] | None = None,
    vectors: Iterable[str] = (),
    meanings: Meanings | None = None,
) -> Expr:
    """The kernel term written in ``text``; InvalidArgument naming the first problem.

    ``kinds`` and ``vectors`` are what ``assume:`` lines would declare: kinds of names
    (``{"a": "integer"}``) and random vectors besides q and k (``["w"]``).
    """
    builder = TermBuilder(Names(dict(kinds or {}), set(vectors)), text, meanings or Meanings())
    return builder.term(read(text))
