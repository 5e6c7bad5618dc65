"""Bad input to the calculator: one line naming what is wrong, exit 2, never a traceback."""

from __future__ import annotations

import pytest

import scaledattn
from scaledattn.cli import main
from scaledattn.errors import InvalidArgument

# (arguments, a fragment of the one-line message)
BAD = [
    (["variance", "--d-k", "0"], "--d-k must be a positive integer, got 0"),
    (["variance", "--d-k", "-3"], "--d-k must be a positive integer, got -3"),
    (["variance", "--d-k", "2.5"], "--d-k must be a positive integer, got 5/2"),
    (["variance", "--d-k", "2*n"], "--d-k must be a positive integer or a single name"),
    (["variance", "--d-k", "c"], "reserved"),
    (["variance", "--var-q", "-1"], "--var-q is a variance and must be >= 0, got -1"),
    (["variance", "--var-k=-1/4"], "--var-k is a variance and must be >= 0, got -1/4"),
    (["variance", "--var-k", "-1/4"], "a value that starts with '-' is written --option=-1/4"),
    (["variance", "--var-q", "s - 1"], "not evidently >= 0"),
    (["variance", "--var-q", "sqrt(-1)"], "--var-q must be real"),
    (["mean", "--mean-q", "sqrt(-2)"], "--mean-q must be real"),
    (["variance", "--corr", "2"], "--corr is a correlation and must lie in [-1, 1], got 2"),
    (["variance", "--corr", "-1.5"], "must lie in [-1, 1], got -3/2"),
    (["variance", "--corr", "sqrt(2)"], "must lie in [-1, 1]"),
    (["scale", "--target-var", "0"], "--target-var must be > 0, got 0"),
    (["scale", "--target-var", "-1"], "--target-var must be > 0, got -1"),
    (["scale", "--target-var", "mu - 1"], "--target-var must be > 0"),
    (["scale", "--var-q", "0"], "no scale c > 0 gives the target variance"),
    (["variance", "--heads", "3", "--d-model", "512"], "--heads 3 does not divide --d-model 512"),
    (["variance", "--heads", "0", "--d-model", "512"], "--heads must be a positive integer"),
    (["variance", "--heads", "8"], "--heads needs --d-model"),
    (["variance", "--d-model", "h"], "--d-model must be a positive integer"),
    (["variance", "--heads", "h", "--d-model", "512"], "--heads must be a positive integer"),
    (
        ["variance", "--d-k", "32", "--heads", "8", "--d-model", "512"],
        "--d-k 32 contradicts --d-model/--heads = 512/8 = 64",
    ),
    (["variance", "--var-q", "x +"], "unexpected end of expression"),
    (["variance", "--var-q", "4 4"], "unexpected '4'"),
    (["variance", "--var-q", "__import__('os')"], "unexpected character '_'"),
    (["variance", "--mean-q", "exec(1)"], "unknown function 'exec'"),
    (["variance", "--var-q", "2**2**2**2**2**2"], "too large"),
    (["variance", "--var-q", "(" * 50 + "1" + ")" * 50], "nested too deeply"),
    (["variance", "--var-q", "1" * 10_000], "expression too long"),
    (["variance", "--var-q", "q"], "the name 'q' is reserved"),
    (["variance", "--mean-k", "i"], "the name 'i' is reserved"),
    (["variance", "--var-q", "gamma**2"], "the name 'gamma' means something else to SymPy"),
    (["variance", "--mean-q", "I"], "the name 'I' means something else to SymPy"),
    (["variance", "--corr", "lambda"], "the name 'lambda' means something else to SymPy"),
    (["variance", "--format", "yaml"], "invalid choice"),
    (["variance", "--frobnicate"], "unrecognized arguments"),
    (["variance", "--target-var", "2"], "unrecognized arguments"),
    (["exercises", "--format", "pdf"], "invalid choice"),
]


@pytest.mark.parametrize(("argv", "message"), BAD, ids=[" ".join(a)[:50] for a, _ in BAD])
def test_bad_input_exits_2_with_one_line_and_no_traceback(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert message in err
    assert err.count("\n") == 1
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: scaledattn.variance(d_k=0), "d_k must be a positive integer"),
        (lambda: scaledattn.variance(d_k=2.5), "d_k must be a positive integer, got 5/2"),
        (lambda: scaledattn.variance(var_q=-1), "var_q is a variance"),
        (lambda: scaledattn.variance(corr=1.5), "corr is a correlation"),
        (lambda: scaledattn.variance(heads=5, d_model=512), "heads 5 does not divide"),
        (lambda: scaledattn.scale(target_var=0), "target_var must be > 0"),
        (lambda: scaledattn.mean(mean_q=float("nan")), "must be finite"),
        (lambda: scaledattn.mean(mean_q=True), "must be a number or an expression"),
        (lambda: scaledattn.mean(mean_q=[1]), "must be a number or an expression"),
        (lambda: scaledattn.mean(mean_q="__class__"), "unexpected character '_'"),
    ],
)
def test_the_python_api_raises_invalid_argument_for_the_same_mistakes(
    call: object, message: str
) -> None:
    with pytest.raises(InvalidArgument, match=None) as err:
        call()  # type: ignore[operator]
    assert message in str(err.value)
