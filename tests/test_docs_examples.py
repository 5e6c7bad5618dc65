"""Every Python block in README.md and docs/ runs as written; every command shown runs."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from scaledattn.cli import main

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```(?P<lang>[a-z]*)\n(?P<body>.*?)^```", re.S | re.M)
INLINE = re.compile(r"`(scaledattn [^`]+)`")
#: Words that mark a usage pattern (`scaledattn derive NAME`), not a runnable command.
PLACEHOLDER = re.compile(r"\b[A-Z]{2,}\b|…|\[|\|")


def python_blocks() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for n, m in enumerate(FENCE.finditer(page.read_text(encoding="utf-8"))):
            if m.group("lang") == "python":
                found.append((f"{page.relative_to(ROOT)}#{n}", m.group("body")))
    return found


#: Shown but not re-run here: it only combines commands run below (the plots) with
#: `scaledattn docs`, which tests/test_docs.py runs.
NOT_RERUN = {"scaledattn docs --plots"}


def shown_commands() -> list[tuple[str, str, bool]]:
    """`scaledattn …` commands in the pages: (page, command, in a code block)."""
    found: dict[str, tuple[str, bool]] = {}
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        candidates = [(" ".join(c.split()), False) for c in INLINE.findall(text)]
        for m in FENCE.finditer(text):
            if m.group("lang") in ("", "console", "bash", "sh"):
                candidates += [
                    (line.removeprefix("$ ").strip(), True)
                    for line in m.group("body").splitlines()
                    if line.removeprefix("$ ").startswith("scaledattn ")
                ]
        for command, in_block in candidates:
            if PLACEHOLDER.search(command) or "&&" in command or command in NOT_RERUN:
                continue
            where = str(page.relative_to(ROOT))
            found[command] = (where, in_block or found.get(command, (where, False))[1])
    return sorted((where, command, block) for command, (where, block) in found.items())


@pytest.mark.parametrize(("where", "code"), python_blocks(), ids=lambda x: str(x)[:40])
def test_python_block_runs_as_written(where: str, code: str, tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, f"{where}:\n{result.stderr}"


def test_the_pages_show_python_examples_and_commands() -> None:
    assert len(python_blocks()) >= 2
    assert len(shown_commands()) >= 10


@pytest.mark.parametrize(
    ("where", "command", "in_block"), shown_commands(), ids=lambda x: str(x)[:60]
)
def test_shown_command_runs_without_a_traceback(
    where: str, command: str, in_block: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command in a code block must run; one named in the prose must at least not crash.

    (A bare name such as `scaledattn witness` in a sentence may stop with a usage
    message, exit 2, but never with a traceback.)
    """
    monkeypatch.chdir(tmp_path)  # commands that write files write here
    (tmp_path / "docs" / "img").mkdir(parents=True)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(shlex.split(command)[1:])
    allowed = (0, 1, 3) if in_block else (0, 1, 2, 3)
    assert code in allowed, f"{where}: {command} exited {code}: {err.getvalue()}"
    assert "Traceback" not in err.getvalue()
