"""Rules of the softmax calculus: definitions, derivatives, Kronecker deltas, limits.

How it works and what it trusts: docs/kernel.md, ``scaledattn.kernel.calculus``.

Examples
--------
>>> from scaledattn.kernel.assumptions import Context
>>> from scaledattn.kernel.expr import dimension, index
>>> from scaledattn.kernel.vectors import RealVector
>>> n, i, m = dimension("n"), index("i"), index("m")
>>> s = RealVector("s", n)
>>> deriv_entry.apply(Deriv(s[i], s[m]), Context())[0]
KroneckerDelta(i, m)
"""

from __future__ import annotations

from itertools import product
from typing import Any

import sympy
from sympy import Add, Expr, KroneckerDelta, Mul, Pow, Symbol

from scaledattn.kernel.assumptions import Assumption, Context, reached
from scaledattn.kernel.binders import Binder, Scope, rename_away, subst
from scaledattn.kernel.expr import SUMS, IndexSum, fresh_index
from scaledattn.kernel.rules import Rule, register, sum_linear
from scaledattn.kernel.vectors import (
    Deriv,
    Distinct,
    Entries,
    Entry,
    IndexRange,
    Lim,
    Softmax,
    definitions,
    depends_on,
    indexed_by,
    nonzero,
    positive,
)

Used = frozenset[Assumption]
Rewrite = tuple[Expr, Used]
NOTHING: Used = frozenset()


# ------------------------------------------------------------------ definitions


