"""Issue 30's six examples, as a hostile new user found them, each through its door.

1–3 were VERIFIED though false; the true claims of 3 were REFUTED; 4 printed a
counterexample that breaks an assumption; 5 ended in an internal error; 6 gave one word
to three standards. Each test runs the command line in-process (``main``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scaledattn.cli import main

Capture = pytest.CaptureFixture[str]


def _proof(tmp_path: Path, text: str) -> str:
    path = tmp_path / "t.proof"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_example_1_a_moment_value_mentioning_its_bound_index_is_refused(
    tmp_path: Path, capsys: Capture
) -> None:
    # E[Σᵢ qᵢ] = δ(i², i) − δ(i, 1) would certify E[Σₘ qₘ] = δ(m², m) − δ(m, 1), 1 at m = 0.
    file = _proof(tmp_path, (
        "theorem bad1: E(sum(q_m, m, 1, d_k)) = delta(m**2, m) - delta(m, 1)\n"
        "assume: E(sum(q_i, i, 1, d_k)) = delta(i**2, i) - delta(i, 1)\n"
        "  E(sum(q_m, m, 1, d_k))\n"
        "  = delta(m**2, m) - delta(m, 1)    by substitute_moment\n"
    ))  # fmt: skip
    assert main(["check-proof", file]) == 2
    assert "may not mention i" in capsys.readouterr().err


def test_example_2_one_assume_line_against_the_defaults_does_not_verify_1_eq_0(
    tmp_path: Path, capsys: Capture
) -> None:
    file = _proof(tmp_path, (
        "theorem bad: 1 = 0\n"
        "assume: E(q_i*k_i) = 1\n"
        "  1\n  = E(q_1*k_1)\n  = E(q_1)*E(k_1)\n  = 0\n"
    ))  # fmt: skip
    assert main(["check-proof", file]) != 0
    out = capsys.readouterr().out
    assert "VERIFIED bad" not in out


@pytest.mark.parametrize(
    "argv",
    [
        ["E(2*X) - 2*E(X) = 1", "--assume", "E(2*X) = 3", "--assume", "E(X) = 1"],
        ["Cov(Y, X) - Cov(X, Y) = 1", "--assume", "Cov(Y, X) = 2", "--assume", "Cov(X, Y) = 1"],
    ],
)
def test_example_3_moments_are_compared_in_their_normal_form_not_as_written(
    argv: list[str], capsys: Capture
) -> None:
    assert main(["verify", *argv]) == 3
    out = capsys.readouterr().out
    assert "VERIFIED" not in out
    assert "inconsistent" in out


def test_example_3_a_schematic_covariance_is_read_at_i_eq_j_too(
    tmp_path: Path, capsys: Capture
) -> None:
    file = _proof(tmp_path, (
        "theorem bad3: 1 = 0\n"
        "assume: Cov(q_i, q_j) = 0\n"
        "  1\n  = Var(q_1)\n  = Cov(q_1, q_1)\n  = 0\n"
    ))  # fmt: skip
    assert main(["check-proof", file]) != 0
    assert "VERIFIED bad3" not in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["Cov(X, Y) = Cov(Y, X)", "--assume", "Cov(Y, X) = 2", "--assume", "Cov(X, Y) = 1"],
        ["E(2*X) = 2*E(X)", "--assume", "E(2*X) = 3", "--assume", "E(X) = 1"],
    ],
)
def test_example_3_true_claims_under_inconsistent_assumptions_are_not_refuted(
    argv: list[str], capsys: Capture
) -> None:
    assert main(["verify", *argv]) == 3
    assert "REFUTED" not in capsys.readouterr().out


def test_example_4_no_counterexample_breaks_an_independence(
    tmp_path: Path, capsys: Capture
) -> None:
    file = _proof(tmp_path, (
        "theorem t4: 0 = Cov(X, Y)/sqrt(Var(X))\n"
        "assume: independent(X, Y)\nassume: Var(X) = 1\n"
        "  0\n  = Cov(X, Y)/sqrt(Var(X))\n"
    ))  # fmt: skip
    main(["check-proof", file])
    assert "a model where the two sides differ" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["Cov(X, X + Y)/sqrt(Var(X)*Var(X + Y)) = 1/sqrt(2)", "--assume", "independent(X, Y)",
          "--assume", "Var(X) = 1", "--assume", "Var(Y) = 1"], 0),
        (["Cov(X, Y)/Var(Y) = 0", "--assume", "independent(X, Y)"], 0),
        (["Cov(X, Y)/Var(Y) = 0", "--assume", "independent(X, Y)", "--assume", "Var(Y) = 1"], 0),
        (["Cov(X, Y)/sqrt(Var(X)*Var(Y)) = 0", "--assume", "independent(X, Y)"], 0),
        (["Cov(X, 2*X)/Var(X) = 2"], 0),
        (["Cov(X, Y)/Var(X) = 1"], 1),
    ],
)  # fmt: skip
def test_example_5_a_quotient_of_moments_is_decided_never_an_internal_error(
    argv: list[str], code: int, capsys: Capture
) -> None:
    assert main(["verify", *argv]) == code
    captured = capsys.readouterr()
    assert "internal error" not in captured.err


def test_example_5_a_divisor_that_may_be_0_is_named_as_the_condition(capsys: Capture) -> None:
    assert main(["verify", "Cov(X, Y)/Var(Y) = 0", "--assume", "independent(X, Y)"]) == 0
    assert "Var(Y) ≠ 0" in capsys.readouterr().out


def test_example_6_a_proof_an_interval_and_a_test_get_three_different_words(
    capsys: Capture,
) -> None:
    words = []
    for claim in (
        "Var(dot(q,k)/sqrt(d_k)) = 1",
        "exp(3.2) ≈ 24.5",
        "measured(max_weight_unscaled) ≈ 0.787",
    ):
        assert main(["verify", claim, "--json"]) == 0
        words.append(json.loads(capsys.readouterr().out)["verdict"])
    assert words == ["VERIFIED", "COMPUTED", "CONSISTENT"]
