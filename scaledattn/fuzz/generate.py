"""Well-formed kernel terms and contexts, drawn to over-represent what breaks binders.

One generator, driven by a :class:`~scaledattn.numeric.worlds.Chooser`: Hypothesis
drives it in the test suite (so a failure shrinks), a seeded ``random.Random`` in
the long campaign (so it is fast), and a replayed list of choices when the campaign
shrinks a disagreement itself. The first option of every choice is the simplest,
so shrinking a choice towards 0 simplifies the term.

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

__all__ = ["Case", "draw_case", "draw_context", "draw_proposition", "draw_term"]

X, Y = random_variables("X Y")
n, N = dimension("n"), dimension("N")
i, j, m, t, w = (index(name) for name in "ijmtw")
INDICES = (i, j, m, t, w)
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
    ]
    for _ in range(ch.integer(0, 4)):
        made = options[ch.integer(0, len(options) - 1)]()
        if made not in found and not _clash(made, found):
            found.append(made)
    return tuple(found)


def _clash(new: Assumption, found: list[Assumption]) -> bool:
    """Two definitions of the same vector, or two values for one moment."""
    name = getattr(new, "name", None)
    if name is not None and any(getattr(f, "name", None) == name for f in found):
        return True
    if isinstance(new, Moment):
        return any(isinstance(f, Moment) and f.lhs == new.lhs for f in found)
    return False


class _Draw:
    def __init__(self, ch: Chooser, budget: int) -> None:
        self.ch, self.budget = ch, budget

    def index(self, bound: list[Symbol]) -> Any:
        if bound and _maybe(self.ch, 2):
            return pick(self.ch, bound[::-1])
        if _maybe(self.ch, 1, 6):
            return sympy.Integer(self.ch.integer(1, 3))
        return pick(self.ch, INDICES)

    def upper(self, bound: list[Symbol]) -> Any:
        choice = self.ch.integer(0, 5)
        if choice == 4 and bound:
            return pick(self.ch, bound)  # a bound that is an enclosing index
        if choice == 5:
            return sympy.Integer(self.ch.integer(1, 3))
        return N if choice == 3 else n

    def name(self, bound: list[Symbol]) -> Symbol:
        if bound and _maybe(self.ch, 1):
            return pick(self.ch, bound)  # shadowing
        return pick(self.ch, INDICES)

    def leaf(self, bound: list[Symbol]) -> Any:
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
    d = _Draw(ch, budget)
    if _maybe(d.ch, 1, 4):
        return d.moment([], depth - 1)
    return d.term([], depth)


def draw_proposition(ch: Chooser) -> Any:
    """An equation, or a disjunction of two, shaped for the rules on propositions."""
    choice = ch.integer(0, 5)
    d = _Draw(ch, 8)
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
    """A context and, in it, a term (or a proposition when ``propositions``)."""
    context = draw_context(ch)
    return Case(context, draw_proposition(ch) if propositions else draw_term(ch))
