"""``dot(q, k, N)`` in a claim: N must be the assumed d_k, else a one-line refusal.

With no d_k assumed, ``dot(q, k, N)`` is a pair of vectors of dimension N. (Found by
review k18 of the paths from text to the kernel, issue 12: docs/history.md.)
"""

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
