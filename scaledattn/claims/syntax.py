"""The claim's line: relations between terms of the one language, never read by ``eval``.

A claim is a chain of expressions joined by relations, an equivalence of two
equations, or a reference to a proved theorem::

    claim       := expr (REL expr)+  |  expr '=' expr '<=>' expr '=' expr  |  'theorem' '(' NAME ')'
    REL         := '=' | '≈' | '~=' | '<' | '<=' | '>' | '>='
    assumption  := 'independent' '(' NAME (',' NAME)+ ')'  |  expr ('=' | '>') expr
                |  ATOM '~' LAW ['(' expr (',' expr)* ')']      (q_i ~ N(0, sigma^2))

Expressions are the terms of the one language (:mod:`scaledattn.language`): numbers,
names, + - * / ** and parentheses, its functions, lists ``[a, b, c]``, percentages
``65.9%``, ``√x`` and ``^`` for ``**``. ``=`` is an identity, decided
exactly; ``≈`` compares numbers to the tolerance their written digits imply.
The limits below bound the work any text can cause.

Examples
--------
>>> c = parse_claim("Var(X + Y) = Var(X) + Var(Y)")
>>> c.kind, c.relations
('chain', ('=',))
>>> parse_claim("softmax([2.0, 1.0, 0.1]) ~= [0.659, 0.242, 0.099]").relations
('≈',)
>>> parse_claim("Var(X)")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
scaledattn.errors.InvalidArgument: a claim needs a relation (=, ≈, <, <=, >, >=) or ...
"""

from __future__ import annotations

from dataclasses import dataclass

from scaledattn.errors import InvalidArgument
from scaledattn.language.laws import split_law
from scaledattn.language.names import split_name
from scaledattn.language.parse import Node, Parser, quote
from scaledattn.language.surface import unbracketed_equivalence
from scaledattn.language.table import ALIASES, EQUIVALENCE, LANGUAGE, RELATIONS

__all__ = [
    "CLAIMS",
    "FUNCTIONS",
    "MAX_DEPTH",
    "MAX_LENGTH",
    "MAX_LIST",
    "MAX_TOKENS",
    "RELATIONS",
    "Assumed",
    "Claim",
    "parse_assumption",
    "parse_claim",
    "reading",
    "unparse",
]

#: The limits of a claim or an assumption: characters, tokens, nesting, list items.
MAX_LENGTH = LANGUAGE.max_length
MAX_TOKENS = LANGUAGE.max_tokens
MAX_DEPTH = LANGUAGE.max_depth
MAX_LIST = LANGUAGE.max_list

#: Functions and their (fewest, most) arguments: the language's.
FUNCTIONS: tuple[tuple[str, int, int], ...] = LANGUAGE.functions

#: A claim is read with the one language (:mod:`scaledattn.language.table`).
CLAIMS = LANGUAGE


@dataclass(frozen=True)
class Claim:
    """A parsed claim.

    ``kind`` is 'chain' (``sides[0] R₁ sides[1] R₂ …``), 'equivalence' (``sides[0] =
    sides[1] ⇔ sides[2] = sides[3]``) or 'theorem' (``name`` is the theorem).
    """

    text: str
    kind: str
    sides: tuple[Node, ...] = ()
    relations: tuple[str, ...] = ()
    name: str = ""


@dataclass(frozen=True)
class Assumed:
    """A parsed assumption: ``independent(…)`` (``names``) or ``left REL right``."""

    text: str
    relation: str
    left: Node | None = None
    right: Node | None = None
    names: tuple[str, ...] = ()


def _text(text: object, what: str) -> str:
    if not isinstance(text, str):
        raise InvalidArgument(f"{what} must be text, got {type(text).__name__}")
    return text


def _relation(parser: Parser, allowed: tuple[str, ...]) -> str | None:
    token = parser.peek()
    if token is not None and token[0] == "op" and token[1] in allowed:
        parser.pos += 1
        return token[1]
    return None


def _bare_name(node: Node, parser: Parser, function: str) -> str:
    (arg,) = node.children
    if arg.kind != "name":
        raise parser.fail(f"{function}(…) takes a name, such as {function}(NAME)")
    return str(arg.value)


def parse_claim(text: str) -> Claim:
    """The claim written in ``text``; InvalidArgument (one line) naming the first problem.

    >>> parse_claim("sqrt(64)/sqrt(4) = sqrt(16) = 4").relations
    ('=', '=')
    >>> parse_claim("theorem(p_minus_y_limit)").name
    'p_minus_y_limit'
    """
    text = _text(text, "a claim")
    parser = Parser(unbracketed_equivalence(text), CLAIMS)
    first = parser.expr()
    if parser.peek() is None:
        if first.kind == "theorem":
            return Claim(text, "theorem", name=_bare_name(first, parser, "theorem"))
        raise parser.fail("a claim needs a relation (=, ≈, <, <=, >, >=) or theorem(NAME)")
    sides, relations = [first], []
    while (relation := _relation(parser, RELATIONS)) is not None:
        relations.append(relation)
        sides.append(parser.expr())
    if parser.take(EQUIVALENCE):
        if relations != ["="]:
            raise parser.fail("each side of <=> must be one equation a = b")
        left = parser.expr()
        if not parser.take("="):
            raise parser.fail("each side of <=> must be one equation a = b")
        sides += [left, parser.expr()]
        parser.expect_end()
        return Claim(text, "equivalence", tuple(sides), ("=", EQUIVALENCE, "="))
    parser.expect_end()
    if not relations:
        raise parser.fail("a claim needs a relation (=, ≈, <, <=, >, >=) or theorem(NAME)")
    return Claim(text, "chain", tuple(sides), tuple(relations))


