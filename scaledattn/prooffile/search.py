"""Finding the rule (or short chain of rules) behind a step the learner wrote without ``by``.

Untrusted: the search only *proposes*. Every step it reports is a kernel step,
checked by :func:`scaledattn.kernel.theorem.check_step` under the theorem's declared
assumptions, and the theorem itself is made by the kernel's ``audit`` of the chain
with the proposed steps written in.

The search, in order, within a time budget:

1. one rule or proved theorem that takes the previous expression to the claim
   (``ring`` first, then every registered rule, then the theorems);
2. a chain of at most :data:`MAX_CHAIN` rules: the claims automation
   (:func:`scaledattn.claims.automation.normalize`) rewrites both sides towards a
   normal form, and when the two meet in at most that many steps the chain is the
   justification; failing that, every rule followed by every rule;
3. a *gap*: when the two sides meet only after more steps, the step is true but
   too big; the longer chain, checked step by step, bridges it.

Examples
--------
>>> from scaledattn.kernel import Derivation, Equation, Var, E, random_variables
>>> X, Y = random_variables("X Y")
>>> d = Derivation("t", Equation(Var(X), E(X**2) - E(X)**2), ())
>>> found = Search(d, {}).justify(Var(X), E(X**2) - E(X)**2, 1)
>>> found.kind, found.rule_names
('rule', ('variance_def',))
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sympy

from scaledattn.claims.automation import Environment, key, normalize
from scaledattn.kernel import RULES, Derivation, Step, StepResult, Theorem
from scaledattn.kernel.expr import MOMENT_OPERATORS, rebuild
from scaledattn.kernel.theorem import check_step

__all__ = ["MAX_CHAIN", "MAX_CHECKS", "SECONDS", "Justification", "Search"]

#: A step may be justified by a chain of at most this many rules; longer is a gap.
MAX_CHAIN = 2
#: Time budget (seconds) of the exhaustive two-rule search for one step.
SECONDS = 3.0
#: At most this many kernel checks in the two-rule search for one step (a bound that
#: does not depend on the machine's speed, so a report is the same everywhere).
MAX_CHECKS = 2000


@dataclass(frozen=True)
class Justification:
    """Kernel-checked steps from the previous expression to the claim.

    ``kind`` is 'rule' (one step), 'chain' (at most MAX_CHAIN steps) or 'gap' (more).
    """

    kind: str
    results: tuple[StepResult, ...]

    @property
    def steps(self) -> tuple[Step, ...]:
        """The kernel steps, in order."""
        return tuple(r.step for r in self.results)

    @property
    def rule_names(self) -> tuple[str, ...]:
        """The rules used, in order."""
        return tuple(r.rule_name for r in self.results)


@dataclass
class Search:
    """The search for one theorem: its derivation (name, assumptions) and citable theorems."""

    derivation: Derivation
    theorems: Mapping[str, Theorem]
    seconds: float = SECONDS
    _checks: int = field(default=0, init=False)

    # ---------------------------------------------------------- candidates
    def candidates(self, prev: Any, claim: Any) -> list[Any]:
        """``ring``, every rule, then the theorems whose left side's head occurs here."""
        rules: list[Any] = [RULES["ring"], *(r for n, r in RULES.items() if n != "ring")]
        heads = _heads(prev) | _heads(claim)
        statement_of = getattr(self.theorems, "statement", None)
        for name in self.theorems:
            if name == self.derivation.name:
                continue
            statement = statement_of(name) if statement_of else self.theorems[name].statement
            lhs = getattr(statement, "lhs", None)
            if lhs is not None and type(rebuild(lhs)) in heads:
                try:
                    rules.append(self.theorems[name])
                except KeyError:  # a derivation the kernel does not prove: not citable
                    continue
        return rules

    def check(self, prev: Any, rule: Any, claim: Any, number: int) -> StepResult:
        """The kernel's verdict on ``prev = claim`` by ``rule``."""
        self._checks += 1
        return check_step(prev, Step(rule, claim), number, self.derivation, self.theorems)

    # -------------------------------------------------------------- search
    def one_rule(self, prev: Any, claim: Any, number: int) -> Justification | None:
        """A single rule or theorem that justifies the step."""
        for rule in self.candidates(prev, claim):
            result = self.check(prev, rule, claim, number)
            if result.ok:
                return Justification("rule", (result,))
        return None

    def justify(self, prev: Any, claim: Any, number: int) -> Justification | None:
        """The shortest justification found: one rule, a short chain, or a gap's chain."""
        found = self.one_rule(prev, claim, number)
        if found is not None:
            return found
        bridge = self.bridge(prev, claim, number)
        if bridge is not None and len(bridge.results) <= MAX_CHAIN:
            return Justification("chain", bridge.results)
        pair = self.two_rules(prev, claim, number)
        if pair is not None:
            return pair
        return bridge

    def two_rules(self, prev: Any, claim: Any, number: int) -> Justification | None:
        """Rule r₁ on the previous expression, then a rule r₂ that reaches the claim."""
        deadline = time.monotonic() + self.seconds
        budget = self._checks + MAX_CHECKS
        candidates = self.candidates(prev, claim)
        seen = {key(prev)}
        for first in candidates[1:]:
            if time.monotonic() > deadline or self._checks > budget:
                return None
            step = self.check(prev, first, prev, number)
            middle = step.derived
            if middle is None or key(middle) in seen:
                continue
            seen.add(key(middle))
            opening = self.check(prev, first, middle, number)
            if not opening.ok:
                continue
            for second in candidates:
                if time.monotonic() > deadline or self._checks > budget:
                    return None
                closing = self.check(middle, second, claim, number + 1)
                if closing.ok:
                    return Justification("chain", (opening, closing))
        return None

    def bridge(self, prev: Any, claim: Any, number: int) -> Justification | None:
        """A longer chain (the claims automation from both sides), each step kernel-checked."""
        env = Environment(tuple(self.derivation.assumptions))
        try:
            left, right = normalize(prev, env), normalize(claim, env)
        except Exception:  # automation is untrusted; no chain, no claim
            return None
        meeting = _meeting(
            [key(prev), *(key(c) for c, _, _ in left.steps)],
            [key(claim), *(key(c) for c, _, _ in right.steps)],
        )
        if meeting is None:
            return None
        a, b = meeting
        path: list[tuple[Any, Any]] = [(c, by) for c, by, _ in left.steps[:a]]
        backward = [claim, *(c for c, _, _ in right.steps)]
        for n in range(b, 0, -1):  # undo the right side's steps, from the meeting point
            path.append((backward[n - 1], right.steps[n - 1][1]))
        if not path:
            path.append((claim, "ring"))
        results: list[StepResult] = []
        current = prev
        for target, rule in path:
            name = getattr(rule, "name", rule)
            by = self.theorems.get(str(name), rule) if not hasattr(rule, "local") else rule
            result = self.check(current, by, target, number + len(results))
            if not result.ok:
                return None
            results.append(result)
            current = target
        if key(current) != key(claim):
            return None
        results = _without_idle(results)
        return Justification("gap", tuple(results))

    def nearest(self, prev: Any, claim: Any, number: int) -> StepResult | None:
        """The rule whose result is closest to the claim (for the feedback on a wrong step)."""
        best: tuple[int, StepResult] | None = None
        target = key(claim)
        for rule in self.candidates(prev, claim)[1:]:
            result = self.check(prev, rule, claim, number)
            derived = result.derived
            if derived is None or key(derived) == key(prev):
                continue
            try:
                size = sympy.count_ops(sympy.expand(key(derived) - target))
            except TypeError:
                continue
            if best is None or size < best[0]:
                best = (size, result)
        return best[1] if best else None


def _meeting(left: list[Any], right: list[Any]) -> tuple[int, int] | None:
    """The first place (a, b), fewest steps a + b, where the two chains reach the same form."""
    found: tuple[int, int] | None = None
    for a, x in enumerate(left):
        for b, y in enumerate(right):
            if x == y and (found is None or a + b < sum(found)):
                found = (a, b)
    return found


def _without_idle(results: list[StepResult]) -> list[StepResult]:
    """Drop ring steps that change nothing between two other steps."""
    kept: list[StepResult] = []
    for r in results:
        if kept and r.rule_name == "ring" and key(r.step.claim) == key(kept[-1].step.claim):
            continue
        kept.append(r)
    return kept


def _heads(expr: Any) -> set[type]:
    nodes = list(sympy.preorder_traversal(rebuild(expr)))
    return {type(n) for n in nodes if n.args} | {
        t for t in MOMENT_OPERATORS if any(isinstance(n, t) for n in nodes)
    }
