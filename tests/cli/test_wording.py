"""Issue 18's wording: plurals, one numbering of keys, verdict words that match the criterion."""

from __future__ import annotations

import math
import re

import pytest

from scaledattn.attention.stats import Z95
from scaledattn.cli import main
from scaledattn.render.text import plural

Capture = pytest.CaptureFixture[str]


def test_counts_take_the_singular_for_one() -> None:
    assert plural(1, "step") == "1 step"
    assert plural(2, "step") == "2 steps"
    assert plural(0, "step") == "0 steps"


def test_a_one_step_derivation_says_1_step(capsys: Capture) -> None:
    assert main(["verify", "Var(dot(q, k)) = d_k"]) == 0
    out = capsys.readouterr().out
    assert "1 step checked" in out
    assert "1 steps" not in out


def test_a_derived_sigma_is_shown_without_stray_parentheses(capsys: Capture) -> None:
    assert main(["exercises", "--brief"]) == 0
    out = capsys.readouterr().out
    assert "the derived σ there is √2/2," in out
    assert "(√2/2)" not in out


def test_softmax_numbers_keys_from_1_as_the_theorems_do(capsys: Capture) -> None:
    assert main(["softmax", "1", "3", "2", "--target", "2"]) == 0
    out = capsys.readouterr().out
    assert "(key 2 of 1..3)" in out  # the largest weight is the second key
    assert "(target key 2)" in out


def test_the_verdict_column_agrees_with_the_criterion_stated_below_it(capsys: Capture) -> None:
    assert main(["experiment", "saturation"]) == 0
    out = capsys.readouterr().out
    assert f"|z| ≤ 1.96·√2 = {Z95 * math.sqrt(2):.2f}" in out
    rows = re.findall(r"^\s+\w+\s+[-\d.]+\s+\[.*?\]\s+[-\d.]+\s+(yes|NO)\s+([-\d.]+)$", out, re.M)
    assert rows
    for word, z in rows:
        assert (word == "yes") == (abs(float(z)) <= Z95 * math.sqrt(2))
