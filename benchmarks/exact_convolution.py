"""Time the exact law of q·k (Miller's recurrence) for the coin model and the die.

Run: python benchmarks/exact_convolution.py
"""

from __future__ import annotations

import time

from scaledattn.numeric.distributions import Coin, Die, Distribution
from scaledattn.numeric.exact import score_law


def best_of(q: Distribution, d: int, repeats: int = 5) -> tuple[float, object, int]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        law = score_law(q, q, d)
        variance = law.variance()
        times.append(time.perf_counter() - start)
    return min(times), variance, law.support_size


def main() -> None:
    print(f"{'law':<6} {'d_k':>6} {'values':>7} {'variance':>10} {'best of 5 (ms)':>15}")
    for q, dims in ((Coin(), (64, 1024, 4096)), (Die(), (64, 1024))):
        for d in dims:
            seconds, variance, support = best_of(q, d)
            print(f"{q.spec:<6} {d:>6} {support:>7} {variance!s:>10} {seconds * 1e3:>15.2f}")


if __name__ == "__main__":
    main()
