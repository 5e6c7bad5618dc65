"""The checker's normal form: Laurent polynomials over Fraction in opaque atoms.

A term's normal form is a dict {monomial: coefficient}; a monomial is a sorted tuple of
(atom, exponent) with exponents in Fraction. Atoms are canonical terms: moments
E(..), Var(..), Cov(..), Std(..), q·k, qᵢ, constants, random variables, exp, log, and
sums whose bound variables are renamed ``("bv", depth)`` in a canonical order (nested
sums in every order their bounds allow, a cross sum's two indices both ways): terms
equal up to renaming bound variables (alpha-equivalence) have one normal form.

- x^(p/q) stays an exponent only for a symbol positive by its type; otherwise a root
  is the atom ("pow", B, 1/q) with (B^(1/q))^q = B, and 1/B for a sum B the atom
  ("pow", B, -1). Equal bases in one product are merged first (B·B⁻¹ = 1).
- Cancelling x·x⁻¹ is sound because every claim is checked defined (:func:`defined`):
  each base with a negative exponent is non-zero by the facts, or, inside a limit
  λ → ∞, for every large λ (:func:`leading`: its leading coefficient in e^λ is).
- ``lin=True`` is the linear normal form the linearity rules are checked by:
  E[Σ cₖmₖ] = Σ cₖE[mₖ] (cₖ not random), Σᵢ(a·fᵢ + gᵢ) = aΣᵢfᵢ + Σᵢgᵢ (a free of i),
  Σᵢ c = n·c and Σ_{i≠j} c = n(n − 1)·c.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

from scaledattn.checker.facts import BODIES, Env, negative, nonzero, positive, real
from scaledattn.checker.terms import Term, Unreadable, children, free_vars, is_random, num, subst

Mono = tuple[tuple[Term, Fraction], ...]
Poly = dict[Mono, Fraction]

ONE: Mono = ()
_KEYS: dict[Term, str] = {}
_NF: dict[tuple[Term, int, bool], Poly] = {}
_FRESH = itertools.count()
ATOMS = {"E", "Var", "Cov", "Std", "exp", "log", "abs", "fn", "dot", "comp", "entry", "delta"}
ATOMS |= {"softmax", "deriv", "lim"}


def key(t: Term) -> str:
    """A total order on terms (their repr)."""
    k = _KEYS.get(t)
    if k is None:
        k = _KEYS[t] = repr(t)
    return k


def const(c: Fraction) -> Poly:
    """The constant c."""
    return {ONE: c} if c else {}


def atom(a: Term, e: Fraction | int = 1) -> Poly:
    """The atom a (to a power)."""
    return {((a, Fraction(e)),): Fraction(1)}


def padd(p: Poly, q: Poly, scale: Fraction = Fraction(1)) -> Poly:
    """P + scale·q."""
    out = dict(p)
    for m, c in q.items():
        v = out.get(m, Fraction(0)) + scale * c
        if v:
            out[m] = v
        else:
            out.pop(m, None)
    return out


def _mono(m1: Mono, m2: Mono) -> Mono:
    exps: dict[Term, Fraction] = dict(m1)
    for a, e in m2:
        exps[a] = exps.get(a, Fraction(0)) + e
    for a, e in exps.items():  # δ^k = δ for k ≥ 1 (a delta is 0 or 1)
        if a[0] == "delta" and e.denominator == 1 and e > 1:
            exps[a] = Fraction(1)
    return tuple(sorted(((a, e) for a, e in exps.items() if e), key=lambda x: key(x[0])))


def pmul(p: Poly, q: Poly, depth: int) -> Poly:
    """p·q, roots of a power reduced."""
    if len(p) * len(q) > 20_000:
        raise Unreadable("a product too large to multiply out")
    out: Poly = {}
    for m1, c1 in p.items():
        for m2, c2 in q.items():
            for m, c in _fix(_mono(m1, m2), depth).items():
                v = out.get(m, Fraction(0)) + c1 * c2 * c
                if v:
                    out[m] = v
                else:
                    out.pop(m, None)
    return out


def _fix(m: Mono, depth: int) -> Poly:
    """A monomial with (B^(1/q))^k for |k| ≥ q and (B⁻¹)^(−k) multiplied out."""
    for n, (a, e) in enumerate(m):
        if a[0] == "abs" and real(a[1]) and e.denominator == 1 and e.numerator % 2 == 0:
            rest = m[:n] + m[n + 1 :]  # |b|^(2k) = b^(2k) for a real b
            return pmul({rest: Fraction(1)}, ppow(nf(a[1], depth), e, depth), depth)
        if a[0] != "pow" or a[2][0] != "num":
            continue
        r = a[2][1]
        rest = m[:n] + m[n + 1 :]
        if r == -1 and e < 0:
            return pmul({rest: Fraction(1)}, ppow(nf(a[1], depth), -e, depth), depth)
        if r.numerator == 1 and r.denominator > 1 and abs(e) >= r.denominator:
            q = r.denominator
            whole = e.numerator // (q * e.denominator)
            left = e - whole * q
            base = ppow(nf(a[1], depth), Fraction(whole), depth)
            return pmul(
                pmul({rest: Fraction(1)}, base, depth),
                atom(a, left) if left else const(Fraction(1)),
                depth,
            )
    return {m: Fraction(1)}


def _iroot(n: int, q: int) -> tuple[int, int]:
    """(f, rest) with n = f^q·rest, f the largest found by trial division below 1000."""
    f, rest, p = 1, n, 2
    while p < 1000 and p**q <= rest:
        while rest % p**q == 0:
            rest //= p**q
            f *= p
        p += 1
    g = 1 << (rest.bit_length() // q + 1)  # ⌊rest^(1/q)⌋ by Newton, in integers
    while g > 1 and (h := ((q - 1) * g + rest // g ** (q - 1)) // q) < g:
        g = h
    return (f * g, 1) if g > 1 and g**q == rest else (f, rest)


def _num_power(c: Fraction, e: Fraction) -> Poly:
    """c^e for c > 0: a Fraction, or a Fraction times the atom (root of an integer)."""
    p, q = e.numerator, e.denominator
    base = c**p
    a, b = base.numerator, base.denominator
    top = a * b ** (q - 1)  # (a/b)^(1/q) = (a·b^(q−1))^(1/q) / b
    f, rest = _iroot(top, q)
    coeff = Fraction(f, b)
    if rest == 1:
        return const(coeff)
    return {((("pow", num(rest), num(Fraction(1, q))), Fraction(1)),): coeff}


def _content(p: Poly) -> Poly:
    """The positive monomial g all of p's terms share: rational content, positive atoms."""
    nums = [abs(c.numerator) for c in p.values()]
    dens = [c.denominator for c in p.values()]
    top, bottom = nums[0], dens[0]
    for x in nums[1:]:
        top = math.gcd(top, x)
    for y in dens[1:]:
        bottom = bottom * y // math.gcd(bottom, y)
    shared: dict[Term, Fraction] = {}
    monos = list(p)
    for a, _ in monos[0]:
        if _positive_atom(a) and all(a in dict(m) for m in monos[1:]):
            shared[a] = min(dict(m)[a] for m in monos)
    for a in {a for m in monos for a, _ in m if _positive_atom(a)} - set(shared):
        low = min(dict(m).get(a, Fraction(0)) for m in monos)
        if low < 0:
            shared[a] = low
    mono = tuple(sorted(((a, e) for a, e in shared.items() if e), key=lambda x: key(x[0])))
    return {mono: Fraction(top, bottom)}


