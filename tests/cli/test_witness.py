from __future__ import annotations

import json

import pytest

from scaledattn.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["witness", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_coin_at_d_k_4096_has_exact_variance_4096(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--distribution", "coin", "--d-k", "4096", "--exact", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["variance"] == "4096"
    assert data["mean"] == "0"
    assert data["expected_variance"] == "4096"
    assert data["agrees"] is True
    assert "ci95" not in data


def test_exact_variances_are_rational_strings(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "--distribution",
        "die",
        "--k-distribution",
        "finite:values=0|5,probs=2/3|1/3",
        "--d-k",
        "7",
        "--exact",
        "--json",
    )
    data = json.loads(out)
    assert code == 0
    assert data["agrees"] is True
    assert data["variance"] == data["expected_variance"] == "6125/36"


def test_exercise_one_lists_the_four_combinations(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--distribution", "coin", "--d-k", "2", "--exact", "--list")
    assert code == 0
    assert out.count("probability 1/4") == 4
    assert "mean 0, variance 2" in out
    code, out, _ = run(
        capsys, "--distribution", "coin", "--d-k", "2", "--exact", "--list", "--json"
    )
    assert [c["score"] for c in json.loads(out)["combinations"]] == ["2", "0", "0", "-2"]


def test_monte_carlo_reports_an_interval_and_agrees(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "--distribution",
        "gaussian:mean=1,var=2",
        "--k-distribution",
        "laplace",
        "--d-k",
        "16",
        "--samples",
        "20000",
        "--seed",
        "5",
        "--json",
    )
    data = json.loads(out)
    assert code == 0
    lo, hi = data["ci95"]
    assert isinstance(data["variance"], float)
    assert lo < data["variance"] < hi
    assert data["expected_variance"] == "96"
    assert data["agrees"] is True
    assert data["trusted"] is True
    code, text, _ = run(
        capsys,
        "--distribution",
        "gaussian:mean=1,var=2",
        "--k-distribution",
        "laplace",
        "--d-k",
        "16",
        "--samples",
        "20000",
        "--seed",
        "5",
    )
    assert code == 0
    assert "95% interval" in text


def test_a_law_without_fourth_moment_is_reported_untrusted(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        capsys, "--distribution", "student-t:nu=3", "--d-k", "8", "--samples", "5000", "--json"
    )
    data = json.loads(out)
    assert code == 3
    assert data["trusted"] is False
    assert data["agrees"] is False
    assert "cannot be trusted" in data["warning"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--distribution", "cauchy", "--d-k", "3", "--samples", "100"], "refused"),
        (["--distribution", "student-t:nu=2", "--d-k", "3", "--samples", "100"], "nu > 2"),
        (["--distribution", "gaussian", "--d-k", "3", "--exact"], "not a finite"),
        (["--distribution", "coin", "--d-k", "0", "--exact"], "--d-k"),
        (["--distribution", "finite:values=1|2,probs=1/2|1/3", "--d-k", "2", "--exact"], "sum"),
        (["--distribution", "gaussian:var=-2", "--d-k", "2", "--samples", "9"], "positive"),
        (["--distribution", "coin:x", "--d-k", "2", "--exact"], "key=value"),
        (["--distribution", "coin", "--d-k", "two", "--exact"], "invalid int"),
        (["--distribution", "coin", "--d-k", "2"], "required"),
        (["--distribution", "coin", "--d-k", "2", "--samples", "1"], "at least 2"),
        (["--distribution", "coin", "--d-k", "2", "--samples", "9", "--seed", "-1"], "seed"),
        (["--distribution", "coin", "--d-k", "2", "--samples", "9", "--list"], "--list"),
        (["--distribution", "die", "--d-k", "999999", "--exact"], "would take about"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], args: list[str], words: str
) -> None:
    code, out, err = run(capsys, *args)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert words in err
    assert "Traceback" not in err
