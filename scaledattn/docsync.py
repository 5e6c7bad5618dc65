"""Keep command output shown in Markdown files equal to what the commands print now.

A block is marked by an HTML comment naming a ``scaledattn`` command, followed by a
fenced code block with its output::

    <!-- output: scaledattn derive variance_of_sum -->
    ```
    …
    ```

:func:`sync_file` regenerates every such block; with ``check=True`` it only reports
the stale ones. The commands run in-process through :func:`scaledattn.cli.main`.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

MARKER = re.compile(r"<!-- output: (?P<cmd>[^>]*?) -->\n```[^\n]*\n(?P<body>.*?)```", re.S)


def command_output(command: str) -> str:
    """The standard output of ``scaledattn ARGS`` run in-process."""
    from scaledattn.cli import main

    words = shlex.split(command)
    if not words or words[0] != "scaledattn":
        raise ValueError(f"an output block must name a scaledattn command, got {command!r}")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(words[1:])
    return out.getvalue()


def sync_text(text: str) -> tuple[str, list[str]]:
    """``text`` with every output block regenerated, and the commands whose blocks changed."""
    stale: list[str] = []

    def replace(match: re.Match[str]) -> str:
        command = match.group("cmd").strip()
        body = command_output(command)
        if not body.endswith("\n"):
            body += "\n"
        if body != match.group("body"):
            stale.append(command)
        return f"<!-- output: {command} -->\n```\n{body}```"

    return MARKER.sub(replace, text), stale


def sync_file(path: Path, check: bool = False) -> list[str]:
    """Regenerate the output blocks of ``path`` (unless ``check``); return the stale ones."""
    text = path.read_text(encoding="utf-8")
    new, stale = sync_text(text)
    if stale and not check:
        path.write_text(new, encoding="utf-8")
    return stale
