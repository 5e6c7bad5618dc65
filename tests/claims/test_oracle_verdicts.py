"""The verifier uses the oracle: counterexamples are models of the assumptions, signs are stated.

Issue 12, examples 5 and 6, and the inconsistent assumptions that must not verify anything.
"""

from __future__ import annotations

import pytest
from sympy import S

from scaledattn.automation.counterexample import counterexample
from scaledattn.claims.outcome import Verdict
from scaledattn.claims.verify import verify
from scaledattn.cli import main
from scaledattn.kernel import Independent, Var, random_variables

X, Y = random_variables("X Y")


def test_issue_example_5_x_independent_of_itself_is_not_refuted() -> None:
    result = verify("Var(X) = 0", ["Y = X", "independent(X, Y)"])
    assert result.verdict is not Verdict.REFUTED
    assert result.counterexample is None


def test_issue_example_6_the_negative_root_is_excluded_by_the_declared_sign() -> None:
    result = verify("Var(dot(q, k)/sigma) = 1 <=> sigma = sqrt(d_k)", ["sigma > 0"])
    assert result.verdict is Verdict.VERIFIED


def test_a_scale_the_claim_uses_is_stated_positive_not_taken_silently() -> None:
    result = verify("Var(dot(q, k)/sigma) = 1 <=> sigma = sqrt(d_k)")
    assert "sigma > 0 (default)" in result.assumptions


def test_inconsistent_assumptions_verify_nothing() -> None:
    result = verify("Var(X) = 5", ["Y = X", "independent(X, Y)", "Var(X) = 1"])
    assert result.verdict is Verdict.UNDECIDED
    assert "inconsistent" in result.reason
    moments = verify("E(X) = 2", ["E(X^2) = 1", "E(X) = 2"])
    assert moments.verdict is Verdict.UNDECIDED
    assert "inconsistent" in moments.reason


# The two commands below run in-process (main returns the exit code the process would
# give; tests/cli/test_bad_input_sweep.py starts real processes): issue 13, speed.


def test_inconsistent_assumptions_exit_3(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["verify", "Var(X) = 5", "--assume", "Y = X", "--assume",
         "independent(X, Y)", "--assume", "Var(X) = 1"]
    )  # fmt: skip
    assert code == 3
    assert "inconsistent" in capsys.readouterr().out


def test_a_counterexample_satisfies_a_definition_and_the_independence() -> None:
    # with Y = X the only models of X ⫫ Y have X constant: Var(X) = 0 holds in all of them
    assert counterexample(Var(X), S.Zero, [Independent(X, Y)], defined={"Y": X}) is None
    # without the definition, any non-constant X refutes it
    found = counterexample(Var(X), S.Zero, [Independent(X, Y)])
    assert found is not None
    assert found.left != "0"


def test_a_wrong_identity_is_still_refuted_with_a_checked_model() -> None:
    result = verify("Var(X + Y) = Var(X) + Var(Y)")
    assert result.verdict is Verdict.REFUTED
    assert result.counterexample is not None
    assert result.counterexample["model"] == "X ~ coin, Y = X"


def test_trial_values_give_no_negative_variance() -> None:
    """ρ = 1/2 separates the sides but makes Var(X) = −3/2: the oracle has no model of it."""
    result = verify("Var(X) = 1", ["Var(X) = rho - 2"])
    assert result.verdict is Verdict.REFUTED
    # at ρ = 2 a model of the gate's search, every assumption checked on it by the semantics
    assert result.counterexample == {"model": "rho = 2, X ∈ {0}", "left": "0", "right": "1"}


def test_the_calculator_states_the_sign_it_assumes_about_a_users_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["scale", "--var-q", "s**2"]) == 0
    done = capsys.readouterr()
    assert done.out.strip() == "sqrt(d_k)*s"
    assert "s > 0 is assumed" in done.err
