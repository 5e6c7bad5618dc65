"""How long check-proof takes on proof files with huge inputs (review of issue 12).

Run: python benchmarks/proof_caps.py [--timeout 60] [--source DIR] [NAME ...]

Writes each attacking file of :data:`FILES` (the reported ones: a sum to 10**30,
dot(q, k, 10**6), exp(10**10); and more of the same family) to a temporary folder,
runs ``scaledattn check-proof`` on it in a new process under ``timeout``, and prints
its exit code, the CPU time (user + system, of the process and its children) and the
wall time, and the last line it printed. ``--source DIR`` runs the package found in
DIR instead (``python -m scaledattn`` in DIR: a checkout of an older commit, for the
figures before a change). The aim is an answer within about 2 s of CPU each;
it is measured here, never asserted in a test.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _one(expr: str, claim: str = "1", by: str = "") -> str:
    rule = f"   by {by}" if by else ""
    return f"theorem t: {expr} = {claim}\n  {expr}\n  = {claim}{rule}\n"


#: name: the text of the file (.proof, or .json for a certificate).
FILES: dict[str, str] = {
    "sum_10e30": _one("sum(E(q_i*k_i), i, 1, 10**30)", "0"),
    "sum_10e30_unroll": _one("sum(q_i, i, 1, 10**30)", "0", "sum_unroll"),
    "sum_10e30_wrong": _one("sum(q_i, i, 1, 10**30)"),
    "sum_10e6_wrong": _one("sum(q_i, i, 1, 10**6)"),
    "sum_2e64_wrong": _one("sum(q_i, i, 1, 2**64)"),
    "cross_sum_10e30": _one("cross_sum(q_i*k_j, i, j, 1, 10**30)"),
    "softmax_10e30": _one("sum(softmax(s, i, 10**30), i, 1, 10**30)", "2"),
    "dot_10e6_wrong": _one("Var(dot(q, k, 10**6))", "7"),
    "dot_10e6_by_ring": _one("Var(dot(q, k, 10**6))", "7", "ring"),
    "dot_10e30_wrong": _one("Var(dot(q, k, 10**30))", "7"),
    "nested_sums_10e6": _one("sum(sum(sum(q_i*k_j, i, 1, 10**6), j, 1, 10**6), l, 1, 10**6)"),
    "exp_10e10": _one("exp(10**10)", "2"),
    "exp_10e10_by_ring": _one("exp(10**10)", "2", "ring"),
    "exp_minus_10e10": _one("exp(-10**10)", "0"),
    "exp_exp_exp": _one("exp(exp(exp(100)))", "0"),
    "power_10e9": _one("c**(10**9)"),
    "dot_64_power_8": _one("E(dot(q, k, 64)**8)"),
    "huge_product": f"theorem t: {'*'.join(['10**30'] * 400)} = 1\n  = 1\n",
    "huge_rational": f"theorem t: {'/'.join(['9' * 30] * 300)} = 1\n  = 1\n",
    "index_range_10e30": "theorem t: sum(q_i, i, 1, m) = 1\nassume: 1 <= m <= 10**30\n"
    "  sum(q_i, i, 1, m)\n  = 1\n",
    "moment_10e30": "theorem t: Var(q_1*k_1) = 10**30\nassume: Var(q_i) = 10**30\n"
    "  Var(q_1*k_1)\n  = 10**30\n",
    "deep_nesting": f"theorem t: {'(' * 59}X{')' * 59} = X\n  = X\n",
    "400_wrong_steps": "theorem t: X = X\n  X\n"
    + "".join(f"  = X + {n % 2}\n" for n in range(1, 400))
    + "  = X\n",
    "200_wrong_theorems": "".join(
        f"theorem t{n}: Var(X) = 2\n  Var(X)\n  = 2\n" for n in range(200)
    ),
    "40000_assumptions": "theorem t: X = X\n"
    + "".join(f"assume: c{n} > 0\n" for n in range(40000))
    + "  X\n  = X\n",
    "20000_moment_lines": "theorem t: Var(X) = 1\n"
    + "".join(f"assume: E(X**2) = {n}\n" for n in range(20000))
    + "  Var(X)\n  = 1\n",
    "400_searched_steps": "theorem t: Var(dot(q, k, 2)) = 2\n  Var(dot(q, k, 2))\n"
    + "  = Var(q_1*k_1 + q_2*k_2)\n  = Var(dot(q, k, 2))\n" * 199
    + "  = 2\n",
    "60000_assumptions": "theorem t: X = X\n"
    + "".join(f"assume: c{n} > 0\n" for n in range(60000))
    + "  X\n  = X\n",
}


def run(path: Path, timeout: float, source: str | None) -> tuple[int, float, float, str]:
    """(exit code, CPU seconds, wall seconds, last line printed) of check-proof on ``path``."""
    env = dict(os.environ)
    if source:
        env["PYTHONPATH"] = source
        argv = [sys.executable, "-m", "scaledattn", "check-proof", str(path)]
    else:
        script = Path(sys.executable).with_name("scaledattn")
        argv = [str(script), "check-proof", str(path)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    try:
        done = subprocess.run(
            argv, env=env, cwd=source, capture_output=True, text=True, timeout=timeout
        )
        code, out = done.returncode, (done.stdout + done.stderr).strip()
    except subprocess.TimeoutExpired:
        code, out = 124, f"(no answer in {timeout:g} s)"
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    last = out.splitlines()[-1] if out else ""
    return code, cpu, wall, last


def main() -> None:
    """Time every file (or those named) and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="files of FILES to run (default: all)")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--source", help="a folder holding the scaledattn package to run")
    args = parser.parse_args()
    names = args.names or list(FILES)
    with tempfile.TemporaryDirectory() as folder:
        print(f"{'file':<22} {'exit':>4} {'cpu s':>7} {'wall s':>7}  last line")
        for name in names:
            path = Path(folder) / f"{name}.proof"
            path.write_text(FILES[name], encoding="utf-8")
            code, cpu, wall, last = run(path, args.timeout, args.source)
            shown = last.replace(folder + "/", "")
            print(f"{name:<22} {code:>4} {cpu:>7.2f} {wall:>7.2f}  {shown[:110]}")


if __name__ == "__main__":
    main()
