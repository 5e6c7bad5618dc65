r"""Reading a proof file: theorems, assumptions and chains of steps, every error with its place.

A proof file holds one or more theorems::

    # comments start with '#'
    theorem exercise3: Var(dot(q, k)) = 16*d_k
    assume: Var(q_i) = 4
    assume: Var(k_i) = 4
      Var(dot(q, k))
      = Var(sum(q_i*k_i, i, 1, d_k))          by dot_def
      = 16*d_k

- ``theorem NAME: LHS = RHS`` (or ``A = a <=> B = b``, an equivalence of equations).
- ``assume: …`` lines: ``independent(X, Y)``, ``independent(q, k)``, a moment
  ``E(q_i) = 0``, ``Var(k_i) = 4``, ``Cov(X, Y) = 0`` (q_i read "for every i"), ``c > 0``,
  ``1 <= m <= n`` (an index range), ``t != w``, a definition of a
  vector's entries ``r_j = s_j + a``, a kind ``c positive`` (``real``, ``positive``,
  ``integer``), a random vector ``w random vector`` (components ``w_a``; q and k need
  none), and ``no defaults``. Declarations apply to the whole theorem, its statement
  line included. Without ``no defaults`` the lesson's defaults fill
  in what the lines leave unsaid, as in ``scaledattn verify``: the components of q and k
  independent, with mean 0 and variance 1, and c > 0 when c appears.
- The chain: the starting expression (optional: it defaults to the left side), then
  one step per line, ``= EXPR`` (``<=> PROP`` for an equivalence, ``A = B or C = D``),
  each with an optional ``by RULE_OR_THEOREM`` at its end. A line that starts with
  ``+``, ``-``, ``*`` or ``/`` continues the step above it.

Every term is read by the one language (:mod:`scaledattn.language`), as ``verify``
reads it, and held to the bounds of :mod:`scaledattn.prooffile.caps` (numbers,
dimensions, ``exp``, expansions; at most :data:`MAX_ASSUMPTIONS` ``assume:`` lines a
theorem); any problem is a :class:`ProofFileError` naming the line and column.

Examples
--------
>>> text = "theorem t: E(X + Y) = E(X) + E(Y)\n  = E(X) + E(Y)  by expectation_linear"
>>> doc = parse_document(text)
>>> block = doc.theorems[0]
>>> block.name, [s.rule for s in block.steps]
('t', ['expectation_linear'])
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy
from sympy import Eq, Expr, Or, S, Symbol

from scaledattn.automation.theorems import limit_value
from scaledattn.errors import InvalidArgument, ProofFileError
from scaledattn.kernel import (
    RULES,
    Assumption,
    Distinct,
    Entries,
    Entry,
    Equation,
    Equivalence,
    Independent,
    IndependentComponents,
    IndependentPairs,
    IndexRange,
    Moment,
    Positive,
    RandomVariable,
    RandomVector,
    RealVector,
)
from scaledattn.kernel.expr import Component, Cov, E, Var
from scaledattn.language.definedness import Condition
from scaledattn.language.laws import law_moments, split_law
from scaledattn.language.names import KINDS, Names, split_name
from scaledattn.language.parse import Node, Parser, quote
from scaledattn.language.surface import unbracketed_equivalence
from scaledattn.language.table import with_limits
from scaledattn.language.terms import Meanings, TermBuilder
from scaledattn.prooffile.caps import MAX_DIMENSION, MAX_FILE_EXPANSION, bounded, expanded_size

__all__ = [
    "MAX_ASSUMPTIONS",
    "MAX_LENGTH",
    "PROOF_SYNTAX",
    "parse_text",
    "MAX_BYTES",
    "Document",
    "Obligation",
    "StepLine",
    "TheoremBlock",
    "parse_document",
    "read_bytes",
]

#: A proof file (or Markdown lesson, or certificate) may hold at most this many bytes.
MAX_BYTES = 1_000_000
#: At most this many theorems, and steps in one theorem.
MAX_THEOREMS = 200
MAX_STEPS = 400
#: At most this many ``assume:`` lines in one theorem (40000 took minutes to check).
MAX_ASSUMPTIONS = 100

_THEOREM = re.compile(r"theorem\b\s*(?P<name>[^:\s]*)\s*(?P<colon>:?)")
_ASSUME = re.compile(r"assume\s*:")
_STEP = re.compile(r"(?P<rel><=>|⇔|=)")
_BY = re.compile(r"\s+by\s+(?P<rule>[^\s(]+)\s*(?:\((?P<args>.*)\))?\s*$")
#: One replacement of an explicit instance: ``X := a*X``.
_REPLACE = re.compile(r"\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*'*)\s*:=\s*")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: A name a kind is declared for (a primed index ``a'`` included).
_DECLARABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*'*")
#: A random vector's name: letters, then primes.
_VECTOR_NAME = re.compile(r"[A-Za-z]+'*")


@dataclass(frozen=True)
class StepLine:
    """One written step: its place, the claimed expression, and the rule named (if any)."""

    line: int
    text: str
    claim: Any
    rule: str | None = None
    #: ``by NAME(X := a*X, Y := Z)``: the cited theorem's names and the terms for them.
    instance: tuple[tuple[str, Any], ...] | None = None


@dataclass(frozen=True)
class Obligation:
    """What a written term needs to mean what its built term says, and where it is written.

    A divisor SymPy cancelled must be ≠ 0, a logarithm's argument > 0, a root's radicand
    ≥ 0 (:mod:`scaledattn.language.definedness`); the checker decides it with the
    theorem's assumptions.
    """

    condition: Condition
    line: int
    column: int


@dataclass
class TheoremBlock:
    """One ``theorem`` with its assumptions and chain, as written."""

    name: str
    line: int
    statement: Equation | Equivalence
    assumptions: list[Assumption] = field(default_factory=list)
    described: list[str] = field(default_factory=list)
    start: Any = None
    start_line: int = 0
    steps: list[StepLine] = field(default_factory=list)
    block: int = 0
    statement_text: str = ""
    statement_column: int = 1
    #: Why the statement did not read with the names declared so far (it is read again
    #: after each declaration; the error stands if the chain starts and it still fails).
    unread: ProofFileError | None = field(default=None, repr=False, compare=False)
    #: What the statement's terms need (read again with it), and the other lines' terms.
    statement_obligations: list[Obligation] = field(default_factory=list)
    obligations: list[Obligation] = field(default_factory=list)

    @property
    def needs(self) -> list[Obligation]:
        """Every obligation of the theorem's terms, the statement's first."""
        return [*self.statement_obligations, *self.obligations]

    @property
    def kind(self) -> str:
        """'iff' for an equivalence, 'calc' for an equation."""
        return "iff" if isinstance(self.statement, Equivalence) else "calc"


@dataclass
class Document:
    """The theorems of one file, in order (``blocks`` > 0 for a Markdown lesson)."""

    theorems: list[TheoremBlock]
    blocks: int = 0
    #: A JSON certificate's headers (the objects that hold a ``certificate``), each with
    #: the line of its ``theorem`` field: compared with what is checked (header.py).
    headers: list[tuple[dict[str, Any], int]] = field(default_factory=list)


def read_bytes(data: bytes) -> str:
    """The text of a file, refused (ProofFileError at the first bad byte) unless UTF-8 text."""
    if len(data) > MAX_BYTES:
        raise ProofFileError(f"file too large (a proof file has at most {MAX_BYTES} bytes)", 1, 1)
    bad = data.find(b"\x00")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        bad = err.start if bad < 0 else min(bad, err.start)
        text = ""
    if bad >= 0:
        before = data[:bad]
        line = before.count(b"\n") + 1
        column = bad - (before.rfind(b"\n") + 1) + 1
        raise ProofFileError(
            f"not a text file (byte 0x{data[bad]:02x} is not UTF-8 text)", line, column
        )
    return text


# ------------------------------------------------------------------- expressions

#: At most this many characters in one expression (a line of a proof file).
MAX_LENGTH = 20_000
#: A proof line is read with the one language, with a proof file's longer limits.
PROOF_SYNTAX = with_limits(MAX_LENGTH, 60)
#: What a proof's terms may name besides: the limits the kernel proved (lim(NAME)).
PROOF_MEANINGS = Meanings(limit=limit_value)


def parse_text(text: str) -> Parser:
    """A parser over one line of a proof file."""
    return Parser(text, PROOF_SYNTAX)


class _Reader:
    """Reads the expressions of one theorem with its declared names."""

    def __init__(
        self, names: Names, line: int, column: int, text: str, found: list[Obligation] | None = None
    ) -> None:
        self.names, self.line, self.column, self.text = names, line, column, text
        #: The obligations of the terms read (see TermBuilder.term).
        self.found: list[Obligation] = [] if found is None else found

    def error(self, message: str, at: int = 1) -> ProofFileError:
        return ProofFileError(message, self.line, self.column + at - 1)

    def parser(self) -> Parser:
        try:
            return parse_text(self.text)
        except InvalidArgument as err:
            raise self.error(_short(str(err)), _position(str(err))) from None

    def guard(self, parser: Parser, fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except ProofFileError:
            raise
        except InvalidArgument as err:
            at = getattr(err, "column", None)
            if at is None:
                token = parser.peek()
                at = token[2] if token is not None else len(self.text.rstrip()) + 1
            raise self.error(_short(str(err)), at) from None

    def here(self, parser: Parser, message: str) -> ProofFileError:
        """An error at the parser's next token (or the end of the text)."""
        token = parser.peek()
        return self.error(message, token[2] if token is not None else len(self.text) + 1)

    def term(self, parser: Parser) -> Expr:
        node = self.guard(parser, parser.expr)
        return self.build(parser, node)

    def build(self, parser: Parser, node: Node) -> Expr:
        builder = TermBuilder(self.names, self.text, PROOF_MEANINGS, quoted=False, exp_limit=None)
        value: Expr = self.guard(parser, lambda: builder.term(node))
        try:
            bounded(value)  # huge numbers, dimensions, exp(…) and expansions refused here
        except InvalidArgument as err:
            raise self.error(str(err), node.position) from None
        self.found += [
            Obligation(c, self.line, self.column + c.position - 1) for c in builder.conditions
        ]
        return value

    def end(self, parser: Parser) -> None:
        self.guard(parser, parser.expect_end)

    def expression(self) -> Expr:
        parser = self.parser()
        value = self.term(parser)
        self.end(parser)
        return value

    def equation(self, parser: Parser) -> Any:
        lhs = self.term(parser)
        if not parser.take("="):
            raise self.here(parser, "expected '=' in an equation")
        rhs = self.term(parser)
        return Eq(lhs, rhs, evaluate=False)

    def proposition(self) -> Any:
        """``A = B`` or ``A = B or C = D …``."""
        parser = self.parser()
        parts = [self.equation(parser)]
        while (token := parser.peek()) is not None and token[:2] == ("name", "or"):
            parser.pos += 1
            parts.append(self.equation(parser))
        self.end(parser)
        return parts[0] if len(parts) == 1 else Or(*parts, evaluate=False)

    def statement(self) -> Equation | Equivalence:
        text, self.text = self.text, unbracketed_equivalence(self.text)  # (A) ⇔ (B) too
        try:
            parser = self.parser()
        finally:
            self.text = text
        lhs = self.term(parser)
        if not parser.take("="):
            raise self.here(parser, "a theorem states LHS = RHS (or A = a <=> B = b)")
        rhs = self.term(parser)
        if parser.take("<=>"):
            right = self.equation(parser)
            self.end(parser)
            return Equivalence(Eq(lhs, rhs, evaluate=False), right)
        self.end(parser)
        return Equation(lhs, rhs)


