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

from scaledattn.checker.facts import Env, negative, nonnegative, nonzero, positive, schematic
from scaledattn.checker.normal import nf, prop_key, same, to_term
from scaledattn.checker.terms import (
    Term,
    add,
    children,
    free_vars,
    is_random,
    mul,
    num,
    power,
    subst,
)

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
    if lhs[0] != "Cov":
        return "the rule rewrites Cov"
    y, z = lhs[1], lhs[2]
    return _gives(add(("E", mul(y, z)), mul(num(-1), ("E", y), ("E", z))), rhs)


def std_def(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """Std(Z) → √Var(Z)."""
    return _head("Std")(lhs) or _gives(power(("Var", lhs[1]), HALF), rhs)


def dot_def(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """q·k → Σᵢ₌₁ⁿ qᵢkᵢ."""
    if lhs[0] != "dot":
        return "the rule rewrites a dot product"
    i = _tmp()
    return _gives(("sum", mul(("comp", lhs[1], i), ("comp", lhs[2], i)), i, lhs[3]), rhs)


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
    fixed = [f for f in fs if not is_random(f)]
    rand = [f for f in fs if is_random(f)]
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
    if lhs[0] != "pow" or lhs[2] != num(HALF) or is_random(lhs[1]):
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


# ----------------------------------------------------------------- propositions


def clear_denominator(
    lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env, by: tuple[Term, ...] = ()
) -> str | None:
    """A = c ⇔ (a − c)·b = 0 for the cited denominator b > 0."""
    if lhs[0] != "eq" or rhs[0] != "eq" or len(by) != 1 or not positive(by[0], env):
        return "the rule multiplies an equation by a positive denominator"
    diff = add(lhs[1], mul(num(-1), lhs[2]))
    if not same(mul(diff, by[0]), add(rhs[1], mul(num(-1), rhs[2]))):
        return "the replacement is not the equation times the denominator"
    return None


def square_roots(lhs: Term, rhs: Term, cited: tuple[int, ...], env: Env) -> str | None:
    """a·x² + c = 0 ⇔ x = √(−c/a) ∨ x = −√(−c/a): x a real constant, a ≠ 0 free of x."""
    if lhs[0] != "eq" or rhs[0] != "or" or len(rhs) != 3 or rhs[1][0] != "eq":
        return "the rule solves an equation in x²"
    x = rhs[1][1]
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
    root = power(mul(num(-1), c, power(a, -1)), HALF)
    expected = ("or", ("eq", x, root), ("eq", x, mul(num(-1), root)))
    return None if prop_key(expected) == prop_key(rhs) else "the roots are not ±√(−c/a)"


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


SCHEMAS: dict[str, Any] = {
    "variance_def": variance_def,
    "covariance_def": covariance_def,
    "std_def": std_def,
    "dot_def": dot_def,
    "expectation_linear": linear(("E",)),
    "sum_linear": linear(("sum", "cross")),
    "count_terms": linear(("sum", "cross")),
    "expectation_mul_of_indep": expectation_mul_of_indep,
    "variance_const_mul": variance_const_mul,
    "substitute_moment": substitute_moment,
    "sum_mul_sum": sum_mul_sum,
    "split_diagonal": split_diagonal,
    "sum_unroll": sum_unroll,
    "sqrt_mul": sqrt_mul,
    "clear_denominator": clear_denominator,
    "square_roots": square_roots,
    "exclude_by_sign": exclude_by_sign,
}
#: The rules that rewrite a whole proposition (their instance is the step's proposition).
ON_PROPOSITIONS = {"clear_denominator", "square_roots", "exclude_by_sign"}
