"""Review 30, finding 10 (07): quotients of moments with a divisor known ≠ 0 are decided.

``Var(X)/Var(X) = 1`` under ``Var(X) = 1`` was refused ("nothing that can be declared
keeps it nonzero", while the line that does is declared); ``E(X)/Var(Y) = E(X)/Var(Y)``
and ``Cov(X, Y)/Var(X) = Cov(Y, X)/Var(X)`` under a unit variance were UNDECIDED ("the
kernel refused the reduction"): a divisor with a closed form known ≠ 0 is replaced by it.
"""

from __future__ import annotations

import pytest

from scaledattn.claims.outcome import Verdict
from scaledattn.claims.verify import verify
from scaledattn.errors import InvalidArgument


@pytest.mark.parametrize(
    ("claim", "assume"),
    [
        ("Var(X)/Var(X) = 1", ["Var(X) = 1"]),
        ("E(X)/Var(Y) = E(X)/Var(Y)", ["Var(Y) = 1"]),
        ("Cov(X, Y)/Var(X) = Cov(Y, X)/Var(X)", ["Var(X) = 1"]),
        ("E(X)/Var(Y) = E(X)", ["Var(Y) = 1"]),
    ],
)
def test_a_quotient_by_a_moment_known_nonzero_is_verified(claim: str, assume: list[str]) -> None:
    assert verify(claim, assume, remedies=False).verdict is Verdict.VERIFIED


def test_a_false_one_is_still_refuted() -> None:
    result = verify("E(X)/Var(Y) = 2*E(X)", ["Var(Y) = 1"], remedies=False)
    assert result.verdict is Verdict.REFUTED


def test_an_undeclared_cancelled_divisor_is_refused_with_the_declaration_that_keeps_it() -> None:
    with pytest.raises(InvalidArgument, match=r'declare its value \(--assume "Var\(X\) = 1"\)'):
        verify("Var(X)/Var(X) = 1")
    with pytest.raises(InvalidArgument, match="may be 0"):
        verify("Var(X)/Var(X) = 1", ["Var(X) = 0"])


def test_a_proof_file_accepts_a_cancelled_divisor_declared_nonzero(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from scaledattn.cli import main

    file = tmp_path / "t.proof"
    body = "theorem sq: Var(X)/Var(X) = 1\n{}  Var(X)/Var(X)\n  = 1\n"
    file.write_text(body.format("assume: Var(X) = 1\n"), encoding="utf-8")
    assert main(["check-proof", str(file)]) == 0
    file.write_text(body.format(""), encoding="utf-8")
    assert main(["check-proof", str(file)]) == 2
    assert "declare its value (assume: Var(X) = 1)" in capsys.readouterr().err


def test_a_standard_deviation_of_a_sum_divides_as_its_correlation_sibling_does() -> None:
    assume = ["independent(X, Y)", "Var(X) = 1", "Var(Y) = 1"]
    assert verify("std(X)/std(X + Y) = 1/sqrt(2)", assume).verdict is Verdict.VERIFIED
    assert verify("std(X)/std(X + Y) = 1/2", assume, remedies=False).verdict is Verdict.REFUTED
