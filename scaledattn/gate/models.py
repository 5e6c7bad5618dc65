"""A model of the assumptions: the evidence that a verdict is not about an empty context.

A verdict drawn from assumptions that no model satisfies is vacuous (from 1 = E[q₁k₁] and
E[q₁] = 0 one "proves" 1 = 0). Before any verdict but UNDECIDED, the doors ask
:func:`model_of` for a model of *all* the assumptions in force: a
:class:`~scaledattn.numeric.semantics.World` drawn by :func:`~scaledattn.numeric.worlds.draw_world`
(laws for the random atoms, values for the constants, dimensions and indices) that the
semantics checks against every assumption, independence included
(:func:`~scaledattn.numeric.semantics.check_world`). None found: no verdict.

What the search finds: finite laws (coins, a Bernoulli, a three-point law, point masses,
the two-point law μ ± σ fitted to a declared mean and variance, sums of those where no
independence forbids it), small dimensions (1..3), indices within their ranges, constants
among a few small numbers within their signs; a moment whose value is a lone constant
gives that constant its value. What it cannot find: a law that no such draw fits (a
declared E[XY] = 1 with no declared means; a fourth moment fixed apart from the second),
a dimension above 3 unless the claim fixes it (then the law must stay enumerable).

Examples
--------
>>> from scaledattn.kernel import E, Moment, random_variables
>>> (X,) = random_variables("X")
>>> model_of([E(X)], [Moment(E(X), 1)]) is not None
True
>>> model_of([E(X)], [Moment(E(2 * X), 3), Moment(E(X), 1)]) is None
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from fractions import Fraction
from typing import Any

import sympy
from sympy import Symbol

from scaledattn.kernel.assumptions import Assumption
from scaledattn.kernel.expr import DotProduct, IndexSum
from scaledattn.numeric.semantics import World, agree, check_world
from scaledattn.numeric.semantics import show as show_number
from scaledattn.numeric.worlds import TOO_LARGE, RandomChooser, draw_world

__all__ = [
    "MODEL_TRIES",
    "NO_MODEL",
    "confirmed_counterexample",
    "context_model",
    "context_withheld",
    "counterexample_world",
    "describe",
    "model_found",
    "model_line",
    "model_of",
    "withheld",
]

#: Worlds drawn (each checked by the semantics) before the search gives up.
MODEL_TRIES = 48
NO_MODEL = "no model of the assumptions was found"


def model_of(
    terms: Sequence[Any],
    assumptions: Sequence[Assumption],
    *,
    defined: Mapping[str, Any] | None = None,
    fixed: Mapping[Symbol, Fraction] | None = None,
    seed: int = 0,
    tries: int = MODEL_TRIES,
) -> World | None:
    """A world the semantics confirms satisfies every assumption, or None.

    ``terms`` name the atoms, constants and dimensions the world must give values
    (the claim's sides); ``defined`` random variables computed from others
    (``{"Y": X}``); ``fixed`` values some symbols must take. When the terms need a law
    too large to enumerate (q·k at dₖ = 64), the world is drawn for the assumptions
    alone (their schematic facts read at a small dimension).
    """
    found = model_found(terms, assumptions, defined=defined, fixed=fixed, seed=seed, tries=tries)
    return found[0]


def model_found(
    terms: Sequence[Any],
    assumptions: Sequence[Assumption],
    *,
    defined: Mapping[str, Any] | None = None,
    fixed: Mapping[Symbol, Fraction] | None = None,
    seed: int = 0,
    tries: int = MODEL_TRIES,
) -> tuple[World | None, bool]:
    """(:func:`model_of`'s world, whether it is a model of the assumptions alone).

    True when the terms' law could not be drawn (too large, or their atoms stood in the
    way) and the world gives no values to the terms: its line must say so
    (:func:`model_line` with ``alone``), never that it is a model at the claim's values.
    """
    large = too_large(terms)
    world = None if large else _search(terms, assumptions, defined, fixed, seed, tries)
    if world is None and (terms or defined):
        # The terms' own atoms (or a law too large) stood in the way: a model of the
        # assumptions alone, with the definitions they name (another definition is a
        # function of the atoms, true in every model).
        named = {str(s) for a in assumptions for p in _parts(a) for s in _atoms(p)}
        used = {n: e for n, e in (defined or {}).items() if n in named}
        alone = _search((), assumptions, used, fixed, seed, tries // 2)
        return alone, alone is not None and bool(terms)
    return world, False


def _search(
    terms: Sequence[Any],
    assumptions: Sequence[Assumption],
    defined: Mapping[str, Any] | None,
    fixed: Mapping[Symbol, Fraction] | None,
    seed: int,
    tries: int,
) -> World | None:
    chooser = RandomChooser(seed)
    for _ in range(tries):
        try:
            world, why = draw_world(
                terms, tuple(assumptions), chooser, defined=defined, fixed=fixed, shrink=True
            )
        except (TypeError, ValueError, ArithmeticError, RecursionError):
            return None  # a term the drawer cannot read: no model from it
        if world is not None and check_world(world, tuple(assumptions)) == "":
            found: World = world
            return found
        if why == TOO_LARGE:
            return None
    return None


#: A numeric dimension above this makes a law too large to enumerate (2 atoms of 2 points
#: each per index: 2^(2·6) outcomes is past the drawer's 64), so no world is drawn for it.
MAX_NUMERIC_DIMENSION = 6


def too_large(terms: Sequence[Any]) -> bool:
    """Whether a term names a numeric dimension above :data:`MAX_NUMERIC_DIMENSION`."""
    for term in terms:
        if not isinstance(term, sympy.Basic):
            continue
        for node in sympy.preorder_traversal(term):
            sizes = [getattr(node, "dim", None), getattr(node, "upper", None)]
            if isinstance(node, (DotProduct, IndexSum)) and any(
                isinstance(x, sympy.Integer) and x > MAX_NUMERIC_DIMENSION for x in sizes
            ):
                return True
    return False


def _parts(a: Assumption) -> list[Any]:
    return [v for v in vars(a).values() if isinstance(v, sympy.Basic)] + list(
        getattr(a, "units", ()) or ()
    )


def _atoms(term: Any) -> set[Any]:
    return set(term.atoms(sympy.Symbol)) if isinstance(term, sympy.Basic) else set()


def describe(world: World, hide: Set[Symbol] = frozenset()) -> str:
    """One line: the symbols' values, each random atom's law, the joint law's size.

    ``hide``: symbols not shown (a schematic index the world happens to give a value).
    """
    values = sorted((kv for kv in world.values.items() if kv[0] not in hide), key=str)
    parts = [f"{s} = {show_number(v)}" for s, v in values]
    parts += [f"{k} = ({', '.join(show_number(x) for x in v)})" for k, v in world.vectors.items()]
    atoms = sorted(world.outcomes[0][1]) if world.outcomes else []
    shown = []
    for atom in atoms[:MAX_ATOMS_SHOWN]:
        law: dict[Any, Fraction] = {}
        for p, omega in world.outcomes:
            law[omega[atom]] = law.get(omega[atom], Fraction(0)) + p
        points = ", ".join(
            f"{show_number(v)}" + (f" w.p. {p}" if len(law) > 1 and len(set(law.values())) > 1
                                   else "")
            for v, p in sorted(law.items(), key=lambda kv: float(kv[0]))
        )  # fmt: skip
        name = atom[0] if atom[1] == 0 else f"{atom[0]}_{atom[1]}"
        shown.append(f"{name} ∈ {{{points}}}")
    if len(atoms) > MAX_ATOMS_SHOWN:
        shown.append(f"… ({len(atoms)} atoms)")
    parts += shown
    if len(world.outcomes) > 1:
        parts.append(f"{len(world.outcomes)} outcomes")
    return ", ".join(parts) if parts else "any (no constant, no random variable)"


#: Random atoms whose marginal law a model's one-line description lists.
MAX_ATOMS_SHOWN = 4


def model_line(world: World, assumptions: Sequence[Assumption] = (), alone: bool = False) -> str:
    """The rendering's line: ``a model of the assumptions: … (each assumption checked on it)``.

    The schematic indices of ``assumptions`` (the i of E[qᵢ] = 0) are not shown. With
    ``alone`` (:func:`model_found`), the world is one of the assumptions' symbolic
    statements read at a small dimension, not at the claim's own values (dₖ = 64 is too
    large to enumerate): the line says so.
    """
    hide = {i for a in assumptions for i in getattr(a, "indices", ())}
    if alone:
        return (
            "a model of the assumptions as stated symbolically, read at a small dimension"
            " (the claim's own law is too large to enumerate, so its values, such as a"
            f" given dₖ, are not those of this model): {describe(world, hide)}"
            " (each assumption checked on it at that dimension)"
        )
    return f"a model of the assumptions: {describe(world, hide)} (each assumption checked on it)"


def confirmed_counterexample(
    lhs: Any, rhs: Any, world: World | None, assumptions: Sequence[Assumption]
) -> bool:
    """Whether ``world`` satisfies every assumption and the two sides differ in it."""
    if world is None or check_world(world, tuple(assumptions)):
        return False
    return agree(sympy.sympify(lhs), sympy.sympify(rhs), world) == "differ"


def counterexample_world(
    lhs: Any,
    rhs: Any,
    assumptions: Sequence[Assumption],
    *,
    defined: Mapping[str, Any] | None = None,
    fixed: Mapping[Symbol, Fraction] | None = None,
    seed: int = 0,
    tries: int = MODEL_TRIES // 2,
) -> World | None:
    """A world of the search in which both sides differ and every assumption holds, or None.

    Each draw is checked by :func:`confirmed_counterexample` (the semantics on every
    assumption, independence included, then on the two sides). ``fixed`` values some
    symbols must take (a trial value at which a closed form separates the sides).
    """
    chooser, fixed = RandomChooser(seed), dict(fixed or {})
    for _ in range(tries):
        try:
            world, why = draw_world(
                [lhs, rhs], tuple(assumptions), chooser, defined=defined, fixed=fixed, shrink=True
            )
        except (TypeError, ValueError, ArithmeticError, RecursionError):
            return None
        kept = world is not None and all(world.values.get(s) == v for s, v in fixed.items())
        if kept and confirmed_counterexample(lhs, rhs, world, assumptions):
            return world
        if why == TOO_LARGE:
            return None
    return None


_WITHHELD: dict[int, tuple[Any, str, str]] = {}


def withheld(audit: Any) -> str:
    """Why the kernel's acceptance of ``audit`` is no verdict: "" when it stands.

    The kernel checks steps, not contexts: from assumptions no model satisfies
    (E[2X] = 3 and E[X] = 1) it accepts 3 = 2. A renderer asks this before it prints
    VERIFIED: an accepted derivation whose declared assumptions have no model found
    here is UNDECIDED. "" for a rejected derivation, or one with no assumptions.
    """
    if audit.theorem is None:
        return ""
    return context_withheld(audit.derivation)


def context_withheld(d: Any) -> str:
    """:func:`withheld` for a derivation the kernel accepted (a Theorem's, say)."""
    return context_model(d)[1]


def known_model(d: Any) -> tuple[str, str] | None:
    """:func:`context_model`'s answer for ``d`` if it was found in this process, else None."""
    cached = _WITHHELD.get(id(d))
    return (cached[1], cached[2]) if cached is not None and cached[0] is d else None


def remember_model(d: Any, line: str, reason: str) -> None:
    """Keep ``(line, reason)`` as :func:`context_model`'s answer for ``d`` (a model found)."""
    _WITHHELD[id(d)] = (d, line, reason)


def context_model(d: Any) -> tuple[str, str]:
    """(the model line, why the verdict is withheld) of a derivation the kernel accepted.

    ("", "") when it has no assumptions (nothing to model); (``a model of the
    assumptions: …``, "") when the search finds one; ("", :data:`NO_MODEL`) when it
    finds none. Kept by identity, so each derivation is searched once per process.
    """
    if not d.assumptions:
        return "", ""
    known = known_model(d)
    if known is not None:
        return known
    statement = d.statement
    terms = [
        t
        for t in (getattr(statement, "lhs", None), getattr(statement, "rhs", None))
        if isinstance(t, sympy.Expr)
    ]
    try:
        world, alone = model_found(terms, d.assumptions)
    except Exception:  # a context the drawer cannot read: no model found
        world, alone = None, False
    line = "" if world is None else model_line(world, d.assumptions, alone)
    reason = "" if world is not None else NO_MODEL
    _WITHHELD[id(d)] = (d, line, reason)
    return line, reason