def _short(message: str) -> str:
    """A parser message without the quoted text (the place is given separately)."""
    for marker in (' in "', " in '"):
        if marker in message:
            message = message[: message.rindex(marker)]
    return re.sub(r" at position \d+", "", message)


def _position(message: str) -> int:
    match = re.search(r"at position (\d+)", message)
    return int(match.group(1)) if match else 1


# ------------------------------------------------------------------- assumptions


def _assumption(block: TheoremBlock, names: Names, text: str, line: int, column: int) -> None:
    """Read one ``assume:`` line into ``block`` (a kind declaration goes to ``names``)."""
    words = text.split()
    reader = _Reader(names, line, column, text, block.obligations)
    if words == ["no", "defaults"]:
        block.described.append("no defaults")
        return
    if len(words) == 2 and _DECLARABLE.fullmatch(words[0]) and words[1] in KINDS:
        if words[0] in names.kinds or words[0] in names.vectors:
            raise reader.error(f"{words[0]} is declared twice")
        names.kinds[words[0]] = words[1]
        return
    if words[1:] == ["random", "vector"]:
        if not _VECTOR_NAME.fullmatch(words[0]):
            raise reader.error(f"a random vector's name is letters (and primes), got {words[0]!r}")
        if words[0] in names.kinds or words[0] in names.vectors:
            raise reader.error(f"{words[0]} is declared twice")
        if block.assumptions:  # they were read with w_a a constant
            raise reader.error("a random vector is declared before the other assume: lines")
        names.vectors.add(words[0])
        return
    try:
        law = split_law(text)
    except InvalidArgument as err:
        raise reader.error(str(err)) from None
    if law is not None:  # q_i ~ N(0, sigma^2): the law's moments, each an assumption
        _law(block, names, law, text, line, column)
        return
    parser = reader.parser()
    first_token = parser.peek()
    if first_token is not None and first_token[1] in ("independent", "independent_pairs"):
        _independence(block, reader, parser)
        return
    left_node = reader.guard(parser, parser.expr)
    token = parser.peek()
    relation = token[1] if token is not None and token[0] == "op" else None
    if relation == "<=":  # 1 <= m <= n
        parser.pos += 1
        index = reader.term(parser)
        if not parser.take("<="):
            raise reader.error("an index range is written 1 <= m <= n")
        upper = reader.term(parser)
        reader.end(parser)
        low = reader.build(parser, left_node)
        if low != 1 or not isinstance(index, Symbol):
            raise reader.error("an index range is written 1 <= m <= n")
        if upper.is_Integer and upper > MAX_DIMENSION:
            raise reader.error(f"an index range's bound is at most {MAX_DIMENSION}")
        block.assumptions.append(reader.guard(parser, lambda: IndexRange(index, upper)))
        return
    if relation in ("!=", ">"):
        parser.pos += 1
        right = reader.term(parser)
        reader.end(parser)
        left = reader.build(parser, left_node)
        if relation == "!=":
            block.assumptions.append(reader.guard(parser, lambda: Distinct(left, right)))
        elif right != 0 or not isinstance(left, Symbol):
            raise reader.error("an inequality assumption is NAME > 0")
        else:
            block.assumptions.append(reader.guard(parser, lambda: Positive(left)))
        return
    if relation != "=":
        raise reader.error(
            "an assumption is independent(…), a moment E(…) = v, NAME > 0, 1 <= m <= n,"
            " t != w, a definition r_j = …, NAME = value, NAME KIND or 'no defaults'"
        )
    parser.pos += 1
    if left_node.kind == "name" and str(left_node.value) in ("d_k", "n"):
        value = reader.term(parser)
        reader.end(parser)
        raise reader.error(
            f"a dimension is given inside the terms (dot(q, k, {value}), sum(…, i, 1, {value})),"
            " not as an assumption"
        )
    left = reader.build(parser, left_node)
    right = reader.term(parser)
    reader.end(parser)
    if isinstance(left, (E, Var, Cov)):
        block.assumptions.append(reader.guard(parser, lambda: Moment(left, right)))
    elif isinstance(left, Entry) and isinstance(left.index, Symbol):
        vector = RealVector(left.vector, left.dim)
        block.assumptions.append(reader.guard(parser, lambda: Entries(vector, right, left.index)))
    else:
        raise reader.error(
            f"cannot assume {quote(text)}: the left side is a moment E(…), Var(…), Cov(…)"
            " or a vector's entry r_j"
        )


