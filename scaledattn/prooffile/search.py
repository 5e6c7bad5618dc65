"""Finding the rule (or short chain of rules) behind a step the learner wrote without ``by``.

Untrusted: the search only *proposes*. Every step it reports is a kernel step,
checked by :func:`scaledattn.kernel.theorem.check_step` under the theorem's declared
assumptions, and the theorem itself is made by the kernel's ``audit`` of the chain
with the proposed steps written in.

The search, in order, within a time budget:

1. one rule or proved theorem that takes the previous expression to the claim
   (``ring`` first, then every registered rule, then the theorems);
2. a chain of at most :data:`MAX_CHAIN` rules: the claims automation
   (:func:`scaledattn.automation.rewrite.normalize`) rewrites both sides towards a
   normal form, and when the two meet in at most that many steps the chain is the
   justification; failing that, every rule followed by every rule;
3. a *gap*: when the two sides meet only after more steps, the step is true but
   too big; the longer chain, checked step by step, bridges it.

To spend the budget on candidates that may pass, the search applies a primitive rule
itself and replays the kernel's test of acceptance (:meth:`Search.may_pass`), and cites
a theorem only where a part of the step has the normal form of its left side; it asks
the kernel about the rest. This only leaves candidates out (a replay that disagreed
with the kernel would miss a justification, never make one): every step of every
built-in theorem passes it (tests/prooffile/test_check_proof.py).

One of three automations that write derivations, apart on purpose: this one fills a
gap between two expressions a learner wrote, with
:mod:`scaledattn.automation.rewrite`'s chains (which decides whole identities by a
normal form) and single rules; :mod:`scaledattn.moments.build` writes the lesson's
fixed routes for a setting.

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
from sympy.core.parameters import evaluate
from sympy.logic.boolalg import Boolean

from scaledattn.automation.rewrite import Chain, Environment, normalize
from scaledattn.automation.rewrite import key as _automation_key
from scaledattn.kernel import (
    RULES,
    Assumption,
    Derivation,
    Equation,
    Equivalence,
    Rule,
    Step,
    StepResult,
    Theorem,
)
from scaledattn.kernel.expr import MOMENT_OPERATORS, as_term, normal_form, rebuild
from scaledattn.kernel.rules import is_registered
from scaledattn.kernel.theorem import check_step
from scaledattn.prooffile.caps import MAX_EXPANSION, expanded_size

__all__ = [
    "MAX_CHAIN",
    "MAX_CHECKS",
    "SECONDS",
    "Citation",
    "Justification",
    "Search",
    "chain_of",
]

#: A step may be justified by a chain of at most this many rules; longer is a gap.
MAX_CHAIN = 2
#: Time budget (seconds) of the exhaustive two-rule search for one step.
SECONDS = 3.0
#: At most this many kernel checks in the two-rule search for one step (a bound that
#: does not depend on the machine's speed, so a report is the same everywhere).
MAX_CHECKS = 2000


#: The claims automation's chains, by term and assumptions (see :func:`chain_of`).
_CHAINS: dict[tuple[Any, tuple[Assumption, ...]], Chain] = {}
#: At most this many chains are kept; then the table starts again.
MAX_CHAINS = 2000


def chain_of(expr: Any, assumptions: tuple[Assumption, ...]) -> Chain:
    """``normalize(expr, Environment(assumptions))``, computed once per term and assumptions.

    The search bridges a step from both of its sides, and the feedback on a rejected step
    rewrites the same sides again (issue 13: half of these were recomputed). The chain is
    a function of the term and the assumptions alone (no lemmas); it is only a proposal,
    which the kernel checks step by step.
    """
    assumptions = tuple(assumptions)
    if not isinstance(expr, sympy.Basic):
        return normalize(expr, Environment(assumptions))
    at = (expr, assumptions)
    try:
        found = _CHAINS.get(at)
    except TypeError:  # an assumption or term that cannot be hashed
        return normalize(expr, Environment(assumptions))
    if found is None:
        found = normalize(expr, Environment(assumptions))
        if len(_CHAINS) >= MAX_CHAINS:
            _CHAINS.clear()
        _CHAINS[at] = found
    return found


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
    _applied: dict[tuple[Any, str], Any] = field(default_factory=dict, init=False, repr=False)
    _parts: dict[Any, frozenset[Any] | None] = field(default_factory=dict, init=False, repr=False)

    @property
    def checks(self) -> int:
        """The kernel checks this search has made (or counted as made) so far."""
        return self._checks

    # ---------------------------------------------------------- candidates
    def candidates(self, prev: Any, claim: Any) -> list[Any]:
        """``ring``, every rule, then the theorems whose left side's head occurs here.

        A theorem is a :class:`Citation` (its name and statement): a built-in one is proved
        by the kernel only when a step is checked with it (:meth:`theorem`), so the
        candidates a step's terms rule out cost no proof.
        """
        rules: list[Any] = [RULES["ring"], *(r for n, r in RULES.items() if n != "ring")]
        heads = _heads(prev) | _heads(claim)
        statement_of = getattr(self.theorems, "statement", None)
        for name in self.theorems:
            if name == self.derivation.name:
                continue
            statement = statement_of(name) if statement_of else self.theorems[name].statement
            lhs = getattr(statement, "lhs", None)
            if lhs is not None and type(rebuild(lhs)) in heads:
                rules.append(Citation(name, statement))
        return rules

    def theorem(self, rule: Any) -> Any:
        """The rule or theorem a candidate stands for (None: a theorem the kernel cannot prove)."""
        if not isinstance(rule, Citation):
            return rule
        try:
            return self.theorems[rule.name]
        except KeyError:  # a derivation the kernel does not prove: not citable
            return None

    def check(self, prev: Any, rule: Any, claim: Any, number: int) -> StepResult:
        """The kernel's verdict on ``prev = claim`` by ``rule`` (a rule, theorem or citation)."""
        self._checks += 1
        by = self.theorem(rule)
        if by is None:  # pragma: no cover - callers resolve a citation first
            raise KeyError(rule.name)
        return check_step(prev, Step(by, claim), number, self.derivation, self.theorems)

    # A registered primitive rule in a chain of equalities is applied here as the kernel's
    # step check applies it, and the check's test of acceptance is replayed, to leave out
    # the candidates the kernel would refuse without asking it: its refusal explains
    # itself (the hints, the numeric witnesses), which is most of what a refused candidate
    # costs (issue 13). Only a proposal is made here; every step taken is the kernel's.

    def _primitive(self, rule: Any, *terms: Any) -> bool:
        """Whether ``rule`` is a registered primitive rule to apply here to ``terms``."""
        if isinstance(self.derivation.statement, Equivalence):
            return False
        return is_registered(rule) and all(isinstance(t, sympy.Expr) for t in terms)

    def applied(self, term: Any, rule: Rule) -> Any:
        """``rule.apply(term)`` in the derivation's context (kept); ``_FAILED`` if it raises."""
        at = (term, rule.name)
        try:
            return self._applied[at]
        except KeyError:
            pass
        try:
            value = rule.apply(term, self.derivation.context)[0]
        except Exception:  # the kernel's check refuses such a term
            value = _FAILED
        if value is not _FAILED and expanded_size(value) > MAX_EXPANSION:
            value = _FAILED  # comparing it would expand it: no candidate (caps.py)
        self._applied[at] = value
        return value

    def derived(self, prev: Any, rule: Any, number: int) -> Any:
        """What ``rule`` makes of ``prev`` (the ``derived`` of the kernel's step check), or None.

        Counts as one check.
        """
        if self._primitive(rule, prev):
            self._checks += 1
            value = self.applied(prev, rule)
            return None if value is _FAILED else value
        if isinstance(rule, Citation) and (
            not self._rewrites(rule.statement, prev) or self.theorem(rule) is None
        ):  # the theorem leaves prev as it is (or is not citable): nothing derived
            self._checks += 1
            return None
        return self.check(prev, rule, prev, number).derived

    def may_pass(self, prev: Any, rule: Any, claim: Any) -> bool:
        """False when the kernel's check of ``prev = claim`` by ``rule`` is sure to refuse it.

        The kernel accepts when the rule's result on ``prev`` equals the claim, or its
        result on the claim equals ``prev`` or that result, equality being a zero
        difference of normal forms (``same`` is True).
        """
        if isinstance(rule, (Theorem, Citation)):
            return self._theorem_may_pass(prev, rule.statement, claim)
        if not self._primitive(rule, prev, claim):
            return True
        derived = self.applied(prev, rule)
        if derived is _FAILED:
            return False
        if _zero(derived, claim):
            return True
        back = self.applied(claim, rule)
        return back is not _FAILED and (_zero(prev, back) or _zero(derived, back))

    def _theorem_may_pass(self, prev: Any, statement: Any, claim: Any) -> bool:
        """False when citing the theorem stated ``statement`` for ``prev = claim`` must fail.

        The kernel rewrites with a theorem only a part of a term whose normal form is that
        of the theorem's left side; when no part of ``prev`` or of the claim is one, both
        stay as they are, and the kernel accepts only if ``prev`` and the claim are equal
        as they stand.
        """
        if isinstance(self.derivation.statement, Equivalence):
            return True
        if not (isinstance(prev, sympy.Expr) and isinstance(claim, sympy.Expr)):
            return True
        if self._rewrites(statement, prev) or self._rewrites(statement, claim):
            return True
        return _zero(prev, claim)

    def _rewrites(self, statement: Any, term: Any) -> bool:
        """False when no part of ``term`` has the normal form of ``statement``'s left side.

        Then the kernel's rewriting with the theorem leaves ``term`` as it is.
        """
        if isinstance(self.derivation.statement, Equivalence) or not isinstance(term, sympy.Expr):
            return True
        try:
            target = normal(as_term(statement.lhs if isinstance(statement, Equation) else 0))
        except Exception:  # the kernel decides what it makes of such a theorem
            return True
        parts = self._part_keys(term)
        return parts is None or target in parts

    def _part_keys(self, term: Any) -> frozenset[Any] | None:
        """The normal forms of every compound part of ``term`` as evaluated (kept), or None."""
        try:
            return self._parts[term]
        except KeyError:
            pass
        except TypeError:  # a term SymPy cannot hash
            return None
        try:
            found: frozenset[Any] | None = frozenset(
                normal(part)
                for part in sympy.preorder_traversal(rebuild(term))
                if isinstance(part, sympy.Expr) and part.args and not part.is_Atom
            )
        except Exception:  # parts the search cannot take apart: no filter
            found = None
        self._parts[term] = found
        return found

    def checked(self, prev: Any, rule: Any, claim: Any, number: int) -> StepResult | None:
        """The kernel's verdict, when :meth:`may_pass`; else None (counted as a check)."""
        if self.may_pass(prev, rule, claim) and self.theorem(rule) is not None:
            return self.check(prev, rule, claim, number)
        self._checks += 1
        return None

    # -------------------------------------------------------------- search
    def one_rule(self, prev: Any, claim: Any, number: int) -> Justification | None:
        """A single rule or theorem that justifies the step."""
        for rule in self.candidates(prev, claim):
            result = self.checked(prev, rule, claim, number)
            if result is not None and result.ok:
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
            middle = self.derived(prev, first, number)
            if middle is None or key(middle) in seen:
                continue
            seen.add(key(middle))
            opening = self.check(prev, first, middle, number)
            if not opening.ok:
                continue
            for second in candidates:
                if time.monotonic() > deadline or self._checks > budget:
                    return None
                closing = self.checked(middle, second, claim, number + 1)
                if closing is not None and closing.ok:
                    return Justification("chain", (opening, closing))
        return None

    def bridge(self, prev: Any, claim: Any, number: int) -> Justification | None:
        """A longer chain (the claims automation from both sides), each step kernel-checked."""
        assumptions = tuple(self.derivation.assumptions)
        try:
            left, right = chain_of(prev, assumptions), chain_of(claim, assumptions)
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
        deadline = time.monotonic() + self.seconds
        for rule in self.candidates(prev, claim)[1:]:
            if time.monotonic() > deadline:  # the closest found so far (feedback only)
                break
            derived = self.derived(prev, rule, number)
            if derived is None or key(derived) == key(prev):
                continue
            try:
                size = sympy.count_ops(sympy.expand(key(derived) - target))
            except TypeError:
                continue
            if best is None or size < best[0]:
                best = (size, rule)
        # the kernel's verdict on the step by the closest rule (its result, and why not)
        return self.check(prev, best[1], claim, number) if best else None


