"""How long checking claims takes: the whole ledger, each source, the slowest claims, hostile input.

Prints four tables:

1. ``scaledattn claims`` as a user runs it (a fresh process: start-up, imports, the
   kernel's audits of the lemmas and limits, the four experiments), wall-clock, REPEAT times;
2. the ledger checked in this process, per source (first run, nothing cached);
3. the slowest claims;
4. each hostile input of the tests, refused: CPU milliseconds.

Usage: python benchmarks/claims.py [REPEAT]   (default 3)
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

from scaledattn.claims.ledger import SOURCES, check
from scaledattn.claims.verify import verify
from scaledattn.errors import InvalidArgument

HOSTILE = [
    "__import__('os').system('ls')",
    "2**2**2**2**2**2**2 = 1",
    "(" * 10_000 + "1" + ")" * 10_000 + " = 1",
    "(" * 41 + "1" + ")" * 41 + " = 1",
    "X" * 100_000,
    "X.__class__ = 1",
    "(lambda x: x)(1) = 1",
    "exp(exp(exp(exp(10)))) > 1",
    "[" + "1, " * 1025 + "1] = 1",
]


def main(repeat: int) -> None:
    print(f"{'scaledattn claims (fresh process)':<40} {'wall s':>8}")
    walls = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "scaledattn", "claims"], check=True, capture_output=True
        )
        walls.append(time.perf_counter() - start)
    print(f"{'median of ' + str(repeat):<40} {statistics.median(walls):>8.2f}")
    print(f"{'min / max':<40} {min(walls):>8.2f} / {max(walls):.2f}")
    print()

    start = time.perf_counter()
    rows = check()
    total = time.perf_counter() - start
    print(f"{'source (in process, first run)':<40} {'claims':>6} {'s':>7}")
    for source in SOURCES:
        mine = [r for r in rows if r.entry.source == source]
        print(f"{source:<40} {len(mine):>6} {sum(r.seconds for r in mine):>7.2f}")
    print(f"{'all':<40} {len(rows):>6} {total:>7.2f}")
    print()

    print(f"{'slowest claims':<70} {'s':>6}")
    for r in sorted(rows, key=lambda r: -r.seconds)[:8]:
        print(f"{(r.entry.source[:3] + '  ' + r.entry.claim)[:70]:<70} {r.seconds:>6.2f}")
    print()

    print(f"{'hostile input':<44} {'CPU ms':>7}  refused with")
    for text in HOSTILE:
        start_cpu = time.process_time()
        try:
            verify(text)
            message = "(not refused!)"
        except InvalidArgument as err:
            message = str(err)[:40]
        cpu = 1000 * (time.process_time() - start_cpu)
        shown = text if len(text) < 40 else text[:37] + "..."
        print(f"{shown!r:<44} {cpu:>7.2f}  {message}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