def _law(
    block: TheoremBlock,
    names: Names,
    law: tuple[str, str, list[str]],
    text: str,
    line: int,
    column: int,
) -> None:
    """``assume: q_i ~ N(0, sigma^2)``: E, Var, E[·³] and E[·⁴] of the law (language.laws)."""
    atom_text, name, args = law
    where = column + text.index(atom_text)
    atom = _Reader(names, line, where, atom_text, block.obligations).expression()
    values = [
        _Reader(names, line, column + text.index(arg), arg, block.obligations).expression()
        for arg in args
    ]
    reader = _Reader(names, line, column, text, block.obligations)
    if not (
        isinstance(atom, RandomVariable)
        or (isinstance(atom, Component) and isinstance(atom.index, Symbol))
    ):
        raise reader.error(f"a law is declared for a component q_i or a random variable X: {text}")
    try:
        m = law_moments(name, values)
    except InvalidArgument as err:
        raise reader.error(str(err)) from None
    for lhs, value in (
        (E(atom), m.mean),
        (Var(atom), m.variance),
        (E(atom**3), m.third),
        (E(atom**4), m.fourth),
    ):
        block.assumptions.append(Moment(lhs, value))


def _independence(block: TheoremBlock, reader: _Reader, parser: Parser) -> None:
    node = reader.guard(parser, parser.expr)
    reader.end(parser)
    units: list[Any] = []
    vectors: list[RandomVector] = []
    for child in node.children:
        word = str(child.value) if child.kind == "name" else ""
        parts = split_name(word) if word else None
        if word in ("X", "Y", "Z"):
            units.append(RandomVariable(word))
        elif parts is not None and not parts.subscript and reader.names.is_vector(parts.label):
            vectors.append(RandomVector(parts.label, reader.names.constant("d_k")))
        else:
            raise reader.error(
                "independent(…) takes random variables X, Y, Z or random vectors (q, k, or"
                " one declared 'w random vector')",
                child.position,
            )
    if units and vectors:
        raise reader.error("independent(…) takes either variables X, Y, Z or vectors q, k")
    if node.kind == "independent_pairs":
        block.assumptions.append(reader.guard(parser, lambda: IndependentPairs(*vectors)))
    elif vectors:
        block.assumptions.append(IndependentComponents(*vectors))
    else:
        block.assumptions.append(reader.guard(parser, lambda: Independent(*units)))


