"""Cases aimed at one rule: a redex of its law inside a drawn term, with the facts it reads.

A drawn term (:mod:`.generate`) rarely holds a redex of the rules with a narrow
pattern or a side condition: ``delta_distinct`` needs a delta of two indices declared
distinct, ``expectation_mul_of_indep`` a product of variables declared independent.
In an undirected campaign such a rule rewrites about one term in a hundred, so a
hole in it is found late. An aimed case draws the redex of one rule (its parts drawn
by the same generator), puts it into a drawn term, and adds to a drawn context the
facts the side condition reads; the campaign then applies that rule to it and judges
the rewrite by the semantics, as for any case.

>>> from scaledattn.numeric.worlds import RandomChooser
>>> case = draw_aimed_case(RandomChooser(3), "delta_distinct")
>>> any(type(a).__name__ == "Distinct" for a in case.assumptions)
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy
from sympy import Eq, KroneckerDelta, Or, Rational

from scaledattn.errors import InvalidArgument
from scaledattn.fuzz.generate import (
    INDICES,
    Case,
    Draw,
    X,
    Y,
    a,
    c,
    clash,
    draw_context,
    i,
    j,
    k,
    lam,
    m,
    n,
    p,
    q,
    r,
    s,
    sigma,
    t,
    w,
    y,
)
from scaledattn.kernel.assumptions import (
    Assumption,
    Independent,
    IndependentComponents,
    IndependentPairs,
    Mean,
    Moment,
    Positive,
    Variance,
)
from scaledattn.kernel.expr import Cov, CrossSum, Dot, E, IndexSum, Std, Var
from scaledattn.kernel.vectors import Deriv, Distinct, IndexRange, Lim
from scaledattn.numeric.worlds import Chooser, pick

__all__ = ["AIMED", "draw_aimed_case"]

Redex = tuple[Any, tuple[Assumption, ...]]


def _random(d: Draw) -> Any:
    return d.random([], 2)


def _body(d: Draw, bound: list[Any]) -> Any:
    return d.term(bound, 2)


def _expectation_linear(d: Draw) -> Redex:
    if d.ch.integer(0, 1):
        return E(d.leaf([]) * _random(d) + _random(d) + d.leaf([])), ()
    name = d.name([])
    return E(IndexSum(d.random([name], 1), name, d.upper([]))), ()


def _expectation_mul_of_indep(d: Draw) -> Redex:
    choice = d.ch.integer(0, 2)
    if choice == 0:
        return E(X ** d.ch.integer(1, 2) * Y ** d.ch.integer(1, 2)), (Independent(X, Y),)
    if choice == 1:
        ii = d.index([])
        return E(q[ii] * k[ii]), (IndependentComponents(q, k),)
    ii, jj = d.index([]), d.index([])
    return E(q[ii] * k[jj] * q[jj]), (IndependentPairs(q, k),)


def _substitute_moment(d: Draw) -> Redex:
    choice = d.ch.integer(0, 3)
    if choice == 0:
        return E(X), (Mean(X, a),)
    if choice == 1:
        return Var(q[d.index([])]), (Variance(q, sigma**2),)
    if choice == 2:
        ii = d.index([])
        return E(q[ii]), (Moment(E(q[i]), i),)
    name = d.name([])
    return IndexSum(E(q[name]) * d.leaf([name]), name, d.upper([])), (Moment(E(q[i]), i),)


def _sum_mul_sum(d: Draw) -> Redex:
    ii = d.name([])
    left = IndexSum(_body(d, [ii]), ii, d.upper([]))
    if d.ch.integer(0, 1):
        return left**2, ()
    jj = pick(d.ch, INDICES)
    return left * IndexSum(_body(d, [jj]), jj, d.upper([])), ()


def _split_diagonal(d: Draw) -> Redex:
    ii = d.name([])
    jj = pick(d.ch, [x for x in INDICES if x != ii])
    upper = d.upper([])
    return IndexSum(IndexSum(_body(d, [ii, jj]), jj, upper), ii, upper), ()


def _count_terms(d: Draw) -> Redex:
    ii = d.name([])
    if d.ch.integer(0, 1):
        return IndexSum(d.leaf([]), ii, d.upper([])), ()
    jj = pick(d.ch, [x for x in INDICES if x != ii])
    return CrossSum(d.leaf([]), ii, jj, d.upper([])), ()


def _sum_unroll(d: Draw) -> Redex:
    ii = d.name([])
    return IndexSum(_body(d, [ii]), ii, sympy.Integer(d.ch.integer(1, 3))), ()


def _sum_linear(d: Draw) -> Redex:
    ii = d.name([])
    body = d.leaf([]) * _body(d, [ii]) + _body(d, [ii])
    return IndexSum(body, ii, d.upper([])), ()


def _sqrt_mul(d: Draw) -> Redex:
    # c is real and declared positive: SymPy splits √(xy) itself when it knows x > 0
    # (σ, n, a² + 1), never for factors whose sign only the declared fact gives
    factor, other = pick(d.ch, ((c, c + 1), (c, c + 2), (c + 1, c + 2), (c, c**2 + 1 + c)))
    return sympy.sqrt(factor * other), (Positive(c),)


def _clear_denominator(d: Draw) -> Redex:
    den = pick(d.ch, (c, sigma, c**2 + 1, n))
    return Eq(d.term([], 2) / den, d.term([], 2), evaluate=False), (Positive(c),)


def _square_roots(d: Draw) -> Redex:
    x = pick(d.ch, (sigma, c, a))
    return Eq(x**2, d.term([], 2), evaluate=False), ()


def _exclude_by_sign(d: Draw) -> Redex:
    x = pick(d.ch, (sigma, c))
    root = sympy.sqrt(pick(d.ch, (n, 2, a**2 + 1)))
    return Or(Eq(x, root, evaluate=False), Eq(x, -root, evaluate=False), evaluate=False), (
        Positive(c),
    )


def _softmax_def(d: Draw) -> Redex:
    return p[d.index([])], ()


def _entries_def(d: Draw) -> Redex:
    from scaledattn.definitions import Lead, OneHot, Shift

    choice = d.ch.integer(0, 2)
    if choice == 0:
        return r[d.index([])], (Lead(r, s, w, lam),)
    if choice == 1:
        return r[d.index([])], (Shift(r, s, a),)
    return y[d.index([])], (OneHot(y, t),)


def _deriv(d: Draw, body: Any) -> Redex:
    return Deriv(body, s[d.index([])]), ()


def _deriv_linear(d: Draw) -> Redex:
    return _deriv(d, d.leaf([]) * s[d.index([])] + _body(d, []))


def _deriv_mul(d: Draw) -> Redex:
    return _deriv(d, s[d.index([])] * pick(d.ch, (s[d.index([])], p[d.index([])], _body(d, []))))


def _deriv_chain(d: Draw) -> Redex:
    inner = pick(d.ch, (s[d.index([])], d.leaf([]) * s[d.index([])], _body(d, [])))
    return _deriv(d, pick(d.ch, (sympy.exp(inner), inner**2)))


def _deriv_entry(d: Draw) -> Redex:
    return _deriv(d, s[d.index([])])


def _sum_delta(d: Draw) -> Redex:
    ii = d.name([])
    other = pick(d.ch, [x for x in (m, t, sympy.Integer(1)) if x != ii])
    body = KroneckerDelta(ii, other) * _body(d, [ii])
    return IndexSum(body, ii, d.upper([])), (IndexRange(m, n), IndexRange(t, n))


def _delta_eq(d: Draw) -> Redex:
    ii = pick(d.ch, INDICES)
    jj = pick(d.ch, [x for x in (*INDICES, sympy.Integer(1), sympy.Integer(2)) if x != ii])
    # both indices in the other factor: SymPy orders δ's arguments, and the rule
    # substitutes whichever it drops (the second, unless that is a number)
    f = pick(d.ch, (s[ii] * s[jj], p[jj] * ii, ii * jj + s[ii], s[jj] * ii))
    return KroneckerDelta(ii, jj) * f * d.leaf([]), ()


def _delta_distinct(d: Draw) -> Redex:
    pair = pick(d.ch, ((t, w), (w, t), (i, j)))
    return KroneckerDelta(*pair), (Distinct(*pair),)


def _exp_of_delta(d: Draw) -> Redex:
    delta = KroneckerDelta(d.index([]), d.index([]))
    return sympy.exp(pick(d.ch, (lam, d.leaf([]), 2 * lam)) * delta), ()


def _limit_at_infinity(d: Draw) -> Redex:
    choice = d.ch.integer(0, 2)
    if choice == 0:
        return Lim(sympy.exp(lam) / (1 + sympy.exp(lam)), lam), ()
    if choice == 1:
        return Lim(d.leaf([]) + sympy.exp(-lam), lam), ()
    return Lim(_body(d, []), lam), ()


#: The redex of each rule (every registered rule but ``ring``, which every case has).
AIMED: dict[str, Callable[[Draw], Redex]] = {
    "variance_def": lambda d: (Var(_random(d)), ()),
    "covariance_def": lambda d: (Cov(_random(d), _random(d)), ()),
    "std_def": lambda d: (Std(_random(d)), ()),
    "expectation_linear": _expectation_linear,
    "expectation_mul_of_indep": _expectation_mul_of_indep,
    "variance_const_mul": lambda d: (Var(pick(d.ch, (a, 2, c, Rational(1, 2))) * _random(d)), ()),
    "substitute_moment": _substitute_moment,
    "dot_def": lambda d: (pick(d.ch, (E, Var))(Dot(q, k)), ()),
    "sum_mul_sum": _sum_mul_sum,
    "split_diagonal": _split_diagonal,
    "count_terms": _count_terms,
    "sum_unroll": _sum_unroll,
    "sum_linear": _sum_linear,
    "sqrt_mul": _sqrt_mul,
    "clear_denominator": _clear_denominator,
    "square_roots": _square_roots,
    "exclude_by_sign": _exclude_by_sign,
    "softmax_def": _softmax_def,
    "entries_def": _entries_def,
    "deriv_linear": _deriv_linear,
    "deriv_mul": _deriv_mul,
    "deriv_chain": _deriv_chain,
    "deriv_entry": _deriv_entry,
    "sum_delta": _sum_delta,
    "delta_eq": _delta_eq,
    "delta_distinct": _delta_distinct,
    "exp_of_delta": _exp_of_delta,
    "limit_at_infinity": _limit_at_infinity,
}

#: Draws of a redex before a case is given up (each retry draws new parts).
TRIES = 20

#: The rules whose redex is a proposition (an equation or a disjunction of two).
ON_PROPOSITIONS = frozenset({"clear_denominator", "square_roots", "exclude_by_sign"})


def _around(d: Draw, redex: Any) -> Any:
    """The redex alone, or inside a drawn term (a sum, a product, a difference)."""
    choice = d.ch.integer(0, 3)
    if choice == 0:
        return redex
    if choice == 1:
        return redex + d.term([], 2)
    if choice == 2:
        return d.leaf([]) * redex
    return d.term([], 2) - redex


def draw_aimed_case(ch: Chooser, rule: str) -> Case:
    """A drawn context with the facts ``rule`` reads, and a term holding its redex."""
    for _ in range(TRIES):  # a drawn part may make a term outside the language (1/0·…)
        d = Draw(ch, 10)
        try:
            redex, facts = AIMED[rule](d)
            break
        except InvalidArgument:
            continue
    else:
        raise InvalidArgument(f"no redex of {rule} drawn in {TRIES} tries")
    found = list(draw_context(ch))
    for fact in facts:
        found = [f for f in found if not clash(fact, [f])]
        if fact not in found:
            found.append(fact)
    term = redex if rule in ON_PROPOSITIONS else _around(d, redex)
    return Case(tuple(found), term)
