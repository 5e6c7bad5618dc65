"""The kernel decides a refusal; ``scaledattn.explain`` only reports it.

Without a report (``theorem.REPORTS`` empty, or every report failing) a refused step
is still refused, as a ``StepMismatch`` or ``CannotDecide`` carrying the step, the
rule, the claim and what the rule gives.
"""

from __future__ import annotations

import pytest

from scaledattn.errors import CannotDecide, MissingAssumption, ProofError, StepMismatch
from scaledattn.kernel import Derivation, E, Equation, Step, Var, audit, random_variables, theorem
from scaledattn.kernel import rules as R

X, Y = random_variables("X Y")


def _refusal(rule: R.Rule, start: object, claim: object) -> object:
    result = audit(Derivation("t", Equation(start, claim), (Step(rule, claim),)))
    assert not result.verified
    return result.errors[0]


@pytest.mark.parametrize("reports", [[], [lambda *args: 1 / 0]], ids=["none", "failing"])
def test_a_step_is_refused_whatever_reports_it(
    monkeypatch: pytest.MonkeyPatch, reports: list[object]
) -> None:
    monkeypatch.setattr(theorem, "REPORTS", reports)
    error = _refusal(R.variance_def, Var(X), E(X) ** 2 - E(X**2))
    assert type(error) is StepMismatch
    assert (error.step, error.rule, error.got) == (1, "variance_def", E(X) ** 2 - E(X**2))
    assert error.expected == E(X**2) - E(X) ** 2
    assert "rule gives: -E(X)**2 + E(X**2)" in str(error)
    # Without the hints, a missing independence is a plain mismatch: the verdict stands.
    assert type(_refusal(R.expectation_mul_of_indep, E(X * Y), E(X) * E(Y))) is StepMismatch


def test_the_installed_report_explains_and_chooses_the_class() -> None:
    assert theorem.REPORTS, "explain.install() registers the report (tests/kernel/conftest.py)"
    error = _refusal(R.expectation_mul_of_indep, E(X * Y), E(X) * E(Y))
    assert isinstance(error, MissingAssumption)
    assert "differs by" not in str(error)
    mismatch = _refusal(R.variance_def, Var(X), E(X) ** 2 - E(X**2))
    assert "differs by: -2*E(X**2) + 2*E(X)**2" in str(mismatch)
    assert not isinstance(mismatch, CannotDecide)


def test_the_first_report_that_works_reports(monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(*args: object) -> ProofError:
        raise ValueError("no")

    def plain(prev: object, rule: object, undecided: bool, fields: dict[str, object]) -> ProofError:
        return MissingAssumption("  reported", missing="it", **fields)  # type: ignore[arg-type]

    monkeypatch.setattr(theorem, "REPORTS", [failing, plain])
    assert "reported" in str(_refusal(R.variance_def, Var(X), E(X) ** 2 - E(X**2)))


def test_without_a_report_an_undecided_step_is_cannot_decide(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sympy import Symbol, sqrt

    monkeypatch.setattr(theorem, "REPORTS", [])
    a = Symbol("a")
    assert type(_refusal(R.ring, sqrt(a**2), a)) is CannotDecide  # √(a²) = a: undecided
