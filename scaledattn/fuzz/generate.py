"""Well-formed kernel terms and contexts, drawn to over-represent what breaks binders.

One generator, driven by a :class:`~scaledattn.numeric.worlds.Chooser`: Hypothesis
drives it in the test suite (so a failure shrinks), a seeded ``random.Random`` in
the long campaign (so it is fast), and a replayed list of choices when the campaign
shrinks a disagreement itself. The first option of every choice is the simplest,
so shrinking a choice towards 0 simplifies the term.

Contexts come from a grammar of facts (:func:`draw_fact`): a moment whose left side is any
drawn random term under E, Var or Cov, binders included (a sum, a cross sum, a limit), and
whose value is a number, a constant, a free index of the left side or a delta of it (the
constructor refuses a value naming an index the left side binds: the discipline of issue
30, example 1); besides, the fixed facts below and the cases of issue 30 (E[qᵢkᵢ] = 1, a
schematic Cov(qᵢ, qⱼ) = 0, E[2X] = 3, Cov(Y, X) = c). Indices are of every admitted kind:
positive (i, j, m, t, w), non-negative (z) and any integer (u). A case's term is, four times
in five, aimed at rules (:func:`draw_aimed`): a fact's left side, a product of
independent factors, √ of a product, ∂ of a product, a delta of two declared-distinct
indices, so that each rule rewrites often.

Over-represented on purpose: a few index names (i, j, m, t, w) reused and shadowed;
sum bounds that are an enclosing index; products of sums whose names overlap;
limits around sums and deltas; moments whose left side names an index (E[qᵢ] = …
for every i, under a sum binding i); definitions (``Lead``, ``Shift``, ``OneHot``)
whose parameters a sum or limit rebinds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sympy
from sympy import Eq, KroneckerDelta, Or, Rational, Symbol

from scaledattn.definitions import Lead, OneHot, Shift
from scaledattn.errors import InvalidArgument
from scaledattn.kernel.assumptions import (
    Assumption,
    Independent,
    IndependentComponents,
    IndependentPairs,
    Mean,
    Moment,
    Positive,
    UnitVariance,
    Variance,
    ZeroMean,
)
from scaledattn.kernel.expr import (
    Cov,
    CrossSum,
    Dot,
    E,
    IndexSum,
    RandomVector,
    Std,
    Var,
    dimension,
    index,
    random_variables,
)
from scaledattn.kernel.vectors import Deriv, Distinct, IndexRange, Lim, RealVector, SoftmaxVector
from scaledattn.numeric.worlds import Chooser, pick

__all__ = [
    "Case",
    "Draw",
    "clash",
    "draw_aimed",
    "draw_case",
    "draw_context",
    "draw_fact",
    "draw_proposition",
    "draw_term",
]

X, Y = random_variables("X Y")
n, N = dimension("n"), dimension("N")
i, j, m, t, w = (index(name) for name in "ijmtw")
z = Symbol("z", integer=True, nonnegative=True)  # an index that may be 0
u = Symbol("u", integer=True)  # an index of any sign
INDICES = (i, j, m, t, w, z, u)
a = Symbol("a", real=True)
c = Symbol("c", real=True)
sigma = Symbol("sigma", positive=True)
lam = Symbol("lambda", real=True)
q, k = RandomVector("q", n), RandomVector("k", n)
s, r, y = RealVector("s", n), RealVector("r", n), RealVector("y", n)
p = SoftmaxVector(s, "p")
pr = SoftmaxVector(r, "p'")


@dataclass(frozen=True)
class Case:
    """A context and a term (or proposition) in it."""

    assumptions: tuple[Assumption, ...]
    term: Any

    def __str__(self) -> str:
        shown = ", ".join(str(x) for x in self.assumptions) or "none"
        return f"{sympy.sstr(self.term)}   [assuming {shown}]"


def _maybe(ch: Chooser, weight: int = 1, of: int = 3) -> bool:
    """True with probability weight/of (False is the simpler choice)."""
    return ch.integer(0, of - 1) >= of - weight


def draw_context(ch: Chooser) -> tuple[Assumption, ...]:
    """A random set of assumptions over the fixed vocabulary."""
    found: list[Assumption] = []
    options: list[Callable[[], Assumption]] = [
        lambda: Independent(X, Y),
        lambda: IndependentComponents(q, k),
        lambda: IndependentPairs(q, k),
        lambda: ZeroMean(q),
        lambda: UnitVariance(k),
        lambda: Mean(X, a),
        lambda: Variance(q, sigma**2),
        lambda: Moment(E(q[i]), i),  # a moment whose value names its own index
        lambda: Moment(E(X), m),  # a moment whose value names a free index
        lambda: Moment(Cov(X, Y), 0),
        lambda: Positive(c),
        lambda: Distinct(t, w),
        lambda: IndexRange(m, n),
        lambda: IndexRange(t, n),
        lambda: Lead(r, s, w, lam),
        lambda: Shift(r, s, a),
        lambda: OneHot(y, t),
        # the cases of issue 30: a dependent product moment, a schematic pair, a moment of
        # a linear term, a covariance written the other way round, a sum's moment
        lambda: Moment(E(q[i] * k[i]), 1),
        lambda: Moment(Cov(q[i], q[j]), 0),
        lambda: Moment(E(2 * X), 3),
        lambda: Moment(Cov(Y, X), c),
        lambda: Moment(E(IndexSum(q[i], i, n)), 0),
        lambda: draw_fact(ch),
        lambda: draw_fact(ch),
    ]
    for _ in range(ch.integer(0, 4)):
        try:
            made = options[ch.integer(0, len(options) - 1)]()
        except InvalidArgument:  # a fact the kernel refuses (a bound index in its value)
            continue
        if made not in found and not clash(made, found):
            found.append(made)
    return tuple(found)


def draw_fact(ch: Chooser) -> Assumption:
    """A moment from the grammar: E, Var or Cov of a drawn random term, and a value.

    The left side may hold a binder around the random term (Σ over an index, a cross sum,
    a limit in λ); the value is a number, a constant, a free index of the left side or a
    delta of indices (which may name a bound one: then the constructor refuses it).
    """
    d = Draw(ch, 8)
    body = d.random([], 2)
    choice = ch.integer(0, 4)
    if choice == 1:
        name = pick(ch, INDICES)
        body = IndexSum(d.random([name], 1) + body, name, d.upper([]))
    elif choice == 2:
        ii = pick(ch, INDICES)
        jj = pick(ch, [x for x in INDICES if x != ii])
        body = CrossSum(d.random([ii, jj], 1), ii, jj, d.upper([]))
    elif choice == 3:
        body = Lim(body * (1 + sympy.exp(-lam)), lam)
    operator = ch.integer(0, 2)
    lhs = E(body) if operator == 0 else Var(body) if operator == 1 else Cov(body, d.random([], 1))
    free = sorted({x for x in lhs.free_symbols if x in INDICES}, key=str)
    at = pick(ch, free or INDICES)
    values = (
        sympy.Integer(0), sympy.Integer(1), Rational(1, 2), a, sigma**2, at,
        KroneckerDelta(at**2, at) - KroneckerDelta(at, 1),
    )  # fmt: skip
    return Moment(lhs, pick(ch, values))


#: Pieces of an aimed term, each for a different rule (the rules each rewrite one).
AIMED_PIECES = 5
#: The rules a piece of an aimed term is drawn for (see :func:`draw_aimed`).
AIMS = 10


def draw_aimed(ch: Chooser, context: tuple[Assumption, ...]) -> tuple[tuple[Assumption, ...], Any]:
    """A context and a term that rules which rarely rewrite a drawn term act on.

    The term is a sum of :data:`AIMED_PIECES` pieces, each aimed at another rule: a fact's
    left side (substitute_moment), E of a product of independent factors
    (expectation_mul_of_indep), √ of a product (sqrt_mul), ∂ of a product, of an entry or
    of an exponential (deriv_mul, deriv_entry, deriv_chain), a delta of two
    declared-distinct indices (delta_distinct), a sum of a delta (sum_delta), a double sum
    (split_diagonal), the variance of a multiple (variance_const_mul); each piece with a
    small drawn term in it. The context gains the facts a piece needs.
    """
    d = Draw(ch, 12)
    aims = list(range(AIMS))
    chosen = [aims.pop(ch.integer(0, len(aims) - 1)) for _ in range(AIMED_PIECES)]
    more: list[Assumption] = []
    pieces = [_piece(ch, d, aim, context, more) for aim in sorted(chosen)]
    return (*context, *dict.fromkeys(x for x in more if x not in context)), sympy.Add(*pieces)


def _piece(
    ch: Chooser, d: Draw, aim: int, context: tuple[Assumption, ...], more: list[Assumption]
) -> Any:
    """One piece of an aimed term (``aim`` picks the rule), its facts added to ``more``."""
    extra = d.term([], 1)
    facts = [x for x in context if isinstance(x, Moment)]
    if aim == 0 and facts:
        fact = pick(ch, facts)
        at = {x: d.index([]) for x in fact.indices}
        return fact.lhs.xreplace(at) * extra
    if aim <= 1:
        pairs = ((X, Y), (q[i], k[i]), (q[i], k[j]), (q[i], q[j]))
        left, right = pairs[ch.integer(0, len(pairs) - 1)]
        family: Assumption = Independent(X, Y) if left == X else IndependentComponents(q, k)
        more += [family, Distinct(i, j)] if right in (k[j], q[j]) else [family]
        return E(left * right * pick(ch, (sympy.Integer(1), sympy.Integer(2), a))) * extra
    if aim == 2:
        radicand = sympy.Mul(pick(ch, (a**2 + 1, n)), extra**2 + 1, evaluate=False)
        return sympy.sqrt(radicand, evaluate=False)
    if aim == 3:
        return Deriv(d.term([], 1) * d.term([], 1), s[d.index([])])
    if aim == 4:
        return Deriv(s[d.index([])], s[d.index([])]) * extra
    if aim == 5:
        return Deriv(sympy.exp(d.term([], 1)), s[d.index([])])
    if aim == 6:
        more.append(Distinct(t, w))
        return KroneckerDelta(t, w) * extra
    if aim == 7:
        name = pick(ch, INDICES)
        return IndexSum(KroneckerDelta(name, d.index([])) * d.term([name], 1), name, n)
    if aim == 8:
        ii = pick(ch, INDICES)
        jj = pick(ch, [x for x in INDICES if x != ii])
        return IndexSum(IndexSum(d.term([ii, jj], 1), jj, n), ii, n)
    return Var(pick(ch, (sympy.Integer(2), a, sigma)) * d.random([], 1)) * extra


def clash(new: Assumption, found: list[Assumption]) -> bool:
    """Two definitions of the same vector, or two values for one moment."""
    name = getattr(new, "name", None)
    if name is not None and any(getattr(f, "name", None) == name for f in found):
        return True
    if isinstance(new, Moment):
        return any(isinstance(f, Moment) and f.lhs == new.lhs for f in found)
    return False


class Draw:
    """The term generator: indices, bounds, leaves, terms and random terms from a Chooser.

    ``budget`` bounds the number of compound nodes one draw makes (a node past it is a
    leaf); ``bound`` is the list of indices the enclosing binders bind, innermost last.
    """

    def __init__(self, ch: Chooser, budget: int) -> None:
        self.ch, self.budget = ch, budget

    def index(self, bound: list[Symbol]) -> Any:
        """An index: a bound one (the innermost likelier), a number 1..3, or a free one."""
        if bound and _maybe(self.ch, 2):
            return pick(self.ch, bound[::-1])
        if _maybe(self.ch, 1, 6):
            return sympy.Integer(self.ch.integer(1, 3))
        return pick(self.ch, INDICES)

    def upper(self, bound: list[Symbol]) -> Any:
        """A sum's upper bound: n, N, an enclosing index or a number 1..3."""
        choice = self.ch.integer(0, 5)
        if choice == 4 and bound:
            return pick(self.ch, bound)  # a bound that is an enclosing index
        if choice == 5:
            return sympy.Integer(self.ch.integer(1, 3))
        return N if choice == 3 else n

    def name(self, bound: list[Symbol]) -> Symbol:
        """A binder's index name: often one already bound (shadowing)."""
        if bound and _maybe(self.ch, 1):
            return pick(self.ch, bound)  # shadowing
        return pick(self.ch, INDICES)

    def leaf(self, bound: list[Symbol]) -> Any:
        """A number, a constant, an index, an entry, a delta, a softmax weight or n."""
        choice = self.ch.integer(0, 11)
        if choice == 0:
            return sympy.Integer(self.ch.integer(-1, 2))
        if choice == 1:
            return Rational(1, 2)
        if choice in (2, 3):
            return pick(self.ch, (a, c, sigma, lam))
        if choice == 4:
            return self.index(bound)
        if choice == 5:
            return s[self.index(bound)]
        if choice == 6:
            return r[self.index(bound)]
        if choice == 7:
            return KroneckerDelta(self.index(bound), self.index(bound))
        if choice == 8:
            return p[self.index(bound)]
        if choice == 9:
            return y[self.index(bound)]
        if choice == 10:
            return pr[self.index(bound)]
        return n

    def term(self, bound: list[Symbol], depth: int) -> Any:
        """A term, or a leaf where the one drawn is not in the kernel's language (√−1)."""
        try:
            return self._term(bound, depth)
        except InvalidArgument:
            return self.leaf(bound)

    def _term(self, bound: list[Symbol], depth: int) -> Any:
        self.budget -= 1
        if depth <= 0 or self.budget <= 0:
            return self.leaf(bound)
        choice = self.ch.integer(0, 15)
        if choice <= 2:
            return self.leaf(bound)
        if choice == 3:
            return self.term(bound, depth - 1) + self.term(bound, depth - 1)
        if choice == 4:
            return self.term(bound, depth - 1) * self.term(bound, depth - 1)
        if choice in (5, 6):
            name = self.name(bound)
            upper = self.upper(bound)
            return IndexSum(self.term([*bound, name], depth - 1), name, upper)
        if choice == 7:
            ii = self.name(bound)
            jj = pick(self.ch, [x for x in INDICES if x != ii])
            return CrossSum(self.term([*bound, ii, jj], depth - 1), ii, jj, self.upper(bound))
        if choice == 8:
            return self.moment(bound, depth - 1)
        if choice == 9:
            # a product of sums whose names overlap
            name = self.name(bound)
            left = IndexSum(self.term([*bound, name], depth - 1), name, self.upper(bound))
            other = pick(self.ch, (name, *INDICES))
            right = IndexSum(self.term([*bound, other], depth - 1), other, self.upper(bound))
            return left * right
        if choice == 10:
            body = self.term(bound, depth - 1)
            scale = pick(self.ch, (KroneckerDelta(self.index(bound), self.index(bound)), 1, -1))
            return Lim(sympy.exp(lam * scale) * body / (1 + sympy.exp(lam)), lam)
        if choice == 11:
            return Lim(self.term(bound, depth - 1), lam)
        if choice == 12:
            return Deriv(self.term(bound, depth - 1), s[self.index(bound)])
        if choice == 13:
            return sympy.exp(self.term(bound, depth - 1))
        if choice == 14:
            return self.term(bound, depth - 1) ** pick(self.ch, (2, -1, Rational(1, 2), 3))
        return self.term(bound, depth - 1) - self.term(bound, depth - 1)

    def random(self, bound: list[Symbol], depth: int) -> Any:
        """A random term: X, Y, qᵢ, kᵢ, q·k, and sums, products, squares and sums over them."""
        self.budget -= 1
        choice = self.ch.integer(0, 9) if depth > 0 and self.budget > 0 else self.ch.integer(0, 3)
        if choice == 0:
            return X
        if choice == 1:
            return Y
        if choice == 2:
            return q[self.index(bound)]
        if choice == 3:
            return k[self.index(bound)]
        if choice == 4:
            return Dot(q, k)
        if choice == 5:
            return self.random(bound, depth - 1) + self.random(bound, depth - 1)
        if choice == 6:
            return self.random(bound, depth - 1) * self.random(bound, depth - 1)
        if choice == 7:
            return self.leaf(bound) * self.random(bound, depth - 1)
        if choice == 8:
            name = self.name(bound)
            return IndexSum(self.random([*bound, name], depth - 1), name, self.upper(bound))
        return self.random(bound, depth - 1) ** 2

    def moment(self, bound: list[Symbol], depth: int) -> Any:
        """E, Var, Cov or Std of random terms."""
        choice = self.ch.integer(0, 3)
        if choice == 0:
            return E(self.random(bound, depth))
        if choice == 1:
            return Var(self.random(bound, depth))
        if choice == 2:
            return Cov(self.random(bound, depth), self.random(bound, depth))
        return Std(self.random(bound, depth))