# ---------------------------------------------------------------------- document


#: A chain line that starts with one of these continues the line before it.
_CONTINUES = "+-*/"
#: At most this many characters in one chain line with its continuations.
MAX_CHAIN_LINE = 20_000


@dataclass
class _Pending:
    """A chain line and its continuation lines, joined; where each piece came from."""

    text: str
    line: int
    column: int
    pieces: list[tuple[int, int, int]]  # (offset in text, line, column)

    def add(self, more: str, line: int, column: int) -> None:
        """Append a continuation line."""
        if len(self.text) + len(more) > MAX_CHAIN_LINE:
            raise ProofFileError(f"a step longer than {MAX_CHAIN_LINE} characters", line, column)
        self.pieces.append((len(self.text) + 1, line, column))
        self.text += " " + more

    def relocate(self, err: ProofFileError) -> ProofFileError:
        """The error at its place in the file (a column of the joined text mapped back)."""
        if err.line != self.line or len(self.pieces) == 1:
            return err
        offset = err.column - self.column
        before = [p for p in self.pieces if p[0] <= offset]
        start, line, column = max(before) if before else self.pieces[0]
        return ProofFileError(err.message, line, column + offset - start)


@dataclass
class _Line:
    number: int
    text: str


def _lines(text: str, first_line: int = 1) -> Iterable[_Line]:
    for n, raw in enumerate(text.split("\n"), start=first_line):
        body = raw.split("#", 1)[0].rstrip().replace("\t", " ")
        yield _Line(n, body)


