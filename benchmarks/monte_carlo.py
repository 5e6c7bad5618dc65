"""Monte Carlo throughput beside numpy's raw generation rate, and peak memory against N.

Run: python benchmarks/monte_carlo.py [--memory]

Throughput: samples of q·k per second from estimate_scores (draw two (rows, d_k)
blocks, a row-wise dot, streaming moments), beside the rate at which the same
sampler alone generates the same random numbers in the same chunks.
Memory (--memory): each N runs in a fresh process; the peak of numpy's traced
allocations (tracemalloc) and the process's maximum resident set size are shown.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

import numpy as np

from scaledattn.numeric.distributions import Distribution, distribution
from scaledattn.numeric.montecarlo import chunk_rows, estimate_scores

TARGET_NUMBERS = 1 << 26  # random numbers per timing run (both vectors)


def raw_rate(q: Distribution, d: int, samples: int) -> float:
    rng = np.random.default_rng(0)
    rows = chunk_rows(d)
    start = time.perf_counter()
    done = 0
    while done < samples:
        take = min(rows, samples - done)
        q.sample(rng, (take, d))
        q.sample(rng, (take, d))
        done += take
    return samples / (time.perf_counter() - start)


def mc_rate(q: Distribution, d: int, samples: int) -> float:
    start = time.perf_counter()
    estimate_scores(q, q, d, samples, seed=0)
    return samples / (time.perf_counter() - start)


def throughput() -> None:
    print(
        f"{'law':<9} {'d_k':>5} {'samples':>9} {'raw (q·k/s)':>12} {'MC (q·k/s)':>12} {'MC/raw':>7}"
    )
    for spec in ("gaussian", "coin"):
        q = distribution(spec)
        for d in (64, 1024):
            n = TARGET_NUMBERS // (2 * d)
            raws, mcs = [], []
            for _ in range(3):  # alternate, so that load from other processes hits both
                raws.append(raw_rate(q, d, n))
                mcs.append(mc_rate(q, d, n))
            raw, mc = max(raws), max(mcs)
            print(f"{spec:<9} {d:>5} {n:>9} {raw:>12.4g} {mc:>12.4g} {mc / raw:>7.1%}")


CHILD = """
import resource, sys, time, tracemalloc
from scaledattn.numeric.distributions import distribution
from scaledattn.numeric.montecarlo import estimate_scores
n, d = int(sys.argv[1]), int(sys.argv[2])
tracemalloc.start()
start = time.perf_counter()
est = estimate_scores(distribution("coin"), distribution("coin"), d, n, seed=0)
seconds = time.perf_counter() - start
peak = tracemalloc.get_traced_memory()[1]
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(peak, rss, seconds, est.variance, est.variance_se)
"""


def memory() -> None:
    d = 1024
    print(
        f"{'N':>9} {'d_k':>5} {'traced peak (MiB)':>18} {'max RSS (MiB)':>14}"
        f" {'time (s)':>9} {'Var estimate (95%)':>22}"
    )
    for n in (10**6, 10**7):
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(n), str(d)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        peak, rss, seconds, var, se = (
            int(out[0]),
            int(out[1]),
            float(out[2]),
            float(out[3]),
            float(out[4]),
        )
        print(
            f"{n:>9} {d:>5} {peak / 2**20:>18.1f} {rss / 2**10:>14.1f} {seconds:>9.1f}"
            f" {var:>12.2f} ± {1.96 * se:<7.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memory", action="store_true", help="also the N = 1e6 vs 1e7 memory runs")
    args = parser.parse_args()
    throughput()
    if args.memory:
        print()
        memory()


if __name__ == "__main__":
    main()
