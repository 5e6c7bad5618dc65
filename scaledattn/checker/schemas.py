"""One schema per rule: whether ``lhs → rhs`` is an instance of it at a position.

Each schema builds what the rule gives for ``lhs`` (or states its side condition) and
compares with ``rhs`` in the checker's normal form; it returns None, or why not.
The facts an instance may read are the ones the certificate cites for it (``cited``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from scaledattn.checker import terms
from scaledattn.checker.facts import Env, negative, nonnegative, nonzero, positive, schematic
from scaledattn.checker.normal import defined, holds, leading, nf, prop_key, same, to_term
from scaledattn.checker.terms import Term, add, children, free_vars, mul, num, power, subst

Schema = Callable[[Term, Term, tuple[int, ...], Env], "str | None"]
HALF = Fraction(1, 2)
_fresh = itertools.count(10**6)


def _tmp() -> Term:
    return ("tmp", next(_fresh))


def _gives(expected: Term, rhs: Term, lin: bool = False) -> str | None:
    return None if same(expected, rhs, lin) else "the replacement is not what the rule gives"


def _factors(t: Term) -> list[Term]:
    """The factors of a product, integer powers of non-numbers counted out."""
    if t[0] == "mul":
        return [f for a in t[1:] for f in _factors(a)]
    e = t[2] if t[0] == "pow" else None
    if e is not None and e[0] == "num" and e[1].denominator == 1 and 1 <= e[1] <= 64:
        return [t[1]] * int(e[1])
    return [t]


def _head(*tags: str) -> Callable[[Term], str | None]:
    def test(lhs: Term) -> str | None:
        return None if lhs[0] in tags else f"the rule rewrites {' or '.join(tags)}, not {lhs[0]}"

    return test


def variance_def(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """Var(Z) → E[Z²] − E[Z]²."""
    z = lhs[1]
    return _head("Var")(lhs) or _gives(
        add(("E", power(z, 2)), mul(num(-1), power(("E", z), 2))), rhs
    )


def covariance_def(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """Cov(Y, Z) → E[YZ] − E[Y]E[Z]."""
    y, z = (lhs[1], lhs[2]) if lhs[0] == "Cov" else (lhs, lhs)
    return _head("Cov")(lhs) or _gives(add(("E", mul(y, z)), mul(num(-1), ("E", y), ("E", z))), rhs)


def std_def(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """Std(Z) → √Var(Z)."""
    return _head("Std")(lhs) or _gives(power(("Var", lhs[1]), HALF), rhs)


def dot_def(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """q·k → Σᵢ₌₁ⁿ qᵢkᵢ."""
    i, (q, k, d) = _tmp(), lhs[1:] if lhs[0] == "dot" else ("", "", lhs)
    return _head("dot")(lhs) or _gives(("sum", mul(("comp", q, i), ("comp", k, i)), i, d), rhs)


def linear(tags: tuple[str, ...]) -> Schema:
    """E, Σ linear and Σ of a constant counted: both sides equal in the linear normal form."""

    def schema(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
        return _head(*tags)(lhs) or _gives(lhs, rhs, lin=True)

    return schema


def _block(fact: Any, a: Term) -> Any:
    kind, units = fact[0], fact[1]
    if kind == "independent":
        unit = ("vec", a[1]) if a[0] == "comp" else ("rv", a[1]) if a[0] == "rv" else None
        return (unit, None) if unit in units else None
    if a[0] == "comp" and ("vec", a[1]) in units:
        return ((a[1],), a[2]) if kind == "components" else (units, a[2])
    return None


def _apart(k1: Any, k2: Any, env: Env) -> bool:
    if k1[0] != k2[0]:
        return True
    i, j = k1[1], k2[1]
    if i is None or j is None or i == j:
        return False
    if i[0] == "num" and j[0] == "num":
        return True
    return frozenset((i, j)) in env.scope.distinct


def _monomial(t: Term) -> list[tuple[Term, Fraction]] | None:
    p = nf(t)
    if len(p) != 1:
        return None
    ((m, c),) = p.items()
    return list(m) if c == 1 else None


def expectation_mul_of_indep(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """E[∏ groups] → ∏ E[group], the groups' random atoms in apart blocks of one family."""
    if lhs[0] != "E":
        return "the rule rewrites E"
    atoms = _monomial(lhs[1])
    if atoms is None or any(
        a[0] not in ("rv", "comp") or e.denominator != 1 or e < 1 for a, e in atoms
    ):
        return "E of a product of powers of random variables"
    out = _monomial(rhs)
    if out is None or len(out) < 2 or any(a[0] != "E" or e != 1 for a, e in out):
        return "the replacement is not a product of expectations"
    groups = [_monomial(a[1]) for a, _ in out]
    if any(g is None for g in groups):
        return "a factor is not E of a product"
    if sorted(map(repr, (x for g in groups for x in g or []))) != sorted(map(repr, atoms)):
        return "the factors do not multiply back to the expectation's argument"
    for n in cited:
        fam = env.facts[n]
        if fam[0] not in ("independent", "components", "pairs") or not env.visible(n):
            continue
        keys = [[_block(fam, a) for a, _ in g or []] for g in groups]
        if any(k is None for ks in keys for k in ks):
            continue
        if all(_apart(a, b, env) for x, y in itertools.combinations(keys, 2) for a in x for b in y):
            env.used.add(n)
            return None
    return "no cited independence keeps the groups apart"


