"""One set of options for the calculator: the Python functions and the commands agree.

The options' names and defaults are the setting's (scaledattn.moments.setting.OPTIONS);
the functions take them as keywords, the commands as ``--d-k`` and so on, and on a grid
of settings both give the same closed form, decimal value and derivation.
"""

from __future__ import annotations

import inspect
import json
from typing import Any

import pytest

import scaledattn
from scaledattn.cli import build_parser, main
from scaledattn.cli.calculator import OPTION_HELP, SCALE_ONLY, flag
from scaledattn.errors import InvalidArgument
from scaledattn.moments.setting import OPTIONS, setting

FUNCTIONS = {"variance": scaledattn.variance, "mean": scaledattn.mean, "scale": scaledattn.scale}


def options_of(quantity: str) -> set[str]:
    return {o for o in OPTIONS if quantity == "scale" or o not in SCALE_ONLY}


@pytest.mark.parametrize("quantity", FUNCTIONS)
def test_each_function_takes_the_settings_options_with_the_settings_defaults(
    quantity: str,
) -> None:
    parameters = inspect.signature(FUNCTIONS[quantity]).parameters
    assert set(parameters) == options_of(quantity)
    defaults = inspect.signature(setting).parameters
    for name, parameter in parameters.items():
        assert parameter.default == defaults[name].default, name


@pytest.mark.parametrize("quantity", FUNCTIONS)
def test_each_command_takes_the_same_options_and_leaves_their_defaults_to_the_setting(
    quantity: str,
) -> None:
    assert set(OPTION_HELP) == set(OPTIONS)
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices[quantity]  # type: ignore[union-attr]
    setting_flags = {
        a.option_strings[0]: a.default
        for a in sub._actions
        if a.option_strings and a.option_strings[0] not in ("-h", "--explain", "--format")
    }
    assert set(setting_flags) == {flag(o) for o in options_of(quantity)}
    assert set(setting_flags.values()) == {None}


GRID: list[dict[str, Any]] = [
    {},
    {"d_k": 64, "d_model": 768, "init_std": 0.02},  # the engineer's question (issue 28)
    {"heads": 12, "d_model": 768, "init_std": "0.02"},
    {"d_model": 512, "init_std": "1/sqrt(512*64)", "init_std_k": "1/sqrt(512)"},
    {"d_k": 8, "init_std": "1/2", "input_norm": 3, "mean_q": "1/2"},
    {"var_q": "sigma**2", "var_k": "sigma**2", "corr": "1/2"},
]


def argv(quantity: str, options: dict[str, Any]) -> list[str]:
    return [quantity, *(f"{flag(name)}={value}" for name, value in options.items())]


@pytest.mark.parametrize("options", GRID, ids=[str(o) for o in GRID])
def test_the_functions_and_the_commands_answer_alike_on_a_grid_of_settings(
    options: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    for quantity, function in FUNCTIONS.items():
        answer = function(**options)
        assert main([*argv(quantity, options), "--format", "json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["closed_form"] == str(answer)
        assert data["decimal"] == answer.decimal
        assert data["decimal_exact"] == answer.decimal_exact
        assert data["value"] == answer.value
        assert data["theorem"] == answer.theorem.name
        assert main(argv(quantity, options)) == 0
        assert capsys.readouterr().out.splitlines()[-1] == answer.line()


def test_the_engineers_question_is_answered_exactly_and_in_decimals(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # q, k from Linear(768, 64), weights N(0, 0.02²), LayerNorm'd tokens: ‖x‖² = 768, so
    # Var(qᵢ) = 0.02²·768 and c = √(64·(0.02²·768)²) = 8·0.3072 = 2.4576.
    c = scaledattn.scale(d_k=64, d_model=768, init_std=0.02)
    assert str(c) == "1536/625"
    assert (c.decimal, c.decimal_exact, c.value) == ("2.4576", True, 2.4576)
    assert main(["scale", "--d-k", "64", "--d-model", "768", "--init-std", "0.02"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1536/625 = 2.4576"
    v = scaledattn.variance(d_k=64, d_model=768, init_std=0.02)
    assert v.line() == "2359296/390625 = 6.03979776"


def test_a_rounded_decimal_is_marked_as_approximate() -> None:
    assert scaledattn.variance(d_k=3, var_q="1/3").line() == "1"
    b = scaledattn.variance(var_q="1/3")
    assert b.line() == "d_k/3 ≈ 0.333333333333333*d_k"
    assert not b.decimal_exact
    assert b.value is None


def test_d_model_alone_is_refused_because_it_would_change_nothing() -> None:
    with pytest.raises(InvalidArgument, match="alone it changes nothing"):
        scaledattn.variance(d_model=768)
