"""Keep command output shown in Markdown files equal to what the commands print now.

A block is marked by an HTML comment naming a ``scaledattn`` command (or ``python``
and an example file under ``docs/examples/``), followed by a fenced code block with
its output; ``<!-- source: PATH -->`` before a fenced block shows that file::

    <!-- output: scaledattn derive variance_of_sum -->
    ```
    …
    ```

:func:`sync_file` regenerates every such block; with ``check=True`` it only reports
the stale ones. The commands run in-process through the runner the caller hands in
(the command line's ``main``; this module does not import the command line).
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from collections.abc import Callable, Sequence
from pathlib import Path

MARKER = re.compile(r"<!-- output: (?P<cmd>[^>]*?) -->\n```[^\n]*\n(?P<body>.*?)```", re.S)
#: A block showing a file of the checkout: ``<!-- source: docs/examples/first_proof.py -->``.
SOURCE = re.compile(
    r"<!-- source: (?P<path>[^>]*?) -->\n```(?P<lang>[^\n]*)\n(?P<body>.*?)```", re.S
)
#: The checkout the example files live in.
ROOT = Path(__file__).resolve().parents[1]
#: The folder of the examples whose output a block may show (``python FILE``).
EXAMPLES = "docs/examples/"
#: Runs ``scaledattn ARGS`` in-process and returns its exit code: ``scaledattn.cli.main``.
Run = Callable[[Sequence[str]], int]


def command_output(command: str, run: Run) -> str:
    """The standard output of ``scaledattn ARGS``, or of ``python docs/examples/FILE.py``.

    Both run in-process: the command through ``run``, an example file with
    :mod:`runpy` (only files under ``docs/examples/`` of the checkout).
    """
    words = shlex.split(command)
    out = io.StringIO()
    if len(words) == 2 and words[0] == "python" and words[1].startswith(EXAMPLES):
        import runpy

        with contextlib.redirect_stdout(out):
            runpy.run_path(str(ROOT / words[1]), run_name="__main__")
        return out.getvalue()
    if not words or words[0] != "scaledattn":
        raise ValueError(
            f"an output block must name a scaledattn command or python {EXAMPLES}FILE,"
            f" got {command!r}"
        )
    with contextlib.redirect_stdout(out):
        run(words[1:])
    return out.getvalue()


def sync_text(text: str, run: Run) -> tuple[str, list[str]]:
    """``text`` with every output block regenerated, and the commands whose blocks changed."""
    stale: list[str] = []

    def replace(match: re.Match[str]) -> str:
        command = match.group("cmd").strip()
        body = command_output(command, run)
        if not body.endswith("\n"):
            body += "\n"
        if body != match.group("body"):
            stale.append(command)
        return f"<!-- output: {command} -->\n```\n{body}```"

    def source(match: re.Match[str]) -> str:
        path = match.group("path").strip()
        body = (ROOT / path).read_text(encoding="utf-8")
        if body != match.group("body"):
            stale.append(f"source: {path}")
        return f"<!-- source: {path} -->\n```{match.group('lang')}\n{body}```"

    return SOURCE.sub(source, MARKER.sub(replace, text)), stale


def sync_file(path: Path, run: Run, check: bool = False) -> list[str]:
    """Regenerate the output blocks of ``path`` (unless ``check``); return the stale ones."""
    text = path.read_text(encoding="utf-8")
    new, stale = sync_text(text, run)
    if stale and not check:
        path.write_text(new, encoding="utf-8")
    return stale
