"""The gate's second half: every accepted step evaluated on both sides in models of its context.

The acceptance test re-opens the bound-index escape of issue 30 (example 1) in the kernel,
in this test only, and shows that the kernel then accepts a false step and that the gate,
by itself, withholds the verdict.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sympy
from sympy import Expr, KroneckerDelta, Symbol

from scaledattn.derive import calc
from scaledattn.errors import SoundnessAlarm
from scaledattn.gate import check_steps, step_alarm
from scaledattn.gate.steps import EdgeChooser
from scaledattn.kernel import (
    Derivation,
    E,
    Equation,
    IndexSum,
    Moment,
    RandomVector,
    Step,
    Var,
    audit,
    random_variables,
)
from scaledattn.kernel import assumptions as kernel_assumptions
from scaledattn.kernel import rules as R
from scaledattn.kernel.binders import subst
from scaledattn.kernel.expr import Component, normal_form

n = Symbol("n", integer=True, positive=True)
i = Symbol("i", integer=True, positive=True)
m = Symbol("m", integer=True)  # an integer summation index: 0 and negatives allowed
(X,) = random_variables("X")
delta = KroneckerDelta


def _escape(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel before 437102a: a bound index was schematic, and matched a bound one."""

    def schematic(expr: Expr) -> tuple[Symbol, ...]:
        found = {c.index for c in expr.atoms(Component) if isinstance(c.index, Symbol)}
        return tuple(sorted(found, key=str))

    def instances(self: Moment, term: Expr) -> Iterator[Expr]:
        candidates = sorted({c.index for c in term.atoms(Component)}, key=str)
        for binding in kernel_assumptions._bindings(self.indices, candidates):
            if normal_form(subst(self.lhs, binding)) == normal_form(term):
                yield subst(self.value, binding)

    monkeypatch.setattr(kernel_assumptions, "_schematic_indices", schematic)
    monkeypatch.setattr(kernel_assumptions.Moment, "instances", instances)


def _unchecked_moment(lhs: Expr, value: Expr) -> Moment:
    fact = object.__new__(Moment)  # past the constructor's refusal of an escaping value
    object.__setattr__(fact, "lhs", lhs)
    object.__setattr__(fact, "value", value)
    return fact


def _escaping_derivation() -> Derivation:
    q = RandomVector("q", n)
    fact = _unchecked_moment(E(IndexSum(q[i], i, n)), delta(i**2, i) - delta(i, 1))
    lhs, rhs = E(IndexSum(q[m], m, n)), delta(m**2, m) - delta(m, 1)
    return Derivation(
        "escape",
        Equation(lhs, rhs),
        (Step(R.substitute_moment, rhs),),
        (fact, Moment(E(q[i]), 0)),
    )


def test_with_the_escape_reopened_the_kernel_accepts_and_the_gate_withholds_the_verdict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _escape(monkeypatch)
    derivation = _escaping_derivation()
    assert audit(derivation).verified  # the hole: E[Σₘ qₘ] = δ(m², m) − δ(m, 1), 1 at m = 0
    alarm = step_alarm(derivation)
    assert alarm.startswith("soundness alarm: step 1 of escape (by substitute_moment)")
    assert "m = 0" in alarm or "m = -1" in alarm
    assert "please report" in alarm
    with pytest.raises(SoundnessAlarm):
        check_steps(derivation)


def test_with_the_kernel_as_it_is_the_escaping_step_is_rejected() -> None:
    q = RandomVector("q", n)
    with pytest.raises(ValueError, match="may not mention i"):
        Moment(E(IndexSum(q[i], i, n)), delta(i**2, i) - delta(i, 1))
    assert not audit(_escaping_derivation()).verified


def test_a_true_derivation_passes_the_gate() -> None:
    d = calc("v", Var(X), E(X**2) - E(X) ** 2).eq(E(X**2) - E(X) ** 2, by=R.variance_def).qed()
    assert step_alarm(d) == ""
    check_steps(d)


def test_a_false_step_past_a_lenient_kernel_is_caught_on_the_edges() -> None:
    # Σᵢ δ(i, n) = 0 is false at every n ≥ 1: the kernel's ring refuses it; the gate too
    false = Derivation(
        "edge",
        Equation(IndexSum(delta(i, n), i, n), sympy.S.Zero),
        (Step("ring", sympy.S.Zero),),
        (),
    )
    assert "soundness alarm: step 1 of edge" in step_alarm(false)


def test_the_edge_chooser_takes_the_low_end_the_high_end_or_a_random_choice() -> None:
    import random

    rng = random.Random(0)
    assert EdgeChooser("low", rng).integer(-2, 3) == -2
    assert EdgeChooser("high", rng).integer(-2, 3) == 3
    assert -2 <= EdgeChooser("random", rng).integer(-2, 3) <= 3


def test_every_library_lemma_passes_the_gate() -> None:
    # check-proof does not re-run the gate on the library's fixed lemmas each time: here,
    # with every built-in theorem's own derivation (kept_alarm: ``check`` in this session
    # reads the same results, the derivations being the same objects)
    from scaledattn.gate import kept_alarm
    from scaledattn.prooffile.check import library_theorems
    from scaledattn.registry import all_derivations

    for theorem in library_theorems().values():
        assert kept_alarm(theorem.derivation) == "", theorem.derivation.name

    for derivation in all_derivations():
        assert kept_alarm(derivation) == "", derivation.name


def test_an_alarm_from_a_door_exits_70_with_the_step_the_model_and_please_report(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # the kernel made lenient: its step check accepts Var(X + Y) = Var(X) + Var(Y) as ring
    from scaledattn.cli import main
    from scaledattn.gate import steps

    def alarm(derivation: Derivation, *, seed: int = 0) -> str:
        steps._PASSED.clear()
        return "soundness alarm: step 1 of claim (by ring) is false in a model (please report it)"

    monkeypatch.setattr(steps, "step_alarm", alarm)
    steps._PASSED.clear()
    assert main(["verify", "Var(X + Y) = Var(X) + Var(Y) + 2*Cov(X, Y)"]) == 70
    err = capsys.readouterr().err
    assert err.startswith("scaledattn: soundness alarm: step 1 of claim")
    assert "please report" in err
