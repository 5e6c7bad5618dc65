"""Issue 18: a refutation says what would make the claim true, and each way out is checked."""

from __future__ import annotations

import re

import pytest

from scaledattn.claims import Verdict, verify
from scaledattn.claims.report import result_text

R, V = Verdict.REFUTED, Verdict.VERIFIED


def test_the_missing_assumption_is_named_and_holds_when_given() -> None:
    result = verify("Var(X + Y) = Var(X) + Var(Y)")
    assert result.verdict is R
    assert 'holds under --assume "independent(X, Y)"' in result.remedies
    assert verify("Var(X + Y) = Var(X) + Var(Y)", ["independent(X, Y)"]).verdict is V
    assert 'Way out   holds under --assume "independent(X, Y)"' in result_text(result)


@pytest.mark.parametrize(
    ("claim", "correct"),
    [
        ("Var(2*X) = 2*Var(X)", "Var(2 * X) = 4*Var(X)"),
        ("Var(X + Y) = Var(X) + Var(Y)", "Var(X + Y) = Var(X) + Var(Y) + 2*Cov(X, Y)"),
        ("E(X*Y) = E(X)*E(Y)", "E(X * Y) = E(X) * E(Y) + Cov(X, Y)"),
        ("Var(X + 1) = Var(X) + 1", "Var(X + 1) = Var(X)"),
        ("Var(c*X) = c*Var(X)", "Var(c * X) = c**2*Var(X)"),
    ],
)
def test_the_corrected_right_side_is_given_and_verifies_when_pasted_back(
    claim: str, correct: str
) -> None:
    result = verify(claim)
    assert result.verdict is R
    assert result.correct == correct
    assert f"REFUTED — correct: {correct}" in result_text(result)
    assert verify(correct).verdict is V


def test_a_condition_on_a_constant_is_given_and_checked() -> None:
    result = verify("Var(c*X) = c*Var(X)")
    assert result.remedies == ('holds when c = 1 (--assume "c = 1")',)  # c > 0: not c = 0
    assert verify("Var(c*X) = c*Var(X)", ["c = 1"]).verdict is V
    scaled = verify("Var(dot(q, k)/c) = 1")
    (way,) = scaled.remedies
    assert way.startswith("holds when c = sqrt(d_k)")
    (pasted,) = re.findall(r'"([^"]+)" is verified', way)
    assert verify(pasted).verdict is V


def test_a_true_claim_or_a_number_gets_no_remedy() -> None:
    assert verify("Var(2*X) = 4*Var(X)").remedies == ()
    assert verify("exp(3.2) ≈ 25").remedies == ()
    assert "remedies" not in verify("Var(2*X) = 4*Var(X)").as_json()
