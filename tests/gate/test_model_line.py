"""Review 30, finding 6 (13): a printed model is a model of what it says it is.

Under ``d_k = 64`` the claim's law is too large to enumerate; the model the gate finds
is of the assumptions' symbolic statements at a small dimension (dₖ = 3). Its line must
say so, never "a model of the assumptions … (each assumption checked on it)" as if at
dₖ = 64.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scaledattn.claims.verify import verify
from scaledattn.cli import main
from scaledattn.gate import model_found, model_line

Capture = pytest.CaptureFixture[str]


def _model(result: object) -> str:
    lines = [e.summary for e in result.evidence if e.kind == "model"]  # type: ignore[attr-defined]
    assert len(lines) == 1
    return lines[0]


def test_a_model_at_a_smaller_dimension_says_so() -> None:
    line = _model(verify("Var(dot(q,k)) = d_k", ["d_k = 64"]))
    assert "read at a small dimension" in line
    assert "not those of this model" in line
    assert not line.startswith("a model of the assumptions:")


def test_a_model_at_the_claims_own_values_is_plain() -> None:
    line = _model(verify("Var(dot(q,k)) = d_k", ["d_k = 2"]))
    assert line.startswith("a model of the assumptions: ")
    assert line.endswith("(each assumption checked on it)")


def test_check_proof_says_it_too(tmp_path: Path, capsys: Capture) -> None:
    file = tmp_path / "t.proof"
    file.write_text(
        "theorem big: Var(dot(q, k, 64)) = 64\n  Var(dot(q, k, 64))\n  = 64\n", encoding="utf-8"
    )
    main(["check-proof", str(file)])
    out = capsys.readouterr().out
    if "a model of the assumptions" in out:
        assert "read at a small dimension" in out


def test_model_found_reports_a_model_of_the_assumptions_alone() -> None:
    from scaledattn.kernel import Moment, Var, random_variables

    (x,) = random_variables("X")
    world, alone = model_found([Var(x)], [Moment(Var(x), 1)])
    assert world is not None
    assert not alone
    assert model_line(world, [], alone).startswith("a model of the assumptions: ")