def _positive_atom(a: Term) -> bool:
    return (a[0] == "sym" and "p" in a[2]) or (a[0] == "exp" and real(a[1]))


def _exp(p: Poly) -> Poly:
    """e^{Σ cₖmₖ} = Π (e^{mₖ})^{cₖ} (for a fractional cₖ only when mₖ is real)."""
    out = const(Fraction(1))
    for m, c in p.items():
        base = mono_term(m, Fraction(1)) if m else num(1)
        if c.denominator == 1 or real(base):
            out = pmul(out, atom(("exp", base), c), 0)
        else:
            out = pmul(out, atom(("exp", mono_term(m, c))), 0)
    return out


def ppow(p: Poly, e: Fraction, depth: int) -> Poly:
    """p^e for a number e."""
    if abs(e.numerator) > 512 or e.denominator > 64 or (len(p) > 1 and abs(e) > 64):
        raise Unreadable("an exponent beyond the checker's bounds")
    if e == 0:
        return const(Fraction(1))
    if not p:
        if e > 0:
            return {}
        return atom(("pow", num(0), num(-1)))  # never defined: refused by ``defined``
    if len(p) == 1:
        ((m, c),) = p.items()
        if e.denominator == 1:
            return pmul(const(c**e.numerator), _fix(tuple((a, x * e) for a, x in m), depth), depth)
        # (a·b)^e = a^e·b^e for a > 0: the positive constants and factor come out
        pos = tuple((a, x * e) for a, x in m if _positive_atom(a))
        others = tuple(y for y in m if not _positive_atom(y[0]))
        if c > 0 and e.denominator == 2 and all(real(a) and x % 2 == 0 for a, x in others):
            # (a^(2k))^(p/2) = |a|^(kp) for a real a
            pos += tuple((("abs", a), x * e) for a, x in others)
            others = ()
        rest: Poly = {others: c if c < 0 else Fraction(1)}
        out = pmul(_num_power(c, e) if c > 0 else const(Fraction(1)), _fix(pos, depth), depth)
        if rest != {ONE: Fraction(1)}:
            root = ("pow", to_term(rest), num(Fraction(1, e.denominator)))
            out = pmul(out, _fix(((root, Fraction(e.numerator)),), depth), depth)
        return out
    if e.denominator == 1 and e > 0:
        out = const(Fraction(1))
        for _ in range(int(e)):
            out = pmul(out, p, depth)
        return out
    content = _content(p)
    if content != {ONE: Fraction(1)}:  # (g·P)^e = g^e·P^e for g > 0
        inverse = ppow(content, Fraction(-1), depth)
        rest = pmul(p, inverse, depth)
        return pmul(ppow(content, e, depth), ppow(rest, e, depth), depth)
    base = to_term(p)
    if e.denominator == 1:
        return atom(("pow", base, num(-1)), -e)
    return _fix((((("pow", base, num(Fraction(1, e.denominator))), Fraction(e.numerator)),)), depth)


