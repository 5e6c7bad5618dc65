"""The README's shown output is what the commands print now."""

from __future__ import annotations

from pathlib import Path

from scaledattn.cli import main
from scaledattn.docsync import sync_file

ROOT = Path(__file__).resolve().parents[1]


def test_readme_output_blocks_match_the_commands() -> None:
    stale = sync_file(ROOT / "README.md", main, check=True)
    assert stale == [], f"stale README output blocks (run scaledattn docs): {stale}"


def test_the_readme_proof_example_shows_its_output_an_assumption_and_a_failure() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("A proof reads like the mathematics it checks", 1)[1]
    assert "<!-- source: docs/examples/first_proof.py -->" in section
    shown = section.split("<!-- output: python docs/examples/first_proof.py -->", 1)[1]
    assert "  • Independent(X, Y)" in shown
    assert "VERIFIED variances_add:" in shown
    assert "MissingAssumption" in shown
    assert "needs:" in shown
    assert "Traceback" not in shown
