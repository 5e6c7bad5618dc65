"""Review 30, finding 2 (11): ``theorem(NAME)`` is decided under NAME's own assumptions too.

The gate's model must satisfy the user's --assume lines and the cited theorem's
assumptions together; ``Cov(X, Y) = 1`` against variance_of_sum_of_indep's
independent(X, Y) leaves none, so no VERIFIED (the same statement written out is REFUTED).
"""

from __future__ import annotations

import pytest

from scaledattn.claims.outcome import Verdict
from scaledattn.claims.verify import verify
from scaledattn.cli import main

Capture = pytest.CaptureFixture[str]


@pytest.mark.parametrize(
    ("name", "assume"),
    [
        ("variance_of_sum_of_indep", ["Cov(X, Y) = 1", "Var(X) = 1", "Var(Y) = 1"]),
        ("dot_product_variance", ["Var(q_i) = 2"]),
    ],
)
def test_a_cited_theorem_against_the_users_lines_is_not_verified(
    name: str, assume: list[str], capsys: Capture
) -> None:
    argv = ["verify", f"theorem({name})"] + [x for a in assume for x in ("--assume", a)]
    assert main(argv) == 3
    out = capsys.readouterr().out
    assert "VERIFIED" not in out
    assert f"(assumed by {name})" in out  # the header names the theorem's assumptions


def test_a_cited_theorem_under_compatible_lines_is_verified_with_a_model_of_both() -> None:
    result = verify("theorem(variance_of_sum_of_indep)", ["Var(X) = 1"])
    assert result.verdict is Verdict.VERIFIED
    assert any("Independent(X, Y) (assumed by" in a for a in result.assumptions)
    assert any(e.kind == "model" for e in result.evidence)
