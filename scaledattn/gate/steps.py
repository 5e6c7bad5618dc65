"""Every accepted step true on models: the gate's second half, behind the kernel's word.

Before a VERIFIED, :func:`check_steps` evaluates both sides of every step of the
derivation (the user's, the calculator's, the verifier's, a cited theorem's instance) in
a few models of its context drawn by :func:`~scaledattn.numeric.worlds.draw_world` and
checked by the semantics: one with every choice at its low end (dimension 1, index 1, an
integer symbol at the lowest value its facts allow, a positive constant at 1/2, a coin),
one with every choice nearest 0 (an integer symbol at 0 where its facts allow; not drawn
when no choice could go below 0, since it would be the low edge's), one at
the high end (the last index, the largest value tried, a point mass), and a random one.
A step whose two sides have different values in such a model is false there, whatever
the kernel said: :class:`~scaledattn.errors.SoundnessAlarm` names the step, its rule and
the model, and the verdict is withheld (exit 70, "please report"). The semantics shares
no code with the rules, so a hole in a rule does not hide behind the same mistake in its
judge.

A step by an axiom (``axiom(...)``, a rule taken on trust, the verdict "verified modulo
an axiom") or by a cited theorem resting on one is not an alarm when false in a model:
the kernel never checked it, so it is no hole in the kernel (``check``'s numeric
witnesses say DIFFER for it, exit 1).

A chain naming a numeric dimension above 6 (q·k of dimension 64) is not evaluated: its
law has too many outcomes to enumerate. A side the semantics cannot evaluate in a model
(a limit that has not converged, an index beyond its vector) says nothing; a side
undefined where the other is defined is not an alarm either (the kernel's definedness
conditions are its own business).

Examples
--------
>>> from scaledattn.derive import calc
>>> from scaledattn.kernel import E, Var, random_variables
>>> from scaledattn.kernel.rules import variance_def
>>> (X,) = random_variables("X")
>>> d = calc("v", Var(X), E(X**2) - E(X)**2).eq(E(X**2) - E(X)**2, by=variance_def).qed()
>>> check_steps(d) is None
True
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sympy.logic.boolalg import Boolean

from scaledattn.errors import SoundnessAlarm
from scaledattn.gate import models
from scaledattn.gate.models import describe, too_large
from scaledattn.kernel import Axiom, Derivation
from scaledattn.numeric.semantics import World, compare, meanings, value
from scaledattn.numeric.semantics import show as show_number
from scaledattn.numeric.worlds import TOO_LARGE, draw_world

__all__ = ["STEP_WORLDS", "EdgeChooser", "check_steps", "kept_alarm", "step_alarm", "theorem_gate"]

#: Models each derivation's steps are evaluated in (distinct ones): the low edge, the values
#: nearest 0, the high edge, then random ones.
STEP_WORLDS = 3
#: Draws allowed to find those models (a draw the semantics rejects is drawn again).
MAX_DRAWS = 12


@dataclass
class EdgeChooser:
    """Choices at the low end (``edge = "low"``), nearest 0, the high end, or random."""

    edge: str
    rng: random.Random
    #: Whether a choice had a negative low end (else "zero" chooses exactly as "low").
    negative: bool = False

    def integer(self, lo: int, hi: int) -> int:
        """lo, the value of lo..hi nearest 0, hi, or a random integer in lo..hi."""
        self.negative = self.negative or lo < 0
        if self.edge == "low":
            return lo
        if self.edge == "zero":
            return min(max(0, lo), hi)
        if self.edge == "high":
            return hi
        return self.rng.randint(lo, hi)


def _worlds(terms: Sequence[Any], derivation: Derivation, seed: int) -> list[World]:
    rng = random.Random(seed)
    choosers = [EdgeChooser(e, rng) for e in ("low", "zero", "high")]
    found: list[World] = []
    draws = 0
    while len(found) < STEP_WORLDS and draws < MAX_DRAWS:
        chooser = choosers[draws] if draws < len(choosers) else EdgeChooser("random", rng)
        draws += 1
        if chooser.edge == "zero" and not choosers[0].negative:
            continue  # every low end was ≥ 0: the same draw as the low edge's
        try:
            world, why = draw_world(terms, derivation.assumptions, chooser, shrink=True)
        except (TypeError, ValueError, ArithmeticError, RecursionError):
            return found
        if why == TOO_LARGE:  # a numeric dimension past what the semantics enumerates
            return found
        if world is not None and all(world != w for w in found):
            found.append(world)
    return found


def _chain(derivation: Derivation) -> list[Any]:
    return [derivation.start, *(s.claim for s in derivation.steps)]


def _rule_name(rule: Any) -> str:
    return str(getattr(rule, "name", rule))


def step_alarm(derivation: Derivation, *, seed: int = 0) -> str:
    """'' when every step agrees on the models drawn; else the alarm's text (step, model)."""
    return _judged(derivation, seed)[0]


