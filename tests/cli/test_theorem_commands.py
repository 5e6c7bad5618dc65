"""The list / derive / check commands, in-process through main(argv), plus real scripts."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from scaledattn.cli import build_parser, main
from scaledattn.registry import all_derivations

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_shows_every_theorem_with_its_statement(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "list")
    assert code == 0
    for d in all_derivations():
        assert d.name in out
    assert "Var(q·k) = dₖ" in out


def test_check_verifies_everything_and_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check")
    assert code == 0
    assert out.count("VERIFIED") == len(all_derivations())
    assert "REJECTED" not in out


def test_check_json_is_machine_readable(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["verified"] is True
    assert {t["theorem"] for t in data["theorems"]} == {d.name for d in all_derivations()}


@pytest.mark.parametrize("fmt", ["text", "latex", "markdown", "json"])
def test_derive_renders_in_every_format(capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    code, out, _ = run(capsys, "derive", "unique_scale", "--format", fmt)
    assert code == 0
    if fmt == "json":
        data = json.loads(out)
        assert all(s["verified"] is True and s["rule"] for s in data["steps"])
    if fmt == "latex":
        assert r"\sqrt{d_{k}}" in out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (
            ["derive", "no_such_theorem"],
            "unknown theorem or rule 'no_such_theorem' (see 'scaledattn list')",
        ),
        (
            ["derive", "dot_product_varaince"],
            "unknown theorem or rule 'dot_product_varaince'; did you mean 'dot_product_variance'?",
        ),
        (["derive", "unique_scale", "--format", "pdf"], "invalid choice: 'pdf'"),
        (["derive"], "the following arguments are required: NAME"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        (["check", "--verbose-ish"], "unrecognized arguments: --verbose-ish"),
    ],
)
def test_bad_input_gives_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], needle: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert needle in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_no_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys)
    assert code == 2
    assert "COMMAND" in out


def _python(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


def test_the_module_runs_as_a_program_and_reports_its_version() -> None:
    result = _python("-m", "scaledattn", "--version")
    assert result.returncode == 0
    assert result.stdout.startswith("scaledattn ")


def test_a_proof_script_prints_the_derivation_and_a_verdict(tmp_path: Path) -> None:
    result = _python(str(ROOT / "proofs" / "dot_product_variance.py"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Var(q·k) = dₖ" in result.stdout
    assert "q₁⋅k₁⋅q₁⋅k₁" in result.stdout
    assert "q₃⋅k₃⋅q₃⋅k₃" in result.stdout
    assert result.stdout.rstrip().splitlines()[-1].startswith("Verdict: VERIFIED")


def test_a_proof_script_with_one_wrong_claim_exits_non_zero_naming_the_step(tmp_path: Path) -> None:
    source = (ROOT / "scaledattn" / "proofs" / "variance_of_sum.py").read_text(encoding="utf-8")
    right = ".eq(Var(X) + Var(Y) + 2 * Cov(X, Y),                        by=covariance_def)"
    assert right in source
    wrong = source.replace(right, right.replace("2 * Cov", "Cov"))
    script = tmp_path / "variance_of_sum.py"
    script.write_text(wrong, encoding="utf-8")
    result = _python(str(script), cwd=tmp_path)
    assert result.returncode == 1
    assert "REJECTED variance_of_sum: step 6" in result.stdout
    assert "Verdict: REJECTED" in result.stdout


def test_an_internal_error_is_one_line_without_a_traceback(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import scaledattn.cli.theorems as theorems

    def broken(args: object) -> int:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(theorems, "cmd_list", broken)
    # main's parser is built once per process, holding the cmd_list it found: build
    # another one that holds the broken command (for this test only)
    monkeypatch.setattr("scaledattn.cli._parser", functools.cache(build_parser))
    code, _, err = run(capsys, "list")
    assert code == 70
    assert err.strip() == (
        "scaledattn: internal error: ZeroDivisionError: a bug"
        " (please report it; --debug shows the traceback)"
    )
    with pytest.raises(ZeroDivisionError):
        main(["--debug", "list"])
