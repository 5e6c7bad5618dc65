"""The checker's closed term language and its reader.

A term is a tuple ``(tag, *arguments)``; nothing is evaluated when one is made. The
reader turns a certificate's nested lists into terms and refuses anything outside the
grammar below (a tag it does not know, a wrong arity, a number that is not p/q).

- ``("num", Fraction)``; ``("sym", name, facts)`` a constant (facts: letters of
  ``rpizng``: real, positive, integer, nonzero, nonnegative, negative);
  ``("rv", name)`` a random variable; ``("bv", n)`` a bound variable of the normal form.
- ``("add", t…)``, ``("mul", t…)``, ``("pow", base, exponent)``.
- ``("E", t)``, ``("Var", t)``, ``("Cov", s, t)``, ``("Std", t)``; ``("dot", q, k, n)``
  (q, k vector names); ``("comp", q, i)`` the component qᵢ of a random vector;
  ``("entry", x, i, n)`` the entry xᵢ of a real (not random) vector;
  ``("softmax", s, i, n, p)`` the weight pᵢ = e^{sᵢ}/Σⱼ e^{sⱼ};
  ``("deriv", f, x)`` ∂f/∂x (an opaque atom); ``("lim", f, λ)`` lim_{λ→∞} f, binding λ
  in f (never renamed: a definition may name λ).
- ``("sum", body, i, n)`` Σᵢ₌₁ⁿ and ``("cross", body, i, j, n)`` Σ_{i≠j}: they bind
  i (and j) in the body.
- ``("exp", t)``, ``("log", t)``, ``("abs", t)``, ``("delta", s, t)``, ``("fn", name, t…)``.
- propositions ``("eq", s, t)``, ``("or", p…)``, ``("true",)``, ``("false",)``.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

Term = tuple[Any, ...]
_FRESH = itertools.count()

#: tag: (number of arguments or -1 for any, positions of subterms, positions bound there)
LEAVES = {"num", "sym", "rv", "bv", "tmp"}
ARITY = {
    "add": -1, "mul": -1, "or": -1, "pow": 2, "eq": 2,
    "E": 1, "Var": 1, "Std": 1, "exp": 1, "log": 1, "abs": 1, "Cov": 2, "delta": 2,
    "dot": 3, "comp": 2, "entry": 3, "softmax": 4, "deriv": 2, "lim": 2, "sum": 3,
    "cross": 4, "fn": -1, "true": 0, "false": 0,
}  # fmt: skip
TAGS = set(ARITY) | LEAVES
#: The tags whose value is a constant whatever the random variables (moments).
MOMENTS = {"E", "Var", "Cov", "Std"}
FACT_LETTERS = set("rpizng")


class Unreadable(ValueError):
    """A certificate's term (or field) outside the grammar."""


def children(t: Term) -> range:
    """Positions of the subterms of ``t``."""
    tag = t[0]
    if tag in LEAVES:
        return range(0)
    if tag == "dot":
        return range(3, 4)
    if tag in ("comp", "entry", "fn"):
        return range(2, len(t))
    if tag == "softmax":
        return range(2, 4)
    if tag == "lim":
        return range(1, 2)
    if tag == "sum":
        return range(1, 4, 2)
    if tag == "cross":
        return range(1, 5, 3)
    return range(1, len(t))


def bound_by(t: Term) -> tuple[Term, ...]:
    """The variables a binder binds in its body (position 1); none for other terms."""
    if t[0] == "sum":
        return (t[2],)
    if t[0] == "cross":
        return (t[2], t[3])
    if t[0] == "lim":
        return (t[2],)
    return ()


def remake(t: Term, args: list[Term]) -> Term:
    """``t`` with its subterms replaced by ``args`` (in the order of :func:`children`)."""
    out = list(t)
    for pos, a in zip(children(t), args, strict=True):
        out[pos] = a
    return tuple(out)


def num(x: Fraction | int) -> Term:
    """A number."""
    return ("num", Fraction(x))


def add(*ts: Term) -> Term:
    """A sum of terms (unevaluated)."""
    return ts[0] if len(ts) == 1 else ("add", *ts) if ts else num(0)


def mul(*ts: Term) -> Term:
    """A product of terms (unevaluated)."""
    return ts[0] if len(ts) == 1 else ("mul", *ts) if ts else num(1)


def power(b: Term, e: Fraction | int) -> Term:
    """``b`` to a number."""
    return ("pow", b, num(e))


def free_vars(t: Term) -> frozenset[Term]:
    """The constants and bound-variable leaves free in ``t`` (binders respected)."""
    tag = t[0]
    if tag in ("sym", "bv", "tmp"):
        return frozenset({t})
    found: set[Term] = set()
    mine = set(bound_by(t))
    for pos in children(t):
        inner = free_vars(t[pos])
        found |= inner - mine if pos == 1 and mine else inner
    return frozenset(found)


