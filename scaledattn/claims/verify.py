"""The verifier: VERIFIED, REFUTED (with the right value or a counterexample) or UNDECIDED.

- ``a = b`` is an identity. The automation (:mod:`scaledattn.claims.automation`)
  writes a derivation from a to b and the kernel checks it: VERIFIED only on the
  kernel's word. When both sides reduce to closed forms that differ, REFUTED with
  the left side's checked closed form and values of the constants where the two
  differ; when they reduce to moments of arbitrary variables, REFUTED only with a
  counterexample (:mod:`scaledattn.claims.counterexample`).
- ``a ≈ 0.659`` compares numbers: the written side's digits give the tolerance
  (0.659 means ± 0.0005, 39 means ± 0.5, lists elementwise) and the other side is
  enclosed in an interval (:mod:`scaledattn.claims.numbers`). With ``rounded(…)``
  inputs the claim is VERIFIED when some values consistent with the rounding give
  the written result. ``measured(…) ≈ x`` is decided statistically
  (:mod:`scaledattn.claims.statistics`).
- ``a < b`` (and ``<=``, ``>``, ``>=``) holds when it holds on the whole interval.
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
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
from sympy import Eq, Expr, Symbol

from scaledattn.calculator.parse import Node
from scaledattn.claims.automation import (
    Chain,
    audit_summary,
    derivation_of,
    equivalence_of,
    instance,
    normalize,
)
from scaledattn.claims.counterexample import counterexample
from scaledattn.claims.numbers import (
    Interval,
    compare,
    decimals_of,
    enclose,
    rounded_to,
    show_number,
)
from scaledattn.claims.outcome import Evidence, Outcome, Result, Verdict
from scaledattn.claims.setup import Setup, prepare
from scaledattn.claims.statistics import (
    EXPERIMENTS,
    Z_REFUTE,
    experiment_of,
    measurement,
    p_value,
    standard_error,
    z_score,
)
from scaledattn.claims.syntax import parse_assumption, parse_claim, unparse
from scaledattn.claims.terms import Value, has_moments, is_literal, tolerance
from scaledattn.claims.theorems import limit, proved
from scaledattn.derive import audit_of
from scaledattn.errors import InvalidArgument
from scaledattn.kernel import Derivation
from scaledattn.kernel.expr import is_random
from scaledattn.kernel.rules import prop_key
from scaledattn.render import render
from scaledattn.render.display import unicode_line
from scaledattn.render.json import audit_json

__all__ = ["verify"]


def verify(
    claim: str,
    assume: Sequence[str] = (),
    *,
    seed: int = 0,
    trials: Mapping[str, int] | None = None,
) -> Result:
    """Decide a claim under the lesson's defaults and the given assumptions.

    ``seed`` and ``trials`` (per experiment) apply to ``measured(…)``. Bad input
    raises InvalidArgument with a one-line message.
    """
    parsed = parse_claim(claim)
    try:
        setup = prepare(parsed, [parse_assumption(a) for a in assume])
        context = Context(setup, seed, dict(trials or {}))
        if parsed.kind == "theorem":
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
    return _result(parsed.text, setup, outcomes)


def _degenerate(*exprs: Any) -> bool:
    """True when a reduction produced ∞ or NaN (a division by a term that is zero)."""
    return any(
        getattr(e, "has", None) is not None and e.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo)
        for e in exprs
    )


def _result(text: str, setup: Setup, outcomes: list[Outcome]) -> Result:
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
        held = sum(1 for o in outcomes if o.verdict is Verdict.VERIFIED)
        evidence.append(Evidence("note", f"{held} of the {len(outcomes)} relations verified"))
    for n, o in enumerate(outcomes, 1):
        for e in o.evidence:
            summary = f"relation {n}: {e.summary}" if several else e.summary
            evidence.append(Evidence(e.kind, summary, e.detail, e.data))
    evidence += [Evidence("computation", w) for w in dict.fromkeys(setup.scope.witnesses)]
    refuted = [o for o in outcomes if o.verdict is Verdict.REFUTED]
    correct = "; ".join(o.correct for o in refuted if o.correct)
    counter = next((o.counterexample for o in refuted if o.counterexample), None)
    reason = "; ".join(o.reason for o in outcomes if o.verdict is Verdict.UNDECIDED and o.reason)
    return Result(
        text, verdict, tuple(setup.described), tuple(_unique(evidence)), correct, counter, reason
    )


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


def _short(x: Expr, most: int = 80) -> str:
    """``_show(x)``, cut to ``most`` characters."""
    text = _show(x)
    return text if len(text) <= most else text[: most - 1] + "…"


def _show(x: Expr) -> str:
    """An expression for people; a rational with a finite decimal expansion as a decimal."""
    if isinstance(x, sympy.Rational) and not x.is_Integer:
        q = int(x.q)
        while q % 2 == 0:
            q //= 2
        while q % 5 == 0:
            q //= 5
        if q == 1:
            return str(sympy.Float(x, 30)).rstrip("0")
    return unicode_line(x)


def _derivation_evidence(derivation: Derivation, what: str) -> Evidence:
    result = audit_of(derivation)
    return Evidence(
        "derivation",
        f"{what}: {audit_summary(result)}",
        render(result, "text"),
        {"derivation": audit_json(result)},
    )


class Context:
    """One claim being decided: its setup, and the experiments' seed and sizes."""

    def __init__(self, setup: Setup, seed: int, trials: dict[str, int]) -> None:
        self.setup = setup
        self.seed = seed
        self.trials = trials
        self.ranges: dict[Symbol, tuple[Fraction, Fraction]] = {}
        self.measured: list[Evidence] = []

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
                rules = sorted({r for p in parts for e in p.evidence for r in _rules_of(e)})
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

    def identity(self, lhs: Expr, rhs: Expr, texts: tuple[str, str]) -> Outcome:
        """An identity, decided by a derivation the kernel checks."""
        boxes = self.setup.scope.boxes
        if (lhs.free_symbols | rhs.free_symbols) & set(boxes):
            raise InvalidArgument("= is exact: rounded(…) and measured(…) are compared with ≈")
        env = self.setup.env
        left, right = normalize(lhs, env), normalize(rhs, env)
        if _degenerate(left.end, right.end):
            raise InvalidArgument(f"{texts[0]} = {texts[1]} reduces to a division by zero")
        agree = sympy_same(left.end, right.end)
        if agree is True:
            derivation = derivation_of("claim", lhs, rhs, left, right, env)
            result = audit_of(derivation)
            if result.verified:
                what = f"{texts[0]} = {texts[1]}"
                return Outcome(Verdict.VERIFIED, (_derivation_evidence(derivation, what),))
            first = str(result.errors[0]).splitlines()
            return Outcome(
                Verdict.UNDECIDED,
                reason="the kernel refused the automation's derivation: " + " ".join(first[:2]),
            )
        closed = not (has_moments(left.end) or has_moments(right.end))
        closed = closed and not (is_random(left.end) or is_random(right.end))
        if closed and agree is False:
            return self.different(lhs, rhs, left, right, texts)
        found = counterexample(
            lhs, rhs, self.setup.assumptions, dimension=self.setup.scope.dimension()
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
        if closed and not (left.end.free_symbols | right.end.free_symbols):
            a, b = enclose(left.end), enclose(right.end)
            if compare(a, b.low, b.high) == "outside":
                return self.different(lhs, rhs, left, right, texts)
        return Outcome(
            Verdict.UNDECIDED,
            reason=(
                f"the automation reduced the two sides to {_short(left.end)} and"
                f" {_short(right.end)}, which it cannot show equal, and found no counterexample"
                " among its models"
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
                evidence.append(_derivation_evidence(derivation, f"{texts[0]} = {_show(value)}"))
        if right.steps:
            derivation = derivation_of(
                "right_side", rhs, right.end, right, Chain(right.end, ()), env
            )
            if audit_of(derivation).verified:
                evidence.append(
                    _derivation_evidence(derivation, f"{texts[1]} = {_show(right.end)}")
                )
        written = lhs.is_Number and texts[0] == _show(lhs)
        correct = "" if written else f"{texts[0]} = {_show(value)}"
        free = value.free_symbols | right.end.free_symbols
        counter: dict[str, Any] | None = None
        if free:
            at = instance(value, right.end, self.setup.positives)
            if at is not None:
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
                        lhs, rhs, self.setup.assumptions, {str(k): v for k, v in at.items()}
                    )
                    if found is not None:
                        evidence.append(
                            Evidence(
                                "counterexample",
                                _counter_text(texts, found.model, found.left, found.right),
                            )
                        )
                        counter = found.as_json()
        else:
            a, b = enclose(value), enclose(right.end)
            if written and rhs.is_Number:
                shown = _show(rhs)
                extra = "" if shown == texts[1] else f" ({shown})"
                summary = f"the written numbers differ: {texts[0]} ≠ {texts[1]}{extra}"
            elif rhs.is_Number and texts[1] == _show(rhs):
                summary = f"{texts[0]} = {_number(value, a)}, not {texts[1]}"
            else:
                right_value = _number(right.end, b)
                summary = f"{texts[0]} = {_number(value, a)}, but {texts[1]} = {right_value}"
            evidence.append(Evidence("computation", summary))
            if correct and not a.exact:
                correct += f" ≈ {show_number(a, 8)}"
        return Outcome(Verdict.REFUTED, tuple(evidence), correct, counter)

    # -------------------------------------------------------- reduction
    def reduce(self, value: Expr, what: str) -> tuple[Expr, list[Evidence]]:
        """A side's closed form (moments reduced by a checked derivation), with its evidence."""
        if not (has_moments(value) or is_random(value)):
            return value, []
        chain = normalize(value, self.setup.env)
        end = chain.end
        if _degenerate(end):
            raise InvalidArgument(f"{what} reduces to a division by zero")
        if has_moments(end) or is_random(end):
            raise _Undecided(
                f"the automation could not reduce {_short(value)} (it reached {_short(end)})"
            )
        derivation = derivation_of("reduction", value, end, chain, Chain(end, ()), self.setup.env)
        result = audit_of(derivation)
        if not result.verified:
            raise _Undecided(f"the kernel refused the reduction of {_show(value)}")
        return end, [_derivation_evidence(derivation, f"{what} = {_show(end)}")]

    def numeric(self, value: Expr, what: str) -> tuple[Expr, Interval, list[Evidence]]:
        """A side's closed form and its interval; undecided when it depends on a constant."""
        closed, evidence = self.reduce(value, what)
        extra = closed.free_symbols - set(self.setup.scope.boxes)
        if extra:
            names = ", ".join(sorted(str(s) for s in extra))
            raise _Undecided(
                f"{_show(closed)} depends on {names}; give a value (--assume 'd_k = 64')"
            )
        self.fill(closed)
        return closed, enclose(closed, self.ranges), evidence

    def fill(self, expr: Expr) -> None:
        """Give every placeholder in ``expr`` its range (running experiments as needed)."""
        for symbol in expr.free_symbols:
            box = self.setup.scope.boxes.get(symbol)
            if box is None or symbol in self.ranges:
                continue
            if box.kind == "rounded":
                assert box.low is not None
                assert box.high is not None
                self.ranges[symbol] = (box.low, box.high)
                continue
            m, result = measurement(box.label, self.seed, self.trials)
            se = standard_error(m)
            low, high = m.value - Z_REFUTE * se, m.value + Z_REFUTE * se
            self.ranges[symbol] = (Fraction(low), Fraction(high))
            self.measured.append(_measured(box.label, m, result.trials))

    # ------------------------------------------------------ approximately
    def approximately(
        self, left_node: Node, right_node: Node, left: Value, right: Value
    ) -> Outcome:
        """``left ≈ right``: the written side's digits give the tolerance."""
        if is_literal(right_node):
            written, other, node = right_node, left, left_node
        elif is_literal(left_node):
            written, other, node = left_node, right, right_node
        else:
            raise InvalidArgument(
                "≈ needs a written number (or a list of written numbers) on one side,"
                " whose digits set the tolerance"
            )
        listed = written.kind == "list"
        targets = [_written_number(c) for c in (written.children if listed else (written,))]
        values = other if isinstance(other, tuple) else (other,)
        if listed != isinstance(other, tuple) or len(targets) != len(values):
            raise InvalidArgument(
                f"≈ compares {len(values)} value(s) with {len(targets)} written number(s)"
            )
        try:
            labels = [_show(v) for v in values] if listed else [unparse(node)]
            entries = [
                self.close(v, t[0], t[1], label)
                for v, t, label in zip(values, targets, labels, strict=True)
            ]
        except _Undecided as err:
            return Outcome(Verdict.UNDECIDED, reason=str(err))
        verdict = Verdict.combine(e.verdict for e in entries)
        evidence = [x for e in entries for x in e.evidence]
        text, claimed = unparse(node), unparse(written)
        halves = {t[1] for t in targets}
        allowed = " or ".join(f"± {float(h):g}" for h in sorted(halves))
        if not all(e.statistical for e in entries):
            shown = ", ".join(e.shown for e in entries)
            shown = f"[{shown}]" if listed else shown
            wrong = [n for n, e in enumerate(entries, 1) if e.verdict is Verdict.REFUTED]
            where = (
                f"; entr{'y' if len(wrong) == 1 else 'ies'} {', '.join(map(str, wrong))} outside"
                if listed and wrong
                else ""
            )
            evidence.append(
                Evidence(
                    "computation", f"{text} = {shown}; the claim says {claimed} ({allowed}){where}"
                )
            )
        evidence += [e for e in self.measured if e not in evidence]
        if any(e.rounded for e in entries) and verdict is Verdict.VERIFIED:
            evidence.append(Evidence("note", "consistent with the rounding of the inputs"))
        correct = ""
        if verdict is Verdict.REFUTED:
            first = entries[0]
            if listed:
                correct = _list_correct(entries)
            elif first.statistical:
                correct = first.correct
            elif first.rounded:
                correct = f"{text} lies in {first.shown} whatever the unrounded inputs"
            elif first.correct == first.shown or "e+" in first.correct:
                correct = f"{text} = {first.shown}"
            else:
                correct = f"{text} = {first.shown}, {first.correct} to the claim's digits"
        reason = "; ".join(
            (f"entry {n}: " if listed else "") + e.reason
            for n, e in enumerate(entries, 1)
            if e.reason
        )
        return Outcome(verdict, tuple(_unique(evidence)), correct, None, reason)

    def close(self, value: Expr, target: Fraction, half: Fraction, label: str) -> _Close:
        """One value against ``target ± half``."""
        boxes = self.setup.scope.boxes
        if isinstance(value, Symbol) and value in boxes and boxes[value].kind == "measured":
            return self.statistical(boxes[value].label, target, half)
        closed, interval, evidence = self.numeric(value, label)
        low, high = target - half, target + half
        where = compare(interval, low, high)
        kinds = {boxes[s].kind for s in closed.free_symbols if s in boxes}
        shown = _number(closed, interval, with_form=bool(evidence), decimals=decimals_of(half) + 2)
        precise = show_number(interval, 5) if interval.point else _range(interval)
        if "rounded" in kinds and "measured" not in kinds:
            if where == "outside":
                return _Close(Verdict.REFUTED, shown, evidence, shown, rounded=True)
            return _Close(Verdict.VERIFIED, shown, evidence, rounded=True)
        correct = rounded_to(interval, half) if interval.point else _range(interval)
        if where == "inside":
            return _Close(Verdict.VERIFIED, shown, evidence, correct, precise=precise)
        if where == "outside":
            return _Close(Verdict.REFUTED, shown, evidence, correct, precise=precise)
        return _Close(
            Verdict.UNDECIDED,
            shown,
            evidence,
            reason=f"{shown} lies on the edge of the tolerance {_range_of(low, high)}",
        )

    def statistical(self, name: str, target: Fraction, half: Fraction) -> _Close:
        """``measured(name) ≈ target``: re-run the experiment, compare with its own error."""
        m, result = measurement(name, self.seed, self.trials)
        published_trials = EXPERIMENTS[experiment_of(name)][1]
        se = standard_error(m)
        z = z_score(m.value, se, float(target), half, result.trials, published_trials)
        own = (
            f", itself an estimate from {published_trials} trials"
            if published_trials
            else ", taken as exact"
        )
        summary = (
            f"the claim's {_written(target, half)} (± {float(half):g} as written{own}) lies"
            f" z = {z:.2f} combined standard errors beyond its rounding (p = {p_value(z):.2g});"
            f" consistent at z ≤ 1.96, refuted at z > {Z_REFUTE:.2f}"
        )
        evidence = [_measured(name, m, result.trials), Evidence("measurement", summary)]
        shown = f"{m.value:.4g}"
        if z <= 1.96:
            return _Close(Verdict.VERIFIED, shown, evidence, statistical=True)
        if z > Z_REFUTE:
            correct = f"{name} = {m.value:.4g} (95% interval [{m.ci95[0]:.4g}, {m.ci95[1]:.4g}])"
            return _Close(Verdict.REFUTED, shown, evidence, correct, statistical=True)
        return _Close(
            Verdict.UNDECIDED,
            shown,
            evidence,
            reason=(
                f"{name} measures {m.value:.4g}: the claim's {_written(target, half)} is"
                f" inconsistent at 95% (z = {z:.2f}) but not beyond doubt"
                f" (refuted above z = {Z_REFUTE:.2f})"
            ),
            statistical=True,
        )

    # --------------------------------------------------------- inequality
    def inequality(
        self, relation: str, left: Value, right: Value, texts: tuple[str, str]
    ) -> Outcome:
        """``left < right`` and the like, decided on the whole interval of left − right."""
        if isinstance(left, tuple) or isinstance(right, tuple):
            raise InvalidArgument(f"{relation} compares numbers, not lists")
        try:
            a, ia, ea = self.numeric(left, texts[0])
            b, ib, eb = self.numeric(right, texts[1])
        except _Undecided as err:
            return Outcome(Verdict.UNDECIDED, reason=str(err))
        low, high = ia.low - ib.high, ia.high - ib.low
        holds = {
            "<": high < 0, "<=": high <= 0, ">": low > 0, ">=": low >= 0,
        }[relation]  # fmt: skip
        fails = {
            "<": low >= 0, "<=": low > 0, ">": high <= 0, ">=": high < 0,
        }[relation]  # fmt: skip
        shown = [f"{texts[0]} = {_number(a, ia)}"]
        if not b.is_Number:
            shown.append(f"{texts[1]} = {_number(b, ib)}")
        evidence = (*ea, *eb, Evidence("computation", ", ".join(shown)), *self.measured)
        if holds:
            return Outcome(Verdict.VERIFIED, tuple(_unique(evidence)))
        if fails:
            return Outcome(
                Verdict.REFUTED,
                tuple(_unique(evidence)),
                f"{texts[0]} = {_number(a, ia)}, not {relation} {texts[1]}",
            )
        return Outcome(
            Verdict.UNDECIDED,
            tuple(_unique(evidence)),
            reason=f"{relation} holds on part of the interval only",
        )

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
        if prop_key(chain.end) == prop_key(back.end):
            derivation = equivalence_of("claim", left, right, chain, env, back)
            if audit_of(derivation).verified:
                what = f"({texts[0]} = {texts[1]}) ⇔ ({texts[2]} = {texts[3]})"
                return Outcome(Verdict.VERIFIED, (_derivation_evidence(derivation, what),))
        if not chain.steps:
            return Outcome(Verdict.UNDECIDED, reason="the automation found no step to take")
        reached = equivalence_of("equivalent", left, chain.end, chain, env)
        if not audit_of(reached).verified:
            return Outcome(Verdict.UNDECIDED, reason="the kernel refused the automation's chain")
        evidence = (_derivation_evidence(reached, f"({_show(left)}) ⇔ ({_show(chain.end)})"),)
        end = chain.end
        if isinstance(end, sympy.Equality) and end.lhs == right.lhs and end.rhs != right.rhs:
            return Outcome(Verdict.REFUTED, evidence, f"{_show(end.lhs)} = {_show(end.rhs)}")
        if isinstance(end, sympy.Or) and prop_key(right) in {prop_key(a) for a in end.args}:
            others = [a for a in end.args if prop_key(a) != prop_key(right)]
            text = " or ".join(f"{_show(a.lhs)} = {_show(a.rhs)}" for a in others)
            return Outcome(
                Verdict.REFUTED,
                (*evidence, Evidence("counterexample", f"{text} also satisfies the left side")),
                f"({_show(left)}) ⇔ ({_show(end)})",
                {"also": text},
            )
        return Outcome(
            Verdict.UNDECIDED,
            evidence,
            reason=f"the left side is equivalent to {_show(end)}; the automation cannot compare it",
        )


class _Undecided(Exception):
    """A side could not be reduced to a number: the link is undecided, with this reason."""


@dataclass
class _Close:
    """One value against one written number."""

    verdict: Verdict
    shown: str
    evidence: list[Evidence]
    correct: str = ""
    reason: str = ""
    precise: str = ""
    rounded: bool = False
    statistical: bool = False


def _written_number(node: Node) -> tuple[Fraction, Fraction]:
    found = tolerance(node)
    assert found is not None  # the side was checked with is_literal
    return found


def _rules_of(evidence: Evidence) -> list[str]:
    """The rule names in a derivation's summary '…: N steps checked by the kernel (a, b)'."""
    if evidence.kind != "derivation" or not evidence.summary.endswith(")"):
        return []
    return evidence.summary.rsplit("(", 1)[1].rstrip(")").split(", ")


def _unique(evidence: Sequence[Evidence]) -> list[Evidence]:
    seen: set[tuple[str, str]] = set()
    out = []
    for e in evidence:
        if (e.kind, e.summary) not in seen:
            seen.add((e.kind, e.summary))
            out.append(e)
    return out


def _written(target: Fraction, half: Fraction) -> str:
    decimals = decimals_of(half)
    return f"{float(target):.{decimals}f}"


def _list_correct(entries: list[_Close]) -> str:
    wrong = [n for n, e in enumerate(entries, 1) if e.verdict is Verdict.REFUTED]
    rounded = ", ".join(
        e.correct if e.correct and not e.correct.startswith("[") else e.shown for e in entries
    )
    label = f"entr{'y' if len(wrong) == 1 else 'ies'} {', '.join(map(str, wrong))} wrong"
    precise = ", ".join(e.precise or e.shown for e in entries)
    return f"[{rounded}] to the claim's digits ({label}); more precisely [{precise}]"


def sympy_same(a: Expr, b: Expr) -> bool | None:
    """The kernel's decision of a = b up to ring algebra (True, False or None)."""
    from scaledattn.kernel import same

    return same(a, b)


def _merge(parts: list[Outcome]) -> Outcome:
    verdict = Verdict.combine(p.verdict for p in parts)
    evidence = tuple(e for p in parts for e in p.evidence)
    correct = "; ".join(p.correct for p in parts if p.correct)
    counter = next((p.counterexample for p in parts if p.counterexample), None)
    reason = "; ".join(p.reason for p in parts if p.reason)
    return Outcome(verdict, evidence, correct, counter, reason)


def _number(expr: Expr, interval: Interval, with_form: bool = True, decimals: int = 0) -> str:
    """A value for people: exact when it is short, else its form (if wanted) and digits."""
    if interval.exact:
        return _show(expr) if expr.is_Rational and expr.q < 1000 else show_number(interval)
    if interval.point:
        size = abs(interval.mid)
        whole = len(str(int(size))) if 1 <= size < 10**15 else 0
        text = show_number(interval, max(6, whole + decimals))
        form = _show(expr)
        if expr.is_Number or not with_form or len(form) > 30:
            return text
        return f"{form} ≈ {text}"
    return _range(interval)


def _range(interval: Interval) -> str:
    return f"[{show_number(interval.low, 5)}, {show_number(interval.high, 5)}]"


def _range_of(low: Fraction, high: Fraction) -> str:
    return f"[{show_number(low, 5)}, {show_number(high, 5)}]"


def _measured(name: str, m: Any, trials: int) -> Evidence:
    experiment = experiment_of(name)
    label = EXPERIMENTS[experiment][0]
    return Evidence(
        "measurement",
        f"{name} = {m.value:.4g}, 95% interval [{m.ci95[0]:.4g}, {m.ci95[1]:.4g}]"
        f" (experiment {experiment}, lesson {label}, {trials} trials)",
    )


def _counter_text(texts: tuple[str, str], model: str, left: str, right: str) -> str:
    if texts[1] == right:
        return f"{model}: {texts[0]} = {left}, not {right}"
    return f"{model}: {texts[0]} = {left}, but {texts[1]} = {right}"
