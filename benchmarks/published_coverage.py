"""How often does each published figure fall inside the measured 95% interval?

Runs every experiment at the lesson's sizes for seeds 0..S−1 and prints, per
measurement: the mean estimate over seeds (a precise value of what the protocol
measures), how many intervals contain the published figure, and the median |z|.
If the protocol is the lesson's and the published figure is the true value, about
95% of intervals contain it; if the figure is itself an estimate of the same size,
about 83% (the difference of two estimates has √2 times the spread).

Usage: python benchmarks/published_coverage.py [SEEDS]   (default 100)
"""

from __future__ import annotations

import statistics
import sys
import time

from scaledattn.attention import gradient_experiment, saturation_experiment, scores_experiment

RUNS = {
    "scores": lambda seed: scores_experiment(seed),
    "saturation": lambda seed: saturation_experiment(seed),
    "gradient wrong-rows": lambda seed: gradient_experiment(seed, protocol="wrong-rows"),
    "gradient all-rows": lambda seed: gradient_experiment(seed, protocol="all-rows"),
    "gradient qk": lambda seed: gradient_experiment(seed, protocol="qk"),
}


def main(seeds: int) -> None:
    print(
        f"{'experiment':<20} {'measurement':<20} {'mean over seeds':>15} {'published':>9}"
        f" {'inside':>9} {'median |z|':>10} {'s/run':>7}"
    )
    for label, run in RUNS.items():
        start = time.perf_counter()
        results = [run(seed) for seed in range(seeds)]
        per_run = (time.perf_counter() - start) / seeds
        for m in results[0].measurements:
            ms = [r[m.name] for r in results]
            inside = sum(bool(x.inside()) for x in ms)
            zs = [abs(x.z_published()) for x in ms if x.z_published() is not None]
            z = f"{statistics.median(zs):.2f}" if zs else "-"
            print(
                f"{label:<20} {m.name:<20} {statistics.fmean(x.value for x in ms):>15.4f}"
                f" {m.published!s:>9} {inside:>4}/{seeds:<4} {z:>10} {per_run:>7.3f}"
            )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