def parse_document(
    text: str,
    known_rules: Callable[[str], bool] | None = None,
    first_line: int = 1,
    block: int = 0,
) -> Document:
    """The theorems written in ``text``; ProofFileError at the first malformed line.

    ``known_rules(name)`` says whether a ``by`` name is a rule or a built-in theorem
    (by default: a registered rule); earlier theorems of the same text count as known too.
    """
    if known_rules is None:
        known_rules = RULES.__contains__
    theorems: list[TheoremBlock] = []
    names = Names()
    current: TheoremBlock | None = None
    last = first_line
    pending: _Pending | None = None
    assumed = 0  # assume: lines of the current theorem

    def flush() -> None:
        nonlocal pending
        if pending is not None and current is not None:
            chain, pending = pending, None
            try:
                _chain_line(
                    current, names, chain.text, chain.line, chain.column, theorems, known_rules
                )
            except ProofFileError as err:
                raise chain.relocate(err) from None

    for line in _lines(text, first_line):
        last = line.number
        stripped = line.text.lstrip()
        if not stripped:
            continue
        column = len(line.text) - len(stripped) + 1
        if stripped.startswith("theorem") and _THEOREM.match(stripped):
            flush()
            if current is not None and current.unread is not None:
                raise current.unread
            current, names = _theorem(stripped, line.number, column, theorems), Names()
            assumed = 0
            current.block = block
            theorems.append(current)
            if len(theorems) > MAX_THEOREMS:
                raise ProofFileError(f"more than {MAX_THEOREMS} theorems", line.number, column)
            continue
        if current is None:
            raise ProofFileError(
                "expected 'theorem NAME: STATEMENT' before anything else", line.number, column
            )
        if _ASSUME.match(stripped):
            flush()
            if current.start is not None or current.steps:
                raise ProofFileError(
                    "assume: lines come before the chain of steps", line.number, column
                )
            body = stripped[_ASSUME.match(stripped).end() :]  # type: ignore[union-attr]
            lead = len(body) - len(body.lstrip())
            if not body.strip():
                raise ProofFileError("empty assume: line", line.number, column)
            assumed += 1
            if assumed > MAX_ASSUMPTIONS:
                raise ProofFileError(
                    f"more than {MAX_ASSUMPTIONS} assume: lines in one theorem", line.number, column
                )
            _assumption(
                current, names, body.strip(), line.number, column + len(stripped) - len(body) + lead
            )
            current.statement = _restate(current, names)
            continue
        if pending is not None and stripped[0] in _CONTINUES and not _STEP.match(stripped):
            pending.add(stripped, line.number, column)
            continue
        flush()
        if current.unread is not None:
            raise current.unread
        pending = _Pending(stripped, line.number, column, [(0, line.number, column)])
    flush()
    if not theorems:
        raise ProofFileError(
            "no theorem: a proof file starts with 'theorem NAME: STATEMENT'", max(last, 1), 1
        )
    for t in theorems:
        if t.unread is not None:
            raise t.unread
        if t.start is None and not t.steps:
            raise ProofFileError(f"theorem {t.name} has no steps", t.line, 1)
    _within_budget(theorems)
    return Document(theorems)