def _judged(derivation: Derivation, seed: int) -> tuple[str, list[World]]:
    """(:func:`step_alarm`'s text, the models of the context the steps were evaluated in)."""
    chain = _chain(derivation)
    terms = [t for t in chain if not isinstance(t, Boolean)]
    if len(chain) < 2 or too_large(terms):  # no law small enough to enumerate: not judged
        return "", []
    worlds = _worlds(terms, derivation, seed)
    for world in worlds:
        found = meanings(chain, world)  # each term once per world, moments shared
        for n, (prev, claim) in enumerate(itertools.pairwise(chain), 1):
            if compare(found[n - 1], found[n]) != "differ":
                continue
            if _on_trust(derivation.steps[n - 1].rule):
                continue  # the author's axiom is false here, not the kernel: not an alarm
            rule = _rule_name(derivation.steps[n - 1].rule)
            return (
                f"soundness alarm: step {n} of {derivation.name} (by {rule}) is false in a"
                f" model of its assumptions: {describe(world)}; there {prev} is"
                f" {_shown(prev, world)} and {claim} is {_shown(claim, world)}. The kernel"
                " accepted it, so the verdict is withheld (please report it)"
            ), worlds
    return "", worlds


def theorem_gate(derivation: Derivation) -> tuple[str, str, str]:
    """(model line, why the verdict is withheld, step alarm) of a derivation the kernel accepted.

    Both halves of the gate at once, as ``check`` asks them of each built-in theorem: the
    model line is :func:`~scaledattn.gate.models.context_model`'s, the one a warm
    ``check`` finds again (the theorem cache never supplies it). The results are kept
    as :func:`kept_alarm` and :func:`~scaledattn.gate.models.context_model` keep theirs.
    """
    alarm = kept_alarm(derivation)  # (kept: no second evaluation in this process)
    line, reason = models.context_model(derivation)
    return line, reason, alarm


def _on_trust(rule: Any) -> bool:
    """Whether a step's rule is an axiom, or a cited theorem resting on one (unchecked)."""
    return isinstance(rule, Axiom) or bool(getattr(rule, "axioms", None))


def _shown(term: Any, world: World) -> str:
    if isinstance(term, Boolean):
        return "a proposition"
    try:
        return show_number(value(term, world))
    except Exception:  # a random term, or one the semantics cannot evaluate: display only
        return "random" if world.outcomes else "undefined"


#: Derivations whose steps passed (by identity, the derivation kept alive with its entry).
_PASSED: dict[int, Derivation] = {}
_PASSED_KEPT = 2048


def kept_alarm(derivation: Derivation, *, seed: int = 0) -> str:
    """:func:`step_alarm`, a derivation whose steps passed kept by identity (checked once).

    ``check``, ``check-proof`` and the test of the library's lemmas ask it of the same
    built-in derivations: the first asks, the others read the answer.
    """
    if _PASSED.get(id(derivation)) is derivation:
        return ""
    alarm = step_alarm(derivation, seed=seed)
    if alarm:
        return alarm
    if len(_PASSED) >= _PASSED_KEPT:
        _PASSED.clear()
    _PASSED[id(derivation)] = derivation
    return ""


def check_steps(derivation: Derivation, *, seed: int = 0) -> None:
    """None when every step agrees on the models drawn; else raise SoundnessAlarm."""
    alarm = kept_alarm(derivation, seed=seed)
    if alarm:
        raise SoundnessAlarm(alarm)