def mono_term(m: Mono, c: Fraction) -> Term:
    """The canonical term of c·m."""
    factors: list[Term] = [] if c == 1 and m else [num(c)]
    factors += [a if e == 1 else ("pow", a, num(e)) for a, e in m]
    return factors[0] if len(factors) == 1 else ("mul", *factors)


def to_term(p: Poly) -> Term:
    """The canonical term of a normal form."""
    if not p:
        return num(0)
    parts = sorted((mono_term(m, c) for m, c in p.items()), key=key)
    return parts[0] if len(parts) == 1 else ("add", *parts)


def canon(t: Term, depth: int = 0, lin: bool = False) -> Term:
    """The canonical term of ``t``: equal for terms equal in normal form."""
    return to_term(nf(t, depth, lin))


def nf(t: Term, depth: int = 0, lin: bool = False) -> Poly:
    """The normal form of ``t`` (bound variables numbered from ``depth``)."""
    k = (t, depth, lin)
    found = _NF.get(k)
    if found is None:
        if len(_NF) > 200_000:
            _NF.clear()
        found = _NF[k] = _nf(t, depth, lin)
    return found


def _nf(t: Term, depth: int, lin: bool) -> Poly:
    tag = t[0]
    if tag == "num":
        return const(t[1])
    if tag in ("sym", "rv", "bv", "tmp"):
        return atom(t)
    if tag == "add":
        out: Poly = {}
        for a in t[1:]:
            out = padd(out, nf(a, depth, lin))
        return out
    if tag == "mul":
        return _product(t, depth, lin)
    if tag == "pow":
        if t[2][0] == "num":
            return ppow(nf(t[1], depth, lin), t[2][1], depth)
        return atom(("pow", canon(t[1], depth, lin), canon(t[2], depth, lin)))
    if tag == "E" and lin:
        return _linear_mean(nf(t[1], depth, True), depth)
    if tag == "exp":
        return _exp(nf(t[1], depth, lin))
    if tag in ATOMS:
        a = _canon_args(t, depth, lin)
        if a[0] == "num":
            return const(a[1])
        if a[0] == "delta" and (a[1] == a[2] or (a[1][0] == a[2][0] == "num")):
            return const(Fraction(a[1] == a[2]))  # δ_aa = 1, δ_12 = 0
        return atom(a)
    if tag in ("sum", "cross"):
        return _linear_sum(t, depth) if lin else atom(_canon_sum(t, depth))
    raise Unreadable(f"a proposition ({tag}) where an expression is expected")


