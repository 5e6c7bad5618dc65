"""The proof-file rendering: a derivation written back in the plain-text proof format.

The format is the one ``scaledattn check-proof`` reads (:mod:`scaledattn.prooffile`)::

    theorem variance_of_sum: Var(X + Y) = Var(X) + Var(Y) + 2*Cov(X, Y)
      Var(X + Y)
      = E((X + Y)**2) - E(X + Y)**2          by variance_def
      …

Terms are written in the claim language with the proof format's additions
(``sum(BODY, i, 1, N)``, ``cross_sum(BODY, i, j, 1, N)``, ``delta(i, m)``,
``deriv(f, s_m)``, ``lim(f, lambda)``, ``softmax(r, i, n, p)``, ``entry(s, i, n)``), so
that reading the text back gives the same kernel terms. A theorem cited in ``by`` is
written first, so the file is self-contained.

Examples
--------
>>> from scaledattn.kernel import Var, random_variables
>>> X, Y = random_variables("X Y")
>>> proof_term(Var(2 * X + Y))
'Var(2*X + Y)'
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sympy
from sympy import Symbol
from sympy.core.parameters import evaluate
from sympy.printing.str import StrPrinter

from scaledattn.errors import InvalidArgument
from scaledattn.kernel import (
    Assumption,
    Audit,
    Derivation,
    Distinct,
    Entries,
    Entry,
    Equivalence,
    Independent,
    IndependentComponents,
    IndependentPairs,
    IndexRange,
    Moment,
    Positive,
    Theorem,
)
from scaledattn.kernel.expr import Component, DotProduct, RandomVariable, VectorLabel, rebuild
from scaledattn.language.names import ENTRY_VECTORS, RANDOM_VECTORS, default_kind

__all__ = [
    "certificate",
    "declarations",
    "proof_assumption",
    "proof_document",
    "proof_term",
    "symbol_kind",
]

_VECTOR_LABEL = re.compile(r"[A-Za-z]+'*")


def symbol_kind(symbol: Symbol) -> str:
    """The kind of a constant symbol: 'integer' (positive), 'positive' or 'real'."""
    if symbol.is_integer and symbol.is_positive:
        return "integer"
    if symbol.is_positive:
        return "positive"
    if symbol.is_real:
        return "real"
    raise InvalidArgument(f"the symbol {symbol} has no kind the proof format can declare")


class ProofPrinter(StrPrinter):
    """SymPy's string printer, with the kernel's terms in the proof format's spelling."""

    printmethod = "_proof_term"

    def _print_Symbol(self, expr: Any) -> str:
        return str(expr.name)

    def _print_RandomVariable(self, expr: Any) -> str:
        return str(expr.name)

    def _print_E(self, expr: Any) -> str:
        return f"E({self._print(expr.args[0])})"

    def _print_Var(self, expr: Any) -> str:
        return f"Var({self._print(expr.args[0])})"

    def _print_Cov(self, expr: Any) -> str:
        return f"Cov({self._print(expr.args[0])}, {self._print(expr.args[1])})"

    def _print_Std(self, expr: Any) -> str:
        return f"std({self._print(expr.args[0])})"

    def _print_Component(self, expr: Any) -> str:
        return f"{expr.label.name}_{self._print(expr.index)}"

    def _print_DotProduct(self, expr: Any) -> str:
        q, k, n = expr.args
        if n == sympy.Symbol("d_k", integer=True, positive=True):
            return f"dot({q.name}, {k.name})"
        return f"dot({q.name}, {k.name}, {self._print(n)})"

    def _print_IndexSum(self, expr: Any) -> str:
        i = self._print(expr.indices[0])
        return f"sum({self._print(expr.body)}, {i}, 1, {self._print(expr.upper)})"

    def _print_CrossSum(self, expr: Any) -> str:
        i, j = (self._print(x) for x in expr.indices)
        return f"cross_sum({self._print(expr.body)}, {i}, {j}, 1, {self._print(expr.upper)})"

    def _print_Group(self, expr: Any) -> str:
        return f"({self._print(expr.args[0])})"

    def _print_KroneckerDelta(self, expr: Any) -> str:
        return f"delta({self._print(expr.args[0])}, {self._print(expr.args[1])})"

    def _print_Entry(self, expr: Any) -> str:
        n = sympy.Symbol("n", integer=True, positive=True)
        if expr.vector.rstrip("'") in ENTRY_VECTORS and expr.dim == n:
            return f"{expr.vector}_{self._print(expr.index)}"
        return f"entry({expr.vector}, {self._print(expr.index)}, {self._print(expr.dim)})"

    def _print_Softmax(self, expr: Any) -> str:
        scores, i, n, name = expr.args
        return f"softmax({scores.name}, {self._print(i)}, {self._print(n)}, {name.name})"

    def _print_Deriv(self, expr: Any) -> str:
        return f"deriv({self._print(expr.args[0])}, {self._print(expr.args[1])})"

    def _print_Lim(self, expr: Any) -> str:
        return f"lim({self._print(expr.args[0])}, {self._print(expr.args[1])})"

    def _print_Equality(self, expr: Any) -> str:
        return f"{self._print(expr.lhs)} = {self._print(expr.rhs)}"

    def _print_Or(self, expr: Any) -> str:
        return " or ".join(self._print(a) for a in expr.args)

    def _print_BooleanTrue(self, expr: Any) -> str:
        return "true"

    def _print_BooleanFalse(self, expr: Any) -> str:
        return "false"

    def _print_Basic(self, expr: Any) -> str:
        raise InvalidArgument(f"the proof format cannot write {type(expr).__name__}: {expr}")


