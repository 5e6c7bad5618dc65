"""Shared helpers for the renderers: display form of expressions and statements."""

from __future__ import annotations

import re
from typing import Any

import sympy
from sympy import Add, Mul
from sympy.core.function import AppliedUndef
from sympy.core.parameters import evaluate
from sympy.printing.precedence import PRECEDENCE
from sympy.printing.pretty.pretty_symbology import pretty_symbol, pretty_use_unicode
from sympy.printing.str import StrPrinter

from scaledattn.derive import Abbrev
from scaledattn.kernel import Equation, Equivalence, Group
from scaledattn.kernel.expr import INDEX_FACTS
from scaledattn.kernel.theorem import Statement
from scaledattn.language.names import ENTRY_VECTORS, RANDOM_VECTORS

# The renderers write Unicode mathematics (dₖ, σ_q, δᵢₘ). SymPy chooses Unicode or
# ASCII symbols once, when it is first imported, from sys.stdout's encoding; the
# command line imports SymPy only when a command needs it, which may be under a
# redirect to a StringIO (the docs' output blocks), so say it here instead.
pretty_use_unicode(True)

RELATION = {"calc": "=", "iff": "⇔"}


def abbreviations(exprs: Any) -> list[Abbrev]:
    """The distinct abbreviations used in ``exprs``, in order of first use."""
    found: dict[tuple[str, Any], Abbrev] = {}
    for e in exprs:
        for node in sympy.preorder_traversal(e):
            if isinstance(node, Abbrev):
                found.setdefault((node.label, node.inner), node)
    return list(found.values())


#: Terms already flattened, by identity (each entry holds its term, so its id is not
#: reused while kept; a SymPy term is immutable, so the same object flattens the
#: same): every rendering of an audit shows the same claims, the JSON twice (string
#: and LaTeX), and each flattening switches evaluation off and on, which clears
#: SymPy's whole cache (sympy.core.parameters).
_FLAT: dict[int, tuple[Any, Any]] = {}
FLAT_KEPT = 4096


def flatten(expr: Any) -> Any:
    """Undo Python's left-nesting of unevaluated sums and products (keep Group)."""
    if not getattr(expr, "args", ()) or getattr(expr, "is_Atom", False):
        return expr
    hit = _FLAT.get(id(expr))
    if hit is not None and hit[0] is expr:
        return hit[1]
    # Switching SymPy's evaluation off and on clears its whole cache (sympy.core.
    # parameters): switch it once here, not twice for every node below.
    with evaluate(False):
        flat = _flatten(expr)
    if len(_FLAT) >= FLAT_KEPT:
        _FLAT.clear()
    _FLAT[id(expr)] = (expr, flat)
    return flat


def _flatten(expr: Any) -> Any:
    if not getattr(expr, "args", ()) or getattr(expr, "is_Atom", False):
        return expr
    args = [_flatten(a) for a in expr.args]
    if isinstance(expr, (Add, Mul)):
        flat: list[Any] = []
        for a in args:
            flat.extend(a.args if type(a) is type(expr) else [a])
        with evaluate(False):
            return type(expr)(*flat)
    if isinstance(expr, Abbrev):
        return Abbrev(args[0], expr.args[1])
    if isinstance(expr, Group):
        return Group(args[0])
    with evaluate(False):
        return expr.func(*args)


def sympy_string(expr: Any) -> str:
    """The SymPy string of an expression, as written."""
    return str(sympy.sstr(flatten(expr), order="none"))


def statement_parts(statement: Statement) -> tuple[Any, str, Any]:
    """(lhs, relation symbol, rhs) of a statement."""
    relation = "⇔" if isinstance(statement, Equivalence) else "="
    assert isinstance(statement, (Equation, Equivalence))
    return flatten(statement.lhs), relation, flatten(statement.rhs)


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")

