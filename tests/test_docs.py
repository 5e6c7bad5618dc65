"""The generated documentation is current: `scaledattn docs --check` passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from scaledattn.cli import main
from scaledattn.docgen import docstring_markdown, write_docs

ROOT = Path(__file__).resolve().parents[1]


def test_generated_pages_and_output_blocks_are_current() -> None:
    stale = write_docs(ROOT, ROOT / "docs", main, check=True)
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
    assert "## Main results" in text
    assert ">>>" not in text


def test_sphinx_roles_and_double_backticks_become_code_spans() -> None:
    text = docstring_markdown("Title.\n\nWritten by (:mod:`scaledattn.moments.build`), ``x``.\n")
    assert "(`scaledattn.moments.build`), `x`." in text


def _pages() -> list[tuple[str, str]]:
    from scaledattn.docgen import pages

    found = [("README.md", (ROOT / "README.md").read_text(encoding="utf-8"))]
    found += [(p.path, p.text) for p in pages()]
    for extra in ("tutorial.md", "claims.md", "soundness.md", "testing.md", "statistics.md"):
        path = ROOT / "docs" / extra
        if path.exists():
            found.append((extra, path.read_text(encoding="utf-8")))
    return found


def _outside_code(text: str) -> list[str]:
    lines, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def test_pages_render_on_a_code_host() -> None:
    """Headings in order, no Sphinx roles, no \\text with \\_, no formula line beyond 400.

    The full check, with a Markdown parser and MathJax, is scripts/check_rendering.py.
    """
    for name, text in _pages():
        level = 0
        in_math = False
        for line in _outside_code(text):
            if line.strip() == "$$":
                in_math = not in_math
                continue
            if in_math:
                assert len(line) <= 400, f"{name}: a formula line of {len(line)} characters"
                assert "\\_" not in line, f"{name}: \\_ in a formula"
                continue
            heading = len(line) - len(line.lstrip("#"))
            if heading and line[heading : heading + 1] == " ":
                assert heading <= level + 1, f"{name}: H{level} → H{heading} in {line!r}"
                level = heading
            assert ":mod:`" not in line, f"{name}: a Sphinx role in {line!r}"
            assert ":func:`" not in line, f"{name}: a Sphinx role in {line!r}"
