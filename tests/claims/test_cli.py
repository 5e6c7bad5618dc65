"""``scaledattn verify``: exit codes, JSON, and hostile input refused without running it."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scaledattn.cli import main
from tests.claims.test_syntax import HOSTILE

Capture = pytest.CaptureFixture[str]


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["verify", "Var(X + Y) = Var(X) + Var(Y) + 2*Cov(X, Y)"], 0),
        (["verify", "Var(X + Y) = Var(X) + Var(Y)"], 1),
        (["verify", "Var(X + Y) = Var(X) + Var(Y)", "--assume", "independent(X, Y)"], 0),
        (["verify", "Var(dot(q, k)) = d_k"], 0),
        (["verify", "Var(dot(q, k)/d_k) = 1"], 1),
        (["verify", "softmax([2.0, 1.0, 0.1]) ≈ [0.659, 0.242, 0.099]"], 0),
        (["verify", "softmax([60, 65, 70]) ≈ [0.25, 0.30, 0.35]"], 1),
        (["verify", "E(dot(q, k)^3) = 0"], 3),
        (["verify", "std(dot(q, k)) ≈ 8"], 3),
        (["verify", "std(dot(q, k)) ≈ 8", "--assume", "d_k = 64"], 0),
    ],
)
def test_verify_exits_0_verified_1_refuted_3_undecided(
    argv: list[str], code: int, capsys: Capture
) -> None:
    assert main(argv) == code
    out = capsys.readouterr().out
    assert out.startswith("Claim     ")


def test_verify_json_holds_claim_verdict_assumptions_evidence_and_counterexample(
    capsys: Capture,
) -> None:
    assert main(["verify", "Var(X + Y) = Var(X) + Var(Y)", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["claim"] == "Var(X + Y) = Var(X) + Var(Y)"
    assert data["verdict"] == "REFUTED"
    assert data["assumptions"] == []
    assert data["evidence"][0]["kind"] == "counterexample"
    assert data["counterexample"] == {"model": "X ~ coin, Y = X", "left": "4", "right": "2"}


def test_verify_json_lists_the_defaults_and_the_given_assumptions(capsys: Capture) -> None:
    assert main(["verify", "Var(dot(q, k)) = 16*d_k", "--assume", "Var(q_i) = 4",
                 "--assume", "Var(k_i) = 4", "--json"]) == 0  # fmt: skip
    data = json.loads(capsys.readouterr().out)
    assert "IndependentComponents(q, k) (default)" in data["assumptions"]
    assert "Var(qᵢ) = 4 for every i" in data["assumptions"]
    assert data["evidence"][0]["derivation"]["verified"] is True


def test_brief_leaves_out_the_derivation_steps(capsys: Capture) -> None:
    main(["verify", "Var(dot(q, k)/d_k) = 1"])
    full = capsys.readouterr().out
    main(["verify", "Var(dot(q, k)/d_k) = 1", "--brief"])
    brief = capsys.readouterr().out
    assert "✓ variance_const_mul" in full
    assert "✓ variance_const_mul" not in brief


@pytest.mark.parametrize(("text", "message"), HOSTILE, ids=lambda x: repr(x)[:40])
def test_hostile_input_exits_2_with_one_line_and_no_traceback(
    text: str, message: str, capsys: Capture
) -> None:
    start = time.process_time()
    assert main(["verify", text]) == 2
    assert time.process_time() - start < 1.0
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert message in err
    assert "Traceback" not in err


def test_nothing_in_a_claim_is_ever_executed(tmp_path: Path, capsys: Capture) -> None:
    target = tmp_path / "pwned"
    for text in (
        f"__import__('os').system('touch {target}') = 0",
        f"open('{target}', 'w') = 0",
        f"exec(\"open('{target}', 'w')\") = 0",
    ):
        assert main(["verify", text]) == 2
        assert main(["verify", "1 = 1", "--assume", text]) == 2
    assert not target.exists()


def test_bad_options_are_one_line_errors(capsys: Capture) -> None:
    assert main(["verify", "1 = 1", "--seed", "-1"]) == 2
    assert main(["verify", "1 = 1", "--trials", "1"]) == 2
    assert main(["verify", "1 = 1", "--assume", "c < 0"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 3


def test_the_installed_command_refuses_hostile_input_with_exit_2() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "scaledattn", "verify", "__import__('os').system('echo hi')"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
