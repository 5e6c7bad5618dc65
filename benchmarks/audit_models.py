"""Time ``scaledattn audit MODEL`` end to end (a fresh process each, as a user runs it).

Run: python benchmarks/audit_models.py [MODEL ...]     (default: gpt2 bert t5 llama)

Each model is audited with the command line's defaults (2 layers, 2×128 random
tokens) in a new process, so the time includes importing torch and transformers,
building the model with random init and the forward pass. The table gives the wall
and CPU seconds (children's user + system) and each layer's measured and predicted
logit std and verdict, read from ``--json``. The issue's target: gpt2 within 30 s
on 2 cores.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time


def audit(model: str) -> tuple[float, float, dict[str, object]]:
    """(wall seconds, CPU seconds, the --json result) of one audit in a new process."""
    before = os.times()
    start = time.perf_counter()
    run = subprocess.run(
        [sys.executable, "-m", "scaledattn", "audit", model, "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    if run.returncode not in (0, 1):
        raise SystemExit(f"audit {model} failed: {run.stderr.strip()}")
    data: dict[str, object] = json.loads(run.stdout)
    return wall, cpu, data


def main() -> None:
    models = sys.argv[1:] or ["gpt2", "bert", "t5", "llama"]
    print(
        f"{os.cpu_count()} CPUs; scaledattn audit MODEL --json, defaults (2 layers, 2×128 tokens)"
    )
    for model in models:
        wall, cpu, data = audit(model)
        print(f"{model}: {wall:.1f} s wall, {cpu:.1f} s CPU")
        for layer in data["layers"]:  # type: ignore[attr-defined]
            verdict = {True: "agrees", False: "DISAGREES", None: "no verdict"}[layer["agrees"]]
            interval = layer["logit_std_interval"]
            shown = "-" if interval is None else f"[{interval[0]:.4f}, {interval[1]:.4f}]"
            print(
                f"  {layer['layer']:<42} scale {layer['scale_name']:<16}"
                f" logit std {layer['logit_std']:.4f} {shown:<18}"
                f" predicted {layer['predicted_std']:.4f}  {verdict}"
            )


if __name__ == "__main__":
    main()
