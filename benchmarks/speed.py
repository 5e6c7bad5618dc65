"""How fast the test suite and the command line are on this machine (issue 13's targets).

Run: python benchmarks/speed.py [--runs 3] [--suite-runs 3] [--no-suite]

Prints, each figure the median of ``--runs`` runs (the suite: of ``--suite-runs``):

- every command's cold start (a new process) beside ``python -c "import sympy"``:
  ``--help``, a usage error, ``list``, ``variance --var-q 4 --var-k 4``, ``derive``;
- ``check``, cold (an empty theorem cache) and warm (the cache it filled);
- the collection alone (what each test worker does before its first test), and the
  wall time of ``python -m pytest``, the README's test line (as .ci/run runs it).

The load average is printed with each figure: the machine may be shared, and a
figure taken under load says so. On a shared machine compare the CPU time (user +
system, printed beside ``check`` and the suite), which the load changes far less than
the wall time. Targets are printed beside the figures; they are measured here, never
asserted in a test. Where a cold ``check`` spends its CPU time, by phase and inside
the kernel: benchmarks/check_phases.py.

With ``PYTHONDONTWRITEBYTECODE`` set (some containers set it) no ``__pycache__`` is
written, so every test worker and every command compiles the package and the test
modules again (about 2 s of CPU per worker); the report says when it is set.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def scaledattn_command() -> list[str]:
    """The installed entry point next to this Python, else ``python -m scaledattn``."""
    script = Path(sys.executable).with_name("scaledattn")
    return [str(script)] if script.exists() else [sys.executable, "-m", "scaledattn"]


def load() -> str:
    """The 1-minute load average and the number of cores."""
    try:
        one = Path("/proc/loadavg").read_text(encoding="ascii").split()[0]
    except OSError:
        one = f"{os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else "?"
    return f"load {one} on {os.cpu_count()} cores"


def timed(argv: Sequence[str], env: dict[str, str], expect: int | None = None) -> float:
    """Seconds one run of ``argv`` takes (its output is discarded)."""
    start = time.perf_counter()
    result = subprocess.run(
        list(argv), env=env, cwd=ROOT, capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - start
    if expect is not None and result.returncode != expect:
        raise SystemExit(f"{' '.join(argv)} exited {result.returncode}: {result.stderr}")
    return seconds


def cpu_of(once: Callable[[], float], cpu: list[float]) -> Callable[[], float]:
    """``once``, appending to ``cpu`` the CPU time (user + system) its child processes used."""

    def timed_once() -> float:
        start = resource.getrusage(resource.RUSAGE_CHILDREN)
        seconds = once()
        end = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(end.ru_utime - start.ru_utime + end.ru_stime - start.ru_stime)
        return seconds

    return timed_once


def cpu_row(cpu: list[float]) -> None:
    """The CPU time of the runs just timed."""
    shown = ", ".join(f"{c:.2f}" for c in cpu)
    print(f"    CPU time (user + system): median {statistics.median(cpu):.2f} s [{shown}]")


def median_of(runs: int, once: Callable[[], float]) -> tuple[float, list[float]]:
    """The median of ``runs`` timings and the timings."""
    times = [once() for _ in range(runs)]
    return statistics.median(times), times


def row(label: str, median: float, times: list[float], target: str = "") -> None:
    """One line of the report."""
    shown = ", ".join(f"{t:.2f}" for t in times)
    print(f"  {label:<42} {median:6.2f} s   [{shown}]  {target:<26} ({load()})")


def commands(runs: int) -> None:
    """Cold starts of the commands, and check cold and warm."""
    exe = scaledattn_command()
    cache = Path(tempfile.mkdtemp(prefix="scaledattn-bench-cache-"))
    env = {**os.environ, "SCALEDATTN_CACHE_DIR": str(cache)}
    env.pop("SCALEDATTN_NO_CACHE", None)
    try:
        print(f"Command line ({' '.join(exe)}; medians of {runs} runs, seconds):")
        sympy_s, times = median_of(
            runs, lambda: timed([sys.executable, "-c", "import sympy"], env, 0)
        )
        row('python -c "import sympy"', sympy_s, times)
        cases: list[tuple[str, list[str], int, str]] = [
            ("scaledattn --help", ["--help"], 0, "target ≤ 0.30"),
            ("scaledattn frobnicate (usage error)", ["frobnicate"], 2, "target ≤ 0.30"),
            ("scaledattn list", ["list"], 0, ""),
            (
                "scaledattn variance --var-q 4 --var-k 4",
                ["variance", "--var-q", "4", "--var-k", "4"],
                0,
                f"target ≤ {sympy_s + 0.3:.2f} (sympy + 0.3)",
            ),
        ]
        for label, argv, code, target in cases:
            run = [*exe, *argv]
            median, times = median_of(runs, lambda run=run, code=code: timed(run, env, code))
            row(label, median, times, target)

        def cold() -> float:
            shutil.rmtree(cache, ignore_errors=True)
            return timed([*exe, "check"], env, 0)

        cpu: list[float] = []
        median, times = median_of(runs, cpu_of(cold, cpu))
        row("scaledattn check, cold (empty cache)", median, times, "target ≤ 6")
        cpu_row(cpu)
        cpu = []
        median, times = median_of(runs, cpu_of(lambda: timed([*exe, "check"], env, 0), cpu))
        row("scaledattn check, warm", median, times, "target ≤ 3")
        cpu_row(cpu)
        median, times = median_of(runs, lambda: timed([*exe, "derive", "unique_scale"], env, 0))
        row("scaledattn derive unique_scale, warm", median, times)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def suite(runs: int) -> None:
    """Wall time of the whole test suite (the README's line), and the CPU time it used."""
    env = dict(os.environ)
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    print(f"Test suite ({' '.join(argv[1:])}, {runs} run(s)):")
    before = load()
    cpu: list[float] = []
    # What each xdist worker does before its first test: import and collect every module.
    collect = [*argv, "--collect-only", "-n", "0"]
    median, times = median_of(runs, cpu_of(lambda: timed(collect, env, 0), cpu))
    row("collection, one process (-n 0 --collect-only)", median, times, "target < 10")
    cpu_row(cpu)
    cpu = []
    median, times = median_of(runs, cpu_of(lambda: timed(argv, env, 0), cpu))
    row("python -m pytest", median, times, "target ≤ 60")
    cpu_row(cpu)
    print(f"    (at the start: {before}; on {os.cpu_count()} cores the wall time is about")
    print("    half the CPU time plus a few seconds of start-up)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per command (median)")
    parser.add_argument(
        "--suite-runs", type=int, default=3, help="runs of the test suite (median; default 3)"
    )
    parser.add_argument("--no-suite", action="store_true", help="time the commands only")
    args = parser.parse_args()
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("Note: PYTHONDONTWRITEBYTECODE is set: nothing is compiled once and kept.")
    commands(args.runs)
    if not args.no_suite:
        suite(args.suite_runs)


if __name__ == "__main__":
    main()
