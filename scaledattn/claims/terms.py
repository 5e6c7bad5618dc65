"""From a claim's syntax tree to kernel terms and SymPy numbers, within fixed bounds.

The names of the claim language:

- ``X``, ``Y``, ``Z``: random variables with no distribution;
- ``q_i``, ``k_i`` (also ``q_j``, ``q_1`` …): components of the vectors q and k;
  ``dot(q, k)`` is q·k of dimension ``d_k``, ``dot(q, k, N)`` of dimension N;
- ``d_k`` (a positive integer), ``c`` (the scale), ``sigma``, ``sigma_q``, ``sigma_k``
  (positive), ``rho``, ``mu``, ``mu_q``, ``mu_k`` (real): constants, symbolic unless an
  assumption gives them a value (``d_k = 64``).

The functions: ``sqrt exp log`` (of numbers and lists, elementwise), ``E Var Cov
std`` (inert moments for the kernel), ``softmax entropy jacobian_norm sum max min`` of lists,
``uniform(n)`` (n weights 1/n), ``rounded(x)`` (a number known only to its written
digits), ``measured(NAME)`` (a measurement of the lesson's experiments) and
``lim(NAME)`` (a limit proved by the kernel).

A value is a SymPy expression or a tuple of them (a list). ``rounded`` and
``measured`` become placeholder symbols whose ranges the verifier fills in.

Examples
--------
>>> from scaledattn.claims.syntax import parse_claim
>>> scope = ClaimScope()
>>> claim = parse_claim("Var(dot(q, k)/d_k) = 1")
>>> scope.build(claim.sides[0])
Var((q·k)/d_k)
>>> scope.build(parse_claim("[14, 10, 12] / 8 = 1").sides[0])
(7/4, 5/4, 3/2)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TypeAlias

import numpy as np
import sympy
from sympy import Expr, Rational, Symbol

from scaledattn.attention.softmax import softmax as softmax_float
from scaledattn.calculator.build import SCALE
from scaledattn.claims.syntax import MAX_LIST
from scaledattn.claims.theorems import limit
from scaledattn.errors import InvalidArgument
from scaledattn.kernel import Cov, Dot, E, RandomVariable, RandomVector, Std, Var, dimension, index
from scaledattn.kernel.expr import MOMENT_OPERATORS, Component, is_random
from scaledattn.language.definedness import (
    Condition,
    is_plain_number,
    needs_of_power,
    number_refusal,
    unmet_in,
)
from scaledattn.language.parse import MAX_BITS, Node, names_in, power, quote
from scaledattn.language.surface import closest, did_you_mean

__all__ = [
    "CONSTANTS",
    "MAX_DIMENSION",
    "MAX_EXP",
    "SCALARS",
    "Box",
    "ClaimScope",
    "Value",
    "has_moments",
    "is_literal",
    "tolerance",
]

#: A number or term, or a list of them (SymPy is untyped, so to mypy Expr is Any).
Value: TypeAlias = "Expr | tuple[Expr, ...]"

SCALARS = ("X", "Y", "Z")
#: Constant names and the kind of symbol each one is.
CONSTANTS: dict[str, Callable[[], Symbol]] = {
    "d_k": lambda: dimension("d_k"),
    "c": lambda: SCALE,
    "sigma": lambda: Symbol("sigma", positive=True),
    "sigma_q": lambda: Symbol("sigma_q", positive=True),
    "sigma_k": lambda: Symbol("sigma_k", positive=True),
    "rho": lambda: Symbol("rho", real=True),
    "mu": lambda: Symbol("mu", real=True),
    "mu_q": lambda: Symbol("mu_q", real=True),
    "mu_k": lambda: Symbol("mu_k", real=True),
}
#: Every name a claim may use (components also as q_1, k_j, …).
NAMES = (*SCALARS, "q_i", "k_i", *CONSTANTS)
_COMPONENT = re.compile(r"([qk])_([ijlm]|[1-9][0-9]{0,3})")
#: The largest dimension of dot(q, k, N).
MAX_DIMENSION = 1 << 20
#: |x| of exp(x) for a number x (e^100000 ≈ 10^43429 is still a number).
MAX_EXP = 100_000
#: Definitions may refer to each other at most this deep.
MAX_DEFINITION_DEPTH = 8


@dataclass(frozen=True)
class Box:
    """The range a placeholder stands for: a rounded number, or a measurement's interval."""

    kind: str
    label: str
    low: Fraction | None = None
    high: Fraction | None = None


