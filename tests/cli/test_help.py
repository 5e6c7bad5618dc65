"""Issue 18: every --help lists what its arguments accept; every unknown name gets the closest."""

from __future__ import annotations

import pytest

from scaledattn.claims.syntax import FUNCTIONS
from scaledattn.claims.terms import CONSTANTS, SCALARS
from scaledattn.cli import main
from scaledattn.numeric.distributions import CATALOGUE

Capture = pytest.CaptureFixture[str]


def _help(capsys: Capture, command: str) -> str:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    return capsys.readouterr().out


def test_verify_help_lists_the_names_and_functions_of_the_language(capsys: Capture) -> None:
    out = _help(capsys, "verify")
    for name, _, _ in FUNCTIONS:
        assert name in out
    for name in (*SCALARS, *CONSTANTS):
        assert name in out
    assert "max_weight_unscaled" in out  # measured(NAME)
    assert "p_minus_y" in out  # lim(NAME)
    assert "\\mathrm{Var}(X)" in out


def test_witness_help_lists_the_distributions(capsys: Capture) -> None:
    out = _help(capsys, "witness")
    for name in CATALOGUE:
        assert f"  {name}" in out
    assert "student-t:nu=N" in out


def test_derive_help_says_what_a_name_may_be(capsys: Capture) -> None:
    out = " ".join(_help(capsys, "derive").split())
    assert "variance(var_q=4, var_k=4)" in out
    assert "kernel rule" in out


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["verify"], "(usage: scaledattn verify [-h]"),
        (["softmax", "1", "--target"], "(usage: scaledattn softmax [-h]"),
        (["verfy", "X = X"], "did you mean 'verify'?"),
        (["derive", "variance_of_sum", "--format", "jsn"], "did you mean 'json'?"),
        (["derive", "dot_product_varaince"], "did you mean 'dot_product_variance'?"),
        (["witness", "--distribution", "gausian", "--d-k", "2", "--exact"], "'gaussian'?"),
        (["verify", "measured(max_weight_unscald) ≈ 0.787"], "'max_weight_unscaled'?"),
        (["verify", "lim(jacobain) = 0"], "did you mean 'jacobian'?"),
        (["verify", "Var(dk) = 1"], 'did you mean "Var(d_k) = 1"?'),
        (["verify", "Variance(X) = 1"], 'did you mean "Var(X) = 1"?'),
    ],
)
def test_usage_errors_show_the_subcommands_usage_and_names_get_the_closest(
    capsys: Capture, argv: list[str], says: str
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert says in err
    assert err.count("\n") == 1