def _within_budget(theorems: Sequence[TheoremBlock]) -> None:
    """ProofFileError at the first line where the file's terms together expand too far.

    Each term is bounded when read (:func:`~scaledattn.prooffile.caps.bounded`); many
    large terms together are bounded here, by :data:`~scaledattn.prooffile.caps.MAX_FILE_EXPANSION`.
    """
    total = 0
    for t in theorems:
        statement = t.statement
        written: list[tuple[int, list[Any]]] = [(t.line, [statement.lhs, statement.rhs])]
        written.append((t.line, [term for a in t.assumptions for term in _terms(a)]))
        if t.start is not None:
            written.append((t.start_line, [t.start]))
        written += [(s.line, [s.claim]) for s in t.steps]
        for line, terms in written:
            total += sum(expanded_size(term, MAX_FILE_EXPANSION) for term in terms)
            if total > MAX_FILE_EXPANSION:
                raise ProofFileError(
                    f"the file's terms are too large together: they expand to more than"
                    f" {MAX_FILE_EXPANSION} monomials (split the file)",
                    line,
                    1,
                )


def _terms(assumption: Assumption) -> list[Any]:
    """The SymPy terms an assumption holds (its dataclass fields)."""
    found: list[Any] = []
    for value in vars(assumption).values():
        items = value if isinstance(value, (tuple, frozenset)) else (value,)
        found += [v for v in items if isinstance(v, sympy.Basic)]
    return found


def _theorem(text: str, line: int, column: int, earlier: Sequence[TheoremBlock]) -> TheoremBlock:
    match = _THEOREM.match(text)
    assert match is not None
    name = match.group("name")
    if not _IDENTIFIER.fullmatch(name or ""):
        raise ProofFileError(
            "a theorem line is 'theorem NAME: STATEMENT' (NAME letters, digits, _)",
            line,
            column + match.start("name"),
        )
    if not match.group("colon"):
        raise ProofFileError(f"expected ':' after 'theorem {name}'", line, column + match.end())
    if any(t.name == name for t in earlier):
        raise ProofFileError(f"theorem {name} is stated twice", line, column + match.start("name"))
    rest = text[match.end() :]
    lead = len(rest) - len(rest.lstrip())
    if not rest.strip():
        raise ProofFileError(f"theorem {name} has no statement", line, column + match.end())
    offset = column + match.end() + lead
    reader = _Reader(Names(), line, offset, rest.strip())
    try:
        statement, unread = reader.statement(), None
    except ProofFileError as err:  # perhaps a name declared below (assume: a integer)
        statement, unread = Equation(S.Zero, S.Zero), err
    block = TheoremBlock(name, line, statement, unread=unread)
    block.statement_text, block.statement_column = rest.strip(), offset
    block.statement_obligations = reader.found
    return block


