"""What review k18 found on the paths from text to the kernel (issue 12)."""

from __future__ import annotations

import pytest

from scaledattn.cli import main

Capture = pytest.CaptureFixture[str]


def test_a_dot_product_of_another_dimension_than_the_assumed_d_k_is_refused(
    capsys: Capture,
) -> None:
    # with d_k = 3, q = (q₁, q₂, q₃): dot(q, k, 5) would read q₄, q₅ (as q_5 is refused)
    code = main(["verify", "E(dot(q, k, 5)) = 0", "--assume", "d_k = 3", "--brief"])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert "q and k have d_k = 3 components" in err
    assert len(err.strip().splitlines()) == 1
    assert main(["verify", "Var(dot(q, k, 3)) = 3", "--assume", "d_k = 3", "--brief"]) == 0
    capsys.readouterr()
    # without d_k assumed, dot(q, k, N) is a pair of vectors of dimension N, as before
    assert main(["verify", "Var(dot(q, k, 5)) = 5", "--brief"]) == 0


@pytest.mark.parametrize("variance", ["(mu+1)**2", "(mu-1)**2"])
def test_a_squared_binomial_variance_is_answered_not_crashed(
    variance: str, capsys: Capture
) -> None:
    # SymPy's sign deduction raised PolynomialError on it after earlier work (exit 70)
    code = main(["variance", "--var-q", variance])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "d_k*(mu**2" in out
