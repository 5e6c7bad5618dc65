"""Bad input to every command and option: exit 2, one line on stderr naming the problem.

``SWEEP`` holds, for every command of ``scaledattn --help``, rows of bad arguments
and a fragment of the one-line message each must give. A test checks that every
command and every option appears in the table, so a new command (or option) cannot
arrive without its bad-input rows: add them to ``SWEEP``. ``BAD_VALUES`` holds,
per command and option, values that are bad whatever else is given; a Hypothesis
fuzz mixes them with random option names, unicode, huge numbers, NaN/inf and empty
strings. Every case runs in an empty folder, which must stay empty: nothing is
written when a command fails (``plot -o FILE``, ``docs -o DIR``).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scaledattn.cli import build_parser, main

# ------------------------------------------------------------------ the table


@dataclass(frozen=True)
class Bad:
    """Arguments (after ``scaledattn``) and a fragment of the one-line message."""

    argv: tuple[str, ...]
    message: str


def bad(*argv: str, says: str) -> Bad:
    """A row: ``scaledattn ARGV…`` must exit 2 with a line containing ``says``."""
    return Bad(argv, says)


#: Whether the torch extra is installed; without it, an audit that gets as far as
#: building a model is refused with the install hint instead.
TORCH_EXTRA = all(importlib.util.find_spec(n) is not None for n in ("torch", "transformers"))


def with_extra(message: str) -> str:
    """``message`` when the torch extra is installed, else the install hint."""
    return message if TORCH_EXTRA else "install the torch extra"


WITNESS = ("witness", "--distribution", "coin", "--d-k", "2")
HUGE = "9" * 40

SWEEP: dict[str, list[Bad]] = {
    "list": [
        bad("list", "extra", says="unrecognized arguments: extra"),
        bad("list", "--json", says="unrecognized arguments: --json"),
    ],
    "derive": [
        bad("derive", says="the following arguments are required: NAME"),
        bad("derive", "no_such_theorem", says="unknown theorem or rule 'no_such_theorem'"),
        bad("derive", "", says="unknown theorem or rule ''"),
        bad("derive", "ünïcode", says="unknown theorem or rule 'ünïcode'"),
        bad("derive", "unique_scale", "--format", "pdf", says="invalid choice: 'pdf'"),
        bad("derive", "unique_scale", "--format", "", says="invalid choice: ''"),
        bad("derive", "unique_scale", "--format", says="expected one argument"),
    ],
    "check": [
        bad("check", "extra", says="unrecognized arguments: extra"),
        bad("check", "--json=1", says="ignored explicit argument '1'"),
        bad("check", "--brief=yes", says="ignored explicit argument 'yes'"),
    ],
    "witness": [
        bad("witness", says="the following arguments are required: --distribution, --d-k"),
        bad(*WITNESS, says="one of the arguments --exact --samples is required"),
        bad(*WITNESS, "--exact", "--samples", "9", says="not allowed with argument"),
        bad("witness", "--distribution", "", "--d-k", "2", "--exact", says="empty distribution"),
        bad("witness", "--distribution", "nope", "--d-k", "2", "--exact", says="'nope'"),
        bad("witness", "--distribution", "ünï", "--d-k", "2", "--exact", says="'ünï'"),
        bad(
            "witness",
            "--distribution",
            "gaussian:var=-1",
            "--d-k",
            "2",
            "--samples",
            "9",
            says="var must be positive",
        ),
        bad(
            "witness",
            "--distribution",
            "gaussian:var=nan",
            "--d-k",
            "2",
            "--samples",
            "9",
            says="not a number: 'nan'",
        ),
        bad(
            "witness",
            "--distribution",
            "gaussian:var=1e400",
            "--d-k",
            "2",
            "--samples",
            "9",
            says="number out of range",
        ),
        bad(*WITNESS, "--k-distribution", "", "--exact", says="empty distribution"),
        bad(*WITNESS, "--k-distribution", "coin:p=2", "--exact", says="no parameter 'p'"),
        bad("witness", "--distribution", "coin", "--d-k", "0", "--exact", says="--d-k must be"),
        bad("witness", "--distribution", "coin", "--d-k=-5", "--exact", says="--d-k must be"),
        bad("witness", "--distribution", "coin", "--d-k", HUGE, "--exact", says="--d-k must be"),
        bad("witness", "--distribution", "coin", "--d-k", "2.5", "--exact", says="invalid int"),
        bad("witness", "--distribution", "coin", "--d-k", "nan", "--exact", says="invalid int"),
        bad(*WITNESS, "--samples", "1", says="--samples must be at least 2, got 1"),
        bad(*WITNESS, "--samples=-3", says="--samples must be at least 2, got -3"),
        bad(*WITNESS, "--samples", HUGE, says="take fewer samples"),
        bad(*WITNESS, "--samples", "", says="invalid int value: ''"),
        bad(*WITNESS, "--exact", "--seed=-1", says="--seed must be a non-negative integer"),
        bad(*WITNESS, "--exact", "--seed", "inf", says="invalid int value: 'inf'"),
        bad(*WITNESS, "--samples", "9", "--list", says="--list needs --exact"),
        bad(*WITNESS, "--exact", "--list=yes", says="ignored explicit argument 'yes'"),
        bad(*WITNESS, "--exact", "--json=no", says="ignored explicit argument 'no'"),
        bad(*WITNESS, "--exact=1", says="ignored explicit argument '1'"),
    ],
    "variance": [
        bad("variance", "--init-std", "0.02", says="--init-std needs --input-norm, or --d-model"),
        bad("variance", "--input-norm", "3", says="goes with --init-std"),
        bad("variance", "--init-std-k", "3", says="goes with --init-std"),
        bad("variance", "--init-std", "x +", "--d-k", "3", "--input-norm", "1", says="--init-std:"),
        bad("variance", "--init-std", "1", "--d-k", "3", "--input-norm", "1/0", says="division"),
        bad("variance", "--d-k", "0", says="--d-k must be a positive integer, got 0"),
        bad("variance", "--d-k", "1e400", says="exponent beyond"),
        bad("variance", "--d-k", "", says="empty expression"),
        bad("variance", "--var-q", "inf", says="--var-q must be finite, got 'inf'"),
        bad("variance", "--var-q", "NaN", says="--var-q must be finite, got 'NaN'"),
        bad("variance", "--var-q", "oo", says="means something else to SymPy"),
        bad("variance", "--var-q", "1/0", says="division by zero"),
        bad("variance", "--var-q", "9**99999", says="too large"),
        bad("variance", "--var-q", "ünïcode", says="unexpected character 'ü'"),
        bad("variance", "--var-k=-1", says="--var-k is a variance and must be >= 0, got -1"),
        bad("variance", "--mean-q", "", says="empty expression"),
        bad("variance", "--mean-k", "Infinity", says="--mean-k must be finite"),
        bad("variance", "--corr", "2", says="must lie in [-1, 1], got 2"),
        bad("variance", "--heads", "0", "--d-model", "64", says="--heads must be a positive"),
        bad("variance", "--d-model", "64", says="--d-model is the width of the tokens projected"),
        bad("variance", "--heads", "3", "--d-model", "64", says="does not divide"),
        bad("variance", "--format", "yaml", says="invalid choice: 'yaml'"),
        bad("variance", "--explain=1", says="ignored explicit argument '1'"),
        bad("variance", "--target-var", "2", says="unrecognized arguments"),
    ],
    "mean": [
        bad("mean", "--init-std", "1", "--var-q", "2", "--d-k", "3", says="leave out --var-q"),
        bad("mean", "--init-std-k", "1", says="goes with --init-std"),
        bad("mean", "--input-norm", "1", says="goes with --init-std"),
        bad("mean", "--mean-q", "sqrt(-2)", says="--mean-q must be real"),
        bad("mean", "--d-k", "2.5", says="--d-k must be a positive integer"),
        bad("mean", "--d-k", "inf", says="--d-k must be a positive integer or a name"),
        bad("mean", "--d-k", "oo", says="means something else to SymPy"),
        bad("mean", "--var-q", "", says="empty expression"),
        bad("mean", "--var-k", "nan", says="--var-k must be finite"),
        bad("mean", "--mean-k", "exec(1)", says="unknown function 'exec'"),
        bad("mean", "--corr", "inf", says="--corr must be finite"),
        bad("mean", "--heads", "h", "--d-model", "64", says="--heads must be a positive"),
        bad("mean", "--heads", "2", "--d-model", "", says="empty expression"),
        bad("mean", "--format", "", says="invalid choice: ''"),
        bad("mean", "--explain=yes", says="ignored explicit argument"),
    ],
    "scale": [
        bad("scale", "--init-std", "1", says="--init-std needs --input-norm"),
        bad("scale", "--init-std-k", "1", says="goes with --init-std"),
        bad("scale", "--input-norm", "1", says="goes with --init-std"),
        bad("scale", "--target-var", "0", says="--target-var must be > 0, got 0"),
        bad("scale", "--target-var", "nan", says="--target-var must be finite"),
        bad("scale", "--target-var", "", says="empty expression"),
        bad("scale", "--var-q", "0", says="no scale c > 0 gives the target variance"),
        bad("scale", "--var-k", "q", says="the name 'q' is reserved"),
        bad("scale", "--mean-q", "(" * 60 + "1" + ")" * 60, says="nested too deeply"),
        bad("scale", "--mean-k", "1" * 10_000, says="expression too long"),
        bad("scale", "--d-k", "-3", says="--d-k must be a positive integer, got -3"),
        bad("scale", "--corr", "-1.5", says="must lie in [-1, 1], got -3/2"),
        bad("scale", "--var-k", "-1/4", says="a value that starts with '-' is written"),
        bad("scale", "--heads", "8", says="--heads needs --d-model"),
        bad("scale", "--heads", "8", "--d-model", "0", says="--d-model must be a positive"),
        bad("scale", "--format", "markdown", says="invalid choice: 'markdown'"),
        bad("scale", "--explain=0", says="ignored explicit argument"),
    ],
    "exercises": [
        bad("exercises", "--format", "pdf", says="invalid choice: 'pdf'"),
        bad("exercises", "--brief=1", says="ignored explicit argument '1'"),
        bad("exercises", "3", says="unrecognized arguments: 3"),
    ],
    "softmax": [
        bad("softmax", says="the following arguments are required: SCORE"),
        bad("softmax", "", says="no scores given"),
        bad("softmax", ",,,", says="no scores given"),
        bad("softmax", "1", "nan", says="NaN"),
        bad("softmax", "1", "inf", says="+inf"),
        bad("softmax", "1e400", "2", says="+inf"),
        bad("softmax", "--", "-inf", "-inf", says="fully masked"),
        bad("softmax", "ünï", says="not a number: 'ünï'"),
        bad("softmax", "1", "2", "--scale", "0", says="--scale must be a positive number"),
        bad("softmax", "1", "2", "--scale", "nan", says="--scale must be a positive number"),
        bad("softmax", "1", "2", "--scale", "1e400", says="--scale must be a positive number"),
        bad("softmax", "1", "2", "--scale=-inf", says="--scale must be a positive number"),
        bad("softmax", "1", "2", "--scale", "1e-320", says="too small"),
        bad("softmax", "1", "2", "--scale", "", says="invalid float value: ''"),
        bad("softmax", "1", "2", "--target", "3", says="--target must be a key from 1 to 2"),
        bad("softmax", "1", "2", "--target", "0", says="--target must be a key from 1 to 2"),
        bad("softmax", "1", "2", "--target=-1", says="--target must be a key"),
        bad("softmax", "1", "2", "--target", HUGE, says="--target must be a key"),
        bad("softmax", "1", "2", "--target", "1.0", says="invalid int value"),
        bad("softmax", "1", "2", "--json=1", says="ignored explicit argument '1'"),
    ],
    "experiment": [
        bad("experiment", says="the following arguments are required: NAME"),
        bad("experiment", "nope", says="invalid choice: 'nope'"),
        bad("experiment", "", says="invalid choice: ''"),
        bad("experiment", "scores", "--seed=-1", says="seed must be between 0 and"),
        bad("experiment", "scores", "--seed", HUGE, says="seed must be between 0 and"),
        bad("experiment", "scores", "--seed", "nan", says="invalid int value: 'nan'"),
        bad("experiment", "scores", "--trials", "0", says="trials must be between"),
        bad("experiment", "scores", "--trials", HUGE, says="trials must be between"),
        bad("experiment", "scores", "--trials", "1.5", says="invalid int value: '1.5'"),
        bad("experiment", "scores", "--json=1", says="ignored explicit argument '1'"),
        bad("experiment", "saturation", "--keys", "1", says="keys must be between 2 and"),
        bad("experiment", "gradient", "--keys", HUGE, says="keys must be between 2 and"),
        bad("experiment", "scores", "--keys", "8", says="--keys applies to saturation"),
        bad("experiment", "gradient", "--protocol", "other", says="invalid choice: 'other'"),
        bad("experiment", "scores", "--protocol", "qk", says="--protocol applies to gradient"),
        bad("experiment", "training", "--lr", "nan", says="learning rate must be a positive"),
        bad("experiment", "training", "--lr", "inf", says="learning rate must be a positive"),
        bad("experiment", "training", "--lr", "0", says="learning rate must be a positive"),
        bad("experiment", "gradient", "--lr", "1", says="--lr applies to training"),
        bad("experiment", "dynamics", "--lr", "nan", says="learning rate must be a positive"),
        bad("experiment", "dynamics", "--trials", "1", says="trials must be between"),
        bad("experiment", "training", "--steps", "0", says="steps must be between 1 and"),
        bad("experiment", "training", "--steps", HUGE, says="steps must be between 1 and"),
        bad("experiment", "saturation", "--steps", "5", says="--steps applies to training"),
        bad("experiment", "scores", "--backend", "jax", says="invalid choice: 'jax'"),
        bad(
            "experiment", "gradient", "--backend", "torch", says="applies to scores and saturation"
        ),
    ],
    "audit": [
        bad("audit", says="the following arguments are required: MODEL"),
        bad("audit", "gpt3", says=with_extra("unknown model type 'gpt3'")),
        bad("audit", "", says="MODEL must be a model type"),
        bad("audit", "ünï", says=with_extra("unknown model type 'ünï'")),
        bad("audit", "a:b:c", says="is not module:callable"),
        bad("audit", "no_such_module_xyz:f", says=with_extra("cannot import 'no_such_module_xyz'")),
        bad("audit", "gpt2", "--layers=-1", says="--layers must be ≥ 0"),
        bad("audit", "gpt2", "--layers", "65", says="--layers must be between 1 and 64"),
        bad("audit", "gpt2", "--layers", "x", says="invalid int value: 'x'"),
        bad("audit", "gpt2", "--seed=-1", says="--seed must be between 0 and"),
        bad("audit", "gpt2", "--seed", HUGE, says="--seed must be between 0 and"),
        bad("audit", "gpt2", "--batch", "0", says="--batch must be between 1 and 64"),
        bad("audit", "gpt2", "--tokens", "1", says="--tokens must be between 2 and 4096"),
        bad("audit", "gpt2", "--tokens", HUGE, says="--tokens must be between 2 and 4096"),
        bad("audit", "gpt2", "--json=1", says="ignored explicit argument '1'"),
        bad("audit", "gpt2", "--plot", "x.txt", says="output must end in"),
        bad("audit", "gpt2", "--plot", "nodir/x.png", says="the folder 'nodir' does not exist"),
    ],
    "plot": [
        bad("plot", "saturation", says="the following arguments are required: -o/--output"),
        bad("plot", "nope", "-o", "x.png", says="invalid choice: 'nope'"),
        bad("plot", "saturation", "-o", "", says="output must end in .png, .pdf, .svg"),
        bad("plot", "saturation", "-o", "x.txt", says="output must end in .png"),
        bad("plot", "saturation", "--output", "ünï", says="output must end in .png"),
        bad("plot", "saturation", "-o", "nodir/x.png", says="the folder 'nodir' does not exist"),
        bad("plot", "saturation", "-o", "x.png", "--trials", "0", says="trials must be between"),
        bad("plot", "saturation", "-o", "x.png", "--trials", HUGE, says="trials must be between"),
        bad("plot", "training", "-o", "x.png", "--seed=-1", says="seed must be between 0 and"),
        bad("plot", "saturation", "-o", "x.png", "--seed", HUGE, says="seed must be between"),
        bad("plot", "training", "-o", "x.png", "--lr", "nan", says="learning rate must be"),
        bad("plot", "training", "-o", "x.png", "--lr", "0", says="learning rate must be"),
        bad("plot", "saturation", "-o", "x.png", "--lr", "1", says="--lr applies to the training"),
    ],
    "verify": [
        bad("verify", says="the following arguments are required: CLAIM"),
        bad("verify", "", says="empty expression"),
        bad("verify", "Var(X) =", says="unexpected end of expression"),
        bad("verify", "__import__('os')", says="unexpected character '_'"),
        bad("verify", "Var(X) = 1", "--assume", "", says="empty expression"),
        bad("verify", "Var(X) = 1", "--assume", "foo(X", says="unknown function 'foo'"),
        bad("verify", "Var(X) = 1", "--assume", "Var(X) = nan", says='in "Var(X) = nan"'),
        bad("verify", "Var(dot(q, k)) = d_k", "--assume", "d_k = 0", says="d_k must be"),
        bad("verify", "Var(X) = 1", "--seed=-1", says="--seed must be between 0 and"),
        bad("verify", "Var(X) = 1", "--seed", "nan", says="invalid int value: 'nan'"),
        bad("verify", "Var(X) = 1", "--trials", "0", says="trials must be between"),
        bad("verify", "Var(X) = 1", "--trials", HUGE, says="trials must be between"),
        bad("verify", "Var(X) = 1", "--brief=1", says="ignored explicit argument '1'"),
        bad("verify", "Var(X) = 1", "--json=1", says="ignored explicit argument '1'"),
    ],
    "claims": [
        bad("claims", "--source", "nope", says="unknown source 'nope'"),
        bad("claims", "--source", "", says="unknown source ''"),
        bad("claims", "--seed=-1", says="--seed must be between 0 and"),
        bad("claims", "--seed", "x", says="invalid int value: 'x'"),
        bad("claims", "--json=1", says="ignored explicit argument '1'"),
        bad("claims", "--closing=1", says="ignored explicit argument '1'"),
        bad("claims", "--closing", "--source", "nope", says="unknown source 'nope'"),
        bad("claims", "extra", says="unrecognized arguments: extra"),
    ],
    "check-proof": [
        bad("check-proof", says="the following arguments are required: FILE"),
        bad("check-proof", "no_such.proof", says="no_such.proof:1:1: cannot read the file"),
        bad("check-proof", ".", says=".:1:1: cannot read the file"),
        bad("check-proof", "", says=":1:1: cannot read the file"),
        bad("check-proof", "x.proof", "--json=1", says="ignored explicit argument '1'"),
    ],
    "docs": [
        bad("docs", "-o", "", says="-o/--output is empty"),
        bad("docs", "--plots", "--check", says="cannot be combined with --check"),
        bad("docs", "--plots=1", says="ignored explicit argument '1'"),
        bad("docs", "-o", "no/such/folder/docs", says="does not exist"),
        bad("docs", "--output", "/proc/no_such_docs", says="cannot write the docs"),
        bad("docs", "--check=1", says="ignored explicit argument '1'"),
        bad("docs", "-o", says="expected one argument"),
    ],
}

ROWS = [row for rows in SWEEP.values() for row in rows]


# ------------------------------------------------------------------ running


@contextlib.contextmanager
def inside(folder: Path) -> Iterator[None]:
    """Run with ``folder`` as the working directory."""
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


class TookTooLong(BaseException):
    """A command was still working on arguments that should have been refused at once."""


@contextlib.contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Stop a command that does work before it rejects its bad arguments."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise TookTooLong(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def run_in(folder: Path, argv: list[str]) -> tuple[int, str, str]:
    """``main(argv)`` in ``folder``: exit code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with (
        inside(folder),
        deadline(60),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def assert_refused(folder: Path, argv: list[str], code: int, out: str, err: str) -> None:
    """Exit 2, nothing on stdout, one line on stderr, no traceback, nothing written."""
    assert code == 2, (argv, out, err)
    assert out == "", (argv, out)
    assert len(err.strip().splitlines()) == 1, (argv, err)
    assert "Traceback" not in err
    assert list(folder.iterdir()) == [], (argv, sorted(p.name for p in folder.iterdir()))


@pytest.mark.parametrize("row", ROWS, ids=[" ".join(r.argv)[:60] for r in ROWS])
def test_bad_input_exits_2_with_one_line_naming_the_problem_and_writes_nothing(
    row: Bad, tmp_path: Path
) -> None:
    code, out, err = run_in(tmp_path, list(row.argv))
    assert_refused(tmp_path, list(row.argv), code, out, err)
    assert row.message in err, err


# ------------------------------------------------------------ coverage of the table


def subcommands() -> dict[str, argparse.ArgumentParser]:
    """Every command of ``scaledattn``, by name."""
    parser = build_parser()
    (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def options(parser: argparse.ArgumentParser) -> list[tuple[str, ...]]:
    """The option strings of each optional argument of ``parser`` (help excluded)."""
    return [
        tuple(a.option_strings)
        for a in parser._actions
        if a.option_strings and not isinstance(a, argparse._HelpAction)
    ]


def test_every_command_has_rows_in_the_sweep() -> None:
    assert set(subcommands()) == set(SWEEP)


def test_every_option_of_every_command_has_a_bad_value_in_the_sweep() -> None:
    for name, parser in subcommands().items():
        words = {w.split("=")[0] for row in SWEEP[name] for w in row.argv}
        for strings in options(parser):
            assert words & set(strings), f"{name}: no bad-input row uses {'/'.join(strings)}"


# ---------------------------------------------------------------------- the fuzz

#: Values bad for an option whatever else is given: (command, option) → values.
#: ``None`` as the option is a bad positional argument.
NOT_FINITE = ["nan", "inf", "-inf", "1e400", "NaN", "Infinity"]
NOT_INT = ["", "1.5", "x", "ünï", "1e3", *NOT_FINITE]
EXPR = ["", "inf", "nan", "1/0", "x +", "ü", "__import__('os')", "9**9999", "(" * 60, "1e400"]
COUNT = [*NOT_INT, "0", "-1", HUGE]
FLAG = ["1", "yes", ""]
CALCULATOR = {
    "--d-k": [*EXPR, "0", "-3", "2.5"],
    "--var-q": [*EXPR, "-1"],
    "--var-k": [*EXPR, "-1"],
    "--mean-q": EXPR,
    "--mean-k": EXPR,
    "--corr": [*EXPR, "2", "-1.5"],
    "--heads": [*EXPR, "0", "-1"],
    "--d-model": [*EXPR, "0", "-1"],
    "--init-std": EXPR,
    "--init-std-k": EXPR,
    "--input-norm": EXPR,
    "--format": ["", "yaml", "ünï"],
    "--explain": FLAG,
}
BAD_VALUES: dict[str, dict[str | None, list[str]]] = {
    "list": {None: ["extra", "", "ünï"]},
    "derive": {None: ["", "nope", "ünï", HUGE], "--format": ["", "pdf", "ünï"]},
    "check": {None: ["extra"], "--json": FLAG, "--brief": FLAG},
    "witness": {
        "--distribution": ["", "nope", "ünï", "gaussian:var=-1", "gaussian:var=nan"],
        "--k-distribution": ["", "nope", "coin:p=2", "uniform:low=inf"],
        "--d-k": [*NOT_INT, "0", "-1", HUGE],
        "--samples": COUNT,
        "--seed": [*NOT_INT, "-1"],
        "--list": FLAG,
        "--json": FLAG,
        "--exact": FLAG,
    },
    "variance": {**CALCULATOR, "--target-var": ["1", "2"]},
    "mean": {**CALCULATOR, "--target-var": ["1"]},
    "scale": {**CALCULATOR, "--target-var": [*EXPR, "0", "-1"]},
    "exercises": {None: ["1"], "--format": ["", "pdf"], "--brief": FLAG},
    "softmax": {
        None: ["nan", "inf", "1e400", "x", "ünï", ",,x"],
        "--scale": ["", "x", "ünï", "0", "-1", *NOT_FINITE, "1e-320"],
        "--target": [*NOT_INT, "-1", "0", HUGE],
        "--json": FLAG,
    },
    "experiment": {
        "--seed": [*NOT_INT, "-1", HUGE],
        "--trials": COUNT,
        "--keys": [*NOT_INT, "-1", "0", "1", HUGE],
        "--protocol": ["", "other", "ünï"],
        "--lr": ["", "x", "ünï", *NOT_FINITE, "0", "-1"],
        "--steps": COUNT,
        "--backend": ["", "jax", "ünï"],
        "--json": FLAG,
    },
    "audit": {
        None: ["", "gpt3", "ünï", "a:b:c", "no_such_module_xyz:f", HUGE],
        "--layers": [*NOT_INT, "-1", "65", HUGE],
        "--seed": [*NOT_INT, "-1", HUGE],
        "--batch": COUNT,
        "--tokens": [*COUNT, "1"],
        "--plot": ["", "x.txt", "ünï", "nodir/x.png", "."],
        "--json": FLAG,
    },
    "plot": {
        "-o": ["", "x.txt", "ünï", "nodir/x.png", "."],
        "--seed": [*NOT_INT, "-1", HUGE],
        "--trials": COUNT,
        "--lr": ["", "x", "ünï", *NOT_FINITE, "0", "-1"],
    },
    "verify": {
        None: ["", "Var(X) =", "__import__('os')", "ünï", "1/0 = 1", "(" * 60],
        "--assume": ["", "foo(X", "Var(X) = nan", "d_k = 0", "Var(X) = -1"],
        "--seed": [*NOT_INT, "-1", HUGE],
        "--trials": COUNT,
        "--brief": FLAG,
        "--json": FLAG,
    },
    "claims": {None: ["extra"], "--source": ["", "nope", "ünï"], "--seed": [*NOT_INT, "-1"]},
    "check-proof": {None: ["", "no_such.proof", "ünï.md", "."], "--json": FLAG},
    "docs": {"-o": ["", "no/such/folder/docs"], "--check": FLAG, "--plots": FLAG},
}

#: Valid arguments each command starts from (the fuzz adds one bad ingredient).
BASE: dict[str, st.SearchStrategy[list[str]]] = {
    "list": st.just([]),
    "derive": st.just(["variance_of_sum"]),
    "check": st.just([]),
    "witness": st.just(["--distribution", "coin", "--d-k", "2", "--exact"]),
    "variance": st.just([]),
    "mean": st.just([]),
    "scale": st.just([]),
    "exercises": st.just([]),
    "softmax": st.just(["1", "2"]),
    "experiment": st.sampled_from(["scores", "saturation", "gradient", "training"]).map(
        lambda n: [n]
    ),
    "plot": st.sampled_from(["saturation", "training"]).map(lambda n: [n, "-o", "x.png"]),
    "audit": st.just(["gpt2"]),
    "verify": st.just(["Var(X) = Var(X)"]),
    "claims": st.just(["--source", "000"]),
    "check-proof": st.just([]),
    "docs": st.just(["-o", "out"]),
}

#: Anything a user might type as a value: unicode, huge numbers, NaN/inf, empty strings.
ANY_VALUES = st.one_of(
    st.sampled_from(["", "0", "1", "nan", "inf", "-inf", "1e400", HUGE, "-1", "ünï", "∞"]),
    st.integers(-(10**30), 10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(max_size=12),
)


def _bound(command: str, option: str | None, value: str) -> list[str]:
    if option is None:
        return ["--", value] if value.startswith("-") else [value]
    return [f"{option}={value}"]


@st.composite
def bad_argvs(draw: st.DrawFn) -> list[str]:
    """A command, valid base arguments, random noise, and one ingredient bad for it."""
    command = draw(st.sampled_from(sorted(SWEEP)))
    argv = [command, *draw(BASE[command])]
    table = BAD_VALUES[command]
    kind = draw(st.sampled_from(["value", "unknown", "missing"]))
    option: str | None = None
    if kind == "value":
        option = draw(st.sampled_from(sorted(table, key=str)))
        ingredient = _bound(command, option, draw(st.sampled_from(table[option])))
    elif kind == "unknown":
        ingredient = ["--zz" + draw(st.text(max_size=8)).replace("=", ""), "1"]
    else:  # a value-taking option with its value missing, at the very end
        takes = [o for o in table if o is not None and table[o] is not FLAG]
        ingredient = [draw(st.sampled_from(takes))] if takes else ["--zz"]
    noise_options = [o for o in table if o is not None and o != option and table[o] is not FLAG]
    noise: list[str] = []
    if noise_options and kind != "missing" and command not in ("docs", "plot"):
        for extra in draw(st.lists(st.sampled_from(noise_options), max_size=2, unique=True)):
            noise.append(f"{extra}={draw(ANY_VALUES)}")
    if option is None and command in ("derive", "verify"):
        argv = [command]  # the bad theorem name replaces the good one
    return [*argv, *noise, *ingredient]


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(argv=bad_argvs())
def test_fuzzed_bad_arguments_exit_2_with_one_line_and_write_nothing(argv: list[str]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        code, out, err = run_in(folder, argv)
        assert_refused(folder, argv, code, out, err)


# ------------------------------------------------------------------- subprocesses

SUBPROCESS = [
    ["variance", "--var-q", "inf"],
    ["softmax", "1", "nan"],
    ["plot", "saturation", "-o", "x.txt"],
    ["docs", "-o", ""],
    ["witness", "--distribution", "coin", "--d-k", "2", "--samples=-3"],
    ["--frobnicate"],
]


@pytest.mark.parametrize("argv", SUBPROCESS, ids=[" ".join(a) for a in SUBPROCESS])
def test_a_real_process_exits_2_with_one_line_and_writes_nothing(
    argv: list[str], tmp_path: Path
) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "scaledattn", *argv],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert_refused(tmp_path, argv, result.returncode, result.stdout, result.stderr)
