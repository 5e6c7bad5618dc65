"""Review 30, findings 8 and 9 (06, 10): a bound index is never replaced as if free.

06: a fact whose left side sums over i has a model (q ≡ 0); the semantics and the world
drawer read only its free indices as schematic. 10: a false claim about a sum with
symbolic d_k is REFUTED, not refused with "a summation index is a positive-integer symbol,
got 1" (counterexample.py replaced the bound index of the sum).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scaledattn.claims.outcome import Verdict
from scaledattn.claims.verify import verify
from scaledattn.cli import main

Capture = pytest.CaptureFixture[str]


@pytest.mark.parametrize(
    "claim",
    [
        "Var(sum(q_i, i, 1, d_k)) = 2*d_k",
        "E(norm(q - k)**2) = d_k",
        "E(norm(q - delta(i, 1)*k)**2) = 2*d_k",
    ],
)
def test_a_false_claim_about_a_sum_is_refuted(claim: str) -> None:
    assert verify(claim, remedies=False).verdict is Verdict.REFUTED


def test_a_fact_with_a_bound_index_has_a_model(tmp_path: Path, capsys: Capture) -> None:
    file = tmp_path / "t.proof"
    file.write_text(
        "theorem z: E(sum(q_i, i, 1, d_k)) = 0\n"
        "assume: no defaults\n"
        "assume: E(sum(q_i, i, 1, d_k)) = 0\n"
        "  E(sum(q_i, i, 1, d_k))\n"
        "  = 0    by substitute_moment\n",
        encoding="utf-8",
    )
    code = main(["check-proof", str(file)])
    out = capsys.readouterr().out
    assert "no model" not in out
    assert code == 0


@pytest.mark.parametrize(
    "claim",
    ["E(norm(q - delta(i, 1)*k)**2) = 2*d_k", "cross_sum(E(q_i*q_j), i, j, 1, 1) = 0"],
)
def test_a_model_line_gives_no_value_to_a_bound_index(claim: str) -> None:
    result = verify(claim, remedies=False)
    (line,) = [e.summary for e in result.evidence if e.kind == "model"]
    for bound in ("i = ", "j = "):
        assert bound not in line, line
