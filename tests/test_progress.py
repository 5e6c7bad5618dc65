"""Progress on long runs: a tqdm bar on a terminal, nothing in a pipe, a file or a test.

The bar is checked three ways: on a stream that says it is a terminal (in-process, the
commands' wiring), on a real pseudo-terminal (the pty module: a subprocess whose
standard error is the pty's slave end, read from the master end), and on a real pipe.
"""

from __future__ import annotations

import io
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from scaledattn.cli import main
from scaledattn.progress import Bar, on_terminal

ROOT = Path(__file__).resolve().parents[1]


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_a_bar_on_a_terminal_counts_and_clears_itself_at_the_end() -> None:
    stream = Terminal()
    bar = Bar("saturation", "trial", stream=stream)
    for done in (100, 200, 300):
        bar(done, 300)
    text = stream.getvalue()
    assert "saturation" in text
    assert "/300" in text
    assert "trial" in text
    assert bar._bar is None  # closed: tqdm's leave=False clears the line


def test_a_bar_writes_nothing_where_the_stream_is_not_a_terminal() -> None:
    stream = io.StringIO()
    bar = Bar("saturation", stream=stream)
    bar.status("building…")
    bar(1, 2)
    bar(2, 2)
    assert stream.getvalue() == ""
    assert not bar.active


def test_tqdm_disable_switches_the_bar_off_on_a_terminal_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TQDM_DISABLE", "1")
    assert not on_terminal(Terminal())


def test_a_run_done_in_one_chunk_shows_no_bar() -> None:
    stream = Terminal()
    Bar("scores", stream=stream)(10, 10)
    assert stream.getvalue() == ""


def test_a_status_line_gives_way_to_the_count() -> None:
    stream = Terminal()
    with Bar("audit: measuring", "call", stream=stream) as bar:
        bar.status("audit: building the model…")
        bar(1, 3)
    text = stream.getvalue()
    assert text.index("building the model") < text.index("measuring")


@pytest.mark.parametrize(
    ("argv", "label"),
    [
        (["experiment", "saturation", "--trials", "40"], "experiment saturation"),
        (["witness", "--distribution", "coin", "--d-k", "64", "--samples", "4000"], "witness"),
    ],
)
def test_long_commands_show_their_progress_on_a_terminal(
    argv: list[str], label: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stream = Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    # small chunks, so that these short runs take several steps as long ones do
    monkeypatch.setattr("scaledattn.attention.experiments.CHUNK_FLOATS", 64 * 64 * 10)
    monkeypatch.setattr("scaledattn.numeric.montecarlo.chunk_rows", lambda width: 1000)
    assert main(argv) == 0
    assert label in stream.getvalue()
    assert label not in capsys.readouterr().out


def test_a_fuzz_campaign_shows_its_progress_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from scaledattn.fuzz.__main__ import main as fuzz

    stream = Terminal()
    monkeypatch.setattr(sys, "stderr", stream)
    assert fuzz(["--applications", "30", "--seed", "1"]) == 0
    assert "fuzz campaign" in stream.getvalue()
    assert "fuzz campaign" not in capsys.readouterr().out


COMMAND = [sys.executable, "-m", "scaledattn", "experiment", "scores", "--trials", "200000"]


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TQDM_")}
    return {**env, "PYTHONPATH": str(ROOT), "COLUMNS": "100"}


def test_progress_shows_on_a_real_terminal_and_not_in_a_pipe() -> None:
    # standard error on the slave end of a pseudo-terminal, standard output a pipe
    master, slave = pty.openpty()
    with subprocess.Popen(
        COMMAND, stdout=subprocess.PIPE, stderr=slave, env=_environment(), cwd=ROOT
    ) as process:
        os.close(slave)
        seen = b""
        while True:
            ready, _, _ = select.select([master], [], [], 60)
            if not ready:
                break
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the child closed its end
                break
            if not chunk:
                break
            seen += chunk
        out = process.stdout.read() if process.stdout else b""
    os.close(master)
    assert process.returncode == 0
    shown = seen.decode("utf-8", "replace")
    assert "experiment scores" in shown
    assert "trial" in shown
    assert "%|" in shown  # tqdm's bar
    assert "experiment scores:" not in out.decode()  # the report on stdout has no bar
    assert "Experiment scores" in out.decode()
    # the same command with standard error a pipe: no bar at all
    piped = subprocess.run(COMMAND, capture_output=True, env=_environment(), cwd=ROOT, check=True)
    assert piped.stderr == b""
