"""The softmax, experiment and plot commands: output, JSON, bad input (progress: test_progress)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from scaledattn.cli import main

Capture = pytest.CaptureFixture[str]


def run(argv: list[str], capsys: Capture) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(argv: list[str], capsys: Capture) -> str:
    code, out, err = run(argv, capsys)
    assert code == 2, (argv, out, err)
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    return err


# ------------------------------------------------------------------- softmax


def test_softmax_prints_the_lessons_hand_example(capsys: Capture) -> None:
    code, out, _ = run(["softmax", "3.2", "0.1", "-2.5", "0.4"], capsys)
    assert code == 0
    assert "0.9015" in out
    assert "0.0548" in out


def test_softmax_refutes_the_claim_about_60_65_70(capsys: Capture) -> None:
    # Article 004 says softmax(60, 65, 70) ≈ (0.25, 0.30, 0.35).
    code, out, _ = run(["softmax", "60,65,70", "--json"], capsys)
    data = json.loads(out)
    assert code == 0
    assert data["weights"][2] > 0.99


def test_softmax_reports_the_cross_entropy_gradient(capsys: Capture) -> None:
    code, out, _ = run(
        ["softmax", "14", "10", "12", "--scale", "8", "--target", "2", "--json"], capsys
    )
    data = json.loads(out)
    assert code == 0
    assert data["weights"][0] == pytest.approx(0.4192, abs=1e-4)
    assert data["gradient"][1] == pytest.approx(data["weights"][1] - 1)  # key 2 of 1..3
    assert data["target"] == 2
    assert data["largest_key"] == 1
    assert data["gradient_norm"] <= 2**0.5


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["softmax", "1", "nan"], "NaN"),
        (["softmax", "1", "inf"], "+inf"),
        (["softmax", "--", "-inf", "-inf"], "fully masked"),
        (["softmax", "1", "x"], "not a number"),
        (["softmax", "1", "2", "--scale", "0"], "--scale"),
        (["softmax", "1", "2", "--target", "3"], "--target must be a key from 1 to 2"),
    ],
)
def test_softmax_bad_input_exits_2_with_one_line(
    argv: list[str], message: str, capsys: Capture
) -> None:
    assert message in one_line_error(argv, capsys)


def test_a_masked_key_is_accepted(capsys: Capture) -> None:
    code, out, _ = run(["softmax", "1,-inf,2", "--json"], capsys)
    assert code == 0
    assert json.loads(out)["weights"][1] == 0.0


# ---------------------------------------------------------------- experiment


@pytest.mark.parametrize(
    ("name", "trials", "names"),
    [
        ("scores", "500", ["score_std_d4", "score_std_d64", "score_std_ratio"]),
        (
            "saturation",
            "100",
            ["max_weight_unscaled", "entropy_unscaled", "max_weight_scaled", "entropy_scaled"],
        ),
        ("gradient", "100", ["p_minus_y_norm", "gap_unscaled", "gap_scaled", "gap_ratio"]),
    ],
)
def test_experiment_json_follows_the_contract(
    name: str, trials: str, names: list[str], capsys: Capture
) -> None:
    code, out, _ = run(["experiment", name, "--trials", trials, "--seed", "3", "--json"], capsys)
    data = json.loads(out)
    assert code == 0
    assert data["experiment"] == name
    assert (data["seed"], data["trials"]) == (3, int(trials))
    assert [m["name"] for m in data["measurements"]] == names
    for m in data["measurements"]:
        assert isinstance(m["value"], float)
        assert len(m["ci95"]) == 2
        assert isinstance(m["published"], float)


def test_experiment_text_shows_value_interval_and_published(capsys: Capture) -> None:
    code, out, _ = run(["experiment", "saturation", "--trials", "100"], capsys)
    assert code == 0
    assert "95% interval" in out
    assert "0.787" in out
    assert "ln 64 = 4.1589" in out


def test_the_training_experiment_reports_losses_and_where_it_diverges(capsys: Capture) -> None:
    code, out, _ = run(["experiment", "training", "--trials", "2", "--steps", "5"], capsys)
    assert code == 0
    assert "Median loss per step" in out
    assert "by learning rate" in out
    assert "diverged_d64_unscaled" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["experiment", "nope"], "invalid choice"),
        (["experiment", "scores", "--trials", "0"], "trials"),
        (["experiment", "scores", "--trials", "many"], "invalid int"),
        (["experiment", "scores", "--trials", "-5"], "trials"),
        (["experiment", "scores", "--seed", "-1"], "seed"),
        (["experiment", "scores", "--protocol", "qk"], "--protocol"),
        (["experiment", "gradient", "--protocol", "other"], "invalid choice"),
        (["experiment", "saturation", "--keys", "1"], "keys"),
        (["experiment", "training", "--lr", "-1"], "learning rate"),
        (["experiment", "training", "--lr", "nan"], "learning rate"),
        (["experiment", "gradient", "--lr", "1"], "--lr"),
    ],
)
def test_experiment_bad_input_exits_2_with_one_line(
    argv: list[str], message: str, capsys: Capture
) -> None:
    assert message in one_line_error(argv, capsys)


# ---------------------------------------------------------------------- plot


def test_plot_needs_an_output_file(capsys: Capture) -> None:
    assert "-o/--output" in one_line_error(["plot", "saturation"], capsys)


def test_plot_without_matplotlib_names_the_extra(
    capsys: Capture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    err = one_line_error(["plot", "saturation", "-o", str(tmp_path / "s.png")], capsys)
    assert "scaledattn[plot]" in err


@pytest.mark.parametrize(
    ("name", "file", "message"),
    [("saturation", "s.txt", ".png"), ("saturation", "missing/s.png", "does not exist")],
)
def test_plot_refuses_a_bad_output_path(
    name: str, file: str, message: str, capsys: Capture, tmp_path: Path
) -> None:
    assert message in one_line_error(["plot", name, "-o", str(tmp_path / file)], capsys)


@pytest.mark.parametrize("name", ["saturation", "training"])
def test_plot_writes_a_png(name: str, capsys: Capture, tmp_path: Path) -> None:
    out = tmp_path / f"{name}.png"
    code, text, _ = run(["plot", name, "-o", str(out), "--trials", "2"], capsys)
    assert code == 0
    assert str(out) in text
    data = out.read_bytes()
    assert data.startswith(b"\x89PNG")
    assert len(data) > 20_000
