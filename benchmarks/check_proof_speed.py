"""How long ``check-proof`` takes as a whole process, beside ``python -c "import sympy"``.

Run: python benchmarks/check_proof_speed.py [--runs 3] [--timeout 120] [--source DIR] [NAME ...]

The targets (issue 27): a 10-step file answers in at most 2× the time of importing
SymPy in a new process; any file within the documented limits (docs/your_own_derivation.md)
answers in at most 10 s, the 399-step files below included, or is refused in one line.
Each figure is the median of ``--runs`` runs: the wall time, and the CPU time (user +
system), which the load of a shared machine changes far less. ``--source DIR`` runs the
package found in DIR (a checkout of an older commit, for the figures before a change);
the files are the same. The package runs with its bytecode written once (in a folder
of the benchmark's; ``--no-bytecode`` runs as the environment says: with
PYTHONDONTWRITEBYTECODE set, each start compiles every module again, about 0.4 s here).
Measured here, never asserted in a test.

Figures (issue 27; 2 cores shared, load average 6-8; CPU seconds, × import sympy):

- before (issue-27 at 0c31372, the environment's PYTHONDONTWRITEBYTECODE, runs 1):
  import sympy 0.47; 10_steps_by 0.98 (2.1×); 10_steps_searched 3.55 (7.5×);
  399_searched_steps 12.41 (26×, its later steps not searched); 399_by_steps 2.75;
  399_wrong_steps 2.99; 399_true_searched 2.90.
- after, as installed (runs 3): import sympy 0.55; 10_steps_by 0.76 (1.4×);
  10_steps_searched 3.14; 399_searched_steps 7.54 (its steps past 2000 kernel steps of
  found chains not taken, said so); 399_by_steps 2.45; 399_wrong_steps 1.38;
  399_true_searched 1.03.
- after, --no-bytecode (runs 1): import sympy 0.40; 10_steps_by 0.72 (1.8×);
  10_steps_searched 2.81; 399_searched_steps 7.08; 399_by_steps 2.12; 399_wrong_steps
  1.28; 399_true_searched 1.20.

Wall times were 2-2.5× the CPU times under that load.

Figures of the search's lazy theorems (issue 27 point 6; a theorem the search may cite is
proved by the kernel only when a step is checked with it; runs 1, load average 6.5-6.7,
CPU seconds, × import sympy): ``python benchmarks/check_proof_speed.py --runs 1 --source
DIR`` with DIR a checkout of 7a69268 (before) and of the branch (after):

- before: import sympy 0.30; 10_steps_by 0.61 (2.1×); 10_steps_searched 2.10 (7.1×);
  399_searched_steps 4.45; 399_by_steps 2.11; 399_wrong_steps 0.85; 399_true_searched 0.69.
- after: import sympy 0.31; 10_steps_by 0.54 (1.8×); 10_steps_searched 1.20 (3.9×);
  399_searched_steps 4.06; 399_by_steps 1.91; 399_wrong_steps 0.95; 399_true_searched 0.66.

The searched 10-step file is still above 2×: importing the package (0.2 s), reading the
built-in theorems' statements (0.15 s) and the search's own kernel checks and chains
(about 0.8 s, a third of it the claims automation's normal-form chains that bridge a gap)
remain.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_CAPS = Path(__file__).with_name("proof_caps.py")
_spec = importlib.util.spec_from_file_location("proof_caps", _CAPS)
assert _spec is not None
assert _spec.loader is not None
proof_caps = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(proof_caps)

#: Ten steps, each naming its rule: the start of `derive dot_product_variance --format proof`.
TEN_BY = """\
theorem dot_product_variance: Var(dot(q, k)) = d_k
assume: no defaults
assume: independent(q, k)
assume: E(q_i) = 0
assume: E(k_i) = 0
assume: Var(q_i) = 1
assume: Var(k_i) = 1
  Var(dot(q, k))
  = -E(dot(q, k))**2 + E((dot(q, k))**2)    by variance_def
  = -E(sum(k_i*q_i, i, 1, d_k))**2 + E((sum(k_i*q_i, i, 1, d_k))**2)    by dot_def
  = -E(sum(k_i*q_i, i, 1, d_k))**2 + E(sum(sum(k_i*k_j*q_i*q_j, j, 1, d_k), i, 1, d_k))    by sum_mul_sum
  = -(sum(E(k_i*q_i), i, 1, d_k))**2 + sum(sum(E(k_i*k_j*q_i*q_j), j, 1, d_k), i, 1, d_k)    by expectation_linear
  = cross_sum(E(k_i*k_j*q_i*q_j), i, j, 1, d_k) - (sum(E(k_i*q_i), i, 1, d_k))**2 + sum(E(k_i**2*q_i**2), i, 1, d_k)    by split_diagonal
  = cross_sum(E(k_i)*E(k_j)*E(q_i)*E(q_j), i, j, 1, d_k) - (sum(E(k_i)*E(q_i), i, 1, d_k))**2 + sum(E(k_i**2)*E(q_i**2), i, 1, d_k)    by expectation_mul_of_indep
  = cross_sum(E(k_i)*E(k_j)*E(q_i)*E(q_j), i, j, 1, d_k) + sum((E(k_i)**2 + Var(k_i))*(E(q_i)**2 + Var(q_i)), i, 1, d_k) - (sum(E(k_i)*E(q_i), i, 1, d_k))**2    by variance_def
  = cross_sum(0, i, j, 1, d_k) - (sum(0, i, 1, d_k))**2 + sum(1, i, 1, d_k)    by substitute_moment
  = d_k    by count_terms
  = d_k    by ring
