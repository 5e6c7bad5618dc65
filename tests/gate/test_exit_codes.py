"""Review 30, finding 11 (05): check-proof's exit 3 is documented; a ✗ step exits 1.

A file whose one theorem has a rejected step under assumptions with no model exited 3
(undecided) although a step was rejected: a rejection is a rejection whatever the
assumptions.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scaledattn.cli import main
from scaledattn.prooffile.guide import guide_markdown

Capture = pytest.CaptureFixture[str]
ROOT = Path(__file__).resolve().parents[2]


def test_a_rejected_step_under_model_less_assumptions_exits_1(
    tmp_path: Path, capsys: Capture
) -> None:
    file = tmp_path / "t.proof"
    file.write_text(
        "theorem bad: E(X) = 5\nassume: E(2*X) = 3\nassume: E(X) = 1\n  E(X)\n  = 7\n  = 5\n",
        encoding="utf-8",
    )
    code = main(["check-proof", str(file)])
    out = capsys.readouterr().out
    assert "✗" in out
    assert code == 1


def test_exit_3_is_documented() -> None:
    assert "3 undecided" in guide_markdown()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "a proof file's theorem" in readme
