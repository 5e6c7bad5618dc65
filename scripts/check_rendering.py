"""Render the Markdown pages as a code host does and report what would not display.

Markdown is parsed with markdown-it-py (CommonMark + GFM tables) and its dollarmath
plugin, the parser family GitHub-style hosts follow, and every formula found is
handed to MathJax 3 (the engine GitHub and GitLab use) through Node, which reports
each TeX error. Also checked: heading levels that skip, Sphinx roles left in the
text, and formula lines longer than a screen.

Needs (not project dependencies): ``pip install markdown-it-py mdit-py-plugins`` and
``npm install mathjax-full@3`` in a folder given as MATHJAX_DIR (default /tmp/mj18),
holding ``check.mjs`` (scripts/check_rendering.mjs is copied there).

Usage: ``python scripts/check_rendering.py [FILE.md …]`` (default: README.md, docs/).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

ROOT = Path(__file__).resolve().parents[1]
#: A formula line longer than this many characters is reported.
LONG = 400
ROLE = re.compile(r":(?:mod|func|class|meth|attr|data|exc|obj):`")


def pages(args: list[str]) -> list[Path]:
    """The pages named, or the README and every page under docs/."""
    if args:
        return [Path(a) for a in args]
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def check(path: Path, md: MarkdownIt) -> tuple[list[str], list[dict[str, object]]]:
    """The problems of one page found while parsing it, and its formulas for MathJax."""
    text = path.read_text(encoding="utf-8")
    problems: list[str] = []
    formulas: list[dict[str, object]] = []
    level = 0
    for token in md.parse(text):
        if token.type == "heading_open":
            n = int(token.tag[1])
            if level and n > level + 1:
                problems.append(f"{path.name}: heading H{level} → H{n} skips a level")
            level = n
        elif token.type in ("math_block", "math_inline"):
            formulas.append(
                {"file": path.name, "display": token.type == "math_block", "tex": token.content}
            )
            for line in token.content.splitlines():
                if len(line) > LONG:
                    problems.append(f"{path.name}: a formula line of {len(line)} characters")
        elif token.type == "inline" and ROLE.search(token.content):
            problems.append(f"{path.name}: a Sphinx role in {token.content[:60]!r}")
    return problems, formulas


def main(args: list[str]) -> int:
    """Check the pages; exit 1 if anything would not render."""
    md = MarkdownIt("commonmark").enable("table").use(dollarmath_plugin, double_inline=True)
    problems: list[str] = []
    formulas: list[dict[str, object]] = []
    files = pages(args)
    for path in files:
        found, math = check(path, md)
        problems += found
        formulas += math
    folder = Path(os.environ.get("MATHJAX_DIR", "/tmp/mj18"))
    shutil.copy(Path(__file__).with_suffix(".mjs"), folder / "check.mjs")
    feed = "\n".join(json.dumps(f) for f in formulas) + "\n"
    done = subprocess.run(
        ["node", "check.mjs"], cwd=folder, input=feed, capture_output=True, text=True, check=False
    )
    print("\n".join(problems) or "no heading, role or line-length problems")
    print(done.stdout.strip() or done.stderr.strip())
    print(f"{len(files)} pages")
    errors = "0 MathJax errors" not in done.stdout
    return 1 if problems or errors else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
