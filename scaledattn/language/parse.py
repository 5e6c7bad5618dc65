"""The bounded parser of the one language: numbers, names, + − * / ** ( ), and a Syntax's more.

User text is never handed to ``eval``, ``exec`` or ``sympify``. A tokenizer and a
recursive-descent parser build a tiny syntax tree; :func:`build` turns the tree into
SymPy objects directly (``Integer``, ``Rational``, ``Symbol``, ``Add``, ``Mul``,
``Pow``, ``sqrt``). Every resource is bounded: the length of the text, the nesting
depth, the number of digits, the size of exponents and of the numbers they make.

The same tokenizer and recursive descent, configured by a :class:`Syntax`, also read
the claim language of :mod:`scaledattn.claims` (more functions, lists, relations).

Grammar (``**`` binds tighter than unary minus and is right-associative, as in Python)::

    expr   := term (('+' | '-') term)*
    term   := unary (('*' | '/') unary)*
    unary  := ('+' | '-') unary | power
    power  := atom ('**' unary)?
    atom   := NUMBER | NAME | 'sqrt' '(' expr ')' | '(' expr ')'

A :class:`Syntax` may add functions of several arguments (``f(a, b)``), lists
(``[a, b]``), percentages (``65.9%``), ``√x`` and aliases (``^`` for ``**``).

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
from functools import lru_cache

import sympy
from sympy import Expr, Rational, Symbol

from scaledattn.errors import InvalidArgument
from scaledattn.kernel import Context
from scaledattn.language.definedness import (
    Condition,
    first_unmet,
    is_plain_number,
    needs_of_power,
    number_refusal,
    unmet_in,
)
from scaledattn.language.surface import closest, did_you_mean, normalise, quote, rewrite_tokens
from scaledattn.language.table import NUMBERS, Syntax

__all__ = [
    "MAX_DEPTH",
    "MAX_LENGTH",
    "Node",
    "Parser",
    "Syntax",
    "Token",
    "build",
    "names_in",
    "parse",
    "parse_expression",
    "power",
    "quote",
    "well_formed",
]

#: At most this many characters of a calculator's number, and nested parentheses or signs.
MAX_LENGTH = NUMBERS.max_length
MAX_DEPTH = NUMBERS.max_depth
#: At most this many digits in one number.
MAX_DIGITS = 30
#: At most this many characters in one name.
MAX_NAME = 32
#: |exponent| of a number, and of a symbolic base.
MAX_NUMERIC_EXPONENT = 64
MAX_SYMBOLIC_EXPONENT = 8
#: A number may have at most this many bits in its numerator and denominator.
MAX_BITS = 1024

_NUMBER = r"[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
_NAME = r"[A-Za-z][A-Za-z0-9_]*"


@dataclass(frozen=True)
class Node:
    """A syntax-tree node: ``kind`` is 'num', 'name', 'neg', 'list', an operator or a function.

    ``text`` keeps a number as it was written (its digits give a tolerance) and
    ``position`` (1-based) where the node starts.
    """

    kind: str
    value: str | Rational | None = None
    children: tuple[Node, ...] = ()
    text: str = ""
    position: int = 0


#: A token: (kind, canonical text, 1-based position); kind is 'number', 'name' or 'op'.
Token = tuple[str, str, int]


_quote = quote


@lru_cache(maxsize=8)
def _pattern(syntax: Syntax) -> re.Pattern[str]:
    spellings = {*syntax.operators, *(a for a, _ in syntax.aliases)}
    ops = "|".join(re.escape(op) for op in sorted(spellings, key=len, reverse=True))
    return re.compile(f"(?:(?P<number>{_NUMBER})|(?P<name>{_NAME})|(?P<op>{ops}))")


def _tokens(text: str, syntax: Syntax = NUMBERS) -> list[Token]:
    if len(text) > syntax.max_length:
        raise InvalidArgument(
            f"expression too long ({len(text)} characters, at most {syntax.max_length})"
        )
    if not text.strip():
        raise InvalidArgument("empty expression")
    normal, where = normalise(text)
    pattern, aliases = _pattern(syntax), dict(syntax.aliases)
    out: list[Token] = []
    pos = 0
    while True:
        while pos < len(normal) and normal[pos].isspace():
            pos += 1
        if pos == len(normal):
            break
        match = pattern.match(normal, pos)
        if match is None:
            raise InvalidArgument(
                f"unexpected character {normal[pos]!r} at position {where[pos]} in {quote(text)}"
            )
        kind = match.lastgroup or ""
        word = match.group(kind)
        if word in aliases:
            word = aliases[word]
            kind = "op" if word in syntax.operators else "name"
        out.append((kind, word, pos + 1))
        if len(out) > syntax.max_tokens:
            raise InvalidArgument(f"too many tokens (more than {syntax.max_tokens})")
        pos = match.end()
    if not out:
        raise InvalidArgument(f"empty expression in {quote(text)}")
    rewritten = rewrite_tokens(
        out,
        syntax.function_names,
        normal,
        dot=syntax.arity("dot") is not None,
        lists=syntax.max_list > 0,
    )
    if len(rewritten) > syntax.max_tokens:
        raise InvalidArgument(f"too many tokens (more than {syntax.max_tokens})")
    return [(kind, word, where[at - 1]) for kind, word, at in rewritten]


class Parser:
    """Recursive descent over the tokens of one text, within the syntax's limits.

    Subclasses (the claim language) call :meth:`expr` for each expression and handle
    the tokens that end one (relations) themselves.
    """

    def __init__(self, text: str, syntax: Syntax = NUMBERS) -> None:
        self.text = text
        self.syntax = syntax
        self.tokens = _tokens(text, syntax)
        self.pos = 0
        self.depth = 0
        #: whether a refusal may offer a suggestion; off in the parser that checks one
        #: (a suggestion is checked by reading it, which must not suggest again)
        self.suggest = True

    def fail(self, what: str, hint: str = "") -> InvalidArgument:
        """An InvalidArgument naming ``what``, quoting the text, then the ``hint``.

        Text written in English gets, as its hint, the same in the language when it has
        a known shape (:func:`~scaledattn.language.hints.english`).
        """
        if not hint and self.suggest:
            from scaledattn.language.hints import english

            hint = english(self.text, lambda t: well_formed(t, self.syntax))
        return InvalidArgument(f"{what} in {quote(self.text)}{hint}")

    def did_you_mean(self, position: int, old: str, new: str) -> str:
        """A suggestion replacing ``old`` by ``new``, offered whole if this syntax reads it."""
        if not self.suggest:
            return ""
        return did_you_mean(self.text, position, old, new, lambda t: well_formed(t, self.syntax))

    def peek(self) -> Token | None:
        """The next token, or None at the end."""
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, op: str) -> bool:
        """Consume the operator ``op`` if it comes next."""
        token = self.peek()
        if token is not None and token[0] == "op" and token[1] == op:
            self.pos += 1
            return True
        return False

    def enter(self) -> None:
        """One level deeper; refuse beyond the syntax's depth."""
        self.depth += 1
        if self.depth > self.syntax.max_depth:
            raise self.fail(
                f"expression nested too deeply (more than {self.syntax.max_depth} levels)"
            )

    def leave(self) -> None:
        """One level back up."""
        self.depth -= 1

    def parse(self) -> Node:
        """The whole text as one expression."""
        node = self.expr()
        self.expect_end()
        return node

    def expect_end(self) -> None:
        """Refuse any token left over."""
        token = self.peek()
        if token is not None:
            raise self.fail(f"unexpected {token[1]!r} at position {token[2]}")

    def expr(self) -> Node:
        """An expression: expr := term (('+' | '-') term)*."""
        node = self.term()
        while True:
            if self.take("+"):
                node = Node("+", None, (node, self.term()), position=node.position)
            elif self.take("-"):
                node = Node("-", None, (node, self.term()), position=node.position)
            else:
                return node

    def term(self) -> Node:
        """A term: term := unary (('*' | '/') unary)*."""
        node = self.unary()
        while True:
            if self.take("*"):
                node = Node("*", None, (node, self.unary()), position=node.position)
            elif self.take("/"):
                node = Node("/", None, (node, self.unary()), position=node.position)
            else:
                return node

    def unary(self) -> Node:
        """A signed factor: unary := ('+' | '-') unary | power."""
        token = self.peek()
        where = token[2] if token else 0
        if self.take("+"):
            self.enter()
            node = self.unary()
            self.leave()
            return node
        if self.take("-"):
            self.enter()
            node = Node("neg", None, (self.unary(),), position=where)
            self.leave()
            return node
        return self.power()

    def power(self) -> Node:
        """A power: power := atom ('**' unary)?."""
        base = self.atom()
        if self.take("**"):
            self.enter()
            exponent = self.unary()
            self.leave()
            return Node("**", None, (base, exponent), position=base.position)
        return base

    def atom(self) -> Node:
        """A number, a name, a call, a list, a root or a parenthesised expression."""
        token = self.peek()
        if token is None:
            raise self.fail("unexpected end of expression")
        kind, value, where = token
        if kind == "number":
            self.pos += 1
            node = Node("num", _number(value, self), text=value, position=where)
            if self.syntax.percent and self.take("%"):
                return Node("percent", None, (node,), text=value + "%", position=where)
            return node
        if kind == "name":
            self.pos += 1
            if len(value) > MAX_NAME:
                raise self.fail(f"name too long ({len(value)} characters, at most {MAX_NAME})")
            arity = self.syntax.arity(value)
            if arity is not None:
                if not self.take("("):
                    raise self.fail(f"{value} must be followed by '('")
                return Node(value, None, self.arguments(value, arity), position=where)
            if self.take("("):
                only = ", ".join(self.syntax.function_names)
                better = closest(value, self.syntax.function_names)
                hint = self.did_you_mean(where, value, better) if better else ""
                raise self.fail(f"unknown function {value!r} (only {only})", hint)
            return Node("name", value, position=where)
        if value == "(":
            self.pos += 1
            node = self.group()
            return Node(node.kind, node.value, node.children, node.text, where)
        if value == "[" and self.syntax.max_list:
            self.pos += 1
            return Node("list", None, self.items(), position=where)
        if value == "√" and self.syntax.root_prefix:
            self.pos += 1
            self.enter()
            node = Node("sqrt", None, (self.atom(),), position=where)
            self.leave()
            return node
        raise self.fail(f"unexpected {value!r} at position {where}")

    def group(self) -> Node:
        """The rest of a parenthesised expression (the '(' already taken)."""
        self.enter()
        node = self.expr()
        if not self.take(")"):
            raise self.fail("missing ')'")
        self.leave()
        return node

    def arguments(self, name: str, arity: tuple[int, int]) -> tuple[Node, ...]:
        """The arguments of a call (the '(' already taken), their number checked."""
        low, high = arity
        if high == 1:
            return (self.group(),)
        count = str(low) if low == high else f"{low} to {high}"
        self.enter()
        args = (
            [] if self.take(")") else self.separated(")", high, f"{name} takes {count} arguments")
        )
        self.leave()
        if not low <= len(args) <= high:
            raise self.fail(f"{name} takes {count} arguments, got {len(args)}")
        return tuple(args)

    def items(self) -> tuple[Node, ...]:
        """The items of a list (the '[' already taken)."""
        self.enter()
        most = self.syntax.max_list
        found = (
            ()
            if self.take("]")
            else tuple(self.separated("]", most, f"list too long (more than {most} items)"))
        )
        self.leave()
        return found

    def separated(self, close: str, most: int, too_many: str) -> list[Node]:
        """At most ``most`` expressions separated by ',', then ``close``."""
        found = [self.expr()]
        while self.take(","):
            if len(found) == most:
                raise self.fail(too_many)
            found.append(self.expr())
        if not self.take(close):
            raise self.fail(f"missing {close!r}")
        return found


