"""The README's shown output is what the commands print now."""

from __future__ import annotations

from pathlib import Path

from scaledattn.docsync import sync_file

ROOT = Path(__file__).resolve().parents[1]


def test_readme_output_blocks_match_the_commands() -> None:
    stale = sync_file(ROOT / "README.md", check=True)
    assert stale == [], f"stale README output blocks (run scaledattn docs): {stale}"
