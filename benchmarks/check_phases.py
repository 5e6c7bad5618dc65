"""Where the CPU time of a cold ``scaledattn check`` goes, by phase, and inside the kernel.

Run: python benchmarks/check_phases.py [--runs 3] [--no-kernel]

One cold check (nothing kept between runs: ``SCALEDATTN_NO_CACHE``), done in this
process in the order ``check`` does it (:func:`scaledattn.cache.checked_all`), with
the CPU time (user + system of this process) of each phase:

- imports: the command line, SymPy, numpy, the numeric witnesses, the renderers;
- proof modules: importing ``scaledattn.proofs.*``, which builds every derivation;
- audits: the kernel's verdict on every derivation (``derive.audit_of``);
- witnesses: every derivation evaluated on its numeric settings;
- lines and cache: the lines ``check`` prints, and the theorem cache written;

and the time Python's cyclic garbage collector took, under the command line's
settings (:mod:`scaledattn.cli.collect`). Medians of ``--runs`` runs, each in a new
process. CPU time is far less sensitive than wall time to a shared machine's load.

Then (unless ``--no-kernel``) one more run with the kernel's entry points wrapped
at run time (the kernel's files are not touched), to show how its time is spent:
calls and CPU seconds of ``check_step``, ``_claim`` (each claim is made a term and
its definedness checked: once as a step's claim, once more as the next step's
previous term), ``same``/``normal_form``, ``Context.of`` (a derivation's context is
built again for each step) and the cited theorems' rewriting. Wrapping adds a little
time to each call; the figures are for comparing, not for adding up.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PHASES = ("imports", "proof modules", "audits", "witnesses", "lines and cache")


def cpu() -> float:
    """CPU time of this process so far."""
    return time.process_time()


def one_run() -> dict[str, float]:
    """One cold check in this process: CPU seconds per phase, and the collector's."""
    spent = {"seconds": 0.0, "collections": 0.0, "started": 0.0}

    def collector(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            spent["started"] = time.perf_counter()
        else:
            spent["seconds"] += time.perf_counter() - spent["started"]
            spent["collections"] += 1

    gc.callbacks.append(collector)
    marks = [cpu()]
    from scaledattn import cache
    from scaledattn.cli.collect import fewer_collections
    from scaledattn.derive import audit_of
    from scaledattn.numeric import evidence  # noqa: F401  (imported by check too)
    from scaledattn.registry import theorem_modules
    from scaledattn.render import display  # noqa: F401

    marks.append(cpu())
    with fewer_collections():
        pairs = [(m, d) for m in theorem_modules() for d in m.derivations]
        marks.append(cpu())
        for _, d in pairs:
            audit_of(d)
        marks.append(cpu())
        for m, d in pairs:
            cache.witness_of(m, d)
        marks.append(cpu())
        cache.checked_all(pairs)
        kept = cache.store()
        if kept is not None:
            kept.save()
        marks.append(cpu())
    result = {name: b - a for name, a, b in zip(PHASES, marks[:-1], marks[1:], strict=True)}
    result["total (process)"] = cpu()
    result["garbage collector"] = spent["seconds"]
    result["collections"] = spent["collections"]
    return result


def kernel_run() -> None:
    """One cold check's audits with the kernel's entry points wrapped: calls and CPU seconds."""
    from scaledattn.derive import audit_of
    from scaledattn.kernel import assumptions, theorem
    from scaledattn.registry import theorem_modules

    calls: Counter[str] = Counter()
    seconds: defaultdict[str, float] = defaultdict(float)

    def wrap(owner: Any, name: str, label: str) -> None:
        inner: Callable[..., Any] = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = cpu()
            try:
                return inner(*args, **kwargs)
            finally:
                calls[label] += 1
                seconds[label] += cpu() - start

        setattr(owner, name, timed)

    claimed: set[tuple[str, Any, Any]] = set()
    claim = theorem._claim

    def counted_claim(kind: str, x: Any, ctx: Any, used: Any) -> Any:
        start = cpu()
        try:
            return claim(kind, x, ctx, used)
        finally:
            key = (kind, x, ctx.assumptions)
            label = "  of which a term claimed before" if key in claimed else ""
            claimed.add(key)
            for each in filter(None, ("theorem._claim", label)):
                calls[each] += 1
                seconds[each] += cpu() - start

    modules = theorem_modules()
    theorem._claim = counted_claim
    wrap(theorem, "_check_step", "theorem._check_step")
    wrap(theorem, "_equal", "theorem._equal (same, or prop_key for ⇔)")
    wrap(theorem, "same", "expr.same")
    wrap(theorem, "normal_form", "expr.normal_form (from _Rewrite.apply)")
    wrap(theorem, "unclaimable", "expr.unclaimable (from _claim)")
    wrap(theorem._Rewrite, "apply", "_Rewrite.apply (a cited theorem rewrites)")
    wrap(theorem, "_name_clash", "theorem._name_clash")
    of = assumptions.Context.of.__func__  # type: ignore[attr-defined]

    def context_of(cls: Any, items: Any) -> Any:
        start = cpu()
        try:
            return of(cls, items)
        finally:
            calls["Context.of (a derivation's context)"] += 1
            seconds["Context.of (a derivation's context)"] += cpu() - start

    assumptions.Context.of = classmethod(context_of)  # type: ignore[assignment]
    start = cpu()
    for m in modules:
        for d in m.derivations:
            audit_of(d)
    total = cpu() - start
    print(f"Kernel entry points during the audits ({total:.2f} s CPU in all, wrapped):")
    for label, s in sorted(seconds.items(), key=lambda kv: -kv[1]):
        print(f"  {label:<52} {calls[label]:6d} calls {s:6.2f} s {1000 * s / calls[label]:7.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs (median), each a new process")
    parser.add_argument("--no-kernel", action="store_true", help="skip the wrapped kernel run")
    parser.add_argument("--one", choices=("phases", "kernel"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one == "phases":
        print(json.dumps(one_run()))
        return
    if args.one == "kernel":
        kernel_run()
        return
    env = {**os.environ, "SCALEDATTN_NO_CACHE": "1"}
    me = [sys.executable, str(Path(__file__).resolve())]
    runs = []
    for _ in range(args.runs):
        out = subprocess.run(
            [*me, "--one", "phases"], env=env, cwd=ROOT, capture_output=True, text=True, check=True
        )
        runs.append(json.loads(out.stdout.splitlines()[-1]))
    load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
    print(f"Cold check, CPU seconds by phase (medians of {args.runs} runs; load {load}):")
    for key in (*PHASES, "total (process)", "garbage collector", "collections"):
        values = [r[key] for r in runs]
        digits = 0 if key == "collections" else 2
        shown = ", ".join(f"{v:.{digits}f}" for v in values)
        print(f"  {key:<20} {statistics.median(values):7.{digits}f}   [{shown}]")
    if not args.no_kernel:
        subprocess.run([*me, "--one", "kernel"], env=env, cwd=ROOT, check=True)


if __name__ == "__main__":
    main()
