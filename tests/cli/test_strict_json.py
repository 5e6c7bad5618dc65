"""Every command's JSON is strict JSON: no NaN, Infinity or -Infinity (RFC 8259).

Python's json module writes and reads those words by default; the parser here refuses
them (``parse_constant``). Every command with a JSON output is run, on inputs that
reach a non-finite number where one can arise (a masked score of -inf, its infinite
cross-entropy, a law without a fourth moment), and the set of commands covered is
checked against the parser's, so that a new command with ``--json`` is covered too.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from scaledattn.cli import build_parser, main

TORCH = all(importlib.util.find_spec(n) is not None for n in ("torch", "transformers"))


def refuse(constant: str) -> Any:
    raise ValueError(f"not JSON: {constant}")


def strict(text: str) -> Any:
    return json.loads(text, parse_constant=refuse)


#: For each command with a JSON output, the runs whose output is parsed strictly.
RUNS: dict[str, list[list[str]]] = {
    "derive": [["derive", "p_minus_y_limit", "--format", "json"]],
    "witness": [
        ["witness", "--distribution", "coin", "--d-k", "4", "--exact", "--list", "--json"],
        ["witness", "--distribution", "student-t:nu=3", "--d-k", "4", "--samples", "500", "--json"],
    ],
    "variance": [
        ["variance", "--d-k", "64", "--d-model", "768", "--init-std", "0.02", "--format", "json"]
    ],
    "mean": [["mean", "--corr", "rho", "--format", "json"]],
    "scale": [["scale", "--var-q", "1/3", "--format", "json"]],
    "exercises": [["exercises", "--format", "json"]],
    "softmax": [["softmax", "--json", "1,-inf,3", "--target", "2"]],
    "experiment": [
        ["experiment", "saturation", "--trials", "20", "--json"],
        ["experiment", "training", "--trials", "2", "--steps", "3", "--json"],
    ],
    "verify": [["verify", "Var(q·k) = d_k", "--json"]],
    "claims": [["claims", "--closing", "--json"]],
    "check-proof": [],  # a certificate written by derive: test below
    "check": [],  # the session's own run: test below
    "audit": [["audit", "tests.torchattn.tiny_models:t5", "--tokens", "8", "--json"]],
}


def json_commands() -> set[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    found = set()
    for name, command in sub.choices.items():  # type: ignore[union-attr]
        for action in command._actions:
            if "--json" in action.option_strings or (
                "--format" in action.option_strings and "json" in (action.choices or ())
            ):
                found.add(name)
    return found


def test_every_command_with_a_json_output_is_covered() -> None:
    assert json_commands() == set(RUNS)


CASES = [argv for runs in RUNS.values() for argv in runs]


@pytest.mark.parametrize("argv", CASES, ids=[" ".join(a[:2]) for a in CASES])
def test_the_json_of_each_command_is_strict(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    if argv[0] == "audit" and not TORCH:
        pytest.skip("needs the torch extra (torch and transformers)")
    assert main(argv) in (0, 1, 3)
    strict(capsys.readouterr().out)


def test_a_masked_score_is_written_as_a_string_float_reads_back(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["softmax", "--json", "1,-inf,3", "--target", "2"]) == 0
    data = strict(capsys.readouterr().out)
    assert data["scores"][1] == "-inf"
    assert float(data["cross_entropy"]) == float("inf")


def test_check_and_check_proof_write_strict_json(
    check_output: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    strict(check_output["json_text"])
    assert main(["derive", "scaled_variance", "--format", "json"]) == 0
    certificate = tmp_path / "scaled_variance.json"
    certificate.write_text(capsys.readouterr().out, encoding="utf-8")
    assert main(["check-proof", str(certificate), "--json"]) == 0
    strict(capsys.readouterr().out)