def proof_term(expr: Any) -> str:
    """``expr`` (a term or an equation) in the proof format, evaluated as the kernel sees it."""
    with evaluate(True):
        return str(ProofPrinter({"order": None}).doprint(rebuild(expr)))


def proof_assumption(a: Assumption, term: Callable[[Any], str] = proof_term) -> str:
    """One assumption as an ``assume:`` line's text (``term`` writes each of its terms)."""
    if isinstance(a, Independent):
        return f"independent({', '.join(term(u) for u in a.units)})"
    if isinstance(a, IndependentComponents):
        return f"independent({', '.join(v.name for v in a.vectors)})"
    if isinstance(a, IndependentPairs):
        return f"independent_pairs({', '.join(v.name for v in a.vectors)})"
    if isinstance(a, Moment):
        return f"{term(a.lhs)} = {term(a.value)}"
    if isinstance(a, Positive):
        return f"{term(a.symbol)} > 0"
    if isinstance(a, IndexRange):
        return f"1 <= {term(a.index)} <= {term(a.upper)}"
    if isinstance(a, Distinct):
        first, second = sorted(a.pair, key=str)
        return f"{first} != {second}"
    if isinstance(a, Entries):
        entry = term(Entry(a.name, a.index, a.dim))
        return f"{entry} = {term(a.body)}"
    raise InvalidArgument(f"the proof format cannot write the assumption {a}")


def _items(derivation: Derivation, *, units: bool) -> list[Any]:
    """A derivation's terms: statement, claims, the assumptions' term fields.

    With ``units``, also the units of an independence and the names of a distinctness.
    """
    items: list[Any] = [derivation.statement.lhs, derivation.statement.rhs]
    items += [s.claim for s in derivation.steps]
    for a in derivation.assumptions:
        items += [v for v in vars(a).values() if isinstance(v, sympy.Basic)]
        if units:
            items += [u for u in getattr(a, "units", ()) if isinstance(u, sympy.Basic)]
            items += list(getattr(a, "pair", ()))
    return items


class _Rebuilt:
    """``rebuild`` of the terms of one derivation's rendering, each term object once.

    The declarations look at every term of a derivation and the proof format writes
    the same terms again: each is rebuilt (re-evaluated bottom-up) once. Keyed by
    identity, each entry holding its term, for the rendering of one derivation only.
    """

    def __init__(self) -> None:
        self._done: dict[int, tuple[Any, Any]] = {}

    def __call__(self, expr: Any) -> Any:
        hit = self._done.get(id(expr))
        if hit is not None and hit[0] is expr:
            return hit[1]
        found = rebuild(expr)
        self._done[id(expr)] = (expr, found)
        return found

    def term(self, expr: Any) -> str:
        """``proof_term(expr)``, rebuilding ``expr`` once for this rendering."""
        with evaluate(True):
            return str(ProofPrinter({"order": None}).doprint(self(expr)))


def _symbols(derivation: Derivation, rebuilt: _Rebuilt | None = None) -> list[Symbol]:
    rebuilt = rebuilt or _Rebuilt()
    found: dict[str, Symbol] = {}
    for item in _items(derivation, units=True):
        for s in sympy.preorder_traversal(rebuilt(item)):
            if type(s) is Symbol and not isinstance(s, RandomVariable):
                found.setdefault(s.name, s)
    return [found[k] for k in sorted(found)]


def _vector_labels(derivation: Derivation, rebuilt: _Rebuilt | None = None) -> list[str]:
    """The random vectors of a derivation other than q and k: each needs a declaration."""
    rebuilt = rebuilt or _Rebuilt()
    found: set[str] = set()
    for a in derivation.assumptions:
        found |= {v.name for v in getattr(a, "vectors", ()) if isinstance(v, VectorLabel)}
    for item in _items(derivation, units=False):
        for node in sympy.preorder_traversal(rebuilt(item)):
            if isinstance(node, Component):
                found.add(node.label.name)
            elif isinstance(node, DotProduct):
                found |= {label.name for label in node.args[:2]}
    for label in found:
        if not _VECTOR_LABEL.fullmatch(label):
            raise InvalidArgument(f"the proof format cannot write the random vector {label!r}")
    return sorted(x for x in found if x.rstrip("'") not in RANDOM_VECTORS)


