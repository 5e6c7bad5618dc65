"""The one binder discipline: what a binder binds, its scope, substitution, shadowing.

How it works and what it trusts: docs/kernel.md, ``scaledattn.kernel.binders``.

Examples
--------
>>> from sympy import Symbol
>>> from scaledattn.kernel.expr import IndexSum, dimension, index
>>> i, n, m = index("i"), dimension("n"), dimension("m")
>>> IndexSum(IndexSum(i, i, m), i, n)
Sum(Sum(i', (i', 1, m)), (i, 1, n))
>>> j = index("j")
>>> subst(IndexSum(i * j, i, n), {j: i})
Sum(i*i', (i', 1, n))
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import sympy
from sympy import Dummy, Expr, Symbol

from scaledattn.errors import InvalidArgument


class Binder(Expr):
    """A term binding the symbols at ``bound_at`` in its arguments at ``scope_at``."""

    bound_at: tuple[int, ...] = (1,)
    scope_at: tuple[int, ...] = (0,)
    #: False for a binder whose variable definitions read by name (a limit's λ): such a
    #: binder is never renamed, and what would need a renaming is refused instead.
    renameable = True

    @property
    def bound(self) -> tuple[Symbol, ...]:
        """The symbols this binder binds."""
        return tuple(self.args[k] for k in self.bound_at)

    @property
    def outside(self) -> tuple[Expr, ...]:
        """The arguments outside the scope (bounds)."""
        skip = set(self.bound_at) | set(self.scope_at)
        return tuple(a for n, a in enumerate(self.args) if n not in skip)

    @property
    def free_symbols(self) -> set[Symbol]:
        """Free symbols of the scope less the bound ones, and of the outer arguments."""
        inner: set[Symbol] = set().union(*(self.args[k].free_symbols for k in self.scope_at))
        outer: set[Symbol] = set().union(*(a.free_symbols for a in self.outside))
        return (inner - set(self.bound)) | outer

    def with_bound(self, new: tuple[Symbol, ...]) -> Binder:
        """The same term with its bound symbols renamed to ``new`` (alpha-conversion)."""
        if not self.renameable and tuple(new) != self.bound:
            raise InvalidArgument(
                f"the variable {', '.join(map(str, self.bound))} of {type(self).__name__}"
                " is never renamed (a definition may read it by name): a renaming it needs"
                " is refused"
            )
        mapping = dict(zip(self.bound, new, strict=True))
        args = list(self.args)
        for k in self.scope_at:
            args[k] = subst(args[k], mapping)
        for k, s in zip(self.bound_at, new, strict=True):
            args[k] = s
        term: Binder = self.func(*args)
        return term

    def unshadowed(self) -> Binder:
        """The binder without shadowing: its symbols fresh for its bounds and inner binders."""
        term: Binder = self
        clash = set(term.bound) & set().union(*(a.free_symbols for a in term.outside))
        if clash:
            term = term.with_bound(_fresh_for(term.bound, clash, _names(term)))
        mine = set(term.bound)
        if not any(_rebinds(term.args[k], mine) for k in term.scope_at):
            return term
        args = list(term.args)
        for k in term.scope_at:
            args[k] = _rename_inner(args[k], mine)
        renamed: Binder = Expr.__new__(type(term), *args)
        return renamed


def _names(*terms: Any) -> set[str]:
    names: set[str] = set()
    for t in terms:
        names |= {s.name for s in sympy.preorder_traversal(t) if isinstance(s, Symbol)}
    return names


def fresh_like(s: Symbol, taken: set[str]) -> Symbol:
    """A symbol with the assumptions of ``s``, named ``s'``, ``s''``… not in ``taken``."""
    if isinstance(s, Dummy):
        return Dummy(s.name, **s.assumptions0)
    name = s.name + "'"
    while name in taken:
        name += "'"
    return Symbol(name, **s.assumptions0)


def _fresh_for(
    bound: tuple[Symbol, ...], clash: set[Symbol], taken: set[str]
) -> tuple[Symbol, ...]:
    new = []
    for s in bound:
        if s in clash:
            s = fresh_like(s, taken)
            taken.add(s.name)
        new.append(s)
    return tuple(new)


def _rebinds(e: Any, names: set[Symbol]) -> bool:
    return any(isinstance(b, Binder) and names & set(b.bound) for b in sympy.preorder_traversal(e))


def _rename_inner(e: Any, names: set[Symbol]) -> Any:
    """``e`` with every binder that rebinds one of ``names`` renamed away from them."""
    if not getattr(e, "args", ()) or e.is_Atom:
        return e
    if isinstance(e, Binder) and e.renameable and names & set(e.bound):
        taken = _names(e) | {s.name for s in names}
        e = e.with_bound(_fresh_for(e.bound, names & set(e.bound), taken))
    return e.func(*(_rename_inner(a, names) for a in e.args))


# ------------------------------------------------------------------ substitution


def subst(expr: Any, mapping: Mapping[Any, Any]) -> Any:
    """Capture-avoiding substitution: replace each free occurrence of a key by its value."""
    mapping = {sympy.sympify(k): sympy.sympify(v) for k, v in mapping.items()}
    mapping = {k: v for k, v in mapping.items() if k != v}
    return _subst(sympy.sympify(expr), mapping) if mapping else expr