"""  # noqa: E501

#: Ten steps as a learner writes them, no rule named: the search finds each one.
TEN_SEARCHED = """\
theorem exercise1: Var(dot(q, k, 2)) = 2
  Var(dot(q, k, 2))
  = Var(q_1*k_1 + q_2*k_2)
  = Var(q_1*k_1) + Var(q_2*k_2)
  = Var(q_1)*Var(k_1) + Var(q_2)*Var(k_2)
  = 2
theorem exercise3: Var(dot(q, k)) = 16*d_k
assume: Var(q_i) = 4
assume: Var(k_i) = 4
  Var(dot(q, k))
  = Var(sum(q_i*k_i, i, 1, d_k))
  = sum(Var(q_i*k_i), i, 1, d_k)
  = sum(Var(q_i)*Var(k_i), i, 1, d_k)
  = 16*d_k
theorem linear: E(2*X + Y) = 2*E(Y)
assume: E(X) = 0
  = 2*E(X) + E(Y)
  = E(Y)
"""

#: 399 steps (the most a theorem may have is 400), each kind of step a file can hold.
STEPS_399: dict[str, str] = {
    "399_searched_steps": "theorem t: Var(dot(q, k, 2)) = 2\n  Var(dot(q, k, 2))\n"
    + "  = Var(q_1*k_1 + q_2*k_2)\n  = Var(dot(q, k, 2))\n" * 199
    + "  = 2\n",
    "399_by_steps": "theorem t: Var(dot(q, k, 2)) = 2\n  Var(dot(q, k, 2))\n"
    + "  = Var(sum(q_i*k_i, i, 1, 2))   by dot_def\n  = Var(dot(q, k, 2))   by dot_def\n" * 199
    + "  = 2\n",
    "399_wrong_steps": "theorem t: X = X\n  X\n"
    + "".join(f"  = X + {n % 2}\n" for n in range(1, 399))
    + "  = X\n",
    "399_true_searched": "theorem t: E(X + Y) = E(X) + E(Y)\n  E(X + Y)\n"
    + "  = E(X) + E(Y)\n  = E(X + Y)\n" * 199
    + "  = E(X) + E(Y)\n",
}

FILES = {"10_steps_by": TEN_BY, "10_steps_searched": TEN_SEARCHED, **STEPS_399}


def _import_sympy(source: str | None) -> tuple[float, float]:
    """(CPU, wall) seconds of ``python -c "import sympy"`` in a new process."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import sympy"], cwd=source, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def main() -> None:
    """Time ``import sympy`` and check-proof on every file (or those named); print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="files of FILES to run (default: all)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--source", help="a folder holding the scaledattn package to run")
    parser.add_argument(
        "--no-bytecode",
        action="store_true",
        help="run as the environment says (PYTHONDONTWRITEBYTECODE compiles every module"
        " of the package at each start; an installed package has its .pyc files)",
    )
    args = parser.parse_args()
    names = args.names or list(FILES)
    if not args.no_bytecode:  # as installed: the .pyc files written once, in a folder of ours
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="check_proof_speed_pyc")
        warm = Path(os.environ["PYTHONPYCACHEPREFIX"]) / "warm.proof"
        warm.write_text(TEN_BY, encoding="utf-8")
        proof_caps.run(warm, args.timeout, args.source)
    sympy_runs = [_import_sympy(args.source) for _ in range(args.runs)]
    sympy_cpu = statistics.median(c for c, _ in sympy_runs)
    sympy_wall = statistics.median(w for _, w in sympy_runs)
    load = os.getloadavg()[0]
    print(f"load average {load:.2f}; import sympy: cpu {sympy_cpu:.2f} s, wall {sympy_wall:.2f} s")
    with tempfile.TemporaryDirectory() as folder:
        print(f"{'file':<20} {'exit':>4} {'cpu s':>7} {'wall s':>7} {'×sympy':>7}  last line")
        for name in names:
            path = Path(folder) / f"{name}.proof"
            path.write_text(FILES[name], encoding="utf-8")
            runs = [proof_caps.run(path, args.timeout, args.source) for _ in range(args.runs)]
            code, _, _, last = runs[-1]
            cpu = statistics.median(r[1] for r in runs)
            wall = statistics.median(r[2] for r in runs)
            shown = last.replace(folder + "/", "")[:90]
            ratio = cpu / sympy_cpu
            print(f"{name:<20} {code:>4} {cpu:>7.2f} {wall:>7.2f} {ratio:>7.1f}  {shown}")


if __name__ == "__main__":
    main()