#: The dimension of the scores and of the entries s, r, y, g: what a bare pᵢ or sᵢ means.
_N = sympy.Symbol("n", integer=True, positive=True)
#: A name the language reads back as a vector's name with a subscript: letters, primes.
_LABEL = re.compile(r"[A-Za-z]+'*")
#: A vector's name with a subscript of its own (b_q): its entries are b_q_i inside a sum.
SUBSCRIPTED_LABEL = re.compile(r"[A-Za-z]+_[A-Za-z0-9]+")


def softmax_arguments(expr: Any) -> tuple[Any, ...] | None:
    """The arguments to write ``softmax(r, i, …)`` with, or None where ``pᵢ`` reads back.

    The language reads ``pᵢ`` (and ``p'ᵢ``) as the weight of the scores s of dimension n;
    a weight of other scores is written with them: ``softmax(r, i)``, and with the
    dimension and name where those are not n and p (``softmax(r, i, n, p')``), as a dot
    product of a written dimension is (``dot(q, k, 2)``).
    """
    scores, i, n, name = expr.args
    if scores.name == "s" and n == _N and re.fullmatch(r"p'*", name.name):
        return None
    if name.name != "p":
        return (scores, i, n, name)
    return (scores, i) if n == _N else (scores, i, n)


def entry_is_named(expr: Any, bound: Any) -> bool:
    """Whether the entry ``x_a`` reads back written so: ``entry(x, a, N)`` is written otherwise.

    The language reads ``xₐ`` inside a sum over a from 1 to N as the a-th entry of x of
    dimension N, and elsewhere ``sᵢ``, ``rᵢ``, ``yᵢ``, ``gᵢ`` as entries of dimension n;
    ``bound`` maps the indices of the sums around the entry to their upper bounds.
    """
    vector = expr.vector
    if SUBSCRIPTED_LABEL.fullmatch(vector):  # b_q_i, inside a sum over i only
        return isinstance(expr.index, sympy.Symbol) and bound.get(expr.index) == expr.dim
    if not _LABEL.fullmatch(vector) or vector.rstrip("'") in ("p", *RANDOM_VECTORS):
        return False
    if expr.index in bound:
        return bool(bound[expr.index] == expr.dim)
    return vector.rstrip("'") in ENTRY_VECTORS and bool(expr.dim == _N)


class BoundSums:
    """The indices of the sums being printed around a term, and their upper bounds."""

    def __init__(self) -> None:
        self.bound: dict[Any, Any] = {}

    def printing(self, expr: Any, print_body: Any) -> Any:
        """``print_body()`` with the indices of the sum ``expr`` bound to its upper bound."""
        saved = dict(self.bound)
        self.bound.update(dict.fromkeys(expr.indices, expr.upper))
        try:
            return print_body()
        finally:
            self.bound = saved


def bound_sums(printer: Any) -> BoundSums:
    """The printer's record of the sums around what it prints (made on first use)."""
    found = printer.__dict__.get("_bound_sums")
    if not isinstance(found, BoundSums):
        found = printer.__dict__["_bound_sums"] = BoundSums()
    return found


