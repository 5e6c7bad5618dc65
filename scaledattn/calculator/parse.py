"""A small, bounded parser for the calculator's expressions: numbers, names, + − * / ** ( ).

User text is never handed to ``eval``, ``exec`` or ``sympify``. A tokenizer and a
recursive-descent parser build a tiny syntax tree; :func:`build` turns the tree into
SymPy objects directly (``Integer``, ``Rational``, ``Symbol``, ``Add``, ``Mul``,
``Pow``, ``sqrt``). Every resource is bounded: the length of the text, the nesting
depth, the number of digits, the size of exponents and of the numbers they make.

Grammar (``**`` binds tighter than unary minus and is right-associative, as in Python)::

    expr   := term (('+' | '-') term)*
    term   := unary (('*' | '/') unary)*
    unary  := ('+' | '-') unary | power
    power  := atom ('**' unary)?
    atom   := NUMBER | NAME | 'sqrt' '(' expr ')' | '(' expr ')'

Examples
--------
>>> parse_expression("1/4")
1/4
>>> parse_expression("2.5")
5/2
>>> parse_expression("sigma**2 + 1")
sigma**2 + 1
>>> parse_expression("__import__('os')")
Traceback (most recent call last):
...
scaledattn.errors.InvalidArgument: unexpected character '_' at position 1 in "__import__('os')"
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import sympy
from sympy import Expr, Rational, Symbol

from scaledattn.errors import InvalidArgument

__all__ = [
    "MAX_DEPTH",
    "MAX_LENGTH",
    "Node",
    "build",
    "names_in",
    "parse",
    "parse_expression",
]

#: At most this many characters of text.
MAX_LENGTH = 200
#: At most this many nested parentheses or unary signs.
MAX_DEPTH = 20
#: At most this many digits in one number.
MAX_DIGITS = 30
#: At most this many characters in one name.
MAX_NAME = 32
#: |exponent| of a number, and of a symbolic base.
MAX_NUMERIC_EXPONENT = 64
MAX_SYMBOLIC_EXPONENT = 8
#: A number may have at most this many bits in its numerator and denominator.
MAX_BITS = 1024

FUNCTIONS = ("sqrt",)

_TOKEN = re.compile(
    r"(?:(?P<number>[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)"
    r"|(?P<name>[A-Za-z][A-Za-z0-9_]*)"
    r"|(?P<op>\*\*|[-+*/()]))"
)


@dataclass(frozen=True)
class Node:
    """A syntax-tree node: ``kind`` is 'num', 'name', 'neg', 'sqrt' or an operator."""

    kind: str
    value: str | Rational | None = None
    children: tuple[Node, ...] = ()


def _quote(text: str) -> str:
    shown = text if len(text) <= 60 else text[:57] + "..."
    return '"' + shown.replace('"', "'") + '"'


def _tokens(text: str) -> list[tuple[str, str, int]]:
    if len(text) > MAX_LENGTH:
        raise InvalidArgument(f"expression too long ({len(text)} characters, at most {MAX_LENGTH})")
    if not text.strip():
        raise InvalidArgument("empty expression")
    out: list[tuple[str, str, int]] = []
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos == len(text):
            return out
        match = _TOKEN.match(text, pos)
        if match is None:
            bad = text[pos]
            hint = " (use ** for powers)" if bad == "^" else ""
            raise InvalidArgument(
                f"unexpected character {bad!r} at position {pos + 1} in {_quote(text)}{hint}"
            )
        kind = match.lastgroup or ""
        out.append((kind, match.group(kind), pos + 1))
        pos = match.end()


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.pos = 0
        self.depth = 0

    def fail(self, what: str) -> InvalidArgument:
        return InvalidArgument(f"{what} in {_quote(self.text)}")

    def peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, op: str) -> bool:
        token = self.peek()
        if token is not None and token[0] == "op" and token[1] == op:
            self.pos += 1
            return True
        return False

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail(f"expression nested too deeply (more than {MAX_DEPTH} levels)")

    def parse(self) -> Node:
        node = self.expr()
        token = self.peek()
        if token is not None:
            raise self.fail(f"unexpected {token[1]!r} at position {token[2]}")
        return node

    def expr(self) -> Node:
        node = self.term()
        while True:
            if self.take("+"):
                node = Node("+", None, (node, self.term()))
            elif self.take("-"):
                node = Node("-", None, (node, self.term()))
            else:
                return node

    def term(self) -> Node:
        node = self.unary()
        while True:
            if self.take("*"):
                node = Node("*", None, (node, self.unary()))
            elif self.take("/"):
                node = Node("/", None, (node, self.unary()))
            else:
                return node

    def unary(self) -> Node:
        if self.take("+"):
            self.enter()
            node = self.unary()
            self.depth -= 1
            return node
        if self.take("-"):
            self.enter()
            node = Node("neg", None, (self.unary(),))
            self.depth -= 1
            return node
        return self.power()

    def power(self) -> Node:
        base = self.atom()
        if self.take("**"):
            self.enter()
            exponent = self.unary()
            self.depth -= 1
            return Node("**", None, (base, exponent))
        return base

    def atom(self) -> Node:
        token = self.peek()
        if token is None:
            raise self.fail("unexpected end of expression")
        kind, value, where = token
        if kind == "number":
            self.pos += 1
            return Node("num", _number(value, self))
        if kind == "name":
            self.pos += 1
            if len(value) > MAX_NAME:
                raise self.fail(f"name too long ({len(value)} characters, at most {MAX_NAME})")
            if value in FUNCTIONS:
                if not self.take("("):
                    raise self.fail(f"{value} must be followed by '('")
                return Node(value, None, (self.group(),))
            if self.take("("):
                raise self.fail(f"unknown function {value!r} (only {', '.join(FUNCTIONS)})")
            return Node("name", value)
        if value == "(":
            self.pos += 1
            return self.group()
        raise self.fail(f"unexpected {value!r} at position {where}")

    def group(self) -> Node:
        """The rest of a parenthesised expression (the '(' already taken)."""
        self.enter()
        node = self.expr()
        if not self.take(")"):
            raise self.fail("missing ')'")
        self.depth -= 1
        return node


def _number(text: str, parser: _Parser) -> Rational:
    mantissa, _, exponent = text.lower().partition("e")
    digits = mantissa.replace(".", "")
    if len(digits) > MAX_DIGITS:
        raise parser.fail(f"number with more than {MAX_DIGITS} digits")
    if exponent and abs(int(exponent)) > MAX_DIGITS:
        raise parser.fail(f"number exponent beyond ±{MAX_DIGITS}")
    value: Rational = Rational(mantissa)
    if exponent:
        value = value * Rational(10) ** int(exponent)
    return value


def parse(text: str) -> Node:
    """The syntax tree of ``text``; InvalidArgument naming the first problem.

    >>> parse("-x").kind
    'neg'
    """
    if not isinstance(text, str):
        raise InvalidArgument(f"an expression must be text, got {type(text).__name__}")
    return _Parser(text).parse()


def names_in(node: Node) -> set[str]:
    """The names a syntax tree mentions.

    >>> sorted(names_in(parse("mu_q * sigma + 1")))
    ['mu_q', 'sigma']
    """
    found = {str(node.value)} if node.kind == "name" else set()
    for child in node.children:
        found |= names_in(child)
    return found


def _bits(value: Expr) -> int:
    num, den = sympy.fraction(value)
    return max(int(abs(num)).bit_length(), int(abs(den)).bit_length())


def _power(base: Expr, exponent: Expr, text: str) -> Expr:
    if not exponent.is_Rational:
        raise InvalidArgument(f"an exponent must be a number, got {exponent} in {_quote(text)}")
    p, q = exponent.as_numer_denom()
    if q > 2:
        raise InvalidArgument(
            f"only integer and half-integer exponents are allowed, got {exponent} in {_quote(text)}"
        )
    limit = MAX_NUMERIC_EXPONENT if base.is_Rational else MAX_SYMBOLIC_EXPONENT
    if abs(exponent) > limit:
        raise InvalidArgument(
            f"exponent {exponent} too large (at most {limit} here) in {_quote(text)}"
        )
    if base == 0 and exponent < 0:
        raise InvalidArgument(f"division by zero in {_quote(text)}")
    if base.is_Rational and _bits(base) * abs(p) > MAX_BITS:
        raise InvalidArgument(f"number too large in {_quote(text)}")
    result: Expr = base**exponent
    return result


def build(node: Node, symbol: Callable[[str], Expr], text: str = "") -> Expr:
    """SymPy objects for a syntax tree; ``symbol(name)`` supplies each name's symbol.

    >>> build(parse("2*x**2"), lambda n: Symbol(n))
    2*x**2
    """
    kind, kids = node.kind, node.children
    if kind == "num":
        assert isinstance(node.value, Rational)
        return node.value
    if kind == "name":
        return symbol(str(node.value))
    args = [build(k, symbol, text) for k in kids]
    result: Expr
    if kind == "neg":
        result = -args[0]
    elif kind == "sqrt":
        result = _power(args[0], Rational(1, 2), text)
    elif kind == "+":
        result = args[0] + args[1]
    elif kind == "-":
        result = args[0] - args[1]
    elif kind == "*":
        result = args[0] * args[1]
    elif kind == "/":
        if args[1] == 0:
            raise InvalidArgument(f"division by zero in {_quote(text)}")
        result = args[0] / args[1]
    else:  # "**"
        result = _power(args[0], args[1], text)
    if result.is_Rational and _bits(result) > MAX_BITS:
        raise InvalidArgument(f"number too large in {_quote(text)}")
    if result.has(sympy.zoo, sympy.nan, sympy.oo):
        raise InvalidArgument(f"division by zero in {_quote(text)}")
    return result


def parse_expression(text: str, symbols: Mapping[str, Expr] | None = None) -> Expr:
    """Parse ``text`` into a SymPy expression; names become ``symbols[name]`` or real Symbols.

    >>> parse_expression("rho * s", {"s": Symbol("s", positive=True)})
    rho*s
    """
    table = dict(symbols or {})

    def symbol(name: str) -> Expr:
        return table.get(name) or Symbol(name, real=True)

    return build(parse(text), symbol, text)
