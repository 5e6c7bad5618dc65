"""Time what ``scaledattn check`` does, theorem by theorem: the kernel and the numbers.

Run: python benchmarks/check_witnesses.py

Each derivation is audited by the kernel and then evaluated on its numeric
witnesses (its module's evidence(), or settings from its assumptions), in one
process, in the order ``scaledattn check`` uses. The table gives the seconds each
part took, the settings and the step comparisons; the last lines sum them.
"""

from __future__ import annotations

import time

from scaledattn.derive import audit_of
from scaledattn.numeric.evidence import derivation_evidence
from scaledattn.numeric.scores import is_calculus
from scaledattn.registry import theorem_modules


def main() -> None:
    start = time.perf_counter()
    modules = theorem_modules()
    imported = time.perf_counter() - start
    header = f"{'derivation':<34} {'kind':<8} {'kernel s':>9} {'numbers s':>10}"
    print(f"{header} {'settings':>9} {'comparisons':>12}")
    totals = {"moments": [0.0, 0.0, 0, 0], "softmax": [0.0, 0.0, 0, 0]}
    for module in modules:
        evidence = getattr(module.module, "evidence", None)
        for d in module.derivations:
            t0 = time.perf_counter()
            audit_of(d)
            t1 = time.perf_counter()
            settings = evidence().get(d.name) if callable(evidence) else None
            w = derivation_evidence(d, settings)
            t2 = time.perf_counter()
            kind = "softmax" if is_calculus(d) else "moments"
            row = totals[kind]
            row[0] += t1 - t0
            row[1] += t2 - t1
            row[2] += len(w.settings)
            row[3] += w.step_checks
            print(
                f"{d.name:<34} {kind:<8} {t1 - t0:>9.3f} {t2 - t1:>10.3f}"
                f" {len(w.settings):>9} {w.step_checks:>12}"
            )
    print()
    for kind, (kernel, numbers, settings, checks) in totals.items():
        print(
            f"{'total ' + kind:<34} {'':<8} {kernel:>9.3f} {numbers:>10.3f}"
            f" {settings:>9} {checks:>12}"
        )
    print(f"imports {imported:.3f} s, whole run {time.perf_counter() - start:.3f} s")


if __name__ == "__main__":
    main()