def _canon_args(t: Term, depth: int, lin: bool) -> Term:
    if t[0] == "delta":  # δ_ab = δ_ba
        a, b = sorted((canon(t[1], depth, lin), canon(t[2], depth, lin)), key=key)
        return ("delta", a, b)
    from scaledattn.checker.terms import children, remake

    pos = children(t)
    return remake(t, [canon(t[p], depth, lin) for p in pos])


def _product(t: Term, depth: int, lin: bool) -> Poly:
    """A product with equal bases merged first (B·B⁻¹ = 1, (gB)·B⁻¹ = g), then multiplied out.

    A sum's positive content g comes out first ((gB)^e = g^e·B^e for g > 0).
    """
    groups: dict[Term, tuple[Poly, Fraction]] = {}
    stack, out = list(t[1:]), const(Fraction(1))
    while stack:
        f = stack.pop()
        if f[0] == "mul":
            stack.extend(f[1:])
            continue
        base, e = (f[1], f[2][1]) if f[0] == "pow" and f[2][0] == "num" else (f, Fraction(1))
        p = nf(base, depth, lin)
        if not p:  # a zero base is never merged (0·0⁻¹ is undefined, never 1)
            out = pmul(out, ppow(p, e, depth), depth)
            continue
        g = _content(p) if len(p) > 1 else {ONE: Fraction(1)}
        if g != {ONE: Fraction(1)}:
            out = pmul(out, ppow(g, e, depth), depth)
            p = pmul(p, ppow(g, Fraction(-1), depth), depth)
        k = to_term(p)
        old = groups.get(k)
        groups[k] = (p, e + (old[1] if old else 0))
    for p, e in groups.values():
        out = pmul(out, ppow(p, e, depth), depth)
    return out


def _canon_sum(t: Term, depth: int) -> Term:
    if t[0] == "cross":
        best = None
        for i, j in ((t[2], t[3]), (t[3], t[2])):
            mapping = {i: ("bv", depth), j: ("bv", depth + 1)}
            body = canon(subst(t[1], mapping), depth + 2)
            cand = ("cross", body, ("bv", depth), ("bv", depth + 1), canon(t[4], depth))
            best = cand if best is None or key(cand) < key(best) else best
        assert best is not None
        return best
    binders: list[tuple[Term, Term]] = []
    e = t
    while e[0] == "sum":
        m = ("tmp", next(_FRESH))
        binders.append((m, e[3]))
        e = subst(e[1], {e[2]: m})
        if e[0] in ("mul", "pow") and holds(e, ("sum",)):  # √S·√S is the sum S: one chain
            inner = canon(e, depth + len(binders))
            e = inner if inner[0] == "sum" else e
    orders: Any = itertools.permutations(binders) if len(binders) <= 4 else [binders]
    best = None
    chain = {m for m, _ in binders}
    for order in orders:
        outer: set[Term] = set()
        valid = True
        for m, up in order:
            if (free_vars(up) & chain) - outer:
                valid = False
                break
            outer.add(m)
        if not valid:
            continue
        mapping = {m: ("bv", depth + n) for n, (m, _) in enumerate(order)}
        inner = canon(subst(e, mapping), depth + len(order))
        for n in reversed(range(len(order))):
            inner = ("sum", inner, ("bv", depth + n), canon(subst(order[n][1], mapping), depth + n))
        best = inner if best is None or key(inner) < key(best) else best
    assert best is not None
    return best


