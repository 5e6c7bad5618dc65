"""Numeric claims: reduce a side to a closed form, enclose it, compare it with the claim.

The comparisons of the verifier (:mod:`scaledattn.claims.verify`), kept apart from its
identities: ``≈`` against the tolerance of the written digits, ``measured(…) ≈ x``
against a re-run experiment (:mod:`scaledattn.claims.statistics`), and ``<``, ``<=``,
``>``, ``>=`` on the whole interval of the two sides' difference. A side with moments
is first reduced by a derivation the kernel checks.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
from sympy import Expr, Symbol

from scaledattn.attention.experiments import ExperimentResult
from scaledattn.attention.stats import Measurement
from scaledattn.automation.rewrite import Chain, audit_summary, derivation_of, normalize
from scaledattn.claims.numbers import (
    Interval,
    compare,
    decimals_of,
    enclose,
    rounded_to,
    show_number,
)
from scaledattn.claims.outcome import Evidence, Outcome, Verdict
from scaledattn.claims.setup import Setup
from scaledattn.claims.statistics import (
    EXPERIMENTS,
    Z_REFUTE,
    experiment_of,
    measurement,
    p_value,
    standard_error,
    z_score,
)
from scaledattn.claims.syntax import unparse
from scaledattn.claims.terms import Value, has_moments, is_literal, tolerance
from scaledattn.derive import audit_of
from scaledattn.errors import InvalidArgument, Undecided
from scaledattn.gate import check_steps
from scaledattn.kernel import Audit, Context, Derivation, Positive, Std, Var
from scaledattn.kernel.assumptions import sign_facts
from scaledattn.kernel.expr import MOMENT_OPERATORS, is_random
from scaledattn.kernel.vectors import nonzero
from scaledattn.language.parse import Node
from scaledattn.render import render
from scaledattn.render.display import unicode_line
from scaledattn.render.json import audit_json

__all__ = [
    "Comparisons",
    "statistic",
    "degenerate",
    "derivation_evidence",
    "number_text",
    "rules_of",
    "short",
    "show",
    "unique",
]


def degenerate(*exprs: Any) -> bool:
    """True when a reduction produced ∞ or NaN (a division by a term that is zero)."""
    return any(
        getattr(e, "has", None) is not None and e.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo)
        for e in exprs
    )


def short(x: Expr, most: int = 80) -> str:
    """``show(x)``, cut to ``most`` characters."""
    text = show(x)
    return text if len(text) <= most else text[: most - 1] + "…"


def show(x: Expr) -> str:
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


#: The rendering and JSON of audits already shown, by identity (each entry holds its
#: audit): equal derivations share one audit (``audit_of``), and the verifier shows the
#: same reduction again for a claim's remedies and for the claims that repeat a side.
_SHOWN: dict[int, tuple[Audit, str, dict[str, Any]]] = {}
_SHOWN_KEPT = 1024


def derivation_evidence(derivation: Derivation, what: str) -> Evidence:
    """Evidence of a checked derivation: its summary, its rendering, and its JSON.

    A verified derivation passes the gate first: each step true on models of its context
    (:func:`scaledattn.gate.check_steps` raises SoundnessAlarm otherwise).
    """
    result = audit_of(derivation)
    if result.verified:
        check_steps(result.derivation)
    shown = _SHOWN.get(id(result))
    if shown is None or shown[0] is not result:
        if len(_SHOWN) >= _SHOWN_KEPT:
            _SHOWN.clear()
        shown = _SHOWN[id(result)] = (result, render(result, "text"), audit_json(result))
    return Evidence(
        "derivation",
        f"{what}: {audit_summary(result)}",
        shown[1],
        {"derivation": copy.deepcopy(shown[2])},  # each Result owns its data
    )


def nonzero_unknown(closed: dict[Expr, Expr], assumptions: Sequence[Any]) -> str:
    """A moment's closed form not known to be non-zero ("" when each is), shown as ``M = v``.

    Every moment of a quotient is checked, not only its divisors: one that divides may
    appear elsewhere too, and a closed form cancelled against it (4c/c) is lost.
    """
    ctx = Context(tuple(a for a in assumptions if isinstance(a, Positive)))
    for moment, value in closed.items():
        facts, _ = sign_facts(value, ctx)
        if facts.is_zero is not False and not nonzero(facts):
            return f"{show(moment)} = {show(value)}"
    return ""


def moments_divided(value: Expr) -> list[Expr]:
    """The outermost moments of ``value`` when one of them divides (else none)."""
    moments: list[Expr] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, MOMENT_OPERATORS):
            moments.append(node)
        else:
            stack.extend(node.args)
    divided = any(
        isinstance(n, sympy.Pow) and n.exp.is_negative and n.base.has(*moments)
        for n in sympy.preorder_traversal(value)
    )
    return list(dict.fromkeys(moments)) if moments and divided else []


class Comparisons:
    """The numeric comparisons of a claim being decided (mixed into the verifier's Context)."""

    setup: Setup
    seed: int
    trials: dict[str, int]
    ranges: dict[Symbol, tuple[Fraction, Fraction]]
    measured: list[Evidence]
    #: The statistics of the measurements filled in (each a dict, see ``statistic``).
    statistics: list[dict[str, Any]]

    # -------------------------------------------------------- reduction
    def reduce(self, value: Expr, what: str) -> tuple[Expr, list[Evidence]]:
        """A side's closed form (moments reduced by a checked derivation), with its evidence."""
        if not (has_moments(value) or is_random(value)):
            return value, []
        chain = normalize(value, self.setup.env)
        end = chain.end
        expanded = sympy.expand(end)
        if has_moments(end) and not has_moments(expanded):  # 1 + E[X]·E[Y] − E[X]·E[Y]
            chain = Chain(chain.start, (*chain.steps, (expanded, "ring", "")))
            end = expanded
        if degenerate(end):
            raise InvalidArgument(f"{what} reduces to a division by zero")
        if has_moments(end) or is_random(end):
            raise Undecided(
                f"the automation could not reduce {short(value)} (it reached {short(end)})"
            )
        derivation = derivation_of("reduction", value, end, chain, Chain(end, ()), self.setup.env)
        result = audit_of(derivation)
        if not result.verified:
            parts = moments_divided(value)
            if parts:  # Std(a)/Std(b): each moment on its own, then divide the closed forms
                return self._reduce_parts(value, parts, what)
            if isinstance(value, Std):
                return self._reduce_std(value, what)
            raise Undecided(f"the kernel refused the reduction of {show(value)}")
        return end, [derivation_evidence(derivation, f"{what} = {show(end)}")]

    def _reduce_std(self, value: Expr, what: str) -> tuple[Expr, list[Evidence]]:
        """Std(Z) = √v from Var(Z) = v, each by its own checked derivation.

        The kernel takes √ only of a term it knows ≥ 0, and the automation's chain for
        Std(X + Y) passes through √(E[(X+Y)²] − E[X+Y]²) written out, which it does not
        know is: the variance is reduced alone, then Std(Z) = √Var(Z) (std_def).
        """
        from scaledattn.derive import calc

        var = Var(value.args[0])
        closed, evidence = self.reduce(var, f"Var({show(value.args[0])})")
        if not (closed.is_number and closed.is_nonnegative):
            raise Undecided(f"the kernel refused the reduction of {show(value)}")
        root = sympy.sqrt(var)
        derivation = calc("std_reduction", value, root).eq(root, by="std_def").qed()
        if not audit_of(derivation).verified:
            raise Undecided(f"the kernel refused the reduction of {show(value)}")
        evidence.append(derivation_evidence(derivation, f"{show(value)} = √{show(var)}"))
        return sympy.sqrt(closed), evidence

    def _reduce_parts(
        self, value: Expr, parts: list[Expr], what: str
    ) -> tuple[Expr, list[Evidence]]:
        """``value`` with each moment reduced by its own checked derivation.

        The kernel takes a term only where it is defined, and Std(b) ≠ 0 in Std(a)/Std(b)
        is not provable before Std(b) is known: each moment is reduced alone, and the
        closed forms are divided (exactly) once they are known.
        """
        closed, evidence, unknown = self.closed_moments(parts, f"{what}: ")
        if unknown:
            raise Undecided(f"{unknown} may be 0, and it divides {short(value)}")
        end = sympy.simplify(value.xreplace(closed))
        if degenerate(end) or end.has(sympy.zoo, sympy.nan):
            raise InvalidArgument(f"{what} reduces to a division by zero")
        return end, evidence

    def closed_moments(
        self, parts: list[Expr], label: str = ""
    ) -> tuple[dict[Expr, Expr], list[Evidence], str]:
        """Each moment's closed form and evidence, and one that may be 0 ("" if none may)."""
        closed: dict[Expr, Expr] = {}
        evidence: list[Evidence] = []
        for part in parts:
            closed[part], found = self.reduce(part, f"{label}{show(part)}")
            evidence += found
        return closed, evidence, nonzero_unknown(closed, self.setup.assumptions)

    def numeric(self, value: Expr, what: str) -> tuple[Expr, Interval, list[Evidence]]:
        """A side's closed form and its interval; undecided when it depends on a constant."""
        closed, evidence = self.reduce(value, what)
        extra = closed.free_symbols - set(self.setup.scope.boxes)
        if extra:
            names = ", ".join(sorted(str(s) for s in extra))
            raise Undecided(
                f"{show(closed)} depends on {names}; give a value (--assume 'd_k = 64')"
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
            self.measured.append(_measured(box.label, m, result))
            self.statistics.append(statistic(box.label, m, used=(low, high)))

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
            labels = [show(v) for v in values] if listed else [unparse(node)]
            entries = [
                self.close(v, t[0], t[1], label)
                for v, t, label in zip(values, targets, labels, strict=True)
            ]
        except Undecided as err:
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
        if any(e.rounded for e in entries) and verdict.holds:
            evidence.append(Evidence("note", "consistent with the rounding of the inputs"))
        tests = [t for e in entries if e.statistic for t in e.statistic]
        verdict, tests = self.standard(verdict, tests)
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
        return Outcome(verdict, tuple(unique(evidence)), correct, None, reason, tuple(tests))

    def standard(
        self, verdict: Verdict, tests: list[dict[str, Any]]
    ) -> tuple[Verdict, list[dict[str, Any]]]:
        """The word of a comparison that holds: CONSISTENT when it rests on a measurement."""
        tests = tests + [t for t in self.statistics if t not in tests]
        if verdict.holds and tests:
            return Verdict.CONSISTENT, tests
        return verdict, tests if verdict.holds else []

    def close(self, value: Expr, target: Fraction, half: Fraction, label: str) -> _Close:
        """One value against ``target ± half``."""
        boxes = self.setup.scope.boxes
        if isinstance(value, Symbol) and value in boxes and boxes[value].kind == "measured":
            return self.statistical(boxes[value].label, target, half)
        closed, interval, evidence = self.numeric(value, label)
        low, high = target - half, target + half
        where = compare(interval, low, high)
        kinds = {boxes[s].kind for s in closed.free_symbols if s in boxes}
        shown = number_text(
            closed, interval, with_form=bool(evidence), decimals=decimals_of(half) + 2
        )
        precise = show_number(interval, 5) if interval.point else _range(interval)
        if "rounded" in kinds and "measured" not in kinds:
            if where == "outside":
                return _Close(Verdict.REFUTED, shown, evidence, shown, rounded=True)
            return _Close(Verdict.COMPUTED, shown, evidence, rounded=True)
        correct = rounded_to(interval, half) if interval.point else _range(interval)
        if where == "inside":
            return _Close(Verdict.COMPUTED, shown, evidence, correct, precise=precise)
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
        evidence = [_measured(name, m, result), Evidence("measurement", summary)]
        shown = f"{m.value:.4g}"
        if z <= 1.96:
            tested = [statistic(name, m, p=p_value(z))]
            return _Close(Verdict.CONSISTENT, shown, evidence, statistical=True, statistic=tested)
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
        except Undecided as err:
            return Outcome(Verdict.UNDECIDED, reason=str(err))
        low, high = ia.low - ib.high, ia.high - ib.low
        holds = {
            "<": high < 0, "<=": high <= 0, ">": low > 0, ">=": low >= 0,
        }[relation]  # fmt: skip
        fails = {
            "<": low >= 0, "<=": low > 0, ">": high <= 0, ">=": high < 0,
        }[relation]  # fmt: skip
        shown = [f"{texts[0]} = {number_text(a, ia)}"]
        if not b.is_Number:
            shown.append(f"{texts[1]} = {number_text(b, ib)}")
        evidence = (*ea, *eb, Evidence("computation", ", ".join(shown)), *self.measured)
        if holds:
            verdict, tests = self.standard(Verdict.COMPUTED, [])
            return Outcome(verdict, tuple(unique(evidence)), statistic=tuple(tests))
        if fails:
            return Outcome(
                Verdict.REFUTED,
                tuple(unique(evidence)),
                f"{texts[0]} = {number_text(a, ia)}, not {relation} {texts[1]}",
            )
        return Outcome(
            Verdict.UNDECIDED,
            tuple(unique(evidence)),
            reason=f"{relation} holds on part of the interval only",
        )


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
    statistic: list[dict[str, Any]] | None = None


def statistic(
    name: str, m: Measurement, p: float | None = None, used: tuple[float, float] | None = None
) -> dict[str, Any]:
    """A test's figures: the measurement, its 95% interval, and a p-value or an interval.

    ``p`` is the p-value of a written figure against the measurement; ``used`` the
    interval (± 4.89·se) the measurement was taken on inside arithmetic.
    """
    out: dict[str, Any] = {
        "measurement": name,
        "value": m.value,
        "interval95": [m.ci95[0], m.ci95[1]],
    }
    if p is not None:
        out["p_value"] = p
    if used is not None:
        out["taken_on"] = [used[0], used[1]]
        out["z"] = Z_REFUTE
    return out


def _written_number(node: Node) -> tuple[Fraction, Fraction]:
    found = tolerance(node)
    assert found is not None  # the side was checked with is_literal
    return found


def rules_of(evidence: Evidence) -> list[str]:
    """The rule names in a derivation's summary '…: N steps checked by the kernel (a, b)'."""
    if evidence.kind != "derivation" or not evidence.summary.endswith(")"):
        return []
    return evidence.summary.rsplit("(", 1)[1].rstrip(")").split(", ")


def unique(evidence: Sequence[Evidence]) -> list[Evidence]:
    """The evidence without repeats, in order."""
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


def number_text(expr: Expr, interval: Interval, with_form: bool = True, decimals: int = 0) -> str:
    """A value for people: exact when it is short, else its form (if wanted) and digits."""
    if interval.exact:
        return show(expr) if expr.is_Rational and expr.q < 1000 else show_number(interval)
    if interval.point:
        size = abs(interval.mid)
        whole = len(str(int(size))) if 1 <= size < 10**15 else 0
        text = show_number(interval, max(6, whole + decimals))
        form = show(expr)
        if expr.is_Number or not with_form or len(form) > 30:
            return text
        return f"{form} ≈ {text}"
    return _range(interval)


def _range(interval: Interval) -> str:
    return f"[{show_number(interval.low, 5)}, {show_number(interval.high, 5)}]"


def _range_of(low: Fraction, high: Fraction) -> str:
    return f"[{show_number(low, 5)}, {show_number(high, 5)}]"


def _measured(name: str, m: Measurement, result: ExperimentResult) -> Evidence:
    experiment = experiment_of(name)
    label = EXPERIMENTS[experiment][0]
    size = f"{result.trials} {'runs' if experiment == 'training' else 'trials'}"
    if "lr" in result.extra:
        size += f", learning rate {result.extra['lr']:g}"
    return Evidence(
        "measurement",
        f"{name} = {m.value:.4g}, 95% interval [{m.ci95[0]:.4g}, {m.ci95[1]:.4g}]"
        f" (experiment {experiment}, lesson {label}, {size}, seed {result.seed})",
    )
