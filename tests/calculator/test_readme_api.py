"""The README's Python example for the calculator runs and prints what it shows."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
SECTION = "## Answers for your own setting"


def test_the_readme_python_api_example_runs_as_shown() -> None:
    text = README.read_text(encoding="utf-8")
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```pycon\n(.*?)```", section, re.S)
    assert blocks, "the section shows no Python example"
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for n, block in enumerate(blocks):
        test = parser.get_doctest(block, {}, f"README api example {n}", str(README), 0)
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0