def declarations(derivation: Derivation, rebuilt: _Rebuilt | None = None) -> list[str]:
    """The ``assume:`` declarations a derivation's names need: kinds, then random vectors.

    A constant whose kind is not its name's default (``a integer``) and a random
    vector other than q and k (``w random vector``) is declared. ``rebuilt`` keeps the
    rebuilt terms of one rendering.
    """
    rebuilt = rebuilt or _Rebuilt()
    kinds = [
        f"{s.name} {symbol_kind(s)}"
        for s in _symbols(derivation, rebuilt)
        if symbol_kind(s) != default_kind(s.name)
    ]
    return kinds + [f"{label} random vector" for label in _vector_labels(derivation, rebuilt)]


def _cited(derivation: Derivation) -> list[Derivation]:
    out: list[Derivation] = []
    for step in derivation.steps:
        rule = step.rule
        if isinstance(rule, Theorem):
            out.append(rule.derivation)
        elif isinstance(rule, Derivation):
            out.append(rule)
    return out


def _rule_name(rule: Any) -> str:
    if isinstance(rule, str):
        return rule
    return str(getattr(rule, "name", rule))


@dataclass(frozen=True)
class _Written:
    """One derivation in the proof format's words: what a theorem block and a certificate show."""

    iff: bool
    lhs: str
    rhs: str
    declared: tuple[str, ...]
    assumed: tuple[str, ...]
    start: str
    steps: tuple[tuple[str, str], ...]  # (claim, rule's name)


#: Each derivation written, by identity (each entry holds its derivation, so its id is
#: not reused while kept; a Derivation is frozen, so the same object is written the
#: same): ``scaledattn docs`` and the JSON of every audit write a cited theorem again
#: for each theorem that cites it, and equal derivations share one audit.
_WRITTEN: dict[int, tuple[Derivation, _Written]] = {}
WRITTEN_KEPT = 1024


def _written(derivation: Derivation) -> _Written:
    """``derivation`` in the proof format (statement first, so its errors come first)."""
    hit = _WRITTEN.get(id(derivation))
    if hit is not None and hit[0] is derivation:
        return hit[1]
    rebuilt = _Rebuilt()
    term = rebuilt.term
    st = derivation.statement
    lhs, rhs = term(st.lhs), term(st.rhs)
    declared = tuple(declarations(derivation, rebuilt))
    written = _Written(
        iff=isinstance(st, Equivalence),
        lhs=lhs,
        rhs=rhs,
        declared=declared,
        assumed=tuple(proof_assumption(a, term) for a in derivation.assumptions),
        start=term(derivation.start),
        steps=tuple((term(s.claim), _rule_name(s.rule)) for s in derivation.steps),
    )
    if len(_WRITTEN) >= WRITTEN_KEPT:
        _WRITTEN.clear()
    _WRITTEN[id(derivation)] = (derivation, written)
    return written


def proof_theorem(derivation: Derivation) -> str:
    """One ``theorem`` block: statement, declarations, assumptions and the chain.

    A certificate declares every assumption itself, so it turns the lesson's
    defaults off (``assume: no defaults``) and lists exactly the derivation's.
    """
    w = _written(derivation)
    relation = "<=>" if w.iff else "="
    lines = [f"theorem {derivation.name}: {w.lhs} {relation} {w.rhs}"]
    lines += [f"assume: {declared}" for declared in w.declared]
    lines.append("assume: no defaults")
    lines += [f"assume: {assumed}" for assumed in w.assumed]
    lines.append(f"  {w.start}")
    lines += [f"  {relation} {claim}    by {rule}" for claim, rule in w.steps]
    return "\n".join(lines)


def _ordered(audit: Audit) -> list[Derivation]:
    order: list[Derivation] = []
    names: set[str] = set()

    def visit(d: Derivation) -> None:
        for cited in _cited(d):
            visit(cited)
        if d.name not in names:
            names.add(d.name)
            order.append(d)

    visit(audit.derivation)
    return order


def certificate(audit: Audit) -> dict[str, Any]:
    """The derivation and the theorems it cites as data, every term in the proof format.

    ``scaledattn check-proof`` reads it back (the ``certificate`` field of the JSON
    rendering) with the same parser as a proof file.
    """
    theorems = []
    for d in _ordered(audit):
        w = _written(d)
        theorems.append({
            "name": d.name,
            "kind": "iff" if w.iff else "calc",
            "statement": f"{w.lhs} {'<=>' if w.iff else '='} {w.rhs}",
            "assume": [*w.declared, "no defaults", *w.assumed],
            "start": w.start,
            "steps": [{"expr": claim, "by": rule} for claim, rule in w.steps],
        })  # fmt: skip
    return {"format": "scaledattn proof file", "theorems": theorems}


def proof_document(audit: Audit) -> str:
    """The derivation of ``audit`` and every theorem it cites, cited ones first."""
    blocks = [proof_theorem(d) for d in _ordered(audit)]
    return "\n\n".join(blocks) + "\n"