def subst(t: Term, mapping: dict[Term, Term]) -> Term:
    """Replace free occurrences of leaves, renaming a binder that would capture a value."""
    if not mapping:
        return t
    if t in mapping:
        return mapping[t]
    if t[0] in LEAVES:
        return t
    mine = set(bound_by(t))
    args = []
    for pos in children(t):
        if pos == 1 and mine:
            inner = {k: v for k, v in mapping.items() if k not in mine}
            values = set().union(*(free_vars(v) for v in inner.values())) if inner else set()
            if mine & values and any(k in free_vars(t[1]) for k in inner):
                if t[0] == "lim":  # never renamed: a definition may name its λ
                    raise Unreadable("a substitution would capture a limit's variable")
                fresh = {v: ("tmp", next(_FRESH)) for v in mine & values}
                renamed = list(t)  # the binder's own positions, never its upper bound
                for at in range(2, 2 + len(mine)):
                    renamed[at] = fresh.get(t[at], t[at])
                renamed[1] = subst(t[1], fresh)
                return subst(tuple(renamed), mapping)
            args.append(subst(t[pos], inner))
        else:
            args.append(subst(t[pos], mapping))
    return remake(t, args)


def is_random(t: Term) -> bool:
    """Whether ``t`` depends on a random variable outside a moment."""
    tag = t[0]
    if tag in ("rv", "comp", "dot"):
        return True
    if tag in MOMENTS:
        return False
    return any(is_random(t[p]) for p in children(t))


def _read_number(text: Any) -> Fraction:
    if not isinstance(text, str) or not text or len(text) > 100:
        raise Unreadable(f"a number is written p or p/q, got {text!r}")
    head, _, tail = text.partition("/")
    for part in (head.lstrip("-"), tail) if tail else (head.lstrip("-"),):
        if not part.isdigit():
            raise Unreadable(f"a number is written p or p/q, got {text!r}")
    return Fraction(text)


def _name(x: Any) -> str:
    if not isinstance(x, str) or not x or len(x) > 100:
        raise Unreadable(f"a name is a short string, got {x!r}")
    return x


def read(data: Any, depth: int = 0) -> Term:
    """The term a certificate's nested list writes (a refusal: :class:`Unreadable`)."""
    if depth > 200:
        raise Unreadable("a term nested more than 200 deep")
    if not isinstance(data, (list, tuple)) or not data or not isinstance(data[0], str):
        raise Unreadable(f"a term is a list starting with its tag, got {data!r}")
    tag, args = data[0], list(data[1:])
    if tag == "num" and len(args) == 1:
        return ("num", _read_number(args[0]))
    if tag == "sym" and len(args) == 2 and isinstance(args[1], str):
        if set(args[1]) - FACT_LETTERS:
            raise Unreadable(f"unknown facts of a symbol: {args[1]!r}")
        return ("sym", _name(args[0]), "".join(sorted(set(args[1]))))
    if tag == "rv" and len(args) == 1:
        return ("rv", _name(args[0]))
    if tag not in ARITY or (ARITY[tag] >= 0 and len(args) != ARITY[tag]):
        raise Unreadable(f"unknown term {tag!r} with {len(args)} argument(s)")
    if tag in ("add", "mul", "or") and len(args) < 2:
        raise Unreadable(f"{tag} takes two or more arguments")
    out: list[Any] = [tag]
    for n, a in enumerate(args, start=1):
        named = (tag in ("dot", "comp", "entry", "softmax", "fn") and n == 1) or (
            (tag == "dot" and n == 2) or (tag == "softmax" and n == 4)
        )
        out.append(_name(a) if named else read(a, depth + 1))
    term = tuple(out)
    for v in bound_by(term):  # its signs are its binder's: i in 1..n, λ large (never < 0)
        if v[0] != "sym" or ("i" not in v[2] and tag != "lim") or "r" not in v[2] or "g" in v[2]:
            raise Unreadable("a sum binds an integer symbol, a limit a real one, never negative")
    if term[0] == "cross" and term[2] == term[3]:
        raise Unreadable("the two indices of a cross sum differ")
    if term[0] in ("sum", "cross") and not counts(term[-1]):
        raise Unreadable("a sum runs up to a non-negative integer by its form")
    return term


def counts(t: Term) -> bool:
    """Whether ``t`` is a non-negative integer by its form (a sum's upper bound)."""
    if t[0] == "num":
        return bool(t[1].denominator == 1 and t[1] >= 0)
    if t[0] == "sym":
        return "i" in t[2] and bool(set("np") & set(t[2])) and "g" not in t[2]
    if t[0] in ("add", "mul"):
        return all(counts(a) for a in t[1:])
    e = t[2] if t[0] == "pow" else ("num", Fraction(-1))
    return e[0] == "num" and e[1].denominator == 1 and e[1] >= 0 and counts(t[1])
