"""The command line answers at once: `--help`, `list` and usage errors load no numerics.

What a fresh interpreter imports is the point here, so this runs a real process.
"""

from __future__ import annotations

import json
import subprocess
import sys

from scaledattn.attention.experiments import GRADIENT_PROTOCOLS
from scaledattn.cli import experiment, theorems
from scaledattn.render import FORMATS

HEAVY = ("sympy", "numpy", "matplotlib", "mpmath")

#: Runs --help, a usage error, then list, and reports what each had loaded by then.
SCRIPT = """
import contextlib, io, json, sys
from scaledattn.cli import main

def loaded():
    return sorted({m.split(".")[0] for m in sys.modules} & set(HEAVY))

report = {}
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        main(["--help"])
    except SystemExit as stop:
        report["help_exit"] = stop.code
    report["help"] = loaded()
    report["usage_exit"] = main(["derive", "--format", "pdf", "x"])
    report["usage"] = loaded()
    import scaledattn.kernel.theorem as kernel
    checked = []
    step = kernel.check_step
    kernel.check_step = lambda *a, **k: checked.append(1) or step(*a, **k)
    report["list_exit"] = main(["list"])
    report["list"] = loaded()
    report["steps_checked"] = len(checked)
print(json.dumps(report))
"""


def test_help_usage_errors_and_list_import_no_numerics_and_check_nothing() -> None:
    code = f"HEAVY = {HEAVY!r}\n{SCRIPT}"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["help_exit"] == 0
    assert report["help"] == []
    assert report["usage_exit"] == 2
    assert report["usage"] == []
    assert report["list_exit"] == 0
    assert "numpy" not in report["list"]
    assert "matplotlib" not in report["list"]
    assert report["steps_checked"] == 0


def test_the_parsers_choices_are_those_of_the_modules_they_stand_for() -> None:
    assert theorems.FORMATS == FORMATS
    assert experiment.GRADIENT_PROTOCOLS == GRADIENT_PROTOCOLS


def test_verify_of_one_claim_loads_no_ledger() -> None:
    code = (
        "import sys; from scaledattn.cli import main\n"
        "main(['verify', 'Var(X+Y) = Var(X) + Var(Y)', '--brief'])\n"
        "print(' '.join(m for m in sys.modules if m.startswith('scaledattn.claims.ledger')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == ""