def _linear_sum(t: Term, depth: int) -> Poly:
    """Σ split into its monomials, the factors free of the indices (and not random) out."""
    cross = t[0] == "cross"
    mine = [("bv", depth), ("bv", depth + 1)] if cross else [("bv", depth)]
    mapping = dict(zip(t[2:-1], mine, strict=True))
    body = nf(subst(t[1], mapping), depth + len(mine), True)
    n = nf(t[-1], depth, True)
    count = pmul(n, padd(n, const(Fraction(-1))), depth) if cross else n
    out: Poly = {}
    for m, c in body.items():
        free = not any(set(mine) & free_vars(a) for a, _ in m)  # Σᵢ c = n·c, c random or not
        inside = tuple(
            (a, e) for a, e in m if not free and (set(mine) & free_vars(a) or is_random(a))
        )
        outside = tuple((a, e) for a, e in m if (a, e) not in inside)
        part = nf(mono_term(outside, c), depth, True)
        if inside:
            s = (t[0], mono_term(inside, Fraction(1)), *mine, to_term(n))
            part = pmul(part, atom(s), depth)
        else:
            part = pmul(part, count, depth)
        out = padd(out, part)
    return out


def _linear_mean(p: Poly, depth: int) -> Poly:
    """E[Σ cₖmₖ] = Σ cₖ·const(mₖ)·E[random part of mₖ], E[Σᵢ fᵢ] = Σᵢ E[fᵢ]."""
    out: Poly = {}
    for m, c in p.items():
        rand = tuple((a, e) for a, e in m if is_random(a))
        fixed = tuple((a, e) for a, e in m if not is_random(a))
        part = nf(mono_term(fixed, c), depth, True)
        if len(rand) == 1 and rand[0][1] == 1 and rand[0][0][0] in ("sum", "cross"):
            s = rand[0][0]
            part = pmul(part, nf((s[0], ("E", s[1]), *s[2:]), depth, True), depth)
        elif rand:
            part = pmul(part, atom(("E", mono_term(rand, Fraction(1)))), depth)
        out = padd(out, part)
    return out


def same(a: Term, b: Term, lin: bool = False) -> bool:
    """Whether two terms have one normal form."""
    return nf(a, 0, lin) == nf(b, 0, lin)


def prop_key(p: Term) -> Any:
    """Propositions compared: an equation up to a non-zero factor, a disjunction as a set."""
    tag = p[0]
    if tag == "eq":
        d = nf(("add", p[1], ("mul", num(-1), p[2])))
        if not d:
            return ("true",)
        bare, sides = Env(()), (canon(p[1]), canon(p[2]))
        signs = any(positive(x, bare) and negative(y, bare) for x, y in (sides, sides[::-1]))
        if signs or nonzero(to_term(d), bare):  # a > 0 = b < 0, or a − b ≠ 0, by form: false
            return ("eq", num(1))
        first = min(d, key=lambda m: key(mono_term(m, Fraction(1))))
        lead = d[first]
        return ("eq", to_term({m: c / lead for m, c in d.items()}))
    if tag == "or":
        keys = frozenset(prop_key(a) for a in p[1:]) - {("eq", num(1))}
        return next(iter(keys)) if len(keys) == 1 else ("or", keys) if keys else ("eq", num(1))
    if tag == "true":
        return ("true",)
    if tag == "false":
        return ("eq", num(1))
    raise Unreadable(f"an expression ({tag}) where a proposition is expected")


def _free_of(a: Term, lam: Term, env: Env) -> bool:
    """Whether atom ``a`` is constant in λ: λ not free in it nor in a definition it reaches."""
    return lam not in free_vars(a) | env.reach(("other", a)) and not holds(a, ("deriv", "lim"))


def holds(t: Term, tags: tuple[str, ...]) -> bool:
    """Whether ``t`` holds a subterm with one of the tags (itself included)."""
    return t[0] in tags or any(holds(t[p], tags) for p in children(t))