def _restate(block: TheoremBlock, names: Names) -> Equation | Equivalence:
    """The statement re-read with the names declared so far (``assume: c positive``).

    A statement that does not read yet keeps its error in ``block.unread``.
    """
    if not (names.kinds or names.vectors or block.unread):
        return block.statement
    reader = _Reader(names, block.line, block.statement_column, block.statement_text)
    try:
        statement = reader.statement()
    except ProofFileError as err:
        block.unread = err
        return block.statement
    block.unread = None
    block.statement_obligations = reader.found
    return statement


def _chain_line(
    block: TheoremBlock,
    names: Names,
    text: str,
    line: int,
    column: int,
    earlier: Sequence[TheoremBlock],
    known_rules: Callable[[str], bool] | None,
) -> None:
    rule: str | None = None
    instance: tuple[tuple[str, Any], ...] | None = None
    body = text
    by = _BY.search(text)
    if by is not None:
        rule = by.group("rule")
        body = text[: by.start()]
        rule_column = column + by.start("rule")
        if by.group("args") is not None:
            instance = _replacements(
                by.group("args"), names, line, column + by.start("args"), block.obligations
            )
        if not _IDENTIFIER.fullmatch(rule):
            raise ProofFileError(f"{rule!r} is not a rule's name", line, rule_column)
        cited = {t.name for t in earlier if t is not block}
        if not (rule in cited or (known_rules is not None and known_rules(rule))):
            raise ProofFileError(
                f"unknown rule {rule!r}: not a rule, a built-in theorem or an earlier theorem"
                " (see 'scaledattn list' and docs/soundness.md)",
                line,
                rule_column,
            )
    step = _STEP.match(body)
    iff = block.kind == "iff"
    if step is None:
        if block.start is not None or block.steps:
            raise ProofFileError(
                f"expected a step: '{'<=>' if iff else '='} EXPRESSION [by RULE]'", line, column
            )
        if rule is not None:
            raise ProofFileError("the starting expression takes no 'by'", line, column)
        reader = _Reader(names, line, column, body, block.obligations)
        block.start = reader.proposition() if iff else reader.expression()
        block.start_line = line
        return
    relation = step.group("rel")
    if iff != (relation in ("<=>", "⇔")):
        want = "<=>" if iff else "="
        raise ProofFileError(f"a step of this theorem starts with '{want}'", line, column)
    rest = body[step.end() :]
    lead = len(rest) - len(rest.lstrip())
    if not rest.strip():
        raise ProofFileError("a step needs an expression after '='", line, column + step.end())
    reader = _Reader(names, line, column + step.end() + lead, rest.strip(), block.obligations)
    claim = reader.proposition() if iff else reader.expression()
    if len(block.steps) >= MAX_STEPS:
        raise ProofFileError(f"more than {MAX_STEPS} steps in one theorem", line, column)
    block.steps.append(StepLine(line, text, claim, rule, instance))


def _top_level_commas(text: str) -> list[int]:
    """The positions of the commas of ``text`` outside parentheses and brackets."""
    depth, found = 0, []
    for at, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            found.append(at)
    return found


def _replacements(
    text: str, names: Names, line: int, column: int, found: list[Obligation]
) -> tuple[tuple[str, Any], ...]:
    """``X := a*X, Y := Z``: each name of the cited theorem with the term that replaces it."""
    pairs: list[tuple[str, Any]] = []
    start = 0
    for end in [*_top_level_commas(text), len(text)]:
        part = text[start:end]
        where = column + start
        match = _REPLACE.match(part)
        if match is None or not part[match.end() :].strip():
            raise ProofFileError(
                "an instance is written by NAME(X := TERM, Y := TERM)", line, where
            )
        name = match.group("name")
        if any(name == seen for seen, _ in pairs):
            raise ProofFileError(f"{name} is replaced twice", line, where + match.start("name"))
        term_text = part[match.end() :]
        lead = len(term_text) - len(term_text.lstrip())
        reader = _Reader(names, line, where + match.end() + lead, term_text.strip(), found)
        pairs.append((name, reader.expression()))
        start = end + 1
    return tuple(pairs)
