"""Review 30, finding 4 (01): COMPUTED and CONSISTENT pass the gate as VERIFIED does.

Under E[X⁴] = 0 and E[X²] = 1 (no model: E[X⁴] ≥ E[X²]²) the false ``Var(X**2) < 0`` was
COMPUTED, exit 0. Every verdict but UNDECIDED needs a model of the assumptions.
"""

from __future__ import annotations

import pytest

from scaledattn.claims.outcome import Verdict
from scaledattn.claims.verify import verify

NO_MODEL_LINES = ["E(X**4) = 0", "E(X**2) = 1"]


@pytest.mark.parametrize(
    "claim",
    [
        "E(X**4) < E(X**2)**2",
        "Var(X**2) < 0",
        "E(X**4) >= E(X**2)**2",
        "E(X**4) ≈ 0.0",
        "measured(max_weight_unscaled) ≈ 0.787",
    ],
)
def test_no_word_without_a_model(claim: str) -> None:
    result = verify(claim, NO_MODEL_LINES, trials={"max_weight_unscaled": 200})
    assert result.verdict is Verdict.UNDECIDED, result.verdict
    assert "no model" in result.reason or "inconsistent" in result.reason


@pytest.mark.parametrize(
    ("claim", "word"),
    [("E(X**2) < 2", Verdict.COMPUTED), ("exp(3.2) ≈ 24.5", Verdict.COMPUTED)],
)
def test_a_computation_with_a_model_keeps_its_word(claim: str, word: Verdict) -> None:
    result = verify(claim, ["E(X**2) = 1"] if "X" in claim else [])
    assert result.verdict is word
    if "X" in claim:
        assert any(e.kind == "model" for e in result.evidence)
