"""Benchmark: Var(Σᵢ₌₁ᵈ qᵢkᵢ) with SymPy's own ``sympy.stats`` against scaledattn.

Components are standard Normal or ±1 coins (mean 0, variance 1), q independent of k,
at d = 4, 16, 64 and for a symbolic d. Every case runs in a fresh Python process
(so no cache is shared) with a timeout; the time measured inside the process covers
building the expression and computing the variance, not importing the library.

- sympy.stats: ``variance(Σ q_i*k_i)`` over ``Normal``/``Rademacher`` random symbols;
  for a symbolic d it has no family of i.i.d. normals of symbolic length, so the
  attempt is ``MultivariateNormal`` with a symbolic dimension, and for coins a
  ``BernoulliProcess`` summed with ``Sum``.
- scaledattn: ``scaledattn.variance(d_k=d)`` (the derivation is written, then checked
  by the kernel step by step). It works from the component moments, mean 0 and
  variance 1, which the two laws share; the coin's are computed from its two outcomes.

Usage::

    python benchmarks/peer_sympy_stats.py [--timeout 60] [--dims 4,16,64]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap
from dataclasses import dataclass

PEER = {
    ("normal", "numeric"): """
        from sympy.stats import Normal, variance
        qs = [Normal(f"q{i}", 0, 1) for i in range(D)]
        ks = [Normal(f"k{i}", 0, 1) for i in range(D)]
        result = variance(sum(q * k for q, k in zip(qs, ks)))
    """,
    ("coin", "numeric"): """
        from sympy.stats import Rademacher, variance
        qs = [Rademacher(f"q{i}") for i in range(D)]
        ks = [Rademacher(f"k{i}") for i in range(D)]
        result = variance(sum(q * k for q, k in zip(qs, ks)))
    """,
    ("normal", "symbolic"): """
        from sympy import Identity, Symbol, ZeroMatrix
        from sympy.stats import MultivariateNormal, variance
        d = Symbol("d", integer=True, positive=True)
        q = MultivariateNormal("q", ZeroMatrix(d, 1), Identity(d))
        k = MultivariateNormal("k", ZeroMatrix(d, 1), Identity(d))
        result = variance((q.T * k)[0, 0])
    """,
    ("coin", "symbolic"): """
        from sympy import S, Sum, Symbol
        from sympy.stats import BernoulliProcess, variance
        d = Symbol("d", integer=True, positive=True)
        i = Symbol("i", integer=True, nonnegative=True)
        q = BernoulliProcess("q", p=S.Half, success=1, failure=-1)
        k = BernoulliProcess("k", p=S.Half, success=1, failure=-1)
        result = variance(Sum(q[i] * k[i], (i, 0, d - 1)))
    """,
}

OURS = {
    "normal": """
        import scaledattn
        result = scaledattn.variance(d_k=D, var_q=1, var_k=1, mean_q=0, mean_k=0)
    """,
    "coin": """
        import scaledattn
        from scaledattn.numeric.distributions import Coin
        mean, var = Coin().mean(), Coin().variance()
        result = scaledattn.variance(d_k=D, var_q=var, var_k=var, mean_q=mean, mean_k=mean)
    """,
}

HARNESS = """
import json, sys, time
{imports}
D = {dim}
start = time.perf_counter()
try:
{body}
    outcome = {{"ok": True, "result": str(result)}}
except Exception as err:  # report the peer's failure as data
    outcome = {{"ok": False, "result": type(err).__name__ + ": " + str(err)[:80]}}
outcome["seconds"] = time.perf_counter() - start
print(json.dumps(outcome))
"""


@dataclass(frozen=True)
class Run:
    """One case's outcome: seconds (None on timeout), the result text, whether it succeeded."""

    seconds: float | None
    result: str
    ok: bool


def _imports(body: str) -> str:
    """Move the import lines out of the timed block (imports are not timed)."""
    return "\n".join(
        line.strip() for line in body.splitlines() if line.strip().startswith(("import ", "from "))
    )


def _body(body: str) -> str:
    lines = [line for line in textwrap.dedent(body).splitlines() if line.strip()]
    kept = [line for line in lines if not line.startswith(("import ", "from "))]
    return textwrap.indent("\n".join(kept), "    ")


def run_case(code: str, dim: str, timeout: float) -> Run:
    """Run one case in a fresh interpreter; a timeout is reported as such."""
    script = HARNESS.format(imports=_imports(code), dim=dim, body=_body(code))
    try:
        done = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return Run(None, f"timeout after {timeout:g} s", False)
    if done.returncode != 0 or not done.stdout.strip():
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return Run(None, f"crashed: {tail[:80]}", False)
    data = json.loads(done.stdout.strip().splitlines()[-1])
    return Run(float(data["seconds"]), str(data["result"]), bool(data["ok"]))


def _time(run: Run) -> str:
    if run.seconds is None:
        return "timeout" if run.result.startswith("timeout") else "crashed"
    if not run.ok:
        return f"error ({run.seconds:.2f} s)"
    return f"{run.seconds:.3f} s"


def main(argv: list[str] | None = None) -> int:
    """Run every case and print the table (Markdown) with the ratio peer/scaledattn."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per peer case")
    parser.add_argument("--dims", default="4,16,64", help="numeric dimensions, comma-separated")
    args = parser.parse_args(argv)
    dims = [int(x) for x in args.dims.split(",")] + ["symbolic"]
    print("| law | d | sympy.stats | result | scaledattn | result | sympy.stats / scaledattn |")
    print("|---|---|---|---|---|---|---|")
    for law in ("normal", "coin"):
        for dim in dims:
            kind = "symbolic" if dim == "symbolic" else "numeric"
            dim_text = "None" if dim == "symbolic" else str(dim)
            peer = run_case(PEER[(law, kind)], dim_text, args.timeout)
            ours = run_case(OURS[law], dim_text, args.timeout)
            if peer.ok and ours.ok and peer.seconds and ours.seconds:
                ratio = f"{peer.seconds / ours.seconds:.1f}×"
            elif ours.ok and ours.seconds:
                ratio = f"> {args.timeout / ours.seconds:.0f}×" if peer.seconds is None else "—"
            else:
                ratio = "—"
            peer_result = peer.result if peer.ok else peer.result.split(":")[0]
            print(
                f"| {law} | {dim} | {_time(peer)} | {peer_result} | {_time(ours)} |"
                f" {ours.result} | {ratio} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
