"""The generated documentation is current: `scaledattn docs --check` passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from scaledattn.cli import main
from scaledattn.docgen import docstring_markdown, write_docs

ROOT = Path(__file__).resolve().parents[1]


def test_generated_pages_and_output_blocks_are_current() -> None:
    stale = write_docs(ROOT, ROOT / "docs", check=True)
    assert stale == [], f"stale docs (run: scaledattn docs): {stale}"


def test_every_theorem_module_has_a_page_and_every_page_shows_a_verdict(
    generated_pages: dict[str, str],
) -> None:
    generated = generated_pages
    assert "theorems.md" in generated
    for path, text in generated.items():
        if path.startswith("theorems/"):
            assert "VERIFIED" in text
            assert "$$" in text


def test_docs_check_reports_a_stale_page_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs"
    assert main(["docs", "-o", str(docs)]) == 0
    page = docs / "theorems" / "unique_scale.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nedited by hand\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["docs", "-o", str(docs), "--check"]) == 1
    assert "theorems/unique_scale.md" in capsys.readouterr().out


def test_a_numpy_docstring_becomes_markdown_headings() -> None:
    text = docstring_markdown(
        "Title.\n\nMain results\n------------\n- one\n\nExamples\n--------\n>>> 1\n1\n"
    )
    assert "#### Main results" in text
    assert ">>>" not in text
