"""Where a written term is defined, when SymPy rewrites a divisor, logarithm or root away.

SymPy evaluates a term as it builds it: ``c·(c−1)/(c−1)`` becomes ``c``, ``exp(log(x))``
becomes ``x``, ``√x·√x`` becomes ``x``. The written term is undefined at c = 1 (not real
for x ≤ 0, x < 0); the built one is defined there, so a statement about the built term
can be proved that the written text does not support. The parsers therefore record a
:class:`Condition` for each operation that needs something of its operand:

- a divisor (``a/b``, ``b**-n``) must be ≠ 0;
- a logarithm's argument must be > 0;
- a square root's radicand (``sqrt(x)``, ``x**(1/2)``) must be ≥ 0.

A number is decided at once, exactly (:func:`number_refusal`): a zero divisor, an
undecided one (SymPy's ``is_zero`` is None), a negative radicand, a logarithm of a
number not shown positive are refused. A condition on a symbolic term is settled when
the whole term is built (:func:`unmet_in`): a divisor or a radicand that the built term
still carries (a power of it with a negative, or fractional, exponent at the same binder
depth) keeps the built term undefined exactly where the written one is, and needs
nothing more; the kernel sees it. The rest (the divisor SymPy cancelled, the radicand
it squared away, every logarithm's argument) must follow from what is declared: the
symbols' own facts and the declared ``Positive`` assumptions (:func:`first_unmet`,
through the kernel's :func:`~scaledattn.kernel.assumptions.sign_facts`). The caller
that knows the declarations (the proof-file checker, the claim setup, the calculator
with its symbols' facts only) decides them and refuses the first that fails.

One of two definedness trackers, apart on purpose: this one records what the
*written* text needs before SymPy's evaluation erases it; the kernel never sees the
text, and its own tracker (:func:`scaledattn.kernel.expr.conditions`) finds the
conditions of the built term it checks.

Examples
--------
>>> from sympy import Symbol
>>> c = Symbol("c", real=True)
>>> cancelled = Condition("nonzero", c - 1)
>>> unmet_in([cancelled], c)  # c·(c−1)/(c−1) was built as c: c − 1 is gone
[Condition(need='nonzero', term=c - 1, position=0, bound=frozenset(), source='')]
>>> unmet_in([cancelled], 1 / (c - 1))  # still a divisor: the term is undefined at c = 1
[]
>>> from scaledattn.kernel import Context, Positive
>>> first_unmet([Condition("nonzero", c)], Context((Positive(c),))) is None
True
>>> context = Context((Positive(c),))
>>> print(first_unmet([cancelled], context).refusal(context).split(";")[0])
division by c - 1, which may be 0 (the term as read cancels it)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

import sympy
from sympy import Expr, Pow, Symbol

from scaledattn.kernel import Context
from scaledattn.kernel.assumptions import Assumption, Moment, Positive, sign_facts
from scaledattn.kernel.binders import Scope, arg_scopes
from scaledattn.kernel.expr import Cov, E, Std, Var, rebuild

__all__ = [
    "NEEDS",
    "Condition",
    "declared_nonzero",
    "first_unmet",
    "is_plain_number",
    "needs_of_power",
    "number_refusal",
    "unmet_in",
]

#: The nodes of a number decided at once (a moment of a constant, E(2), is a term instead).
_PLAIN = (
    sympy.Number, sympy.NumberSymbol, sympy.Add, sympy.Mul, sympy.Pow, sympy.exp, sympy.log,
    sympy.Abs, sympy.Max, sympy.Min, type(sympy.I),
)  # fmt: skip

#: What each kind of condition asks of its term, as a refusal says it.
NEEDS = {
    "nonzero": ("division by {}", "may be 0", "nonzero"),
    "positive": ("log of {}", "may not be positive", "positive"),
    "nonnegative": ("square root of {}", "may be negative", "non-negative"),
}


@dataclass(frozen=True)
class Condition:
    """``term`` must be ≠ 0 (``nonzero``), > 0 (``positive``) or ≥ 0 (``nonnegative``).

    ``position`` is the column of the operation in the text it was written in (``source``,
    when the caller keeps it); ``bound`` the symbols a binder around it binds (a sum's
    index, a limit's λ), about which no declared fact holds there.
    """

    need: str
    term: Expr
    position: int = 0
    bound: frozenset[Symbol] = field(default_factory=frozenset)
    source: str = ""

    def signed(self, context: Context) -> Expr:
        """The term, each symbol ``context`` declares positive replaced by a positive dummy.

        Not a symbol a binder around the condition rebinds: the fact is not about it there.
        """
        visible = Context(tuple(p for p in context.positives() if p.symbol not in self.bound))
        term, _ = sign_facts(rebuild(self.term), visible)
        return term

    def holds(self, context: Context) -> bool:
        """Whether the symbols' facts and the context's ``Positive`` facts prove the need.

        A radicand may also use that a variance and a standard deviation are ≥ 0.
        """
        term = self.signed(context)
        if self.need == "nonzero":
            return term.is_zero is False
        if self.need == "positive":
            return term.is_positive is True
        spreads = {m: sympy.Dummy(str(m), nonnegative=True) for m in term.atoms(Var, Std)}
        return term.xreplace(spreads).is_nonnegative is True

    def refusal(
        self,
        context: Context,
        declare: str = '"assume: {} > 0"',
        declarable: Callable[[Symbol], bool] = lambda s: True,
    ) -> str:
        """One line: the term, what it may be under ``context``, and what would settle it.

        ``declare`` is how the caller's input declares a name positive (``{}`` the name),
        for the names ``declarable`` accepts; empty when it cannot declare anything.
        """
        what, may, need = NEEDS[self.need]
        text = what.format(sympy.sstr(self.term))
        term = self.signed(context)
        never = {"nonzero": term.is_zero, "positive": term.is_nonpositive,
                 "nonnegative": term.is_negative}[self.need]  # fmt: skip
        if never is True:
            return f"{text}, which is never {need} under the declared assumptions"
        fixes = _fixes(self, context, declarable)
        if self.need == "nonzero":
            text += f", which {may} (the term as read cancels it)"
        elif self.need == "nonnegative":
            text += f", which {may} (the term as read squares it away)"
        else:
            text += f", which {may}"
        if not declare:
            return text + "; write the term without it"
        if fixes:
            return text + "; declare " + " and ".join(declare.format(n) for n in fixes)
        return text + f"; nothing that can be declared keeps it {need}"


def _declarable(term: Expr, bound: frozenset[Symbol]) -> set[Symbol]:
    """The constants of ``term`` a declaration could make positive (not bound, not yet so)."""
    return {
        s
        for s in term.free_symbols
        if isinstance(s, Symbol)
        and s.is_real
        and not s.is_positive
        and s not in bound
        and not s.is_integer
        and type(s) is Symbol
    }


def _fixes(
    condition: Condition, context: Context, declarable: Callable[[Symbol], bool]
) -> list[str]:
    """The names whose declared positivity would prove the condition, if together they do."""
    symbols = sorted(filter(declarable, _declarable(condition.term, condition.bound)), key=str)
    if not symbols:
        return []
    every = Context((*context.positives(), *(Positive(s) for s in symbols)))
    return [s.name for s in symbols] if condition.holds(every) else []


# ---------------------------------------------------------------- numbers


def is_plain_number(x: Expr) -> bool:
    """Whether ``x`` is a number built of numbers and arithmetic only (no symbol, no moment).

    >>> from scaledattn.kernel import E
    >>> is_plain_number(sympy.sqrt(2) - 1), is_plain_number(E(2))
    (True, False)
    """
    return all(isinstance(n, _PLAIN) for n in sympy.preorder_traversal(x))


def number_refusal(need: str, x: Expr) -> str | None:
    """Why the number ``x`` fails ``need`` (decided exactly), or None when it meets it.

    >>> number_refusal("nonzero", (1 + sympy.sqrt(2))**2 - 3 - 2*sympy.sqrt(2))
    'division by zero (-3 - 2*sqrt(2) + (1 + sqrt(2))**2 is 0)'
    >>> number_refusal("nonnegative", sympy.Rational(-4)) is None
    False
    """
    if need == "nonzero":
        zero = x.is_zero
        if zero is True:
            return "division by zero" + ("" if x == 0 else f" ({sympy.sstr(x)} is 0)")
        return None if zero is False else f"cannot decide whether the divisor {x} is 0"
    if need == "positive":
        positive = x.is_positive
        if positive is True:
            return None
        if positive is False:
            return f"log of a number that is not positive ({sympy.sstr(x)})"
        return f"cannot decide whether {sympy.sstr(x)} is positive"
    nonnegative = x.is_nonnegative
    if nonnegative is True:
        return None
    if nonnegative is False:
        return f"square root of a negative number ({sympy.sstr(x)})"
    return f"cannot decide whether {sympy.sstr(x)} is negative"


def needs_of_power(exponent: Expr) -> tuple[str, ...]:
    """What ``b**exponent`` needs of b: ≠ 0 for a negative exponent, ≥ 0 for a fractional one.

    >>> needs_of_power(sympy.Rational(-1, 2)), needs_of_power(sympy.Integer(3))
    (('nonzero', 'nonnegative'), ())
    """
    needs: tuple[str, ...] = ()
    if exponent.is_negative:
        needs += ("nonzero",)
    if exponent.is_Rational and not exponent.is_integer:
        needs += ("nonnegative",)
    return needs


# ---------------------------------------------------------------- built terms


@dataclass(frozen=True)
class _Occurrences:
    """The divisors and radicands a built term carries, each with the symbols bound there.

    ``divisors``: the bases of powers with a negative exponent, and their factors, up to
    sign and a rational factor (|f| counts as f); ``radicands``: the bases of fractional
    powers, up to a positive rational factor.
    """

    divisors: tuple[tuple[frozenset[Expr], frozenset[Symbol]], ...]
    radicands: tuple[tuple[Expr, frozenset[Symbol]], ...]

    @classmethod
    def of(cls, value: Expr) -> _Occurrences:
        """What ``value`` carries."""
        divisors: list[tuple[frozenset[Expr], frozenset[Symbol]]] = []
        radicands: list[tuple[Expr, frozenset[Symbol]]] = []
        stack: list[tuple[Expr, Scope]] = [(value, Scope())]
        while stack:
            e, scope = stack.pop()
            if isinstance(e, Pow) and e.exp.is_negative:
                keys = frozenset(_key(f, False) for f in (e.base, *_factors(e.base)))
                divisors.append((keys, scope.bound))
            if isinstance(e, Pow) and e.exp.is_Rational and not e.exp.is_integer:
                radicands.append((_key(e.base, True), scope.bound))
            if getattr(e, "args", ()) and not e.is_Atom:
                stack.extend(zip(e.args, arg_scopes(e, scope), strict=True))
        return cls(tuple(divisors), tuple(radicands))


def _factors(term: Expr) -> list[Expr]:
    """The factors of a product (each base once); numbers only when they may be 0."""
    return [
        b
        for b, k in term.as_powers_dict().items()
        if k.is_positive and not (b.is_number and b.is_zero is False)
    ]


def _key(term: Expr, signed: bool) -> Expr:
    """``term`` up to a positive rational factor (and up to sign, and |·|, unless ``signed``)."""
    if not signed and isinstance(term, sympy.Abs):
        term = term.args[0]
    _, primitive = term.as_content_primitive()
    if not signed and primitive.could_extract_minus_sign():
        primitive = -primitive
    return primitive


def _same_scope(term: Expr, bound: frozenset[Symbol], there: frozenset[Symbol]) -> bool:
    """Whether the symbols of ``term`` are bound alike at the condition and at an occurrence."""
    mentioned = term.free_symbols
    return bool((bound & mentioned) == (there & mentioned))


def _uncarried(condition: Condition, carried: _Occurrences) -> Expr:
    """The part of the condition's term the built term no longer carries (1 if none).

    A divisor's factor is carried by a power of it (up to sign and a rational factor) with a
    negative exponent; a radicand by a fractional power of what SymPy leaves under the root.
    """
    term = condition.term
    if condition.need == "positive":
        return term  # a logarithm's argument is never left to the built term
    if condition.need == "nonzero":
        gone = [
            factor
            for factor in _factors(term)
            if not any(
                _key(factor, False) in keys and _same_scope(factor, condition.bound, there)
                for keys, there in carried.divisors
            )
        ]
        return sympy.Mul(*gone)
    # A radicand: SymPy takes the factors it knows are ≥ 0 out of the root (√(σx) = √σ·√x,
    # √(−4x) = 2√(−x)); what stays under a fractional power must be the rest, with its sign.
    coefficient, product = term.as_coeff_Mul()
    kept = [f for f in sympy.Mul.make_args(product) if f.is_nonnegative is not True]
    rest = sympy.Mul(-1 if coefficient.is_negative else 1, *kept)
    key = _key(rest, True)
    found = any(
        key == base and _same_scope(rest, condition.bound, there)
        for base, there in carried.radicands
    )
    return sympy.S.One if found else term


def unmet_in(conditions: Iterable[Condition], *values: Expr) -> list[Condition]:
    """What the conditions still need once the built ``values`` are known (in order, once each).

    A condition carried by the built term needs nothing more; of a divisor, what the term
    no longer carries remains (of several values, a list's items, what one of them lacks).
    """
    conditions = list(conditions)
    if not conditions:
        return []
    carried = [_Occurrences.of(v) for v in values]
    found: list[Condition] = []
    for c in conditions:
        parts = [_uncarried(c, o) for o in carried] if carried else [c.term]
        if c.need == "nonzero":
            left = sympy.Mul(*{f for part in parts for f in sympy.Mul.make_args(part)})
        else:
            left = c.term if any(part != 1 for part in parts) else sympy.S.One
        if left != 1:
            remaining = replace(c, term=left)
            if remaining not in found:
                found.append(remaining)
    return found


def first_unmet(conditions: Sequence[Condition], context: Context) -> Condition | None:
    """The first condition the symbols' facts and the context's ``Positive`` facts do not prove."""
    return next((c for c in conditions if not c.holds(context)), None)


def declared_nonzero(condition: Condition, assumptions: Sequence[Assumption]) -> bool:
    """Whether a cancelled divisor is a moment the assumptions give a nonzero value.

    ``Var(X)/Var(X)`` under ``Var(X) = 1``: the divisor is 1 in every model. Only a
    moment stated without schematic indices, and not about a name a binder around the
    condition binds.
    """
    moments = (E, Var, Cov, Std)
    if condition.need != "nonzero" or not condition.term.atoms(*moments):
        return False
    values = {
        a.lhs: a.value
        for a in assumptions
        if isinstance(a, Moment) and not a.indices and a.value.is_number
    }
    if condition.bound & set(condition.term.free_symbols):
        return False
    at = condition.term.xreplace(values)
    return bool(at.is_number and at.is_zero is False)
