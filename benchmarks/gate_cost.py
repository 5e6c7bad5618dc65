"""What the gate (issue 30) costs: whole-process time of ``verify`` and ``check-proof``.

Run: python benchmarks/gate_cost.py [--runs 5] --source DIR [--check-only]

``DIR`` is a checkout of the commit before the gate (``git archive 40fc5ce | tar -x -C DIR``);
the same commands run with the package found there and with this checkout's. The commands
are the README's ``verify`` examples and ``check-proof`` on two proof files (the ten-step
file of benchmarks/check_proof_speed.py and the lesson's exercise 3). Each figure is the
median of ``--runs`` runs of the CPU time of the process (user + system), which the load
of a shared machine changes far less than the wall time (also shown). The target: at most
30% more, per command and in total. Measured here, never asserted in a test.

``--check-only``: ``scaledattn check --brief`` instead, cold (``SCALEDATTN_NO_CACHE``:
the kernel, the witnesses and the gate's model search and step evaluation all run) and
warm (the theorem cache, which keeps the gate's results with the kernel's, filled by a
run first), each in a folder of its own; the same 30% bound.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_SPEED = Path(__file__).with_name("check_proof_speed.py")
_spec = importlib.util.spec_from_file_location("check_proof_speed", _SPEED)
assert _spec is not None
assert _spec.loader is not None
check_proof_speed = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_proof_speed)

EXERCISE3 = """\
theorem exercise3: Var(dot(q, k)) = 16*d_k
assume: Var(q_i) = 4
assume: Var(k_i) = 4
  Var(dot(q, k))
  = Var(sum(q_i*k_i, i, 1, d_k))          by dot_def
  = 16*d_k
"""

VERIFY = (
    ["verify", "Var(q·k) = dₖ", "--brief"],
    ["verify", "Var(X + Y) = Var(X) + Var(Y)"],
    ["verify", "softmax([60, 65, 70]) ≈ [0.25, 0.30, 0.35]"],
    ["verify", "Var(dot(q, k)/d_k) = 1", "--brief"],
)


#: ``check`` cold (nothing kept: the kernel, the witnesses and the gate all run) and warm
#: (the theorem cache filled by one run first, not measured): (label, argv, environment).
CHECK = (
    ("check --brief (cold)", ["check", "--brief"], {"SCALEDATTN_NO_CACHE": "1"}),
    ("check --brief (warm)", ["check", "--brief"], {}),
)


def _run(argv: list[str], source: Path, extra: dict[str, str] | None = None) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one ``python -m scaledattn ARGV`` with ``source``."""
    env = {**os.environ, "PYTHONPATH": str(source), **(extra or {})}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "scaledattn", *argv],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def main() -> None:
    """Print, per command, the median CPU and wall time before and after, and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--source", type=Path, required=True, help="the checkout before")
    parser.add_argument(
        "--check-only",
        action="store_true",
        help="only ``check`` (cold and warm), the gate's cost there",
    )
    args = parser.parse_args()
    if args.check_only:
        _check_cost(args.source, args.runs)
        return
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for name, text in (("ten_by", check_proof_speed.TEN_BY), ("exercise3", EXERCISE3)):
            path = Path(tmp) / f"{name}.proof"
            path.write_text(text, encoding="utf-8")
            files.append(path)
        commands = [*VERIFY, *(["check-proof", str(f)] for f in files)]
        totals = {"before": 0.0, "after": 0.0}
        print(f"{'command':<58} {'before cpu':>10} {'after cpu':>10} {'ratio':>6} (wall)")
        for argv in commands:
            figures = {}
            for label, source in (("before", args.source), ("after", ROOT)):
                runs = [_run(argv, source) for _ in range(args.runs)]
                figures[label] = (
                    statistics.median(c for c, _ in runs),
                    statistics.median(w for _, w in runs),
                )
                totals[label] += figures[label][0]
            (bc, bw), (ac, aw) = figures["before"], figures["after"]
            shown = " ".join(Path(a).name if a.endswith(".proof") else a for a in argv)[:58]
            print(f"{shown:<58} {bc:>10.2f} {ac:>10.2f} {ac / bc:>6.2f} ({bw:.2f} → {aw:.2f} s)")
        ratio = totals["after"] / totals["before"]
        print(f"{'total':<58} {totals['before']:>10.2f} {totals['after']:>10.2f} {ratio:>6.2f}")


def _check_cost(source: Path, runs: int) -> None:
    """``check``'s median CPU before and after, cold and warm, each with its own cache folder."""
    print(f"{'command':<58} {'before cpu':>10} {'after cpu':>10} {'ratio':>6} (wall)")
    for shown, argv, extra in CHECK:
        figures = {}
        for label, root in (("before", source), ("after", ROOT)):
            with tempfile.TemporaryDirectory() as folder:
                env = {"SCALEDATTN_CACHE_DIR": folder, **extra}
                if not extra:
                    _run(argv, root, env)  # fills the cache: the runs measured are warm
                times = [_run(argv, root, env) for _ in range(runs)]
            figures[label] = (
                statistics.median(c for c, _ in times),
                statistics.median(w for _, w in times),
            )
        (bc, bw), (ac, aw) = figures["before"], figures["after"]
        print(f"{shown:<58} {bc:>10.2f} {ac:>10.2f} {ac / bc:>6.2f} ({bw:.2f} → {aw:.2f} s)")


if __name__ == "__main__":
    main()
