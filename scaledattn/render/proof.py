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

__all__ = [
    "certificate",
    "declarations",
    "INDEX_LETTERS",
    "DIMENSIONS",
    "ENTRY_VECTORS",
    "POSITIVE_NAMES",
    "default_kind",
    "proof_assumption",
    "proof_document",
    "proof_term",
    "symbol_kind",
]

#: One-letter names that are indices (positive integers) unless declared otherwise.
INDEX_LETTERS = frozenset("ijlmtwuv")
#: Names of dimensions (positive integers).
DIMENSIONS = frozenset({"d_k", "n", "N"})
#: Names that are positive constants.
POSITIVE_NAMES = frozenset({"sigma", "sigma_q", "sigma_k"})
#: Vectors of real entries (dimension n): s_i, r_i, y_i, g_i.
ENTRY_VECTORS = frozenset("sryg")
#: The random vectors a proof file knows without a declaration (and their primed names).
RANDOM_VECTORS = frozenset("qk")
_VECTOR_LABEL = re.compile(r"[A-Za-z]+'*")


def default_kind(name: str) -> str:
    """The kind a bare constant name has in a proof file: 'integer', 'positive' or 'real'.

    A primed name has the kind of its unprimed name (the kernel names the inner index
    of Σᵢ Σᵢ ``i'``).

    >>> default_kind("i"), default_kind("d_k"), default_kind("sigma_q"), default_kind("c")
    ('integer', 'integer', 'positive', 'real')
    >>> default_kind("i''")
    'integer'
    """
    name = name.rstrip("'")
    if name in INDEX_LETTERS or name in DIMENSIONS:
        return "integer"
    if name in POSITIVE_NAMES:
        return "positive"
    return "real"


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


def proof_assumption(a: Assumption) -> str:
    """One assumption as an ``assume:`` line's text."""
    if isinstance(a, Independent):
        return f"independent({', '.join(proof_term(u) for u in a.units)})"
    if isinstance(a, IndependentComponents):
        return f"independent({', '.join(v.name for v in a.vectors)})"
    if isinstance(a, IndependentPairs):
        return f"independent_pairs({', '.join(v.name for v in a.vectors)})"
    if isinstance(a, Moment):
        return f"{proof_term(a.lhs)} = {proof_term(a.value)}"
    if isinstance(a, Positive):
        return f"{proof_term(a.symbol)} > 0"
    if isinstance(a, IndexRange):
        return f"1 <= {proof_term(a.index)} <= {proof_term(a.upper)}"
    if isinstance(a, Distinct):
        first, second = sorted(a.pair, key=str)
        return f"{first} != {second}"
    if isinstance(a, Entries):
        entry = proof_term(Entry(a.name, a.index, a.dim))
        return f"{entry} = {proof_term(a.body)}"
    raise InvalidArgument(f"the proof format cannot write the assumption {a}")


def _symbols(derivation: Derivation) -> list[Symbol]:
    found: dict[str, Symbol] = {}
    items: list[Any] = [derivation.statement.lhs, derivation.statement.rhs]
    items += [s.claim for s in derivation.steps]
    for a in derivation.assumptions:
        items += [v for v in vars(a).values() if isinstance(v, sympy.Basic)]
        items += [u for u in getattr(a, "units", ()) if isinstance(u, sympy.Basic)]
        items += list(getattr(a, "pair", ()))
    for item in items:
        for s in sympy.preorder_traversal(rebuild(item)):
            if type(s) is Symbol and not isinstance(s, RandomVariable):
                found.setdefault(s.name, s)
    return [found[k] for k in sorted(found)]


def _vector_labels(derivation: Derivation) -> list[str]:
    """The random vectors of a derivation other than q and k: each needs a declaration."""
    found: set[str] = set()
    items: list[Any] = [derivation.statement.lhs, derivation.statement.rhs]
    items += [s.claim for s in derivation.steps]
    for a in derivation.assumptions:
        items += [v for v in vars(a).values() if isinstance(v, sympy.Basic)]
        found |= {v.name for v in getattr(a, "vectors", ()) if isinstance(v, VectorLabel)}
    for item in items:
        for node in sympy.preorder_traversal(rebuild(item)):
            if isinstance(node, Component):
                found.add(node.label.name)
            elif isinstance(node, DotProduct):
                found |= {label.name for label in node.args[:2]}
    for label in found:
        if not _VECTOR_LABEL.fullmatch(label):
            raise InvalidArgument(f"the proof format cannot write the random vector {label!r}")
    return sorted(x for x in found if x.rstrip("'") not in RANDOM_VECTORS)


def declarations(derivation: Derivation) -> list[str]:
    """The ``assume:`` declarations a derivation's names need: kinds, then random vectors.

    A constant whose kind is not its name's default (``a integer``) and a random
    vector other than q and k (``w random vector``) is declared.
    """
    kinds = [
        f"{s.name} {symbol_kind(s)}"
        for s in _symbols(derivation)
        if symbol_kind(s) != default_kind(s.name)
    ]
    return kinds + [f"{label} random vector" for label in _vector_labels(derivation)]


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


def proof_theorem(derivation: Derivation) -> str:
    """One ``theorem`` block: statement, declarations, assumptions and the chain.

    A certificate declares every assumption itself, so it turns the lesson's
    defaults off (``assume: no defaults``) and lists exactly the derivation's.
    """
    st = derivation.statement
    iff = isinstance(st, Equivalence)
    relation = "<=>" if iff else "="
    lines = [f"theorem {derivation.name}: {proof_term(st.lhs)} {relation} {proof_term(st.rhs)}"]
    lines += [f"assume: {declared}" for declared in declarations(derivation)]
    lines.append("assume: no defaults")
    lines += [f"assume: {proof_assumption(a)}" for a in derivation.assumptions]
    lines.append(f"  {proof_term(derivation.start)}")
    for step in derivation.steps:
        lines.append(f"  {relation} {proof_term(step.claim)}    by {_rule_name(step.rule)}")
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
        st = d.statement
        iff = isinstance(st, Equivalence)
        declared = declarations(d)
        theorems.append({
            "name": d.name,
            "kind": "iff" if iff else "calc",
            "statement": f"{proof_term(st.lhs)} {'<=>' if iff else '='} {proof_term(st.rhs)}",
            "assume": [*declared, "no defaults", *(proof_assumption(a) for a in d.assumptions)],
            "start": proof_term(d.start),
            "steps": [{"expr": proof_term(s.claim), "by": _rule_name(s.rule)} for s in d.steps],
        })  # fmt: skip
    return {"format": "scaledattn proof file", "theorems": theorems}


def proof_document(audit: Audit) -> str:
    """The derivation of ``audit`` and every theorem it cites, cited ones first."""
    blocks = [proof_theorem(d) for d in _ordered(audit)]
    return "\n\n".join(blocks) + "\n"