def in_u(p: Poly, lam: Term, env: Env) -> tuple[Poly, Poly] | None:
    """P = N/D, N and D polynomials in u = e^λ (rational exponents) over atoms free of λ.

    Each B⁻¹ with λ in B is D_B/N_B; D = Π N_B^k, k the highest power of B⁻¹ in P. None
    when another atom holds λ (e^{λ²}, √(e^λ + 1), an entry of a vector defined through λ).
    """
    inv: dict[Term, tuple[Poly, Poly]] = {}
    need: dict[Term, Fraction] = {}
    for m in p:
        for a, e in m:
            if a[0] == "pow" and a[2] == num(-1) and not _free_of(a, lam, env):
                inner = in_u(nf(a[1]), lam, env) if e.denominator == 1 and e > 0 else None
                if inner is None:
                    return None
                inv[a], need[a] = inner, max(e, need.get(a, Fraction(0)))
            elif a != ("exp", lam) and not _free_of(a, lam, env):
                return None
    top, bottom = const(Fraction(0)), const(Fraction(1))
    for a, k in need.items():
        bottom = pmul(bottom, ppow(inv[a][0], k, 0), 0)
    for m, c in p.items():
        got = dict(m)
        n = {tuple(y for y in m if y[0] not in inv): c}
        for a, (na, da) in inv.items():
            e = got.get(a, Fraction(0))
            n = pmul(pmul(n, ppow(da, e, 0), 0), ppow(na, need[a] - e, 0), 0)
        top = padd(top, n)
    return top, bottom


def leading(t: Term, lam: Term, env: Env) -> tuple[Fraction, Term, Term] | None:
    """T = N(u)/D(u), u = e^λ → ∞: (deg N − deg D, lc N, lc D) with lc D ≠ 0 by its form.

    Then D ≠ 0 for every large λ and t → lc N/lc D (deg N = deg D) or 0 (deg N < deg D);
    t ≡ 0 is (−1, 0, 1). None: t is not of that form.
    """
    found = in_u(nf(t), lam, env)
    if found is None or not found[1]:  # D ≡ 0: a divisor is 0
        return None
    if not found[0]:
        return Fraction(-1), num(0), num(1)
    u, lcs = ("exp", lam), []
    for q in found:
        deg = max(dict(m).get(u, Fraction(0)) for m in q)
        lcs.append((deg, to_term({tuple(y for y in m if y[0] != u): c for m, c in q.items()
                                  if dict(m).get(u, Fraction(0)) == deg})))  # fmt: skip
    (dn, top), (dd, bottom) = lcs
    return (dn - dd, top, bottom) if nonzero(bottom, env) else None


def defined(t: Term, env: Env) -> str | None:
    """Why ``t`` may be undefined where the facts hold (a divisor not non-zero), or None.

    Inside one limit λ → ∞ (not under a derivative) a divisor that is not random may be
    non-zero only for every large λ: its leading coefficient in e^λ non-zero by form.
    """
    tag = t[0]
    if tag == "pow" and t[2][0] == "num" and t[2][1] < 0 and not nf(t[1]):
        return "a divisor is zero"
    if tag == "pow" and t[2][0] == "num" and t[2][1] < 0 and not nonzero(t[1], env):
        # not λ₀(μ) inside lim_μ, nor λ₀(ω) for an outcome ω (E[1/(X + e^λ)] may not exist)
        # nor under a sum whose range grows with λ (Σ_{i≤λ} 1/(e^λ − e^i): 0 at i = λ)
        sc = env.scope
        grows = any(free_vars(up) & sc.limits for _, up in sc.ranges)
        sole = len(sc.limits) == 1 and not (sc.varied or grows or is_random(t[1]))
        late = [leading(t[1], v, env) for v in env.scope.limits if sole]
        if not any(x and x[1] != num(0) and nonzero(x[1], env) for x in late):
            return "a divisor is not non-zero by its form or a declared fact"
    if tag == "pow" and t[2][0] != "num" and not positive(t[1], env):
        return "a power with a symbolic exponent of a base not positive"
    if tag == "log" and not nonzero(t[1], env):
        return "a logarithm of a term not non-zero by its form"
    if tag == "abs" and env.scope.varied:
        return "|f| under a derivative (not smooth)"
    for p in children(t):
        inner = env.at(env.scope.enter(t)) if p == 1 and tag in BODIES else env
        why = defined(t[p], inner)
        if why:
            return why
    return None
