"""The verifier: a claim holds (VERIFIED, COMPUTED, CONSISTENT), is REFUTED or UNDECIDED.

A claim that holds gets the word of its standard; a refuted one its right value or a
counterexample.


- ``a = b`` is an identity. The automation (:mod:`scaledattn.automation.rewrite`)
  writes a derivation from a to b and the kernel checks it: VERIFIED only on the
  kernel's word. When both sides reduce to closed forms that differ, REFUTED with
  the left side's checked closed form and values of the constants where the two
  differ; when they reduce to moments of arbitrary variables, REFUTED only with a
  counterexample (:mod:`scaledattn.automation.counterexample`).
- ``a ≈ 0.659`` compares numbers: the written side's digits give the tolerance
  (0.659 means ± 0.0005, 39 means ± 0.5, lists elementwise) and the other side is
  enclosed in an interval (:mod:`scaledattn.claims.numbers`): COMPUTED when it lies
  inside. With ``rounded(…)`` inputs the claim is COMPUTED when some values consistent
  with the rounding give the written result. ``measured(…) ≈ x`` is decided
  statistically (:mod:`scaledattn.claims.statistics`): CONSISTENT, with its p-value.
- ``a < b`` (and ``<=``, ``>``, ``>=``) is COMPUTED when it holds on the whole interval.
- ``A = a ⇔ c = r`` is an equivalence the kernel checks, as ``unique_scale``.
- ``theorem(NAME)``: the kernel verifies the derivation NAME.

Examples
--------
>>> verify("Var(X + Y) = Var(X) + Var(Y) + 2*Cov(X, Y)").verdict.value
'VERIFIED'
>>> r = verify("Var(X + Y) = Var(X) + Var(Y)")
>>> r.verdict.value, r.counterexample["model"]
('REFUTED', 'X ~ coin, Y = X')
>>> verify("Var(X + Y) = Var(X) + Var(Y)", ["independent(X, Y)"]).verdict.value
'VERIFIED'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

import sympy
from sympy import Eq, Expr, Symbol

from scaledattn.automation.consistency import inconsistency
from scaledattn.automation.counterexample import counterexample
from scaledattn.automation.rewrite import (
    Chain,
    derivation_of,
    equivalence_of,
    instance,
    normalize,
)
from scaledattn.automation.theorems import limit, proved
from scaledattn.claims.compare import (
    Comparisons,
    degenerate,
    derivation_evidence,
    moments_divided,
    nonzero_unknown,
    number_text,
    rules_of,
    short,
    show,
    unique,
)
from scaledattn.claims.numbers import (
    compare,
    enclose,
    show_number,
)
from scaledattn.claims.outcome import Evidence, Outcome, Result, Verdict
from scaledattn.claims.setup import Setup, prepare
from scaledattn.claims.syntax import parse_assumption, parse_claim, unparse
from scaledattn.claims.terms import Value, has_moments
from scaledattn.derive import audit_of
from scaledattn.errors import InvalidArgument, Undecided, Undefined
from scaledattn.gate import NO_MODEL, counterexample_world, describe, model_found, model_line
from scaledattn.kernel import (
    Assumption,
    Deriv,
    Equation,
    Lim,
    Moment,
    Positive,
    Softmax,
    Std,
    Var,
    same,
)
from scaledattn.kernel.expr import is_random, rebuild
from scaledattn.kernel.rules import prop_key
from scaledattn.numeric.semantics import check_world, truth, value
from scaledattn.numeric.semantics import show as show_value
from scaledattn.numeric.worlds import TOO_LARGE, RandomChooser, draw_world
from scaledattn.render.display import unicode_line

__all__ = ["verify"]


def _opaque(expr: Any) -> bool:
    """Whether ``expr`` holds a softmax weight, a derivative or a limit."""
    return isinstance(expr, sympy.Basic) and bool(expr.atoms(Softmax, Deriv, Lim))


def verify(
    claim: str,
    assume: Sequence[str] = (),
    *,
    seed: int = 0,
    trials: Mapping[str, int] | None = None,
    remedies: bool = True,
) -> Result:
    """Decide a claim under the lesson's defaults and the given assumptions.

    ``seed`` and ``trials`` (per experiment) apply to ``measured(…)``. Bad input
    raises InvalidArgument with a one-line message. A refuted identity also gets what
    would make it true (:mod:`scaledattn.claims.remedy`) unless ``remedies`` is False.
    """
    try:
        parsed = parse_claim(claim)
    except InvalidArgument as refusal:  # a bare term: offer its value, if one verifies
        from scaledattn.claims.remedy import completed

        raise completed(claim, assume, refusal, verify) from None
    try:
        setup = prepare(parsed, [parse_assumption(a) for a in assume])
        if parsed.kind == "theorem":
            _cite(setup, parsed.name)
        context = ClaimContext(setup, seed, dict(trials or {}))
        problem = inconsistency(setup.assumptions, context.defined, setup.scope.constants)
        if problem:
            outcomes = [
                Outcome(
                    Verdict.UNDECIDED,
                    reason=f"the assumptions are inconsistent ({problem}): no model satisfies"
                    " them, so nothing follows from them",
                )
            ]
        elif parsed.kind == "theorem":
            outcomes = [_theorem(parsed.name)]
        elif parsed.kind == "equivalence":
            outcomes = [context.equivalence()]
        else:
            outcomes = [context.link(relation, n) for n, relation in enumerate(parsed.relations)]
    except InvalidArgument:
        raise
    except (TypeError, ValueError, ArithmeticError) as err:
        # SymPy (or the kernel on a degenerate term such as 1/Cov(0, 0)) gave up.
        raise InvalidArgument(
            f"cannot decide {parsed.text!r}: {type(err).__name__}: {err}".splitlines()[0]
        ) from None
    outcomes, model = _gated(outcomes, setup, context)
    result = _result(parsed.text, setup, outcomes, model)
    if not remedies:
        return result
    from scaledattn.claims.remedy import with_remedies

    return with_remedies(parsed, assume, result, verify)  # it verifies its candidates again


def _gated(
    outcomes: list[Outcome], setup: Setup, context: ClaimContext
) -> tuple[list[Outcome], list[Evidence]]:
    """No verdict but UNDECIDED without a model of every assumption in force (the gate).

    VERIFIED, REFUTED, COMPUTED and CONSISTENT alike: a computation or a test under
    assumptions no model satisfies is as vacuous as a proof (``Var(X**2) < 0`` from
    E[X⁴] = 0 and E[X²] = 1). The model is drawn for the claim's random terms and
    moments (a claim about numbers alone needs one of the assumptions only) and checked
    by the semantics; none found leaves the claim UNDECIDED.
    """
    verdict = Verdict.combine(o.verdict for o in outcomes)
    if verdict is Verdict.UNDECIDED:
        return outcomes, []
    flat = [x for v in setup.sides for x in (v if isinstance(v, tuple) else (v,))]
    terms = [x for x in flat if has_moments(x) or is_random(x)]
    if not (terms or setup.assumptions):
        return outcomes, []  # numbers alone: nothing to model
    world, alone = model_found(terms, setup.assumptions, defined=context.defined, seed=context.seed)
    if world is None:
        reason = (
            f"{NO_MODEL} (the search draws small finite laws and checks each assumption"
            " on them), so the verdict is withheld"
        )
        return [Outcome(Verdict.UNDECIDED, reason=reason)], []
    return outcomes, [Evidence("model", model_line(world, setup.assumptions, alone))]


def _result(
    text: str, setup: Setup, outcomes: list[Outcome], model: Sequence[Evidence] = ()
) -> Result:
    verdict = Verdict.combine(o.verdict for o in outcomes)
    evidence: list[Evidence] = []
    for name in dict.fromkeys(setup.scope.limits):
        found = limit(name)
        evidence.append(
            Evidence(
                "theorem",
                f"lim({name}) = {unicode_line(found.value)}: the limit of {found.of} as one"
                f" score's lead grows, theorem {found.theorem} ({found.steps} steps, checked"
                " by the kernel)",
            )
        )
    several = len(outcomes) > 1
    if several:
        held = sum(1 for o in outcomes if o.verdict.holds)
        evidence.append(Evidence("note", f"{held} of the {len(outcomes)} relations hold"))
    for n, o in enumerate(outcomes, 1):
        for e in o.evidence:
            summary = f"relation {n}: {e.summary}" if several else e.summary
            evidence.append(Evidence(e.kind, summary, e.detail, e.data))
    evidence += [Evidence("computation", w) for w in dict.fromkeys(setup.scope.witnesses)]
    evidence += model
    refuted = [o for o in outcomes if o.verdict is Verdict.REFUTED]
    correct = "; ".join(o.correct for o in refuted if o.correct)
    counter = next((o.counterexample for o in refuted if o.counterexample), None)
    reason = "; ".join(o.reason for o in outcomes if o.verdict is Verdict.UNDECIDED and o.reason)
    tests = tuple(dict.fromkeys(_frozen(t) for o in outcomes for t in o.statistic))
    statistic = tuple(dict(t) for t in tests) if verdict is Verdict.CONSISTENT else ()
    return Result(
        text,
        verdict,
        tuple(setup.described),
        tuple(unique(evidence)),
        correct,
        counter,
        reason,
        statistic=statistic,
    )


def _frozen(test: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in test.items())


def _cite(setup: Setup, name: str) -> None:
    """Put a cited theorem's own assumptions in force beside the user's, and its sides.

    ``theorem(NAME)`` holds under NAME's assumptions only: the gate must find a model of
    those and of the user's lines together (``Cov(X, Y) = 1`` against the theorem's
    independent(X, Y) leaves no model: no verdict), and the header names them.
    """
    theorem, _, _ = proved(name)
    if theorem is None:
        return
    for assumption in theorem.derivation.assumptions:
        setup.add(assumption, note=f" (assumed by {name})")
    statement = theorem.statement
    if not setup.sides and isinstance(statement, Equation):
        setup.sides = [rebuild(statement.lhs), rebuild(statement.rhs)]


def _theorem(name: str) -> Outcome:
    theorem, steps, error = proved(name)
    if theorem is None:
        return Outcome(
            Verdict.UNDECIDED,
            reason=f"the kernel rejected the derivation {name}: {error}",
        )
    return Outcome(
        Verdict.VERIFIED,
        (
            Evidence(
                "theorem", f"{name}: {theorem.statement} — {steps} steps checked by the kernel"
            ),
        ),
    )


class ClaimContext(Comparisons):
    """One claim being decided: its setup, and the experiments' seed and sizes."""

    def __init__(self, setup: Setup, seed: int, trials: dict[str, int]) -> None:
        self.setup = setup
        self.seed = seed
        self.trials = trials
        self.ranges: dict[Symbol, tuple[Fraction, Fraction]] = {}
        self.measured: list[Evidence] = []
        self.statistics: list[dict[str, Any]] = []
        #: Whether divisors that may be 0 have been given fresh values (once only).
        self.conditioned = False
        scope = setup.scope
        self.defined: dict[str, Expr] = {
            name: scope.scalar(node, f"the definition of {name}")
            for name, node in scope.definitions.items()
        }

    # ------------------------------------------------------------ links
    def link(self, relation: str, n: int) -> Outcome:
        """The verdict on ``sides[n] relation sides[n + 1]``."""
        claim, sides = self.setup.claim, self.setup.sides
        left, right = sides[n], sides[n + 1]
        texts = (unparse(claim.sides[n]), unparse(claim.sides[n + 1]))
        if relation == "=":
            return self.identity_of(left, right, texts)
        if relation == "≈":
            return self.approximately(claim.sides[n], claim.sides[n + 1], left, right)
        return self.inequality(relation, left, right, texts)

    def identity_of(self, left: Value, right: Value, texts: tuple[str, str]) -> Outcome:
        """``left = right``, elementwise for lists."""
        if isinstance(left, tuple) or isinstance(right, tuple):
            if not (isinstance(left, tuple) and isinstance(right, tuple)):
                raise InvalidArgument("= compares a list only with a list of the same length")
            if len(left) != len(right):
                raise InvalidArgument(
                    f"= compares lists of different lengths ({len(left)}, {len(right)})"
                )
            parts = [
                self.identity(a, b, (f"{texts[0]}[{n}]", f"{texts[1]}[{n}]"))
                for n, (a, b) in enumerate(zip(left, right, strict=True), 1)
            ]
            merged = _merge(parts)
            if merged.verdict is Verdict.VERIFIED:
                rules = sorted({r for p in parts for e in p.evidence for r in rules_of(e)})
                summary = (
                    f"{texts[0]} = {texts[1]}: all {len(parts)} entries equal, each checked by"
                    f" the kernel ({', '.join(rules)})"
                )
                return Outcome(Verdict.VERIFIED, (Evidence("derivation", summary),))
            wrong = [str(n) for n, p in enumerate(parts, 1) if p.verdict is Verdict.REFUTED]
            if wrong:
                label = "entry" if len(wrong) == 1 else "entries"
                verb = "differs" if len(wrong) == 1 else "differ"
                note = Evidence("note", f"{label} {', '.join(wrong)} {verb}")
                return Outcome(merged.verdict, (note, *merged.evidence), merged.correct,
                               merged.counterexample, merged.reason)  # fmt: skip
            return merged
        return self.identity(left, right, texts)

    def identity_by_parts(
        self, lhs: Expr, rhs: Expr, parts: list[Expr], texts: tuple[str, str]
    ) -> Outcome:
        """An identity whose moments divide: each moment reduced by its own derivation first.

        The kernel takes a term only where it is defined: Std(a)/Std(b) needs Std(b) ≠ 0,
        which is known once Std(b) is reduced to its closed form.
        """
        try:
            closed, evidence, unknown = self.closed_moments(parts)
        except Undecided:  # Var(Y) of an arbitrary Y: no closed form
            return self.where_defined(lhs, rhs, parts, texts)
        divisors = {m: v for m, v in closed.items() if _divides(m, lhs) or _divides(m, rhs)}
        if unknown and nonzero_unknown(divisors, self.setup.assumptions):
            # Var(2X)/Var(X) with Var(X) = c: 4c/c is 4 only where c ≠ 0
            return self.where_defined(lhs, rhs, parts, texts)
        outcome = self.identity(lhs.xreplace(closed), rhs.xreplace(closed), texts)
        if outcome.verdict is not Verdict.VERIFIED:
            return replace(outcome, evidence=(*evidence, *outcome.evidence))
        evidence += outcome.evidence
        rules = sorted({r for e in evidence for r in rules_of(e)})
        summary = (
            f"{texts[0]} = {texts[1]}: {len(parts)} moments reduced, then the closed forms"
            f" compared, each step checked by the kernel ({', '.join(rules)})"
        )
        return replace(outcome, evidence=(Evidence("derivation", summary), *evidence))

    def where_defined(
        self, lhs: Expr, rhs: Expr, parts: list[Expr], texts: tuple[str, str]
    ) -> Outcome:
        """A quotient of moments where a divisor may be 0: decided where it is not.

        Each divisor without a closed form known ≠ 0 is declared equal to a fresh symbol,
        > 0 for a variance (≥ 0 always, so ≠ 0 means > 0; a standard deviation's variance
        likewise), ≠ 0 for another moment; a divisor whose closed form is a lone constant
        (Var(X) = c) gives that constant the sign instead. An identity the kernel proves
        for every value of the fresh symbols holds in particular at the divisors' own
        values: the claim holds in every model where each divisor is ≠ 0 (where one is 0,
        a side is undefined).
        """
        if self.conditioned:
            return Outcome(Verdict.UNDECIDED, reason="the kernel refused the reduction")
        divisors = [m for m in parts if _divides(m, lhs) or _divides(m, rhs)]
        extra: list[Assumption] = []
        conditions: list[str] = []
        for n, m in enumerate(divisors, 1):
            try:
                closed: Expr | None = self.reduce(m, show(m))[0]
            except Undecided:
                closed = None
            if closed is not None and not nonzero_unknown({m: closed}, self.setup.assumptions):
                continue
            conditions.append(f"{show(m)} ≠ 0")
            nonneg = isinstance(m, (Var, Std))
            if closed is None:
                fresh = (Symbol(f"v_{n}", positive=True) if nonneg
                         else Symbol(f"v_{n}", real=True, nonzero=True))  # fmt: skip
                extra.append(Moment(Var(m.args[0]) if isinstance(m, Std) else m, fresh))
            elif nonneg and isinstance(closed, Symbol) and closed.is_real is not False:
                extra.append(Positive(closed))
            else:
                return Outcome(
                    Verdict.UNDECIDED,
                    reason=f"{show(m)} = {show(closed)} may be 0, and it divides",
                )
        if not conditions:
            return self.known_divisors(lhs, rhs, divisors, texts)
        setup = replace(
            self.setup,
            assumptions=[*self.setup.assumptions, *extra],
            env=replace(self.setup.env, assumptions=(*self.setup.env.assumptions, *extra)),
        )
        inner = ClaimContext(setup, self.seed, self.trials)
        inner.conditioned = True
        outcome = inner.identity(lhs, rhs, texts)
        where = " and ".join(conditions)
        if outcome.verdict is not Verdict.VERIFIED:
            return Outcome(
                Verdict.UNDECIDED,
                reason=f"where {where} the automation could not decide it; where not, a"
                " side is undefined",
            )
        note = Evidence(
            "condition",
            f"holds where {where} (where not, a side is undefined): proved with each such"
            " divisor declared equal to an arbitrary value of its sign",
        )
        return replace(outcome, evidence=(note, *outcome.evidence))

    def known_divisors(
        self, lhs: Expr, rhs: Expr, divisors: list[Expr], texts: tuple[str, str]
    ) -> Outcome:
        """Every divisor has a closed form known ≠ 0 (Var(Y) = 1): each is replaced by it.

        Each closed form is proved by its own derivation (the kernel checks it); the
        identity of the sides with the divisors replaced is then decided as any other.
        Used when a numerator has no closed form (E(X)/Var(Y)), so the sides could not
        be reduced whole.
        """
        if not divisors:
            return Outcome(Verdict.UNDECIDED, reason="the kernel refused the reduction")
        try:
            closed, evidence, unknown = self.closed_moments(divisors)
        except Undecided:
            return Outcome(Verdict.UNDECIDED, reason="the kernel refused the reduction")
        if unknown:
            return Outcome(Verdict.UNDECIDED, reason=f"{unknown} may be 0, and it divides")
        outcome = self.identity(lhs.xreplace(closed), rhs.xreplace(closed), texts)
        if outcome.verdict is not Verdict.VERIFIED:
            return outcome
        evidence += outcome.evidence
        rules = sorted({r for e in evidence for r in rules_of(e)})
        summary = (
            f"{texts[0]} = {texts[1]}: each divisor reduced to a closed form known"
            f" ≠ 0, then the sides compared, each step checked by the kernel ({', '.join(rules)})"
        )
        return replace(outcome, evidence=(Evidence("derivation", summary), *evidence))

    def identity(self, lhs: Expr, rhs: Expr, texts: tuple[str, str]) -> Outcome:
        """An identity, decided by a derivation the kernel checks."""
        boxes = self.setup.scope.boxes
        if (lhs.free_symbols | rhs.free_symbols) & set(boxes):
            raise InvalidArgument("= is exact: rounded(…) and measured(…) are compared with ≈")
        env = self.setup.env
        left, right = normalize(lhs, env), normalize(rhs, env)
        if degenerate(left.end, right.end):
            raise InvalidArgument(f"{texts[0]} = {texts[1]} reduces to a division by zero")
        agree = same(left.end, right.end)
        if agree is True:
            derivation = derivation_of("claim", lhs, rhs, left, right, env)
            result = audit_of(derivation)
            if result.verified:
                what = f"{texts[0]} = {texts[1]}"
                return Outcome(Verdict.VERIFIED, (derivation_evidence(derivation, what),))
            parts = list(dict.fromkeys(moments_divided(lhs) + moments_divided(rhs)))
            if parts:  # Std(a)/Std(b): Std(b) ≠ 0 is known once Std(b) is
                return self.identity_by_parts(lhs, rhs, parts, texts)
            first = str(result.errors[0]).splitlines()
            return Outcome(
                Verdict.UNDECIDED,
                reason="the kernel refused the automation's derivation: " + " ".join(first[:2]),
            )
        closed = not (has_moments(left.end) or has_moments(right.end))
        closed = closed and not (is_random(left.end) or is_random(right.end))
        # a softmax weight, ∂ or lim: the normal form knows none of their relations
        # (Σᵢ pᵢ = 1), so forms that differ are no evidence that the values do
        opaque = _opaque(left.end) or _opaque(right.end)
        if closed and agree is False and not opaque:
            return self.different(lhs, rhs, left, right, texts)
        found = counterexample(
            lhs,
            rhs,
            self.setup.assumptions,
            dimension=self.setup.scope.dimension(),
            defined=self.defined,
        )
        if found is not None:
            return Outcome(
                Verdict.REFUTED,
                (
                    Evidence(
                        "counterexample", _counter_text(texts, found.model, found.left, found.right)
                    ),
                ),
                counterexample=found.as_json(),
            )
        if closed and not opaque and not (left.end.free_symbols | right.end.free_symbols):
            a, b = enclose(left.end), enclose(right.end)
            if compare(a, b.low, b.high) == "outside":
                return self.different(lhs, rhs, left, right, texts)
        parts = list(dict.fromkeys(moments_divided(lhs) + moments_divided(rhs)))
        if parts and not self.conditioned:  # Cov(X, 2X)/Var(X): where Var(X) ≠ 0
            outcome = self.where_defined(lhs, rhs, parts, texts)
            if outcome.verdict is Verdict.VERIFIED:
                return outcome
        hint = (
            "; a softmax weight, ∂ or lim is reasoned about in a proof file (scaledattn"
            " check-proof), and a theorem of 'scaledattn list' is claimed as theorem(NAME)"
            if opaque
            else ""
        )
        return Outcome(
            Verdict.UNDECIDED,
            reason=(
                f"the automation reduced the two sides to {short(left.end)} and"
                f" {short(right.end)}, which it cannot show equal, and found no counterexample"
                " among its models" + hint
            ),
        )

    def different(
        self, lhs: Expr, rhs: Expr, left: Chain, right: Chain, texts: tuple[str, str]
    ) -> Outcome:
        """Two closed forms that differ: the right value, and where they differ."""
        env = self.setup.env
        evidence: list[Evidence] = []
        value = left.end
        if left.steps:
            derivation = derivation_of("left_side", lhs, value, left, Chain(value, ()), env)
            if audit_of(derivation).verified:
                evidence.append(derivation_evidence(derivation, f"{texts[0]} = {show(value)}"))
        if right.steps:
            derivation = derivation_of(
                "right_side", rhs, right.end, right, Chain(right.end, ()), env
            )
            if audit_of(derivation).verified:
                evidence.append(derivation_evidence(derivation, f"{texts[1]} = {show(right.end)}"))
        written = lhs.is_Number and texts[0] == show(lhs)
        correct = "" if written else f"{texts[0]} = {show(value)}"
        free = value.free_symbols | right.end.free_symbols
        counter: dict[str, Any] | None = None
        if free:
            at = instance(value, right.end, self.setup.positives, self.admissible)
            if at is None:
                return Outcome(
                    Verdict.UNDECIDED,
                    tuple(evidence),
                    reason=(
                        f"the two sides reduce to {short(value)} and {short(right.end)}, which"
                        " differ as expressions, but no tried value of the constants separates them"
                    ),
                )
            shown = ", ".join(f"{k} = {v}" for k, v in at.items())
            evidence.append(
                Evidence(
                    "computation",
                    f"at {shown}: left side {unicode_line(value.xreplace(at))},"
                    f" right side {unicode_line(right.end.xreplace(at))}",
                )
            )
            counter = {"at": {str(k): str(v) for k, v in at.items()}}
            if is_random(lhs) or has_moments(lhs):
                found = counterexample(
                    lhs,
                    rhs,
                    self.setup.assumptions,
                    {str(k): v for k, v in at.items()},
                    defined=self.defined,
                )
                if found is not None:
                    evidence.append(
                        Evidence(
                            "counterexample",
                            _counter_text(texts, found.model, found.left, found.right),
                        )
                    )
                    counter = found.as_json()
                else:  # the catalogue has no such law (a correlated pair): the gate's search
                    counter = self.gate_counterexample(lhs, rhs, at, texts, evidence) or counter
        else:
            a, b = enclose(value), enclose(right.end)
            if written and rhs.is_Number:
                shown = show(rhs)
                extra = "" if shown == texts[1] else f" ({shown})"
                summary = f"the written numbers differ: {texts[0]} ≠ {texts[1]}{extra}"
            elif rhs.is_Number and texts[1] == show(rhs):
                summary = f"{texts[0]} = {number_text(value, a)}, not {texts[1]}"
            else:
                right_value = number_text(right.end, b)
                summary = f"{texts[0]} = {number_text(value, a)}, but {texts[1]} = {right_value}"
            evidence.append(Evidence("computation", summary))
            if correct and not a.exact:
                correct += f" ≈ {show_number(a, 8)}"
        return Outcome(Verdict.REFUTED, tuple(evidence), correct, counter)

    def gate_counterexample(
        self, lhs: Expr, rhs: Expr, at: Mapping[Any, Any], texts: tuple[str, str], evidence: Any
    ) -> dict[str, Any] | None:
        """A world of the gate's search at the trial values ``at`` where the sides differ.

        Every assumption and the two sides' difference are checked on it by the semantics
        (:func:`scaledattn.gate.counterexample_world`); its line joins ``evidence``.
        """
        try:
            fixed = {s: Fraction(str(v)) for s, v in at.items()}
        except (TypeError, ValueError):
            return None
        assumptions = self.setup.assumptions
        world = counterexample_world(lhs, rhs, assumptions, defined=self.defined, fixed=fixed)
        if world is None:
            return None
        hide = {i for a in assumptions for i in getattr(a, "indices", ())}
        model = describe(world, hide)
        left, right = show_value(value(lhs, world)), show_value(value(rhs, world))
        evidence.append(Evidence("counterexample", _counter_text(texts, model, left, right)))
        return {"model": model, "left": left, "right": right}

    # -------------------------------------------------------- equivalence
    def equivalence(self) -> Outcome:
        """``A = a ⇔ B = b``: the kernel checks the automation's chain of equivalences."""
        s = self.setup.sides
        if any(isinstance(x, tuple) for x in s):
            raise InvalidArgument("<=> relates equations between terms, not lists")
        left, right = Eq(s[0], s[1], evaluate=False), Eq(s[2], s[3], evaluate=False)
        env = self.setup.env
        chain, back = normalize(left, env), normalize(right, env)
        texts = [unparse(n) for n in self.setup.claim.sides]
        if prop_key(rebuild(chain.end)) == prop_key(rebuild(back.end)):
            derivation = equivalence_of("claim", left, right, chain, env, back)
            if audit_of(derivation).verified:
                what = f"({texts[0]} = {texts[1]}) ⇔ ({texts[2]} = {texts[3]})"
                return Outcome(Verdict.VERIFIED, (derivation_evidence(derivation, what),))
        if not chain.steps:
            return Outcome(Verdict.UNDECIDED, reason="the automation found no step to take")
        reached = equivalence_of("equivalent", left, chain.end, chain, env)
        if not audit_of(reached).verified:
            return Outcome(Verdict.UNDECIDED, reason="the kernel refused the automation's chain")
        evidence = (derivation_evidence(reached, f"({show(left)}) ⇔ ({show(chain.end)})"),)
        end = chain.end
        if (
            isinstance(end, sympy.Equality)
            and end.lhs == right.lhs
            and same(end.rhs, right.rhs) is False
        ):
            return Outcome(Verdict.REFUTED, evidence, f"{show(end.lhs)} = {show(end.rhs)}")
        if isinstance(end, sympy.Or) and prop_key(right) in {prop_key(a) for a in end.args}:
            others = [a for a in end.args if prop_key(a) != prop_key(right)]
            witness = self.also_possible(left, others)
            if witness is None:
                shown = " or ".join(f"{show(a.lhs)} = {show(a.rhs)}" for a in others)
                return Outcome(
                    Verdict.UNDECIDED,
                    evidence,
                    reason=f"the left side is equivalent to {show(end)}; no model of the"
                    f" assumptions satisfies {shown} (signs declared or implied), but the"
                    " kernel cannot exclude it",
                )
            text = " or ".join(f"{show(a.lhs)} = {show(a.rhs)}" for a in others)
            also = f"{text} also satisfies the left side ({witness})"
            return Outcome(
                Verdict.REFUTED,
                (*evidence, Evidence("counterexample", also)),
                f"({show(left)}) ⇔ ({show(end)})",
                {"also": text},
            )
        return Outcome(
            Verdict.UNDECIDED,
            evidence,
            reason=f"the left side is equivalent to {show(end)}; the automation cannot compare it",
        )

    def admissible(self, at: Mapping[Any, Any]) -> bool:
        """Whether some model of the assumptions gives the constants these trial values.

        The oracle draws models with the values fixed and checks every assumption and the
        symbols' signs on each; so a variance is never tried negative, nor E[X²] below E[X]².
        A trial value is admitted only in a world that keeps it and that the semantics
        confirms is a model (never one the drawer gave another value, nor a law too
        large to check).
        """
        terms = list(at)
        try:
            fixed = {s: Fraction(str(v)) for s, v in at.items()}
        except (TypeError, ValueError):
            return True  # an irrational trial value: no model is drawn, the sign rules stand
        chooser = RandomChooser(self.seed)
        assumptions = tuple(self.setup.assumptions)
        for _ in range(WITNESS_TRIES):
            world, why = draw_world(terms, assumptions, chooser, fixed=fixed)
            if why == TOO_LARGE:
                return False  # no model can be checked at these values: not a trial value
            if (
                world is not None
                and all(world.values.get(s) == v for s, v in fixed.items())
                and check_world(world, assumptions) == ""
            ):
                return True  # a model with exactly these values, each assumption checked
        return False

    def also_possible(self, left: Any, others: Sequence[Any]) -> str | None:
        """A model of the assumptions where one of ``others`` and ``left`` hold, or None.

        The constant each equation names takes the value its right side has there; the
        model must then pass every assumption and the symbol's own sign (the oracle's
        :func:`~scaledattn.numeric.semantics.check_world`).
        """
        assumptions = tuple(self.setup.assumptions)
        terms = [left.lhs, left.rhs, *(x for a in others for x in (a.lhs, a.rhs))]
        chooser = RandomChooser(self.seed)
        for _ in range(WITNESS_TRIES):
            world, _why = draw_world(terms, assumptions, chooser)
            if world is None:
                continue
            for a in others:
                if not (isinstance(a, sympy.Equality) and isinstance(a.lhs, Symbol)):
                    continue
                try:
                    world.values[a.lhs] = value(a.rhs, world)
                except (Undefined, Undecided):
                    continue
                if check_world(world, assumptions) == "" and truth(left, world):
                    return ", ".join(
                        f"{s} = {show_value(v)}" for s, v in sorted(world.values.items(), key=str)
                    )
        return None