def _softmax_def(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    if not isinstance(e, Softmax):
        return None
    j = fresh_index(e.index.free_symbols | e.dim.free_symbols)  # nor the dimension's name
    total = IndexSum(sympy.exp(Entry(e.vector, j, e.dim)), j, e.dim)
    return sympy.exp(Entry(e.vector, e.index, e.dim)) / total, NOTHING


def _entries_def(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    if not isinstance(e, Entry):
        return None
    given = definitions(ctx, readable=True).get(e.vector)
    if given is None or given.dim != e.dim:
        return None
    return given.at(e.index), frozenset({given})


# ------------------------------------------------------------------- derivatives


def _variable(e: Expr, ctx: Context) -> tuple[Entry, dict[str, Entries]] | None:
    """The variable of a derivative, unless its vector is itself defined (then None)."""
    if not isinstance(e, Deriv):
        return None
    defs = definitions(ctx)
    x = e.variable
    return None if x.vector in defs else (x, defs)


def _deriv_linear(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    found = _variable(e, ctx)
    if found is None:
        return None
    x, defs = found
    f = e.args[0]

    def depends(a: Expr) -> bool:
        return depends_on(a, x.vector, defs)

    if not depends(f):
        return sympy.S.Zero, NOTHING
    if isinstance(f, Add):
        return Add(*(Deriv(t, x) for t in f.args)), NOTHING
    if isinstance(f, Mul):
        const = [a for a in f.args if not depends(a)]
        if const:
            rest = [a for a in f.args if depends(a)]
            return Mul(*const) * Deriv(Mul(*rest), x), NOTHING
    if isinstance(f, SUMS):
        f = rename_away(f, x.free_symbols)
        return f.remake(Deriv(f.body, x), f.indices, f.upper), NOTHING
    return None


def _deriv_mul(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    found = _variable(e, ctx)
    if found is None or not isinstance(e.args[0], Mul):
        return None
    x, defs = found
    factors = list(e.args[0].args)
    varying = [n for n, a in enumerate(factors) if depends_on(a, x.vector, defs)]
    if len(varying) < 2:
        return None
    terms = [
        Mul(*(a for m, a in enumerate(factors) if m != n)) * Deriv(factors[n], x) for n in varying
    ]
    return Add(*terms), NOTHING


def _deriv_chain(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    found = _variable(e, ctx)
    if found is None:
        return None
    x, defs = found
    f = e.args[0]
    if isinstance(f, sympy.exp):
        return f * Deriv(f.args[0], x), NOTHING
    if isinstance(f, sympy.log) and positive(f.args[0]):
        return Deriv(f.args[0], x) / f.args[0], NOTHING
    if isinstance(f, Pow) and not depends_on(f.exp, x.vector, defs):
        base, c = f.base, f.exp
        allowed = (
            (c.is_Integer and c > 0)
            or (c.is_Integer and nonzero(base))
            or (c.is_real is True and positive(base))
        )
        if allowed:
            return c * base ** (c - 1) * Deriv(base, x), NOTHING
    return None


def _deriv_entry(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    found = _variable(e, ctx)
    if found is None:
        return None
    x, _ = found
    f = e.args[0]
    if isinstance(f, Entry) and f.vector == x.vector and f.dim == x.dim:
        return KroneckerDelta(f.index, x.index), NOTHING
    return None


# ------------------------------------------------------------------------ deltas


def _in_range(m: Expr, n: Expr, scope: Scope, ctx: Context) -> Used | None:
    """The assumptions showing 1 ≤ m ≤ n, or None when that does not follow."""
    if m.is_Integer:
        ok = m >= 1 and (m == 1 or (n.is_Integer and m <= n))
        return NOTHING if ok else None
    bound = scope.range_of(m)
    if bound is not None:
        return NOTHING if bound == (n,) else None
    for a in ctx.assumptions:
        if isinstance(a, IndexRange) and a.index == m and a.upper == n:
            return frozenset({a})
    return None


def _sum_delta(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    if type(e) is not IndexSum:
        return None
    (j,) = e.indices
    for d in Mul.make_args(e.body):
        if not isinstance(d, KroneckerDelta) or j not in d.args:
            continue
        (m,) = [a for a in d.args if a != j] or [j]
        if m == j or j in m.free_symbols:
            continue
        used = _in_range(m, e.upper, scope, ctx)
        if used is not None:
            return subst(e.body, {j: m}), used
    return None


def _delta_eq(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    if not isinstance(e, Mul):
        return None
    for d in e.args:
        if not isinstance(d, KroneckerDelta):
            continue
        a, b = d.args
        keep, drop = (b, a) if b.is_Integer else (a, b)
        others = Mul(*(f for f in e.args if f is not d))
        if drop not in others.free_symbols:
            continue
        return d * subst(others, {drop: keep}), NOTHING
    return None


def _delta_distinct(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    if isinstance(e, KroneckerDelta):
        for a in ctx.assumptions:
            if isinstance(a, Distinct) and a.pair == frozenset(e.args):
                return sympy.S.Zero, frozenset({a})
    return None


def _exp_of_delta(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    if not isinstance(e, sympy.exp):
        return None
    arg = e.args[0]
    if any(isinstance(a, (Binder, Deriv)) for a in sympy.preorder_traversal(arg)):
        return None  # a delta under a binder may name a bound index
    deltas = sorted(arg.atoms(KroneckerDelta), key=sympy.default_sort_key)
    if not deltas:
        return None
    d = deltas[0]
    off, on = sympy.exp(subst(arg, {d: 0})), sympy.exp(subst(arg, {d: 1}))
    return off + (on - off) * d, NOTHING


# ------------------------------------------------------------------------ limits


def _exp_to_power(expr: Expr, lam: Symbol, u: Symbol, units: dict[Expr, Symbol]) -> Expr | None:
    """``expr`` with each e^{kλ + Σ cₓx} written u^k·Π Eₓ^{cₓ}, or None."""
    if isinstance(expr, sympy.exp):
        out: Expr = sympy.S.One
        for term in Add.make_args(sympy.expand(expr.args[0])):
            c, x = term.as_coeff_Mul()
            if x == lam and c.is_Integer:
                out *= u**c
            elif lam in x.free_symbols:
                return None
            elif x == 1 or not c.is_Integer or x.is_real is not True:
                # only e^x of a real x is a positive unknown (e^{iπ} + 1 = 0)
                out *= sympy.exp(term)
            else:
                unit = units.setdefault(x, sympy.Dummy(f"e{len(units)}", positive=True))
                out *= unit**c
        return out
    if isinstance(expr, (*SUMS, Entry, Softmax)) or not expr.args or expr.is_Atom:
        return expr
    args = [_exp_to_power(a, lam, u, units) for a in expr.args]
    if any(a is None for a in args):
        return None
    return expr.func(*args)


def _admissible(expr: Expr, lam: Symbol, defs: dict[str, Entries]) -> bool:
    """Only +, ×, powers, e^x and parts free of λ (no hidden λ, no derivative or limit)."""
    if isinstance(expr, (Entry, Softmax)):
        return not depends_on(expr, "", defs, lam)
    if isinstance(expr, SUMS):
        inner = sympy.preorder_traversal(expr)
        return not depends_on(expr, "", defs, lam) and not any(
            isinstance(a, (Deriv, Lim)) for a in inner
        )
    if isinstance(expr, (Symbol, sympy.Number, sympy.NumberSymbol)):
        return True
    if isinstance(expr, (Add, Mul, Pow, sympy.exp, KroneckerDelta)):
        return all(_admissible(a, lam, defs) for a in expr.args)
    return False


def _rational_form(f: Expr, lam: Symbol) -> tuple[Any, Any, dict[Expr, Symbol]] | None:
    """F as P(u)/Q(u) in u = e^λ (polynomials, Q's leading coefficient ≠ 0), or None."""
    u = sympy.Dummy("u", positive=True)
    units: dict[Expr, Symbol] = {}
    g = _exp_to_power(f, lam, u, units)
    if g is None or lam in g.free_symbols:
        return None
    num, den = sympy.fraction(sympy.together(g))
    p, q = sympy.expand(num).as_poly(u), sympy.expand(den).as_poly(u)
    if p is None or q is None or q.is_zero or not nonzero(q.LC()):
        return None
    return p, q, units


def _rational_limit(f: Expr, lam: Symbol) -> Expr | None:
    """lim_{λ→∞} f for f = P(e^λ)/Q(e^λ), or None when the rule cannot decide it."""
    form = _rational_form(f, lam)
    if form is None or form[0].degree() > form[1].degree():
        return None
    p, q, units = form
    value = sympy.S.Zero if p.is_zero or p.degree() < q.degree() else p.LC() / q.LC()
    back = {unit: sympy.exp(x) for x, unit in units.items()}
    return sympy.cancel(value).xreplace(back)  # cancel is total on these terms


def _positive_root(f: Expr) -> bool:
    """Whether ``f`` holds a root and is > 0 by its form: then lim f = √(lim f²)."""
    roots = any(isinstance(a, Pow) and not a.exp.is_Integer for a in sympy.preorder_traversal(f))
    return roots and positive(f)


def converges(f: Expr, lam: Symbol, defs: dict[str, Entries]) -> bool | None:
    """Whether lim_{λ→∞} f is finite, for f = P(e^λ)/Q(e^λ); None without that form.

    Also for √f (√ is continuous on [0, ∞); f ≥ 0 is a condition of its own) and for a
    positive f whose square has the form (lim f = √(lim f²)), as ``limit_at_infinity``.
    """
    while isinstance(f, Pow) and f.exp == sympy.S.Half:
        f = f.base
    if isinstance(f, Add) and all(converges(a, lam, defs) for a in f.args):
        return True  # a sum of finite limits is finite (and quicker to see, term by term)
    f = f**2 if _positive_root(f) else f
    form = _rational_form(f, lam) if _admissible(f, lam, defs) else None
    return None if form is None else form[0].is_zero or form[0].degree() <= form[1].degree()


def eventual_sign(f: Expr, lam: Symbol, defs: dict[str, Entries]) -> int | None:
    """The sign (1, 0, −1) f has for every large λ, for f = P(e^λ)/Q(e^λ); else None."""
    form = _rational_form(f, lam) if _admissible(f, lam, defs) else None
    if form is None or form[0].is_zero:
        return None if form is None else 0
    lead = form[0].LC() / form[1].LC()
    return 1 if positive(lead) else -1 if positive(-lead) else None


#: At most this many deltas are split into their cases (2ⁿ of them).
MAX_CASES = 3


def cases(f: Expr, lam: Symbol, ctx: Context) -> tuple[list[Expr], Used] | None:
    """``f`` with its definitions unfolded, once for each value (0, 1) of its free deltas.

    Unfolded by the rules (pᵢ = e^{rᵢ}/Σⱼ e^{rⱼ}, rⱼ = sⱼ + λδⱼw, e^{λδ} = 1 + (e^λ − 1)δ,
    Σⱼ δⱼw fⱼ = f_w), each an equality, so each case equals ``f`` where its deltas
    have those values; with the assumptions the rules used. None: more than MAX_CASES,
    a delta that varies with λ (δ((−1)^λ, 1) takes both values for ever, also through a
    definition left folded), or an entry at an index that grows with λ (it leaves every
    range).
    """
    defs = definitions(ctx)
    if any(indexed_by(d.body, lam) for d in reached(defs.values(), f)):
        return None  # rⱼ = Σ_{i≤λ} sᵢ…: read inside the limit, s_i runs past every range
    f, used = _UNFOLD.apply(f, ctx)
    free, stack = set(), [f]
    while stack:  # the deltas outside every binder (inside, one may name a bound index)
        e = stack.pop()
        free |= {e} if isinstance(e, KroneckerDelta) else set()
        stack.extend(() if isinstance(e, Binder) else e.args)
    varies = any(depends_on(d, "", defs, lam) for d in free)  # through a definition too
    if len(free) > MAX_CASES or varies or indexed_by(f, lam):
        return None
    deltas = sorted(free, key=sympy.default_sort_key)
    values = product((0, 1), repeat=len(deltas))
    return [subst(f, dict(zip(deltas, v, strict=True))) for v in values], used


def _unfold(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    """The first of the rules ``cases`` unfolds by that rewrites ``e``."""
    for rule in (softmax_def, entries_def, delta_distinct, exp_of_delta, sum_linear, sum_delta):
        found = rule.local(e, ctx, scope)
        if found is not None:
            return found
    return None


#: Those rules together, bottom-up to a fixpoint (not registered: it justifies no step).
_UNFOLD = Rule("unfold", "the rules of ``cases``", _unfold)


def _limit_at_infinity(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    if not isinstance(e, Lim):
        return None
    f, lam = e.args
    if not _admissible(f, lam, definitions(ctx)):
        return None
    if isinstance(f, Pow) and f.exp == sympy.S.Half:
        # √ is continuous on [0, ∞): lim √g = √(lim g) when g ≥ 0 for large λ (review k9:
        # √(e^{−2λ} − e^{−λ}) → 0 from below is defined for no λ).
        inner = _rational_limit(f.base, lam)
        if inner is None or eventual_sign(f.base, lam, definitions(ctx)) not in (0, 1):
            return None
        return sympy.sqrt(inner), NOTHING
    if _positive_root(f):
        # f > 0 throughout, so lim f = √(lim f²).
        square = _rational_limit(f**2, lam)
        if square is None or not (square.is_zero or positive(square)):
            return None
        return sympy.sqrt(square), NOTHING
    value = _rational_limit(f, lam)
    return None if value is None else (value, NOTHING)


# ----------------------------------------------------------------- the table


def _rule(name: str, law: str, local: Any, **kw: Any) -> Rule:
    return register(Rule(name, law, local, **kw))


softmax_def = _rule(
    "softmax_def",
    "pᵢ = softmax(s)ᵢ = e^{sᵢ} / Σⱼ e^{sⱼ}",
    _softmax_def,
)
entries_def = _rule(
    "entries_def",
    "rᵢ = body(i) for a vector whose entries are declared (one-hot y, shifted or led scores)",
    _entries_def,
)
deriv_linear = _rule(
    "deriv_linear",
    "∂(af + bg + c)/∂x = a∂f/∂x + b∂g/∂x and ∂(Σⱼ fⱼ)/∂x = Σⱼ ∂fⱼ/∂x  (a, b, c free of x)",
    _deriv_linear,
)
deriv_mul = _rule(
    "deriv_mul",
    "∂(fg)/∂x = (∂f/∂x)g + f(∂g/∂x)  (product rule)",
    _deriv_mul,
)
deriv_chain = _rule(
    "deriv_chain",
    "∂e^f/∂x = e^f ∂f/∂x,  ∂log f/∂x = (∂f/∂x)/f (f > 0),  ∂f^c/∂x = c f^{c−1} ∂f/∂x",
    _deriv_chain,
)
deriv_entry = _rule(
    "deriv_entry",
    "∂sᵢ/∂sₘ = δᵢₘ",
    _deriv_entry,
)
sum_delta = _rule(
    "sum_delta",
    "Σⱼ₌₁ⁿ δⱼₘ f(j) = f(m)  when 1 ≤ m ≤ n",
    _sum_delta,
)
delta_eq = _rule(
    "delta_eq",
    "δₐᵦ f(b) = δₐᵦ f(a)  (the delta vanishes unless a = b)",
    _delta_eq,
)
delta_distinct = _rule(
    "delta_distinct",
    "δₜw = 0 when t ≠ w is declared",
    _delta_distinct,
)
exp_of_delta = _rule(
    "exp_of_delta",
    "e^{f(δ)} = e^{f(0)} + (e^{f(1)} − e^{f(0)})δ  (δ is 0 or 1)",
    _exp_of_delta,
)
limit_at_infinity = _rule(
    "limit_at_infinity",
    "lim_{λ→∞} P(e^λ)/Q(e^λ) = lc(P)/lc(Q) if deg P = deg Q, 0 if deg P < deg Q; lim √f = √(lim f)",
    _limit_at_infinity,
)