class UnicodeLinePrinter(StrPrinter):
    """One-line Unicode mathematics: σ_q²·dₖ, √dₖ, E[q·k] (for lists, tables, messages)."""

    printmethod = "_unicode_line"

    def _print_Symbol(self, expr: Any) -> str:
        return str(pretty_symbol(expr.name)).replace("_j", "ⱼ")

    def _print_Pow(self, expr: Any, rational: bool = False) -> str:
        base, exp = expr.args
        if exp == 1:
            return str(self._print(base))
        if exp == sympy.S.Half:
            return "√" + str(self.parenthesize(base, PRECEDENCE["Pow"]))
        if exp == -sympy.S.Half:
            return "1/√" + str(self.parenthesize(base, PRECEDENCE["Pow"]))
        if exp.is_Integer and exp > 1:
            power = str(exp).translate(_SUPERSCRIPT)
            if type(base).__name__ == "DotProduct" and "dot(" in self._print(base):
                return str(self._print(base)) + power  # dot(q, k, 3)² needs no brackets
            return str(self.parenthesize(base, PRECEDENCE["Pow"])) + power
        return str(super()._print_Pow(expr, rational))

    def _print_Mul(self, expr: Any) -> str:
        return str(super()._print_Mul(expr)).replace("*", "·")

    def _print_E(self, expr: Any) -> str:
        return f"E[{self._print(expr.args[0])}]"

    def _operator(self, expr: Any) -> str:
        inner = ", ".join(self._print(a) for a in expr.args)
        return f"{type(expr).__name__}({inner})"

    _print_Var = _print_Cov = _print_Std = _operator

    def _print_Component(self, expr: Any) -> str:
        return str(pretty_symbol(f"{expr.label.name}_{expr.index}")).replace("_j", "ⱼ")

    def _print_DotProduct(self, expr: Any) -> str:
        q, k, n = expr.args
        if n != sympy.Symbol("d_k", integer=True, positive=True):  # read back as written
            return f"dot({q.name}, {k.name}, {self._print(n)})"
        return f"{q.name}·{k.name}"

    def _body(self, expr: Any) -> str:
        body = bound_sums(self).printing(
            expr, lambda: self.parenthesize(expr.body, PRECEDENCE["Mul"])
        )
        return str(body)

    def _print_IndexSum(self, expr: Any) -> str:
        limits = f"{self._print(expr.indices[0])}=1..{self._print(expr.upper)}"
        return f"Σ_{{{limits}}} {self._body(expr)}"

    def _print_CrossSum(self, expr: Any) -> str:
        i, j = (self._print(x) for x in expr.indices)
        return f"Σ_{{{i}≠{j}}} {self._body(expr)}"

    def _print_KroneckerDelta(self, expr: Any) -> str:
        return delta_text(expr)

    def _print_Group(self, expr: Any) -> str:
        return f"({self._print(expr.args[0])})"

    def _print_Equality(self, expr: Any) -> str:
        return f"{self._print(expr.lhs)} = {self._print(expr.rhs)}"

    def _print_Or(self, expr: Any) -> str:
        return " ∨ ".join(self._print(a) for a in expr.args)

    def _print_Entry(self, expr: Any) -> str:
        if not entry_is_named(expr, bound_sums(self).bound):
            shown = ", ".join(self._print(a) for a in (expr.index, expr.dim))
            return f"entry({expr.vector}, {shown})"
        if SUBSCRIPTED_LABEL.fullmatch(expr.vector):  # b_q_i: no Unicode double subscript
            return f"{expr.vector}_{self._print(expr.index)}"
        return str(pretty_symbol(f"{expr.vector}_{expr.index}"))

    def _print_Softmax(self, expr: Any) -> str:
        written = softmax_arguments(expr)
        if written is not None:
            return f"softmax({', '.join(self._print(a) for a in written)})"
        return str(pretty_symbol(f"{expr.shown}_{expr.index}"))

    def _print_Deriv(self, expr: Any) -> str:
        var, body = self._print(expr.args[1]), self._print(expr.args[0])
        simple = type(expr.args[0]).__name__ in ("Entry", "Softmax")
        return f"∂{body}/∂{var}" if simple else f"∂/∂{var}({body})"

    def _print_Lim(self, expr: Any) -> str:
        lam = self._print(expr.variable)
        return f"lim_{{{lam}→∞}} {self.parenthesize(expr.args[0], PRECEDENCE['Mul'])}"


def delta_text(expr: Any) -> str:
    """A Kronecker delta as one Unicode word: δᵢₘ, or δ_tw where no subscript letter exists.

    >>> import sympy
    >>> i, m = sympy.symbols("i m", integer=True)
    >>> delta_text(sympy.KroneckerDelta(i, m))
    'δᵢₘ'
    """
    a, b = (sympy.sstr(x) for x in expr.args[:2])
    return str(pretty_symbol(f"delta_{a}{b}" if len(a) == len(b) == 1 else f"delta_{a},{b}"))


def unicode_line(expr: Any) -> str:
    """``expr`` on one line in Unicode, as written.

    >>> import sympy
    >>> unicode_line(sympy.Symbol("sigma_q") ** 2 * sympy.sqrt(sympy.Symbol("d_k")))
    '√dₖ·σ_q²'
    """
    return str(UnicodeLinePrinter({"order": "none"}).doprint(flatten(expr)))