_Parser = Parser


def well_formed(text: str, syntax: Syntax = NUMBERS) -> bool:
    """True when ``text`` reads as expressions joined by the syntax's other operators.

    The grammar check behind a suggestion: a claim ``a = b`` is two expressions and a
    relation the expression grammar leaves to its caller.

    >>> well_formed("Var(X) = 1", Syntax(functions=(("Var", 1, 1),), operators=("(", ")", "=")))
    True
    """
    try:
        parser = Parser(text, syntax)
        parser.suggest = False
        parser.expr()
        while parser.peek() is not None:
            token = parser.peek()
            assert token is not None
            if token[0] != "op" or token[1] in ("(", ")", "[", "]", ","):
                return False
            parser.pos += 1
            parser.expr()
    except InvalidArgument:
        return False
    return True


def _number(text: str, parser: Parser) -> Rational:
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
    return Parser(text).parse()


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


def power(base: Expr, exponent: Expr, text: str) -> Expr:
    """``base**exponent`` within the bounds: integer or half-integer exponents of bounded size."""
    return _power(base, exponent, text)


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

    A divisor SymPy cancels must be nonzero, and a square root it squares away
    non-negative, by the symbols' own facts (:mod:`scaledattn.language.definedness`):
    ``(x - 1)/(x - 1)`` is not 1 at x = 1.

    >>> build(parse("2*x**2"), lambda n: Symbol(n))
    2*x**2
    >>> build(parse("x/x"), lambda n: Symbol(n, real=True), "x/x")
    Traceback (most recent call last):
    ...
    scaledattn.errors.InvalidArgument: division by x, which may be 0 (the term as read ...
    """
    conditions: list[Condition] = []
    result = _build(node, symbol, text, conditions)
    unmet = first_unmet(unmet_in(conditions, result), Context())
    if unmet is not None:
        why = unmet.refusal(Context(), declare="")
        raise InvalidArgument(f"{why} in {_quote(text)}")
    return result


def _require(need: str, value: Expr, text: str, conditions: list[Condition]) -> None:
    if is_plain_number(value):
        why = number_refusal(need, value)
        if why is not None:
            raise InvalidArgument(f"{why} in {_quote(text)}")
        return
    conditions.append(Condition(need, value))


def _build(
    node: Node, symbol: Callable[[str], Expr], text: str, conditions: list[Condition]
) -> Expr:
    kind, kids = node.kind, node.children
    if kind == "num":
        assert isinstance(node.value, Rational)
        return node.value
    if kind == "name":
        return symbol(str(node.value))
    args = [_build(k, symbol, text, conditions) for k in kids]
    result: Expr
    if kind == "neg":
        result = -args[0]
    elif kind == "sqrt":
        _require("nonnegative", args[0], text, conditions)
        result = _power(args[0], Rational(1, 2), text)
    elif kind == "+":
        result = args[0] + args[1]
    elif kind == "-":
        result = args[0] - args[1]
    elif kind == "*":
        result = args[0] * args[1]
    elif kind == "/":
        _require("nonzero", args[1], text, conditions)
        result = args[0] / args[1]
    else:  # "**"
        if args[1].is_Rational:
            for need in needs_of_power(args[1]):
                _require(need, args[0], text, conditions)
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