#: ``automation.rewrite.key`` of the propositions the search compares, kept per process:
#: each candidate is compared with the same claim and previous expression. (The kernel
#: keeps normal forms itself; a proposition's key is not its normal form.)
_KEYS: dict[Any, Any] = {}
#: At most this many are kept; then the table starts again.
MAX_KEYS = 20000


def _kept(table: dict[Any, Any], term: Any, compute: Any) -> Any:
    if not isinstance(term, sympy.Basic):
        return compute(term)
    try:
        return table[term]
    except KeyError:
        pass
    except TypeError:  # a term SymPy cannot hash
        return compute(term)
    if len(table) >= MAX_KEYS:
        table.clear()
    found = table[term] = compute(term)
    return found


def key(term: Any) -> Any:
    """``automation.rewrite.key(term)``: a proposition's key, or the normal form (kept)."""
    if isinstance(term, Boolean):
        return _kept(_KEYS, term, _automation_key)
    return normal(term)  # what automation.key computes for a term that is no proposition


def normal(term: Any) -> Any:
    """The kernel's ``normal_form(term)`` (which the kernel keeps per term)."""
    return normal_form(term)


#: What :meth:`Search.applied` keeps for a rule that raised on a term.
_FAILED = object()


@dataclass(frozen=True)
class Citation:
    """A theorem the search may cite, by name and statement, not proved yet."""

    name: str
    statement: Any


def _zero(a: Any, b: Any) -> bool:
    """Whether the normal forms of ``a`` and ``b`` differ by 0 (``same(a, b)`` is True)."""
    try:
        diff = normal(a) - normal(b)
        with evaluate(True):
            return bool(sympy.expand(diff) == 0)
    except Exception:  # the kernel's check refuses what it cannot compare
        return False


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