def _subst(e: Any, mapping: dict[Any, Any]) -> Any:
    if e in mapping:
        return mapping[e]
    if not getattr(e, "args", ()) or e.is_Atom:
        return e
    if isinstance(e, Binder):
        return _subst_binder(e, mapping)
    return e.func(*(_subst(a, mapping) for a in e.args))


def _subst_binder(e: Binder, mapping: dict[Any, Any]) -> Any:
    bound = set(e.bound)
    used: set[Symbol] = set().union(*(e.args[k].free_symbols for k in e.scope_at))
    inner = {
        k: v
        for k, v in mapping.items()
        if not (k.free_symbols & bound) and (k in used or not k.is_Symbol)
    }
    values: set[Symbol] = set().union(*(v.free_symbols for v in inner.values()))
    clash = bound & values
    if clash:
        taken = _names(e, *inner.keys(), *inner.values())
        e = e.with_bound(_fresh_for(e.bound, clash, taken))
    args = []
    for n, a in enumerate(e.args):
        if n in e.bound_at:
            args.append(a)
        elif n in e.scope_at:
            args.append(_subst(a, inner) if inner else a)
        else:
            args.append(_subst(a, mapping))
    return e.func(*args)


def bound_symbols(expr: Any) -> set[Symbol]:
    """Every symbol some binder inside ``expr`` binds (i and j in Σᵢ Σⱼ qᵢkⱼ)."""
    return {s for b in sympy.preorder_traversal(expr) if isinstance(b, Binder) for s in b.bound}


def rename_away(b: Binder, avoid: set[Symbol]) -> Binder:
    """``b`` with each bound symbol in ``avoid`` renamed to a fresh one."""
    clash = set(b.bound) & avoid
    if not clash:
        return b
    return b.with_bound(_fresh_for(b.bound, clash, _names(b) | {s.name for s in avoid}))


# ------------------------------------------------------------------------ scope


@dataclass(frozen=True)
class Scope:
    """What is bound on the path from the root to a position."""

    ranges: tuple[tuple[Symbol, tuple[Expr, ...]], ...] = ()
    limits: frozenset[Symbol] = frozenset()
    distinct: frozenset[frozenset[Symbol]] = frozenset()
    #: The vectors a derivative around the position varies (∂/∂sₘ: s).
    varied: frozenset[str] = frozenset()

    @property
    def bound(self) -> frozenset[Symbol]:
        """Every symbol bound on the path."""
        return frozenset(s for s, _ in self.ranges)

    def range_of(self, s: Any) -> tuple[Expr, ...] | None:
        """The outer arguments of the binder that binds ``s`` here, or None when s is free."""
        return next((r for x, r in self.ranges if x == s), None)

    def growing(self, lam: Symbol) -> set[Symbol]:
        """The indices bound here whose range grows with ``lam`` (Σ_{j≤λ}: j), and theirs."""
        found = {lam}
        for s, r in self.ranges:  # outermost first
            if any(found & x.free_symbols for x in r):
                found.add(s)
        return found - {lam}

    def enter(self, b: Binder) -> Scope:
        """The scope inside binder ``b``: its symbols bound afresh, facts about them dropped."""
        mine = set(b.bound)
        # An outer index whose bound mentions a symbol b rebinds has no known range in
        # here: Σ_{m≤n} Σ_{n≤2} …, inside, m ≤ n is about the outer n.
        ranges = tuple(
            (s, () if any(mine & x.free_symbols for x in r) else r)
            for s, r in self.ranges
            if s not in mine
        )
        ranges += tuple((s, b.outside) for s in b.bound)
        distinct = frozenset(p for p in self.distinct if not p & mine)
        distinct |= {frozenset(p) for p in getattr(b, "distinct_pairs", ())}
        limits = (self.limits - mine) | (mine if getattr(b, "is_limit", False) else set())
        return Scope(ranges, frozenset(limits), distinct, self.varied)


def arg_scopes(e: Any, scope: Scope) -> list[Scope]:
    """The scope of each argument of ``e`` when ``e`` is at ``scope``."""
    if getattr(e, "is_derivative", False):  # ∂f/∂sₘ varies s inside f
        varied = scope.varied | {e.args[1].vector}
        return [replace(scope, varied=varied), scope]
    if not isinstance(e, Binder):
        return [scope] * len(e.args)
    inside = scope.enter(e)
    return [inside if n in e.scope_at else scope for n in range(len(e.args))]


def walk_scoped(expr: Any, visit: Any) -> Any:
    """Rebuild ``expr`` bottom-up, each node ``e`` replaced by ``visit(e, scope)``."""

    def walk(e: Any, scope: Scope) -> Any:
        if getattr(e, "args", ()) and not e.is_Atom:
            new = [walk(a, s) for a, s in zip(e.args, arg_scopes(e, scope), strict=True)]
            if any(n is not a for n, a in zip(new, e.args, strict=True)):
                e = e.func(*new)
        result = visit(e, scope)
        return e if result is None else result

    return walk(expr, Scope())
