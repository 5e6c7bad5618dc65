"""Applications per CPU second of a fixed short fuzz campaign with the checker as third party.

    python benchmarks/fuzz_speed.py [--applications N] [--seed S]

Runs the campaign ``python -m scaledattn.fuzz --applications N --seed S --aimed 28
--checker --all`` in this process (N = 2000 and S = 20261201 unless given) and prints
the CPU time it took (time.process_time, the imports not counted), the applications
and the three-party-checked rewrites per CPU second. The goal of issues 26 and 30: a
campaign of 10⁶ applications in about 30 minutes of two cores, so at least 550
applications per CPU second.
"""

from __future__ import annotations

import argparse
import time

from scaledattn.fuzz.campaign import run


def main(argv: list[str] | None = None) -> None:
    """Print the campaign's CPU time and rates."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--applications", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=20261201)
    args = parser.parse_args(argv)
    start = time.process_time()
    stats, _found = run(args.applications, args.seed, stop_at_first=False, aimed=28, checker=True)
    spent = time.process_time() - start
    rewrites = sum(c.rewrites for c in stats.rules.values())
    print(
        f"fuzz: {stats.applications} applications ({rewrites} rewrites) on {stats.cases} terms"
        f" in {spent:.1f} s CPU: {stats.applications / spent:.0f} applications/s,"
        f" {rewrites / spent:.0f} rewrites/s (seed {args.seed}, --aimed 28 --checker)"
    )


if __name__ == "__main__":
    main()