def draw_term(ch: Chooser, depth: int = 4, budget: int = 14) -> Any:
    """A random term (an expression, possibly with sums, limits, derivatives, moments)."""
    d = Draw(ch, budget)
    if _maybe(d.ch, 1, 4):
        return d.moment([], depth - 1)
    return d.term([], depth)


def draw_proposition(ch: Chooser) -> Any:
    """An equation, or a disjunction of two, shaped for the rules on propositions."""
    choice = ch.integer(0, 5)
    d = Draw(ch, 8)
    x = pick(ch, (sigma, c, a))
    if choice == 0:
        return Eq(d.term([], 2) / x**2, d.term([], 2), evaluate=False)
    if choice == 1:
        return Eq(x**2, d.term([], 2), evaluate=False)
    if choice == 2:
        root = sympy.sqrt(pick(ch, (n, 2, a**2 + 1)))
        return Or(Eq(x, root, evaluate=False), Eq(x, -root, evaluate=False), evaluate=False)
    if choice == 3:
        return Eq(d.term([], 3) / pick(ch, (c, x, c**2 + 1, a)), d.term([], 2), evaluate=False)
    return Eq(d.term([], 3), d.term([], 3), evaluate=False)


def draw_case(ch: Chooser, propositions: bool = False) -> Case:
    """A context and, in it, a term (or a proposition when ``propositions``).

    Four terms in five are aimed at rules (:func:`draw_aimed`).
    """
    context = draw_context(ch)
    if propositions:
        return Case(context, draw_proposition(ch))
    if _maybe(ch, 4, 5):
        try:
            aimed_context, term = draw_aimed(ch, context)
            return Case(aimed_context, term)
        except (InvalidArgument, TypeError, ValueError):
            pass  # a term outside the language (√ of a negative): a plain one instead
    return Case(context, draw_term(ch))