#: Models drawn when looking for one where another root of an equivalence holds.
WITNESS_TRIES = 12


def _divides(moment: Expr, expr: Expr) -> bool:
    """Whether ``moment`` occurs in a divisor of ``expr`` (a power with a negative exponent)."""
    return any(
        isinstance(n, sympy.Pow) and n.exp.is_negative and n.base.has(moment)
        for n in sympy.preorder_traversal(expr)
    )


def _merge(parts: list[Outcome]) -> Outcome:
    verdict = Verdict.combine(p.verdict for p in parts)
    evidence = tuple(e for p in parts for e in p.evidence)
    correct = "; ".join(p.correct for p in parts if p.correct)
    counter = next((p.counterexample for p in parts if p.counterexample), None)
    reason = "; ".join(p.reason for p in parts if p.reason)
    return Outcome(verdict, evidence, correct, counter, reason)


def _counter_text(texts: tuple[str, str], model: str, left: str, right: str) -> str:
    """The counterexample's line; the semantics confirmed every assumption holds in it."""
    checked = " (a model of every assumption, each checked by the semantics)"
    if texts[1] == right:
        return f"{model}: {texts[0]} = {left}, not {right}{checked}"
    return f"{model}: {texts[0]} = {left}, but {texts[1]} = {right}{checked}"
