"""How much ``scaledattn verify`` of one claim loads and how long it takes to start.

Prints, for ``scaledattn verify CLAIM`` in a fresh process: the modules imported
(all, the package's own, the ledger's), from ``python -X importtime``, and the
wall-clock seconds of REPEAT runs (median, min, max).

Usage: python benchmarks/verify_startup.py [REPEAT]   (default 5)
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

CLAIM = "Var(X+Y) = Var(X) + Var(Y)"
COMMAND = [sys.executable, "-m", "scaledattn", "verify", CLAIM]


def imported() -> list[str]:
    """The modules ``verify`` imports, in order (``-X importtime`` writes one line each)."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", *COMMAND[1:]], capture_output=True, text=True
    )
    lines = [line for line in run.stderr.splitlines() if line.startswith("import time:")]
    return [line.rsplit("|", 1)[1].strip() for line in lines[1:]]


def main(repeat: int) -> None:
    modules = imported()
    ours = [m for m in modules if m.split(".")[0] == "scaledattn"]
    print(f"{'modules imported (all)':<36} {len(modules):>6}")
    print(f"{'  of the package':<36} {len(ours):>6}")
    print(f"{'  of the ledger (claims.ledger)':<36} {sum('.ledger' in m for m in ours):>6}")
    walls = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(COMMAND, capture_output=True, check=False)
        walls.append(time.perf_counter() - start)
    print(f"{'wall s, median of ' + str(repeat):<36} {statistics.median(walls):>6.2f}")
    print(f"{'wall s, min / max':<36} {min(walls):>6.2f} / {max(walls):.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
