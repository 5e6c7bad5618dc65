"""The primitive rules: each one mathematical fact, applied as a rewrite.

How it works and what it trusts: docs/kernel.md, ``scaledattn.kernel.rules``.

Examples
--------
>>> from scaledattn.kernel.expr import Var, random_variables
>>> from scaledattn.kernel.assumptions import Context
>>> X, Y = random_variables("X Y")
>>> variance_def.apply(Var(X + Y), Context())[0]
-E(X + Y)**2 + E((X + Y)**2)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import sympy
from sympy import Add, Eq, Expr, Mul, Or, Pow
from sympy.core.parameters import evaluate
from sympy.logic.boolalg import Boolean, BooleanFalse, BooleanTrue

from scaledattn.kernel.assumptions import (
    Assumption,
    BlockKey,
    Context,
    Independence,
    provably_negative,
    provably_positive,
    sign_facts,
)
from scaledattn.kernel.binders import Scope, rename_away, subst, walk_scoped
from scaledattn.kernel.expr import (
    SUMS,
    Component,
    Cov,
    CrossSum,
    Dot,
    E,
    IndexSum,
    RandomVariable,
    Std,
    Var,
    index,
    is_random,
    normal_form,
    random_atoms,
    rebuild,
)

Used = frozenset[Assumption]
Rewrite = tuple[Expr, Used]


Local = Callable[[Expr, Context, Scope], Rewrite | None]

NOTHING: Used = frozenset()
#: While a step is checked, each rewrite a rule makes (node, replacement, facts read),
#: for its certificate (``scaledattn.certificate``); never read to decide anything.
TRACE: list[list[tuple[Any, Any, Used]]] = []
MAX_PASSES = 40
MAX_UNROLL = 64


@dataclass(frozen=True)
class Rule:
    """A named primitive rule: one law, a local rewrite, and where it comes from."""

    name: str
    law: str
    local: Local = field(repr=False, compare=False)
    on_propositions: bool = False

    def apply(self, expr: Any, ctx: Context) -> tuple[Any, Used]:
        """Rewrite every node of ``expr`` (or of both sides of an equation) to a fixpoint."""
        with evaluate(True):
            expr = rebuild(expr)
            if self.on_propositions:
                return self._apply_prop(expr, ctx)
            if isinstance(expr, Boolean):
                return _lift(expr, lambda e: _everywhere(e, self.local, ctx))
            return _everywhere(expr, self.local, ctx)

    def _apply_prop(self, prop: Any, ctx: Context) -> tuple[Any, Used]:
        result = self.local(prop, ctx, Scope())
        if result is not None and TRACE:
            TRACE[-1].append((prop, *result))
        return (prop, NOTHING) if result is None else result


def _everywhere(expr: Expr, local: Local, ctx: Context) -> tuple[Expr, Used]:
    """Apply ``local`` at every node to a fixpoint."""
    used: set[Assumption] = set()
    seen: dict[Scope, Context] = {}

    def visit(e: Expr, scope: Scope) -> Expr | None:
        if scope not in seen:
            seen[scope] = ctx.visible(scope)
        result = local(e, seen[scope], scope)
        if result is None:
            return None
        used.update(result[1])
        if TRACE:
            TRACE[-1].append((e, *result))
        return result[0]

    for _ in range(MAX_PASSES):
        new = walk_scoped(expr, visit)
        if new == expr:
            break
        expr = new
    return expr, frozenset(used)


def _lift(prop: Any, fn: Callable[[Expr], tuple[Expr, Used]]) -> tuple[Any, Used]:
    """Apply an expression rewrite to both sides of every equation in ``prop``."""
    if isinstance(prop, sympy.Equality):
        (lhs, u1), (rhs, u2) = fn(prop.lhs), fn(prop.rhs)
        return Eq(lhs, rhs, evaluate=False), u1 | u2
    if isinstance(prop, Or):
        parts = [_lift(a, fn) for a in prop.args]
        used = frozenset().union(*(u for _, u in parts))
        return Or(*(p for p, _ in parts), evaluate=False), used
    return prop, NOTHING


# --------------------------------------------------------------- definitions


def _variance_def(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    if isinstance(e, Var):
        z = e.args[0]
        return E(z**2) - E(z) ** 2, NOTHING
    return None


def _covariance_def(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    if isinstance(e, Cov):
        y, z = e.args
        return E(y * z) - E(y) * E(z), NOTHING
    return None


def _std_def(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    if isinstance(e, Std):
        return sympy.sqrt(Var(e.args[0])), NOTHING
    return None


def _dot_def(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    if isinstance(e, Dot):
        q, k, n = e.args
        i = index("i")
        return IndexSum(Component(q, i) * Component(k, i), i, n), NOTHING
    return None


# ------------------------------------------------------------------ expectation


def _split_constant(term: Expr) -> tuple[Expr, Expr]:
    """(non-random factor, random factor) of a product."""
    const: list[Expr] = []
    rand: list[Expr] = []
    for f in Mul.make_args(term):
        (rand if is_random(f) else const).append(f)
    return Mul(*const), Mul(*rand)


def _linear(arg: Expr) -> Expr:
    out: Expr = sympy.S.Zero
    for term in Add.make_args(sympy.expand(arg)):
        const, rand = _split_constant(term)
        if rand == 1:
            out += const
        elif isinstance(rand, SUMS):
            out += const * rand.remake(_linear(rand.body), rand.indices, rand.upper)
        else:
            out += const * E(rand)
    return out


def _expectation_linear(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    if isinstance(e, E):
        new = _linear(e.args[0])
        if new != e:
            return new, NOTHING
    return None


def _monomial(arg: Expr) -> list[tuple[Expr, Expr]] | None:
    """[(atom, power)] when ``arg`` is a product of powers of random atoms, else None."""
    out = []
    for f in Mul.make_args(arg):
        base, power = f.as_base_exp() if isinstance(f, Pow) else (f, sympy.S.One)
        if not isinstance(base, (RandomVariable, Component)):
            return None
        if not (power.is_Integer and power > 0):
            return None
        out.append((base, power))
    return out


def _provably_distinct(a: BlockKey, b: BlockKey, scope: Scope) -> bool:
    if a[0] != b[0]:
        return True
    i, j = a[1], b[1]
    if i is None or j is None or i == j:
        return False
    if i.is_Integer and j.is_Integer:
        return True
    return frozenset((i, j)) in scope.distinct


def _independent_groups(
    atoms: list[tuple[Expr, Expr]], family: Independence, scope: Scope
) -> list[list[tuple[Expr, Expr]]] | None:
    keys = [family.block_key(a) for a, _ in atoms]
    if any(k is None for k in keys):
        return None
    parent = list(range(len(atoms)))

    def root(n: int) -> int:
        while parent[n] != n:
            n = parent[n]
        return n

    for x in range(len(atoms)):
        for y in range(x + 1, len(atoms)):
            if not _provably_distinct(keys[x], keys[y], scope):  # type: ignore[arg-type]
                parent[root(y)] = root(x)
    groups: dict[int, list[tuple[Expr, Expr]]] = {}
    for n, item in enumerate(atoms):
        groups.setdefault(root(n), []).append(item)
    return list(groups.values())


def independent_terms(terms: list[Expr], family: Independence, scope: Scope) -> bool:
    """Whether ``terms`` are independent by ``family``: their random atoms in different blocks."""
    atoms = [random_atoms(t) for t in terms]
    keys = [[family.block_key(a) for a in found] for found in atoms]
    if any(k is None for found in keys for k in found):
        return False
    return all(
        _provably_distinct(a, b, scope)  # type: ignore[arg-type]
        for x in range(len(keys))
        for y in range(x + 1, len(keys))
        for a in keys[x]
        for b in keys[y]
    )


def _expectation_mul_of_indep(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    if not isinstance(e, E):
        return None
    atoms = _monomial(e.args[0])
    if atoms is None or len(atoms) < 2:
        return None
    best: tuple[list[list[tuple[Expr, Expr]]], Independence] | None = None
    for family in ctx.independences():
        groups = _independent_groups(atoms, family, scope)
        if groups and len(groups) > 1 and (best is None or len(groups) > len(best[0])):
            best = (groups, family)
    if best is None:
        return None
    groups, family = best
    factors = [E(Mul(*(a**p for a, p in g))) for g in groups]
    return Mul(*factors), frozenset({family})


def _variance_const_mul(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    if not isinstance(e, Var):
        return None
    const, rand = _split_constant(e.args[0])
    if const == 1 or rand == 1:
        return None
    _, den = sympy.fraction(sympy.together(const))
    used: Used = NOTHING
    if den.free_symbols:
        facts, used = sign_facts(den, ctx)
        if facts.is_zero is not False:
            return None
    return const**2 * Var(rand), used


def _substitute_moment(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    if not isinstance(e, (E, Var, Cov)):
        return None
    for moment in ctx.moments():
        for value in moment.instances(e):
            return value, frozenset({moment})
    return None


# ------------------------------------------------------------------------ sums


def _product_of_sums(a: IndexSum, b: IndexSum) -> Expr:
    """Σᵢ aᵢ · Σⱼ bⱼ as Σᵢ Σⱼ aᵢbⱼ, each index renamed away from the other factor."""
    a = rename_away(a, b.free_symbols)
    b = rename_away(b, a.free_symbols | set(a.indices))
    (i,), (j,) = a.indices, b.indices
    return IndexSum(IndexSum(a.body * b.body, j, b.upper), i, a.upper)


def _sum_mul_sum(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    def single(x: Expr) -> bool:
        return type(x) is IndexSum

    if isinstance(e, Pow) and single(e.base) and e.exp.is_Integer and e.exp >= 2:
        rest = e.base ** (e.exp - 2)
        return rest * _product_of_sums(e.base, e.base), NOTHING
    if isinstance(e, Mul):
        sums = [f for f in e.args if single(f)]
        if len(sums) >= 2:
            others = [f for f in e.args if f is not sums[0] and f is not sums[1]]
            return Mul(*others) * _product_of_sums(sums[0], sums[1]), NOTHING
    return None


def _split_diagonal(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    if type(e) is not IndexSum or type(e.body) is not IndexSum:
        return None
    inner = e.body
    (i,), (j,) = e.indices, inner.indices
    if inner.upper != e.upper:
        return None
    diagonal = IndexSum(subst(inner.body, {j: i}), i, e.upper)
    return diagonal + CrossSum(inner.body, i, j, e.upper), NOTHING


def _count_terms(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    if not isinstance(e, SUMS) or set(e.indices) & e.body.free_symbols:
        return None
    n = e.upper
    count = n * (n - 1) if isinstance(e, CrossSum) else n
    return count * e.body, NOTHING


def _sum_unroll(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    if not isinstance(e, SUMS):
        return None
    n = int(e.upper) if e.upper.is_Integer else MAX_UNROLL + 1
    if n > MAX_UNROLL:
        return None
    if isinstance(e, CrossSum):
        i, j = e.indices
        terms = [
            subst(e.body, {i: a, j: b}) for a in range(1, n + 1) for b in range(1, n + 1) if a != b
        ]
    else:
        (i,) = e.indices
        terms = [subst(e.body, {i: a}) for a in range(1, n + 1)]
    return Add(*terms), NOTHING


def _sum_linear(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    if not isinstance(e, SUMS):
        return None
    terms = Add.make_args(sympy.expand(e.body))
    out: Expr = sympy.S.Zero
    bound = set(e.indices)
    for t in terms:
        inside = [f for f in Mul.make_args(t) if f.free_symbols & bound or is_random(f)]
        outside = [f for f in Mul.make_args(t) if f not in inside]
        out += Mul(*outside) * e.remake(Mul(*inside), e.indices, e.upper)
    if out == e:
        return None
    return out, NOTHING


def _sqrt_mul(e: Expr, ctx: Context, scope: Scope) -> Rewrite | None:
    if not (isinstance(e, Pow) and e.exp == sympy.S.Half) or is_random(e.base):
        return None
    factors = Mul.make_args(sympy.factor(e.base))
    if len(factors) < 2 or sympy.expand(Mul(*factors) - e.base) != 0:
        return None
    used: set[Assumption] = set()
    for f in factors:
        facts, u = sign_facts(f, ctx)
        if facts.is_nonnegative is not True:
            return None
        used |= u
    return Mul(*(sympy.sqrt(f) for f in factors)), frozenset(used)


# --------------------------------------------------------------- propositions


def _clear_denominator(prop: Any, ctx: Context, scope: Scope) -> Rewrite | None:
    if not isinstance(prop, sympy.Equality):
        return None
    num, den = sympy.fraction(sympy.together(prop.lhs - prop.rhs))
    if not den.free_symbols:
        return None
    positive, used = provably_positive(den, ctx)
    if not positive:
        return None
    return Eq(sympy.expand(num), 0, evaluate=False), used


def _square_roots(prop: Any, ctx: Context, scope: Scope) -> Rewrite | None:
    if not isinstance(prop, sympy.Equality):
        return None
    p = sympy.expand(prop.lhs - prop.rhs)
    found = []
    for x in sorted(p.free_symbols, key=str):
        if x.is_real is not True or isinstance(x, RandomVariable) or is_random(p):
            continue
        poly = p.as_poly(x)
        if poly is None or poly.degree() != 2:
            continue
        a, b, c = poly.all_coeffs()
        if b == 0 and x not in (a.free_symbols | c.free_symbols) and a.is_nonzero:
            found.append((x, -c / a))
    if len(found) > 1:  # several squared constants: solve for the declared-positive one
        declared = {p.symbol for p in ctx.positives()}
        found = [f for f in found if f[0] in declared]
    if len(found) != 1:
        return None
    x, w = found[0]
    root = sympy.sqrt(w)
    return Or(Eq(x, root, evaluate=False), Eq(x, -root, evaluate=False), evaluate=False), NOTHING


def _exclude_by_sign(prop: Any, ctx: Context, scope: Scope) -> Rewrite | None:
    disjuncts = prop.args if isinstance(prop, Or) else (prop,)
    keep: list[Any] = []
    used: set[Assumption] = set()
    positive = {p.symbol: p for p in ctx.positives()}
    for d in disjuncts:
        if isinstance(d, sympy.Equality) and d.lhs in positive:
            negative, u = provably_negative(d.rhs, ctx)
            if negative:
                used |= u | {positive[d.lhs]}
                continue
        keep.append(d)
    if len(keep) == len(disjuncts):
        return None
    result = Or(*keep, evaluate=False) if len(keep) > 1 else keep[0] if keep else sympy.false
    return result, frozenset(used)


def prop_key(prop: Any) -> Any:
    """A comparison key: equations up to a non-zero constant factor, disjunctions as sets.

    An equation that holds identically has the key of ``true``, one whose sides differ by
    a non-zero constant the key of ``false``:

    >>> x = sympy.Symbol("x", real=True)
    >>> prop_key(Eq(2 * x, 2, evaluate=False)) == prop_key(Eq(1, x, evaluate=False))
    True
    >>> prop_key(Eq(x, x, evaluate=False)) == prop_key(sympy.true)
    True
    >>> prop_key(Eq(x + 1, x, evaluate=False)) == prop_key(sympy.false)
    True
    >>> prop_key(sympy.true) == prop_key(sympy.false)
    False
    """
    with evaluate(True):
        if isinstance(prop, sympy.Equality):
            p = normal_form(prop.lhs - prop.rhs)
            if p == 0:
                return ("true",)
            _, p = p.as_content_primitive()
            if p.could_extract_minus_sign():
                p = sympy.expand(-p)
            return ("eq", p)
        if isinstance(prop, Or):
            return ("or", frozenset(prop_key(a) for a in prop.args))
        if isinstance(prop, BooleanTrue):
            return ("true",)
        if isinstance(prop, BooleanFalse):
            return ("eq", sympy.S.One)  # the key of 1 = 0
        return ("other", prop)


# ----------------------------------------------------------------- the table

_TABLE: dict[str, Rule] = {}

#: The primitive rules, by name: a read-only view of the table filled while the kernel
#: is imported (here and in ``calculus``). ``check`` accepts a Rule only if it is the
#: one registered under its name; any other rule must be declared an ``axiom``.
RULES = MappingProxyType(_TABLE)


_FROZEN: list[bool] = [False]


def register(rule: Rule) -> Rule:
    """Add a primitive rule to the table (kernel modules only, while they are imported)."""
    if _FROZEN[0]:
        raise RuntimeError(f"the rule table is frozen; declare {rule.name!r} as axiom(rule)")
    if rule.name in _TABLE:  # pragma: no cover - a programming error, caught at import
        raise RuntimeError(f"rule {rule.name!r} registered twice")
    _TABLE[rule.name] = rule
    return rule


def freeze() -> None:
    """Close the table: called once, when the kernel has registered every rule."""
    _FROZEN[0] = True


def is_registered(rule: Any) -> bool:
    """Whether ``rule`` is the primitive rule registered under its name."""
    return isinstance(rule, Rule) and _TABLE.get(rule.name) is rule


def _rule(name: str, law: str, local: Local, **kw: Any) -> Rule:
    return register(Rule(name, law, local, **kw))


ring = _rule(
    "ring",
    "ring algebra: expand, collect, cancel (no probabilistic content)",
    lambda e, ctx, env: None,
)
variance_def = _rule(
    "variance_def",
    "Var(Z) = E[Z²] − E[Z]²",
    _variance_def,
)
covariance_def = _rule(
    "covariance_def",
    "Cov(Y, Z) = E[YZ] − E[Y]E[Z]",
    _covariance_def,
)
std_def = _rule(
    "std_def",
    "Std(Z) = √Var(Z)",
    _std_def,
)
expectation_linear = _rule(
    "expectation_linear",
    "E[aY + bZ + c] = aE[Y] + bE[Z] + c and E[Σᵢ Zᵢ] = Σᵢ E[Zᵢ]  (a, b, c not random)",
    _expectation_linear,
)
expectation_mul_of_indep = _rule(
    "expectation_mul_of_indep",
    "E[UV] = E[U]E[V] when U and V depend on independent blocks",
    _expectation_mul_of_indep,
)
variance_const_mul = _rule(
    "variance_const_mul",
    "Var(aZ) = a²Var(Z)  (a not random, a's denominator non-zero)",
    _variance_const_mul,
)
substitute_moment = _rule(
    "substitute_moment",
    "replace a moment by its declared value (E[qᵢ] = μ, Var(qᵢ) = σ², …)",
    _substitute_moment,
)
dot_def = _rule(
    "dot_def",
    "q·k = Σᵢ₌₁ⁿ qᵢkᵢ",
    _dot_def,
)
sum_mul_sum = _rule(
    "sum_mul_sum",
    "(Σᵢ aᵢ)(Σⱼ bⱼ) = Σᵢ Σⱼ aᵢbⱼ, and (Σᵢ aᵢ)² = Σᵢ Σⱼ aᵢaⱼ",
    _sum_mul_sum,
)
split_diagonal = _rule(
    "split_diagonal",
    "Σᵢ Σⱼ f(i, j) = Σᵢ f(i, i) + Σ_{i≠j} f(i, j)",
    _split_diagonal,
)
count_terms = _rule(
    "count_terms",
    "Σᵢ₌₁ⁿ c = n·c and Σ_{i≠j} c = n(n − 1)·c  (c free of the indices)",
    _count_terms,
)
sum_unroll = _rule(
    "sum_unroll",
    f"Σᵢ₌₁ᴺ f(i) = f(1) + … + f(N)  (N a number ≤ {MAX_UNROLL})",
    _sum_unroll,
)
sum_linear = _rule(
    "sum_linear",
    "Σᵢ (a·fᵢ + gᵢ) = a·Σᵢ fᵢ + Σᵢ gᵢ  (a free of i)",
    _sum_linear,
)
sqrt_mul = _rule(
    "sqrt_mul",
    "√(ab) = √a·√b  (a ≥ 0, b ≥ 0)",
    _sqrt_mul,
)
clear_denominator = _rule(
    "clear_denominator",
    "a/b = c ⇔ a − bc = 0  when b > 0",
    _clear_denominator,
    on_propositions=True,
)
square_roots = _rule(
    "square_roots",
    "x² = w ⇔ x = √w ∨ x = −√w  (x real)",
    _square_roots,
    on_propositions=True,
)
exclude_by_sign = _rule(
    "exclude_by_sign",
    "x > 0 rules out x = r for r < 0",
    _exclude_by_sign,
    on_propositions=True,
)
