"""Review 30, finding 7 (04): a default is never kept unchecked against the user's line.

``assume: E(q_1**4) = 1/2`` contradicts the default Var(qᵢ) = 1 (E[q⁴] ≥ Var(q)²), which
the algebraic checks miss. A default about what the user's lines name is kept only with
a model of both; else it is dropped and named, never listed as in force.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scaledattn.cli import main

Capture = pytest.CaptureFixture[str]


@pytest.mark.parametrize(
    ("statement", "line"),
    [
        ("E(q_1**4) = 1/2", "E(q_1**4) = 1/2"),
        ("E(sum(q_i, i, 1, d_k)) = d_k", "E(sum(q_i, i, 1, d_k)) = d_k"),
    ],
)
def test_a_default_the_search_cannot_judge_is_dropped(
    tmp_path: Path, capsys: Capture, statement: str, line: str
) -> None:
    file = tmp_path / "t.proof"
    file.write_text(
        f"theorem t: {statement}\nassume: {line}\n  {statement.split(' = ')[0]}\n"
        f"  = {statement.split(' = ')[1]}\n",
        encoding="utf-8",
    )
    main(["check-proof", str(file)])
    out = capsys.readouterr().out
    header = next(x for x in out.splitlines() if "assuming:" in x)
    if "q_1**4" in statement:
        # E[q₁⁴] = 1/2 against Var(q₁) = 1 (E[q⁴] ≥ Var(q)²): that default is dropped; the
        # independence of the components has a model with the line and may stay
        assert "Var(qᵢ) = 1 for every i (default dropped" in header
        return
    for default in header.split(";"):
        if "(default" in default and "E[" not in default:  # a mean's default: algebraic
            assert "dropped" in default, header