def variance_const_mul(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """Var(aZ) → a²Var(Z), a not random."""
    if lhs[0] != "Var":
        return "the rule rewrites Var"
    fs = _factors(lhs[1])
    fixed = [f for f in fs if not terms.is_random(f)]
    rand = [f for f in fs if terms.is_random(f)]
    if not fixed or not rand:
        return "Var of a constant times a random factor"
    return _gives(mul(power(mul(*fixed), 2), ("Var", mul(*rand))), rhs)


def substitute_moment(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """A moment replaced by a cited, visible declared value (its indices instantiated)."""
    if lhs[0] not in ("E", "Var", "Cov"):
        return "the rule rewrites E, Var or Cov"
    found: set[Term] = set()

    def indices(t: Term) -> None:
        if t[0] == "comp":
            found.add(t[2])
        for p in children(t):
            indices(t[p])

    indices(lhs)
    free = free_vars(lhs)
    candidates = sorted((x for x in found if free_vars(x) <= free), key=repr)
    for n in cited:
        fact = env.facts[n]
        if fact[0] != "moment" or not env.visible(n):
            continue
        names = sorted(schematic(fact), key=repr)
        for values in itertools.product(candidates, repeat=len(names)):
            b = dict(zip(names, values, strict=True))
            if same(subst(fact[1], b), lhs) and same(subst(fact[2], b), rhs):
                env.used.add(n)
                return None
    return "no cited moment gives this value"


def sum_mul_sum(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """(Σᵢ aᵢ)(Σⱼ bⱼ)·c → Σᵢ Σⱼ aᵢbⱼ·c, the indices renamed apart."""
    fs = _factors(lhs)
    sums = [n for n, f in enumerate(fs) if f[0] == "sum"]
    for x, y in itertools.combinations(sums, 2):
        a, b = fs[x], fs[y]
        i, j = _tmp(), _tmp()
        body = mul(subst(a[1], {a[2]: i}), subst(b[1], {b[2]: j}))
        rest = [f for n, f in enumerate(fs) if n not in (x, y)]
        if same(mul(*rest, ("sum", ("sum", body, j, b[3]), i, a[3])), rhs):
            return None
    return "the replacement is not the product of two of the sums as a double sum"


def split_diagonal(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """Σᵢ Σⱼ f(i, j) → Σᵢ f(i, i) + Σ_{i≠j} f(i, j), both up to the same n."""
    if lhs[0] != "sum" or lhs[1][0] != "sum":
        return "the rule splits a double sum"
    i, n, inner = lhs[2], lhs[3], lhs[1]
    j, f = inner[2], inner[1]
    if i == j or i in free_vars(inner[3]) or not same(inner[3], n):
        return "the two sums do not run over the same range"
    return _gives(add(("sum", subst(f, {j: i}), i, n), ("cross", f, i, j, n)), rhs)


def sum_unroll(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """Σᵢ₌₁ᴺ f(i) → f(1) + … + f(N) for a number N ≤ 64 (Σ_{i≠j} over pairs a ≠ b)."""
    if lhs[0] not in ("sum", "cross") or lhs[-1][0] != "num" or lhs[-1][1].denominator != 1:
        return "the rule unrolls a sum up to a number"
    top = int(lhs[-1][1])
    if top > 64:
        return "a sum up to more than 64"
    r = range(1, top + 1)
    if lhs[0] == "cross":
        terms = [subst(lhs[1], {lhs[2]: num(a), lhs[3]: num(b)}) for a in r for b in r if a != b]
    else:
        terms = [subst(lhs[1], {lhs[2]: num(a)}) for a in r]
    return _gives(add(*terms) if terms else num(0), rhs)


def sqrt_mul(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """√(ab) → √a·√b, each factor ≥ 0."""
    if lhs[0] != "pow" or lhs[2] != num(HALF) or terms.is_random(lhs[1]):
        return "the rule splits a square root"
    fs = rhs[1:] if rhs[0] == "mul" else (rhs,)
    squares = []
    for f in fs:
        if f[0] == "pow" and f[2] == num(HALF) and nonnegative(f[1], env):
            squares.append(f[1])
        elif f[0] == "num" and f[1] > 0:
            squares.append(power(f, 2))
        elif f[0] == "pow" and f[1][0] == "sym" and "p" in f[1][2] and f[2][0] == "num":
            squares.append(("pow", f[1], num(2 * f[2][1])))
        else:
            return "a factor of the replacement is not the root of a non-negative term"
    if len(squares) < 2:
        return "the replacement has fewer than two factors"
    return _gives(mul(*squares), lhs[1])


def softmax_def(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """pᵢ → e^{sᵢ} / Σⱼ e^{sⱼ}."""
    if lhs[0] != "softmax":
        return "the rule rewrites a softmax weight"
    j = _tmp()
    total = ("sum", ("exp", ("entry", lhs[1], j, lhs[3])), j, lhs[3])
    return _gives(mul(("exp", ("entry", lhs[1], lhs[2], lhs[3])), power(total, -1)), rhs)


def entries_def(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """rᵢ → body(i) for a cited, visible definition rⱼ = body(j) of the same dimension."""
    if lhs[0] != "entry":
        return "the rule rewrites an entry of a vector"
    for n in cited:
        f = env.facts[n]
        ours = f[0] == "define" and f[1] == lhs[1] and same(f[4], lhs[3])
        if ours and env.visible(n) and same(subst(f[2], {f[3]: lhs[2]}), rhs):
            env.used.add(n)
            return None
    return "no cited definition gives this entry"


def _deltas(t: Term) -> list[Term]:
    found = [t] if t[0] == "delta" else []
    for p in children(t):
        found += _deltas(t[p])
    return found


def _in_range(m: Term, top: Term, cited: tuple[int, ...], env: Env) -> bool:
    if m[0] == "num":
        v: Fraction = m[1]
        within = (v == 1 and positive(top, env)) or (top[0] == "num" and v <= top[1])
        return v.denominator == 1 and v >= 1 and within
    if m in env.scope.bound:
        return any(v == m and same(up, top) for v, up in env.scope.ranges)
    for n in cited:
        f = env.facts[n]
        if f[0] == "range" and f[1] == m and same(f[2], top) and env.visible(n):
            env.used.add(n)
            return True
    return False


def sum_delta(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """Σⱼ₌₁ⁿ δⱼₘ f(j) → f(m) when 1 ≤ m ≤ n (a number, the range of a bound m, a fact)."""
    if lhs[0] != "sum":
        return "the rule sums a delta"
    j = lhs[2]
    for d in _factors(lhs[1]):
        if d[0] != "delta" or j not in d[1:]:
            continue
        m = d[2] if d[1] == j else d[1]
        if m == j or j in free_vars(m) or not _in_range(m, lhs[3], cited, env):
            continue
        if same(subst(lhs[1], {j: m}), rhs):
            return None
    return "no delta of the sum's index is summed to this"


def delta_eq(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """δₐᵦ f(b) → δₐᵦ f(a): the product vanishes unless a = b."""
    fs = lhs[1:] if lhs[0] == "mul" else ()
    for n, d in enumerate(fs):
        if d[0] != "delta":
            continue
        others = mul(*(f for k, f in enumerate(fs) if k != n))
        for keep, drop in ((d[1], d[2]), (d[2], d[1])):
            if drop[0] == "sym" and same(mul(d, subst(others, {drop: keep})), rhs):
                return None
    return "the replacement is not the product with a delta's index replaced"


def delta_distinct(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """δₜw → 0 for a cited, visible t ≠ w."""
    if lhs[0] != "delta" or not same(rhs, num(0)):
        return "the rule sends a delta to 0"
    pair = {lhs[1], lhs[2]}
    for n in cited:
        f = env.facts[n]
        if f[0] == "distinct" and {f[1], f[2]} == pair and env.visible(n):
            env.used.add(n)
            return None
    return "no cited fact keeps the indices apart"


def _put(t: Term, old: Term, new: Term) -> Term:
    if t == old:
        return new
    pos = children(t)
    return tuple(_put(x, old, new) if k in pos else x for k, x in enumerate(t))


def exp_of_delta(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """e^{f(δ)} → e^{f(0)} + (e^{f(1)} − e^{f(0)})δ: a delta is 0 or 1."""
    if lhs[0] != "exp" or holds(lhs[1], ("sum", "cross", "lim", "deriv")):
        return "the rule splits e^{f(δ)} with no binder in f"
    for d in _deltas(lhs[1]):
        off, on = ("exp", _put(lhs[1], d, num(0))), ("exp", _put(lhs[1], d, num(1)))
        if same(add(off, mul(add(on, mul(num(-1), off)), d)), rhs):
            return None
    return "the replacement is not the two cases of a delta"


# ------------------------------------------------------------------- derivatives


def depends(t: Term, v: str, env: Env, seen: frozenset[str] = frozenset()) -> bool:
    """Whether ``t`` may vary with the vector v.

    It may when it names v, a vector defined through v, a moment (one may be declared
    equal to an entry), a derivative or a limit.
    """
    if t[0] in ("E", "Var", "Cov", "Std", "deriv", "lim"):
        return True
    if t[0] in ("entry", "softmax"):
        if t[1] == v:
            return True
        for f in env.facts:
            ours = f[0] == "define" and f[1] == t[1] and t[1] not in seen
            if ours and depends(f[2], v, env, seen | {t[1]}):
                return True
    return any(depends(t[p], v, env, seen) for p in children(t))


def _variable(lhs: Term, env: Env) -> Term | None:
    """∂f/∂x's x, an entry of a vector that is not itself defined (else None)."""
    if lhs[0] != "deriv" or lhs[2][0] != "entry":
        return None
    x = lhs[2]
    return None if any(f[0] == "define" and f[1] == x[1] for f in env.facts) else x


def deriv_linear(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """∂c/∂x → 0, ∂(f + g)/∂x → ∂f/∂x + ∂g/∂x, ∂(c·f)/∂x → c·∂f/∂x, ∂Σⱼ f/∂x → Σⱼ ∂f/∂x."""
    x = _variable(lhs, env)
    if x is None:
        return "the rule differentiates by an entry of a vector not defined"
    f = lhs[1]
    if not depends(f, x[1], env):
        return _gives(num(0), rhs)
    if f[0] == "add":
        return _gives(add(*(("deriv", a, x) for a in f[1:])), rhs)
    if f[0] == "mul":
        fixed = [a for a in f[1:] if not depends(a, x[1], env)]
        rest = [a for a in f[1:] if depends(a, x[1], env)]
        return _gives(mul(*fixed, ("deriv", mul(*rest), x)), rhs)
    if f[0] in ("sum", "cross"):
        fresh = {v: _tmp() for v in f[2:-1]}
        body = subst(f[1], fresh)
        return _gives((f[0], ("deriv", body, x), *fresh.values(), f[-1]), rhs)
    return "the rule splits a sum, a product with a constant or a sum over an index"


def deriv_mul(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """∂(fg)/∂x → (∂f/∂x)g + f(∂g/∂x), over the factors that vary."""
    x = _variable(lhs, env)
    if x is None or lhs[1][0] != "mul":
        return "the product rule differentiates a product"
    fs = lhs[1][1:]
    terms = [
        mul(*(a for k, a in enumerate(fs) if k != n), ("deriv", fs[n], x))
        for n in range(len(fs))
        if depends(fs[n], x[1], env)
    ]
    return _gives(add(*terms), rhs) if len(terms) >= 2 else "fewer than two factors vary"


def deriv_chain(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """∂e^f/∂x → e^f ∂f/∂x, ∂log f/∂x → (∂f/∂x)/f (f > 0), ∂f^c/∂x → c f^{c−1} ∂f/∂x."""
    x = _variable(lhs, env)
    f = lhs[1]
    if x is None:
        return "the chain rule differentiates by an entry of a vector not defined"
    if f[0] == "exp":
        return _gives(mul(f, ("deriv", f[1], x)), rhs)
    if f[0] == "log" and positive(f[1], env):
        return _gives(mul(("deriv", f[1], x), power(f[1], -1)), rhs)
    if f[0] == "pow" and f[2][0] == "num":
        b, c = f[1], f[2][1]
        whole = c.denominator == 1
        if (whole and c > 0) or (whole and nonzero(b, env)) or positive(b, env):
            return _gives(mul(num(c), power(b, c - 1), ("deriv", b, x)), rhs)
    if f[0] == "pow" and not depends(f[2], x[1], env) and positive(f[1], env):
        b, c = f[1], f[2]
        return _gives(mul(c, ("pow", b, add(c, num(-1))), ("deriv", b, x)), rhs)
    return "the chain rule takes e^f, log f (f > 0) or f^c"


def deriv_entry(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """∂sᵢ/∂sₘ → δᵢₘ."""
    x = _variable(lhs, env)
    f = lhs[1]
    if x is None or f[0] != "entry" or f[1] != x[1] or not same(f[3], x[3]):
        return "the rule differentiates an entry by an entry of the same vector"
    return _gives(("delta", f[2], x[2]), rhs)


def limit_at_infinity(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """lim_{λ→∞} N(u)/D(u) → lc N/lc D (deg N = deg D) or 0 (deg N < deg D), u = e^λ.

    N, D polynomials in u over terms free of λ, lc D ≠ 0 by form (``normal.leading``);
    lim √f → √(lim f) when f ≥ 0 for every large λ (f ≡ 0, or lc N/lc D > 0 by form).
    """
    if lhs[0] != "lim":
        return "the rule takes a limit"
    f, lam = lhs[1], lhs[2]
    root = f[0] == "pow" and f[2] == num(HALF)
    found = leading(f[1] if root else f, lam, env)
    if found is None or found[0] > 0:
        return "not N(e^λ)/D(e^λ) with deg N ≤ deg D and lc D non-zero by its form"
    gap, top, bottom = found
    if root and top != num(0) and not positive(mul(top, bottom), env):
        return "√f where f is not ≥ 0 for every large λ by its form"
    value = mul(top, power(bottom, -1)) if gap == 0 else num(0)
    return _gives(power(value, HALF) if root else value, rhs)


# ----------------------------------------------------------------- propositions


def clear_denominator(
    lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env, by: tuple[Term, ...] = ()
) -> str | None:
    """A = c ⇔ (a − c)·b = 0 for the cited denominator b > 0."""
    if lhs[0] != "eq" or rhs[0] != "eq" or len(by) != 1 or not positive(by[0], env):
        return "the rule multiplies an equation by a positive denominator"
    if defined(by[0], env):
        return "the denominator may be undefined"
    terms = [(s, x) for s, side in ((1, lhs[1]), (-1, lhs[2])) for x in _terms(side)]
    times = add(*(mul(num(s), x, by[0]) for s, x in terms))  # each term's b·b⁻¹ cancels
    if prop_key(("eq", times, num(0))) != prop_key(rhs):
        return "the replacement is not the equation times the denominator"
    return None


def _terms(t: Term) -> tuple[Term, ...]:
    return t[1:] if t[0] == "add" else (t,)


def square_roots(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """a·x² + c = 0 ⇔ x = √(−c/a) ∨ x = −√(−c/a): x a real constant, a ≠ 0 free of x."""
    first = rhs[1] if rhs[0] == "or" else rhs  # x = −√w may be false by x's own sign
    if lhs[0] != "eq" or first[0] != "eq":
        return "the rule solves an equation in x²"
    x = first[1]
    if x[0] != "sym" or not set("rping") & set(x[2]):
        return "x is not a real constant"
    p = nf(add(lhs[1], mul(num(-1), lhs[2])))
    sq: dict[Any, Fraction] = {}
    rest: dict[Any, Fraction] = {}
    for m, coeff in p.items():
        e = dict(m).get(x, Fraction(0))
        if e == 2:
            sq[tuple(y for y in m if y[0] != x)] = coeff
        elif e == 0:
            rest[m] = coeff
        else:
            return "the equation is not a·x² + c"
    a, c = to_term(sq), to_term(rest)
    if x in free_vars(a) | free_vars(c) or not nonzero(a, env):
        return "a is not non-zero, or a or c depends on x"
    w = mul(num(-1), c, power(a, -1))
    claimed = [d[2] for d in rhs[1:] if d[0] == "eq" and d[1] == x]
    # ±√w, or ±R for R ≥ 0 by its form with R² ≡ w, or R⁴ ≡ w² and w ≥ 0 (then R = √w)
    w0 = nonnegative(to_term(nf(w)), env)  # R⁴ ≡ w² with w, R ≥ 0 is R² = w too
    square = [r for r in claimed if same(power(r, 2), w) or (w0 and same(power(r, 4), power(w, 2)))]
    roots = [power(w, HALF)] + [r for r in square if nonnegative(r, env)]
    for root in roots:
        if prop_key(("or", ("eq", x, root), ("eq", x, mul(num(-1), root)))) == prop_key(rhs):
            return None
    return "the roots are not ±√(−c/a)"


def exclude_by_sign(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """X = r dropped from a disjunction when x > 0 and r < 0."""
    parts = lhs[1:] if lhs[0] == "or" else (lhs,)
    kept = [
        d
        for d in parts
        if not (d[0] == "eq" and d[1][0] == "sym" and positive(d[1], env) and negative(d[2], env))
    ]
    if len(kept) == len(parts):
        return "no disjunct is excluded by a sign"
    expected = ("false",) if not kept else kept[0] if len(kept) == 1 else ("or", *kept)
    return None if prop_key(expected) == prop_key(rhs) else "the replacement keeps other disjuncts"


#: Each rule's schema, by the rule's name (the schema's own, but for the linear rules).
SCHEMAS: dict[str, Any] = {f.__name__: f for f in (
    variance_def, covariance_def, std_def, dot_def, expectation_mul_of_indep,
    variance_const_mul, substitute_moment, sum_mul_sum, split_diagonal, sum_unroll, sqrt_mul,
    softmax_def, entries_def, sum_delta, delta_eq, delta_distinct, exp_of_delta,
    deriv_linear, deriv_mul, deriv_chain, deriv_entry, limit_at_infinity,
    clear_denominator, square_roots, exclude_by_sign,
)} | {"expectation_linear": linear(("E",)), "sum_linear": linear(("sum", "cross")),
      "count_terms": linear(("sum", "cross"))}  # fmt: skip
#: The rules that rewrite a whole proposition (their instance is the step's proposition).
ON_PROPOSITIONS = {"clear_denominator", "square_roots", "exclude_by_sign"}
