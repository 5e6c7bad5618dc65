"""Time the exact law of q·k: the coin in closed form, Miller's recurrence for the die.

Also measures the recurrence's seconds per unit of work (coefficient × term × bit),
the constant behind the up-front refusal of an exact law that would take too long
(scaledattn.numeric.exact.SECONDS_PER_UNIT keeps the largest value seen here).

Run: python benchmarks/exact_convolution.py
"""

from __future__ import annotations

import time

from scaledattn.numeric.distributions import Coin, Die, Distribution, distribution
from scaledattn.numeric.exact import (
    SECONDS_PER_UNIT,
    estimated_seconds,
    lattice_law,
    power,
    product_pmf,
    score_law,
)


def best_of(q: Distribution, d: int, repeats: int = 5) -> tuple[float, object, int]:
    """Best CPU time of the law, its mean and its variance, over ``repeats`` runs."""
    times = []
    for _ in range(repeats):
        start = time.process_time()
        law = score_law(q, q, d)
        law.mean()
        variance = law.variance()
        times.append(time.process_time() - start)
    return min(times), variance, law.support_size


def main() -> None:
    print(f"{'law':<6} {'d_k':>8} {'values':>8} {'variance':>10} {'best of 5 (ms CPU)':>19}")
    for q, dims in ((Coin(), (64, 4096, 2**20)), (Die(), (64, 1024))):
        for d in dims:
            seconds, variance, support = best_of(q, d)
            print(f"{q.spec:<6} {d:>8} {support:>8} {variance!s:>10} {seconds * 1e3:>19.3f}")
    print(f"\nMiller's recurrence: measured / estimated (SECONDS_PER_UNIT = {SECONDS_PER_UNIT:g})")
    for spec, d in (("die", 512), ("die", 1024), ("finite:values=-1|0|1,probs=1/4|1/2|1/4", 8192)):
        q = distribution(spec)
        single = lattice_law(product_pmf(q, q))
        start = time.process_time()
        power(single, d)
        took = time.process_time() - start
        ratio = took / estimated_seconds(single, d)
        print(f"  {spec:<40} d_k = {d:>5}: {took:.3f} s, measured/estimated {ratio:.2f}")


if __name__ == "__main__":
    main()