def parse_assumption(text: str) -> Assumed:
    """An assumption: ``independent(X, Y)``, an equation ``E(X) = 0`` or ``c > 0``.

    >>> parse_assumption("independent(X, Y)").names
    ('X', 'Y')
    >>> parse_assumption("Var(q_i) = 4").relation
    '='
    """
    text = _text(text, "an assumption")
    law = split_law(text)
    if law is not None:  # q_i ~ N(0, sigma^2): the law's moments (scaledattn.language.laws)
        atom, name, args = law
        nodes = tuple(_whole(arg) for arg in args)
        return Assumed(text, "~", _whole(atom), Node("list", children=nodes), names=(name,))
    parser = Parser(text, CLAIMS)
    first = parser.expr()
    if parser.peek() is None and first.kind == "independent":
        names = []
        for arg in first.children:
            if arg.kind != "name":
                raise parser.fail("independent(…) takes names of random variables")
            names.append(str(arg.value))
        return Assumed(text, "independent", names=tuple(names))
    relation = _relation(parser, ("=", ">"))
    if relation is None:
        raise InvalidArgument(
            f"an assumption is independent(X, Y), an equation such as E(X) = 0, or c > 0;"
            f" got {quote(text)}"
        )
    right = parser.expr()
    parser.expect_end()
    return Assumed(text, relation, first, right)


def _whole(text: str) -> Node:
    """``text`` read as one expression of the language."""
    parser = Parser(text, CLAIMS)
    node = parser.expr()
    parser.expect_end()
    return node


_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "neg": 3, "**": 4}


def unparse(node: Node) -> str:
    """A syntax tree written back in the claim language (parenthesised only where needed).

    >>> unparse(parse_claim("softmax([14,10,12]/8) ≈ [0.419, 0.254, 0.327]").sides[0])
    'softmax([14, 10, 12] / 8)'
    >>> unparse(parse_claim("-(a+b)**2 = 1").sides[0])
    '-(a + b)**2'
    """
    kind, kids = node.kind, node.children
    if kind in ("num", "percent"):
        return node.text
    if kind == "name":
        parts = split_name(str(node.value))
        return parts.written if parts is not None else str(node.value)
    if kind == "list":
        return "[" + ", ".join(unparse(k) for k in kids) + "]"
    if kind == "neg":
        return "-" + _operand(kids[0], _PRECEDENCE["neg"], left=False)
    if kind in _PRECEDENCE:
        level = _PRECEDENCE[kind]
        left = _operand(kids[0], level, left=True, power=kind == "**")
        right = _operand(kids[1], level, left=False, power=kind == "**")
        spaced = "**" if kind == "**" else f" {kind} "
        return f"{left}{spaced}{right}"
    return f"{kind}(" + ", ".join(unparse(k) for k in kids) + ")"


def _operand(node: Node, level: int, *, left: bool, power: bool = False) -> str:
    text = unparse(node)
    inner = _PRECEDENCE.get(node.kind)
    if node.kind in ("num", "percent") and node.text.startswith("-"):
        inner = _PRECEDENCE["neg"]
    if inner is None:
        return text
    if power:  # ** is right-associative and binds tighter than a sign
        needs = inner <= level if left else inner < _PRECEDENCE["neg"]
    else:
        needs = inner < level or (not left and inner == level and node.kind in ("+", "-", "*", "/"))
    return f"({text})" if needs else text


def reading(text: str) -> str | None:
    """The claim in canonical spelling, when it reads differently from how it was typed.

    Shown beside a verdict so that a claim typed as ``Var(q·k) = dₖ`` says what was
    checked; None when the canonical form differs only in spaces and parentheses.

    >>> reading("var(q·k) = 16 dₖ")
    'Var(dot(q, k)) = 16 * d_k'
    >>> reading("Var(X + Y) = Var(X) + Var(Y)") is None
    True
    """
    try:
        claim = parse_claim(text)
    except InvalidArgument:
        return None
    if claim.kind == "theorem":
        return None
    joints = [f" {r} " for r in claim.relations]
    canonical = unparse(claim.sides[0]) + "".join(
        j + unparse(side) for j, side in zip(joints, claim.sides[1:], strict=True)
    )
    return None if _bare(canonical) == _bare(text) else canonical


def _bare(text: str) -> str:
    """``text`` without spaces and parentheses, its operators in one spelling."""
    for alias, canonical in _SPELLINGS:
        text = text.replace(alias, canonical)
    return "".join(ch for ch in text if not ch.isspace() and ch not in "()")


#: Operator spellings that need no "Read as" line (``^`` is ``**`` to everyone).
_SPELLINGS = tuple((a, c) for a, c in ALIASES if not a.isalpha())
