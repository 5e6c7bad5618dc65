"""Declared facts, where they may be read, and signs by form.

A fact is read from a certificate as a tuple: ``("independent", units)`` (units
``("rv", X)`` or ``("vec", q)``), ``("components", vectors)`` (every component its own
block), ``("pairs", vectors)`` (the tuples (qᵢ, kᵢ, …) independent across i),
``("moment", lhs, value)``, ``("positive", symbol)``, or ``("other", text)`` (a fact this
checker does not read; it never helps a step).

A fact is visible at a position unless it names a symbol bound there (it is about
another variable of that name); a moment's schematic indices (i in E[qᵢ] = 0) range
over every index.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from scaledattn.checker.terms import TAGS, Term, Unreadable, bound_by, children, free_vars, read
from scaledattn.checker.terms import _name as _name

#: The terms whose argument at position 1 is in a scope of its own.
BODIES = ("sum", "cross", "lim", "deriv")

Fact = tuple[Any, ...]


def read_fact(data: Any) -> Fact:
    """A fact of a certificate (a refusal: Unreadable)."""
    if not isinstance(data, (list, tuple)) or not data:
        raise Unreadable(f"a fact is a list, got {data!r}")
    kind = data[0]
    if kind in ("independent", "components", "pairs") and len(data) == 2:
        units = []
        for u in data[1]:
            if not (isinstance(u, (list, tuple)) and len(u) == 2 and u[0] in ("rv", "vec")):
                raise Unreadable(f"a unit of independence is rv or vec, got {u!r}")
            if kind != "independent" and u[0] != "vec":
                raise Unreadable("components and pairs are about vectors")
            units.append((u[0], str(u[1])))
        return (kind, tuple(units))
    if kind == "moment" and len(data) == 3:
        lhs = read(data[1])
        if lhs[0] not in ("E", "Var", "Cov"):
            raise Unreadable("a moment is about E, Var or Cov")
        value = read(data[2])
        if _binders(lhs) & free_vars(value):
            raise Unreadable("a moment's value names a variable its left side binds")
        return ("moment", lhs, value)
    if kind == "positive" and len(data) == 2:
        s = read(data[1])
        if s[0] != "sym" or not set("rpi") & set(s[2]):
            raise Unreadable("positive is declared of a real symbol")
        return ("positive", s)
    if kind == "define" and len(data) == 5:
        j = read(data[3])
        if j[0] != "sym":
            raise Unreadable("a definition's index is a symbol")
        return ("define", _name(data[1]), read(data[2]), j, read(data[4]))
    if kind in ("range", "distinct") and len(data) == 3:
        return (kind, read(data[1]), read(data[2]))
    if kind == "other" and len(data) == 2:
        return ("other", str(data[1]))
    raise Unreadable(f"unknown fact {kind!r}")


def _vectors(items: Any) -> set[str]:
    """The names of the real vectors whose entries (or softmax) the terms hold."""
    found: set[str] = set()
    for t in items:
        if isinstance(t, tuple) and t and isinstance(t[0], str) and t[0] in TAGS:
            if t[0] in ("entry", "softmax"):
                found.add(t[1])
            found |= _vectors(t[p] for p in children(t))
    return found


def _binders(t: Term) -> frozenset[Term]:
    """Every variable a binder inside ``t`` binds."""
    found = set(bound_by(t))
    for p in children(t):
        found |= _binders(t[p])
    return frozenset(found)


def schematic(fact: Fact) -> frozenset[Term]:
    """The schematic indices of a moment: index symbols free in its left side, at a qᵢ."""
    found: set[Term] = set()

    def walk(t: Term) -> None:
        if t[0] == "comp" and t[2][0] == "sym":
            found.add(t[2])
        for p in children(t):
            walk(t[p])

    walk(fact[1])
    return frozenset(found & free_vars(fact[1]))


def names(fact: Fact) -> frozenset[Term]:
    """The constants a fact is about."""
    if fact[0] == "moment":
        return (free_vars(fact[1]) | free_vars(fact[2])) - schematic(fact)
    if fact[0] == "positive":
        return frozenset({fact[1]})
    if fact[0] == "define":
        return free_vars(fact[2]) - {fact[3]}
    if fact[0] in ("range", "distinct"):
        return free_vars(fact[1]) | free_vars(fact[2])
    return frozenset()


@dataclass
class Scope:
    """What is bound on the path to a position, and the index pairs kept apart there."""

    bound: frozenset[Term] = frozenset()
    distinct: frozenset[frozenset[Term]] = frozenset()
    #: The indices bound here with their upper bound; the variables limits bind.
    ranges: tuple[tuple[Term, Term], ...] = ()
    limits: frozenset[Term] = frozenset()
    #: The vectors a derivative around the position varies (∂/∂sₘ: s).
    varied: frozenset[str] = frozenset()

    def enter(self, t: Term) -> Scope:
        """The scope in the body (position 1) of ``t``: a binder's, or a derivative's."""
        if t[0] == "deriv":
            x = t[2]
            vs = {x[1]} if x[0] == "entry" else set()
            return Scope(self.bound, self.distinct, self.ranges, self.limits, self.varied | vs)
        mine = set(bound_by(t))
        distinct = frozenset(p for p in self.distinct if not p & mine)
        if t[0] == "cross":
            distinct |= {frozenset((t[2], t[3]))}
        ranges = tuple(
            (v, up) for v, up in self.ranges if v not in mine and not free_vars(up) & mine
        )
        if t[0] in ("sum", "cross"):
            ranges += tuple((v, t[-1]) for v in mine if not free_vars(t[-1]) & mine)
        limits = (self.limits - mine) | (mine if t[0] == "lim" else set())
        return Scope(self.bound | mine, distinct, ranges, frozenset(limits), self.varied)


@dataclass
class Env:
    """The facts of a derivation as seen at one position, and those read so far."""

    facts: tuple[Fact, ...]
    scope: Scope = field(default_factory=Scope)
    used: set[int] = field(default_factory=set)

    def visible(self, n: int) -> bool:
        """Whether fact n may be read here (a definition also inside a limit of its λ)."""
        fact = self.facts[n]
        hidden = self.scope.bound - (self.scope.limits if fact[0] == "define" else set())
        varied = fact[0] != "define" and self.scope.varied & self.vectors(fact)
        return not (self.reach(fact) & hidden) and not varied

    def vectors(self, fact: Fact) -> set[str]:
        """The vectors a fact names, also through the definitions it reaches."""
        seen: set[str] = set()
        todo = _vectors(fact[1:])
        while todo:
            v = todo.pop()
            seen.add(v)
            for f in self.facts:
                if f[0] == "define" and f[1] == v:
                    todo |= _vectors((f[2],)) - seen
        return seen

    def reach(self, fact: Fact) -> frozenset[Term]:
        """What a fact is about: its constants and its vectors' definitions' parameters.

        E[qᵢ] = rᵢ with rⱼ = sⱼ + λδⱼw is about λ.
        """
        found = set(names(fact))
        if fact[0] == "define":
            return frozenset(found)
        seen: set[str] = set()
        todo = _vectors(fact[1:])
        while todo:
            v = todo.pop()
            seen.add(v)
            for f in self.facts:
                if f[0] == "define" and f[1] == v:
                    found |= names(f)
                    todo |= _vectors((f[2],)) - seen
        return frozenset(found)

    def at(self, scope: Scope) -> Env:
        """The same facts at another position (what is read is shared)."""
        return Env(self.facts, scope, self.used)

    def declared_positive(self, s: Term) -> bool:
        """Whether ``s`` is declared positive by a visible fact (marked read)."""
        for n, f in enumerate(self.facts):
            if f[0] == "positive" and f[1] == s and self.visible(n):
                self.used.add(n)
                return True
        return False


# -------------------------------------------------------------------- signs by form


def real(t: Term) -> bool:
    """Whether ``t`` is real by its form."""
    tag = t[0]
    if tag == "num" or tag in ("rv", "comp", "dot", "entry", "softmax", "bv", "tmp"):
        return True
    if tag == "sym":
        return bool(set("rping") & set(t[2]))
    if tag in "add mul E Var Cov Std exp abs delta sum cross deriv".split():  # noqa: SIM905
        return all(
            real(t[p]) for p in children(t) if not (tag in ("sum", "cross") and p == len(t) - 1)
        )
    if tag == "pow":
        e, b = t[2], t[1]
        whole = e[0] == "num" and e[1].denominator == 1
        by_type = (b[0] == "sym" and "p" in b[2]) or (b[0] == "num" and b[1] > 0)
        by_type = by_type or b[0] == "softmax" or (b[0] == "exp" and real(b[1]))  # > 0
        return real(b) and (whole or (by_type and e[0] == "num"))
    return False


def positive(t: Term, env: Env) -> bool:
    """T > 0 by its form and the declared positive constants."""
    tag = t[0]
    if tag == "num":
        return bool(t[1] > 0)
    if tag == "sym":
        return "p" in t[2] or env.declared_positive(t)
    if tag == "exp":
        return real(t[1])
    if tag == "softmax":  # e^{sᵢ}/Σⱼ e^{sⱼ} over n ≥ 1 entries
        return positive(t[3], env)
    if tag == "add":
        return all(nonnegative(a, env) for a in t[1:]) and any(positive(a, env) for a in t[1:])
    if tag == "mul":
        signs = [positive(a, env) or (negative(a, env) and "neg") for a in t[1:]]
        return all(signs) and sum(s == "neg" for s in signs) % 2 == 0
    if tag == "pow":
        e = t[2]
        if positive(t[1], env):
            return e[0] == "num" or real(e)
        return (
            e[0] == "num"
            and e[1].denominator == 1
            and e[1].numerator % 2 == 0
            and real(t[1])
            and nonzero(t[1], env)
        )
    if tag == "sum":  # n ≥ 1 terms, each positive
        return positive(t[3], env) and positive(t[1], env.at(env.scope.enter(t)))
    return False


def negative(t: Term, env: Env) -> bool:
    """T < 0 by its form."""
    tag = t[0]
    if tag == "num":
        return bool(t[1] < 0)
    if tag == "sym":
        return "g" in t[2]
    if tag == "mul":
        signs = [positive(a, env) or (negative(a, env) and "neg") for a in t[1:]]
        return all(signs) and sum(s == "neg" for s in signs) % 2 == 1
    if tag == "add":
        return all(nonpositive(a, env) for a in t[1:]) and any(negative(a, env) for a in t[1:])
    if tag == "sum":  # n ≥ 1 terms, each negative
        return positive(t[3], env) and negative(t[1], env.at(env.scope.enter(t)))
    return False


def nonpositive(t: Term, env: Env) -> bool:
    """T ≤ 0 by its form (a negative term or the number 0)."""
    return negative(t, env) or t == ("num", 0)


def nonnegative(t: Term, env: Env) -> bool:
    """T ≥ 0 by its form."""
    tag = t[0]
    if positive(t, env) or (tag == "num" and t[1] == 0):
        return True
    if tag == "sym":
        return "n" in t[2]
    if tag in ("add", "mul"):
        return all(nonnegative(a, env) for a in t[1:])
    if tag == "pow":
        e = t[2]
        even = e[0] == "num" and e[1].denominator == 1 and e[1].numerator % 2 == 0 and e[1] > 0
        return (even and real(t[1])) or (nonnegative(t[1], env) and e[0] == "num" and e[1] > 0)
    if tag in ("Var", "Std", "abs"):
        return real(t[1])
    if tag == "delta":  # 0 or 1
        return True
    if tag in ("sum", "cross"):
        return nonnegative(t[1], env.at(env.scope.enter(t)))
    return False


def nonzero(t: Term, env: Env) -> bool:
    """T ≠ 0 by its form."""
    tag = t[0]
    if tag == "num":
        return bool(t[1] != 0)
    if (tag == "sym" and set("pzg") & set(t[2])) or positive(t, env) or negative(t, env):
        return True
    if tag == "mul":
        return all(nonzero(a, env) for a in t[1:])
    if tag == "pow":
        return nonzero(t[1], env)
    if tag == "add":  # a number not an integer plus integers
        frac = [a for a in t[1:] if a[0] == "num" and a[1].denominator != 1]
        return len(frac) == 1 and all(integral(a) for a in t[1:] if a is not frac[0])
    return bool(tag == "exp")


def integral(t: Term) -> bool:
    """Whether ``t`` is an integer by its form."""
    if t[0] in ("num", "pow"):
        e = t[1] if t[0] == "num" else t[2][1] if t[2][0] == "num" else Fraction(1, 2)
        return e.denominator == 1 and (t[0] == "num" or (e >= 0 and integral(t[1])))
    if t[0] in ("add", "mul"):
        return all(integral(a) for a in t[1:])
    return (t[0] == "sym" and "i" in t[2]) or t[0] == "delta"
