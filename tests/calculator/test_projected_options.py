"""The calculator's projected-score options: --init-std, --init-std-k, --input-norm."""

from __future__ import annotations

import pytest
import sympy

from scaledattn.cli import main


def last_line(capsys: pytest.CaptureFixture[str]) -> str:
    """The closed form: the last line without its decimal value (after ' = ' or ' ≈ ')."""
    line = capsys.readouterr().out.strip().splitlines()[-1]
    return line.split(" = ")[0].split(" ≈ ")[0]


def test_gpt2_init_gives_the_variance_of_its_logits_before_scaling(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["variance", "--d-model", "768", "--heads", "12", "--init-std", "0.02"]) == 0
    # d_k·σ⁴·d_model² = 64·(0.02²·768)²
    expected = 64 * (sympy.Rational(1, 50) ** 2 * 768) ** 2
    assert sympy.Rational(last_line(capsys)) == expected


def test_the_scale_for_gpt2_init_is_far_from_root_d_k(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scale", "--d-model", "768", "--heads", "12", "--init-std", "0.02"]) == 0
    c = sympy.sympify(last_line(capsys))
    assert c == sympy.sqrt(64) * sympy.Rational(1, 50) ** 2 * 768


def test_t5_init_folds_the_scale_in(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["variance", "--d-model", "512", "--heads", "8"]
    argv += ["--init-std", "1/sqrt(512*64)", "--init-std-k", "1/sqrt(512)"]
    assert main(argv) == 0
    assert last_line(capsys) == "1"


def test_an_input_norm_replaces_root_d_model(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["variance", "--d-k", "4", "--init-std", "1/2", "--input-norm", "3"]) == 0
    assert sympy.Rational(last_line(capsys)) == 4 * (sympy.Rational(9, 4)) ** 2


BAD = [
    (["--init-std", "0.02"], "--init-std needs --input-norm, or --d-model"),
    (["--init-std", "0.02", "--var-q", "2", "--d-k", "3"], "leave out --var-q and --var-k"),
    (["--input-norm", "3"], "goes with --init-std"),
    (["--init-std", "2*(", "--d-k", "3", "--input-norm", "1"], "--init-std: unexpected end"),
]


@pytest.mark.parametrize(("extra", "message"), BAD, ids=[m for _, m in BAD])
def test_bad_projected_options_exit_2_in_one_line(
    extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["variance", *extra]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1