def tolerance(node: Node) -> tuple[Fraction, Fraction] | None:
    """(value, half a unit of the last written digit) of a literal, or None.

    >>> from scaledattn.claims.syntax import parse_claim
    >>> tolerance(parse_claim("1 ≈ 0.659").sides[1])
    (Fraction(659, 1000), Fraction(1, 2000))
    >>> tolerance(parse_claim("1 ≈ 65.9%").sides[1])
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


#: At most this many weights in jacobian_norm(p) (its size is a sum of n² terms).
MAX_JACOBIAN = 64


def is_literal(node: Node) -> bool:
    """A written number, or a list of written numbers (the side ≈ takes its tolerance from)."""
    if node.kind == "list":
        return bool(node.children) and all(tolerance(c) is not None for c in node.children)
    return tolerance(node) is not None


def has_moments(expr: Expr) -> bool:
    """True when ``expr`` holds E, Var, Cov or Std (a term the kernel must reduce)."""
    return bool(expr.atoms(*MOMENT_OPERATORS)) or isinstance(expr, MOMENT_OPERATORS)


@dataclass
class ClaimScope:
    """What names mean for one claim: assigned constants, definitions, placeholders.

    ``constants`` maps a constant's name to its value (``d_k = 64``); ``definitions``
    maps a random variable to the syntax tree defining it (``Y = X``). Building
    records placeholders (``boxes``), the limits and dimensions used, float64
    witnesses of softmax from :mod:`scaledattn.attention.softmax`, and in ``needs``
    what each built term needs besides: a divisor SymPy cancelled ≠ 0, a logarithm's
    argument > 0, a root squared away ≥ 0 (:mod:`scaledattn.language.definedness`),
    for :func:`~scaledattn.claims.setup.prepare` to decide with the assumptions.
    """

    constants: dict[str, Expr] = field(default_factory=dict)
    definitions: dict[str, Node] = field(default_factory=dict)
    boxes: dict[Symbol, Box] = field(default_factory=dict)
    limits: list[str] = field(default_factory=list)
    dimensions: set[Expr] = field(default_factory=set)
    witnesses: list[str] = field(default_factory=list)
    needs: list[Condition] = field(default_factory=list)
    text: str = ""
    _depth: int = 0
    _building: list[Condition] | None = None

    # ------------------------------------------------------------- names
    def dimension(self) -> Expr:
        """d_k: its assigned value, or the positive-integer symbol."""
        return self.constants.get("d_k", dimension("d_k"))

    def name(self, node: Node) -> Expr:
        """The term a name stands for."""
        name = str(node.value)
        if name in self.definitions:
            if self._depth >= MAX_DEFINITION_DEPTH:
                raise self.fail(f"definitions refer to each other too deeply (at {name})")
            self._depth += 1
            try:
                value = self.scalar(self.definitions[name], f"the definition of {name}")
            finally:
                self._depth -= 1
            return value
        if name in SCALARS:
            return RandomVariable(name)
        if name in self.constants:
            return self.constants[name]
        if name in CONSTANTS:
            return CONSTANTS[name]()
        match = _COMPONENT.fullmatch(name)
        if match:
            label, i = match.groups()
            at = index(i) if i.isalpha() else sympy.Integer(int(i))
            d = self.dimension()
            if at.is_Integer and d.is_Integer and at > d:
                raise self.fail(f"{name}: the index {at} is beyond d_k = {d}")
            return RandomVector(label, d)[at]
        if name in ("q", "k"):
            raise self.fail(
                f"the vector {name} appears only in dot(q, k) (also written q·k);"
                f" its components are {name}_i",
                self.suggest(node, f"{name}_i"),
            )
        known = ", ".join(NAMES)
        better = closest(name, (*NAMES, *self.definitions))
        raise self.fail(
            f"unknown name {name!r} at position {node.position} (names: {known})",
            self.suggest(node, better) if better else "",
        )

    def fail(self, what: str, hint: str = "") -> InvalidArgument:
        """An InvalidArgument quoting the claim, then the ``hint``."""
        return InvalidArgument(f"{what} in {quote(self.text)}{hint}" if self.text else what + hint)

    def suggest(self, node: Node, better: str) -> str:
        """``; did you mean "…"?``: the text with the name at ``node`` replaced, if it reads."""
        return did_you_mean(self.text, node.position, str(node.value), better, self._reads)

    def _reads(self, text: str) -> bool:
        """True when ``text`` parses as a claim or an assumption whose names all mean something."""
        from scaledattn.claims.syntax import parse_assumption, parse_claim

        for parse in (parse_claim, parse_assumption):
            try:
                parsed = parse(text)
            except InvalidArgument:
                continue
            trees = [
                t for t in (*getattr(parsed, "sides", ()), getattr(parsed, "left", None),
                            getattr(parsed, "right", None)) if t is not None
            ]  # fmt: skip
            scope = ClaimScope(dict(self.constants), dict(self.definitions), text=text)
            try:
                for tree in trees:
                    for name in sorted(names_in(tree)):
                        scope.name(Node("name", name))
            except InvalidArgument:
                return False
            return True
        return False

    # ------------------------------------------------------------ values
    def build(self, node: Node) -> Value:
        """The value of a syntax tree: a SymPy expression or a tuple of them.

        A whole term (not a part of one being built) adds to ``needs`` the conditions
        its value no longer carries.
        """
        if self._building is not None:
            return self._build(node)
        self._building = []
        try:
            value = self._build(node)
            items = value if isinstance(value, tuple) else (value,)
            self.needs += [c for c in unmet_in(self._building, *items) if c not in self.needs]
        finally:
            self._building = None
        return value

    def require(self, need: str, value: Expr) -> None:
        """Record that ``value`` must be nonzero, positive or non-negative (a number: now)."""
        if is_plain_number(value):
            why = number_refusal(need, value)
            if why is not None:
                raise self.fail(why)
            return
        condition = Condition(need, value, source=self.text)
        if self._building is not None:
            self._building.append(condition)
        elif condition not in self.needs:  # outside a whole term: nothing can carry it
            self.needs.append(condition)

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
            return _map(lambda x: -x, self.build(kids[0]))
        if kind in ("+", "-", "*", "/", "**"):
            return self.arithmetic(kind, self.build(kids[0]), self.build(kids[1]))
        method = getattr(self, f"fn_{kind}", None)
        if method is None:
            raise self.fail(f"{kind}(…) cannot be used inside a claim here")
        result: Value = method(node)
        return result

    def scalar(self, node: Node, what: str) -> Expr:
        """The value of ``node``, which must not be a list."""
        value = self.build(node)
        if isinstance(value, tuple):
            raise self.fail(f"{what} must be a number or a term, not a list")
        return value

    def items(self, node: Node, what: str) -> tuple[Expr, ...]:
        """The value of ``node``, which must be a non-empty list of numbers."""
        value = self.build(node)
        if not isinstance(value, tuple) or not value:
            raise self.fail(f"{what} takes a list such as [1, 2, 3]")
        for x in value:
            self.numeric(x, what)
        return value

    def numeric(self, x: Expr, what: str) -> Expr:
        """``x``, refused unless it is a real number (placeholders allowed)."""
        free = x.free_symbols - set(self.boxes)
        if free or is_random(x) or has_moments(x):
            raise self.fail(f"{what} needs numbers, got {sympy.sstr(x)}")
        if x.is_real is False:
            raise self.fail(f"{what} needs real numbers, got {sympy.sstr(x)}")
        return x

    def arithmetic(self, op: str, a: Value, b: Value) -> Value:
        """A op b for numbers and terms, elementwise for lists of the same length."""
        if isinstance(a, tuple) and isinstance(b, tuple) and len(a) != len(b):
            raise self.fail(f"lists of different lengths ({len(a)} and {len(b)})")
        if isinstance(a, tuple) or isinstance(b, tuple):
            n = len(a) if isinstance(a, tuple) else len(b)
            left = a if isinstance(a, tuple) else (a,) * n
            right = b if isinstance(b, tuple) else (b,) * n
            return tuple(self.arithmetic(op, x, y) for x, y in zip(left, right, strict=True))
        result: Expr
        if op == "+":
            result = a + b
        elif op == "-":
            result = a - b
        elif op == "*":
            result = a * b
        elif op == "/":
            if is_random(b):
                raise self.fail(f"division by a random term {sympy.sstr(b)}")
            self.require("nonzero", b)
            result = a / b
        else:
            if is_random(b) or has_moments(b):
                raise self.fail("an exponent must not be random")
            for need in needs_of_power(b):
                self.require(need, a)
            result = power(a, b, self.text)
        if result.is_Rational and _bits(result) > MAX_BITS:
            raise self.fail("number too large")
        if result.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
            raise self.fail("division by zero")
        return result

    # --------------------------------------------------------- functions
    def fn_sqrt(self, node: Node) -> Value:
        """√x, of a number or of each item of a list."""

        def root(x: Expr) -> Expr:
            if x.is_number and x.is_negative:
                raise self.fail(f"sqrt of a negative number ({sympy.sstr(x)})")
            self.require("nonnegative", x)
            return power(x, Rational(1, 2), self.text)

        return _map(root, self.build(node.children[0]))

    def fn_exp(self, node: Node) -> Value:
        """eˣ, of a number or of each item of a list (|x| ≤ MAX_EXP)."""

        def exp(x: Expr) -> Expr:
            if is_random(x):
                raise self.fail("exp of a random term")
            if x.is_number and abs(float(sympy.N(x, 20))) > MAX_EXP:
                raise self.fail(f"exp({sympy.sstr(x)}) is out of range (|x| ≤ {MAX_EXP})")
            return sympy.exp(x)

        return _map(exp, self.build(node.children[0]))

    def fn_log(self, node: Node) -> Value:
        """Ln x of a positive number, or of each item of a list."""

        def log(x: Expr) -> Expr:
            if is_random(x):
                raise self.fail("log of a random term")
            if x.is_number and not x.is_positive:
                raise self.fail(f"log of a number that is not positive ({sympy.sstr(x)})")
            self.require("positive", x)
            return sympy.log(x)

        return _map(log, self.build(node.children[0]))

    def fn_E(self, node: Node) -> Expr:  # noqa: N802 - the claim language's name
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
        """q·k of dimension d_k, or of the dimension given as a third argument."""
        names = [str(k.value) if k.kind == "name" else "" for k in node.children[:2]]
        if names != ["q", "k"]:
            raise self.fail("dot takes the vectors q and k: dot(q, k) or dot(q, k, N)")
        d = self.dimension()
        if len(node.children) == 3:
            given = self.scalar(node.children[2], "the dimension of dot(q, k, N)")
            if "d_k" in self.constants and given != d:  # one q and one k: d_k components
                raise self.fail(
                    f"dot(q, k, {given}): q and k have d_k = {d} components, as assumed"
                )
            d = given
        if not ((d.is_Integer and 1 <= d <= MAX_DIMENSION) or d == dimension("d_k")):
            raise self.fail(
                f"the dimension must be a positive integer up to {MAX_DIMENSION} or d_k"
            )
        self.dimensions.add(d)
        return Dot(RandomVector("q", d), RandomVector("k", d))

    def fn_softmax(self, node: Node) -> Value:
        """The weights e^{sᵢ}/Σⱼ e^{sⱼ} of a list of scores, exactly."""
        scores = self.items(node.children[0], "softmax")
        exps = [sympy.exp(s) for s in scores]
        total = sympy.Add(*exps)
        if not any(s.free_symbols for s in scores):
            weights = softmax_float(np.array([float(sympy.N(s, 20)) for s in scores]))
            shown = ", ".join(f"{w:.6g}" for w in weights)
            self.witnesses.append(f"float64 softmax (scaledattn.attention.softmax): [{shown}]")
        return tuple(e / total for e in exps)

    def fn_entropy(self, node: Node) -> Expr:
        """H(p) = −Σ pᵢ ln pᵢ (nats) of a list of weights."""
        weights = self.items(node.children[0], "entropy")
        for w in weights:
            if w.is_number and w.is_negative:
                raise self.fail("entropy needs non-negative weights")
        return -sympy.Add(*(w * sympy.log(w) for w in weights if w != 0))

    def fn_jacobian_norm(self, node: Node) -> Expr:
        """‖diag(p) − ppᵀ‖_F, the softmax Jacobian's size at weights p (Σp = 1).

        Written as √(Σᵢ pᵢ²(Σ_{j≠i} pⱼ)² + Σ_{i≠j} pᵢ²pⱼ²), using 1 − pᵢ = Σ_{j≠i} pⱼ: a sum
        of squares, so interval arithmetic meets no cancellation near a one-hot p.
        """
        weights = self.items(node.children[0], "jacobian_norm")
        if len(weights) > MAX_JACOBIAN:
            raise self.fail(f"jacobian_norm takes at most {MAX_JACOBIAN} weights")
        diagonal = [
            w**2 * sympy.Add(*(v for j, v in enumerate(weights) if j != i)) ** 2
            for i, w in enumerate(weights)
        ]
        off = [(w * v) ** 2 for i, w in enumerate(weights) for j, v in enumerate(weights) if i != j]
        return sympy.sqrt(sympy.Add(*diagonal, *off))

    def fn_sum(self, node: Node) -> Expr:
        """The sum of a list."""
        return sympy.Add(*self.items(node.children[0], "sum"))

    def fn_max(self, node: Node) -> Expr:
        """The largest item of a list."""
        return sympy.Max(*self.items(node.children[0], "max"), evaluate=False)

    def fn_min(self, node: Node) -> Expr:
        """The smallest item of a list."""
        return sympy.Min(*self.items(node.children[0], "min"), evaluate=False)

    def fn_uniform(self, node: Node) -> Value:
        """N weights 1/n: the uniform distribution over n keys."""
        n = self.scalar(node.children[0], "uniform(n)")
        if not (n.is_Integer and 1 <= n <= MAX_LIST):
            raise self.fail(f"uniform(n) takes a whole number n from 1 to {MAX_LIST}")
        return (Rational(1, int(n)),) * int(n)

    def fn_rounded(self, node: Node) -> Expr:
        """A written number known only to its digits: 2.95 stands for [2.945, 2.955]."""
        written = tolerance(node.children[0])
        if written is None:
            raise self.fail("rounded(…) takes a written number, such as rounded(2.95)")
        value, half = written
        placeholder = Symbol(f"rounded({node.children[0].text or value})", real=True)
        self.boxes[placeholder] = Box("rounded", str(placeholder), value - half, value + half)
        return placeholder

    def fn_measured(self, node: Node) -> Expr:
        """A measurement of the lesson's experiments (a placeholder until it is run)."""
        arg = node.children[0]
        if arg.kind != "name":
            raise self.fail("measured(…) takes a measurement name, such as measured(gap_ratio)")
        from scaledattn.claims.statistics import experiment_of

        experiment_of(str(arg.value))  # refuses an unknown name now
        placeholder = Symbol(f"measured({arg.value})", real=True)
        self.boxes[placeholder] = Box("measured", str(arg.value))
        return placeholder

    def fn_lim(self, node: Node) -> Expr:
        """A limit proved by the kernel in saturation_limits."""
        arg = node.children[0]
        if arg.kind != "name":
            raise self.fail("lim(…) takes a name, such as lim(p_minus_y)")
        found = limit(str(arg.value))
        self.limits.append(found.name)
        return found.value

    def fn_theorem(self, node: Node) -> Expr:
        """Refused here: theorem(NAME) is a whole claim."""
        raise self.fail("theorem(NAME) is a claim by itself, not part of an expression")

    def fn_independent(self, node: Node) -> Expr:
        """Refused here: independent(…) is an assumption."""
        raise self.fail("independent(…) is an assumption (--assume), not part of a claim")


def _map(fn: Callable[[Expr], Expr], value: Value) -> Value:
    return tuple(fn(x) for x in value) if isinstance(value, tuple) else fn(value)


def _bits(value: Expr) -> int:
    num, den = sympy.fraction(value)
    return max(int(abs(num)).bit_length(), int(abs(den)).bit_length())


def components_of(values: Sequence[Expr]) -> set[str]:
    """The vectors whose components or dot products appear in ``values``."""
    found: set[str] = set()
    for v in values:
        for c in v.atoms(Component):
            found.add(c.label.name)
        for d in v.atoms(Dot):
            found |= {d.args[0].name, d.args[1].name}
    return found