def assumption_text(assumption: Any) -> str:
    """One assumption in Unicode: ``E[qᵢ] = 0 for every i``, ``Independent(X, Y)``."""
    from scaledattn.kernel import Entries, Entry, Moment

    if isinstance(assumption, Entries):
        lhs = unicode_line(Entry(assumption.name, assumption.index, assumption.dim))
        text = f"{lhs} = {unicode_line(assumption.body)} for every {assumption.index}"
        return f"{text} ({assumption.label})" if assumption.label else text
    if isinstance(assumption, Moment):
        text = f"{unicode_line(assumption.lhs)} = {unicode_line(assumption.value)}"
        if assumption.indices:
            text += " for every " + ", ".join(str(i) for i in assumption.indices)
        return text
    return str(assumption)


def modulo_axioms(names: frozenset[str]) -> str:
    """The phrase that marks a theorem resting on unchecked axioms."""
    if not names:
        return ""
    word = "axiom" if len(names) == 1 else "axioms"
    return f"verified modulo {word} {', '.join(sorted(names))}"


_SIGNS = (
    ("positive", "> 0"),
    ("negative", "< 0"),
    ("nonnegative", "≥ 0"),
    ("nonpositive", "≤ 0"),
    ("zero", "= 0"),
    ("nonzero", "≠ 0"),
)


def _is(x: Any, kind: str) -> bool:
    return getattr(x, f"is_{kind.split()[-1]}") is True


#: Facts shown beside a sign, each when SymPy knows it (``x real`` only without a sign).
_KINDS: tuple[str, ...] = ("an integer", "even", "odd", "prime", "composite", "noninteger")
_KINDS += ("rational", "irrational", "algebraic", "transcendental")


def carried_assumptions(derivation: Any) -> tuple[str, ...]:
    """The facts carried by the symbols and functions of a derivation, not declared.

    ``Symbol("sigma", positive=True)`` makes σ > 0 an assumption of every step that uses
    it, ``Function("f", negative=True)`` makes f(…) < 0 one; they are listed here so that
    every rendering shows them beside the declared ones: a sign, being real, an integer,
    even, odd, prime. Index and dimension symbols are listed together as positive
    integers; random variables and vectors are real by their kind and are not listed.
    """
    found: dict[str, Any] = {}
    parts = [derivation.statement.lhs, derivation.statement.rhs]
    parts += [s.claim for s in derivation.steps]
    parts += [v for a in derivation.assumptions for v in vars(a).values()]
    for part in parts:
        for x in getattr(part, "free_symbols", set()):
            if type(x) in (sympy.Symbol, sympy.Dummy):
                found[str(x)] = x
        for f in getattr(part, "atoms", lambda *_: set())(AppliedUndef):
            found[f"{f.func}(…)"] = f
    counting = sorted(n for n, x in found.items() if x.assumptions0 == INDEX_FACTS)
    facts = [
        f"{', '.join(counting)} {'positive integers' if counting[1:] else 'a positive integer'}"
    ]
    for name, x in sorted(found.items()):
        if name in counting:
            continue
        signs = [f"{name} {text}" for key, text in _SIGNS if getattr(x, f"is_{key}") is True]
        implied = ("rational", "algebraic") if x.is_integer else ()  # by an integer
        facts += signs[:1] + [
            f"{name} {kind}" for kind in _KINDS if _is(x, kind) and kind not in implied
        ]
        if not signs and x.is_integer is not True and x.is_real is True:
            facts.append(f"{name} real")
    return tuple(facts[0 if counting else 1 :])


def assumption_lines(derivation: Any) -> list[str]:
    """Every assumption of a derivation in Unicode, declared or carried by a symbol.

    The declared ones first, then ``σ > 0 (carried by the symbol)``.
    """
    lines = [assumption_text(a) for a in derivation.assumptions]
    return lines + [f"{fact} (carried by the symbol)" for fact in carried_assumptions(derivation)]
