"""The lesson's exercises: answered by derivation, witnessed by exact enumeration."""

from __future__ import annotations

import importlib
from fractions import Fraction
from types import ModuleType

import pytest

from scaledattn import grading as judged
from scaledattn.cli import main
from scaledattn.derive import audit_of
from scaledattn.numeric.distributions import Coin, Finite
from scaledattn.numeric.exact import combinations
from scaledattn.registry import all_derivations


def exercises() -> ModuleType:
    return importlib.import_module("scaledattn.proofs.exercises")


def test_the_d2_coin_model_has_four_product_combinations() -> None:
    listing = combinations(Coin(), Coin(), 2)
    assert [(tuple(map(int, r.products)), int(r.score)) for r in listing.rows] == [
        ((1, 1), 2),
        ((1, -1), 0),
        ((-1, 1), 0),
        ((-1, -1), -2),
    ]
    assert all(r.probability == Fraction(1, 4) for r in listing.rows)
    assert (listing.mean, listing.variance) == (0, 2)


@pytest.mark.parametrize("d", range(1, 7))
def test_coin_enumeration_gives_variance_d(d: int) -> None:
    assert combinations(Coin(), Coin(), d).variance == d


def test_every_exercise_is_verified_and_agrees_with_its_enumeration() -> None:
    verdicts = judged.verdicts()
    assert [v.number for v in verdicts] == [1, 2, 3]
    assert all(v.ok for v in verdicts)
    assert all(audit_of(d).verified for v in verdicts for d in v.derivations)
    answers = [v.answer for v in verdicts]
    assert answers[0].startswith("E[q·k] = 0, Var(q·k) = 2")
    assert answers[1].startswith("σ = 1/sqrt(d_k); at d_k = 64, σ = 1/8")
    assert answers[2].startswith("Var(q·k) = 16*d_k; the scale becomes c = 4*sqrt(d_k)")


def test_a_verdict_fails_when_the_enumeration_disagrees(monkeypatch: pytest.MonkeyPatch) -> None:
    wrong = Finite(values=(-3, 3))
    monkeypatch.setattr(judged, "Coin", lambda: wrong)
    monkeypatch.setattr(judged, "PLUS_MINUS_TWO", wrong)
    assert not any(v.ok for v in judged.verdicts())


def test_the_exercise_derivations_are_part_of_scaledattn_check() -> None:
    names = {d.name for d in all_derivations()}
    assert {
        "exercise1_mean",
        "exercise1_variance",
        "exercise2_std",
        "exercise2_std_at_64",
        "exercise3_variance",
        "exercise3_scale",
    } <= names


def test_the_exercises_command_prints_each_answer_and_verdict(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["exercises"]) == 0
    out = capsys.readouterr().out
    for row in ("(+1, +1)        2          1/4", "(-1, -1)       -2          1/4"):
        assert row in out
    assert out.count("Verdict: VERIFIED") == 3
    assert "VERIFIED exercise3_scale" in out
    assert out.splitlines()[-1].startswith("3 of 3 exercises verified")


def test_the_exercises_command_agrees_with_variance_and_scale(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for argv, last in (
        (["variance", "--d-k", "2"], "2"),
        (["variance", "--var-q", "4", "--var-k", "4"], "16*d_k"),
        (["scale", "--var-q", "4", "--var-k", "4"], "4*sqrt(d_k)"),
    ):
        assert main(argv) == 0
        assert capsys.readouterr().out.splitlines()[-1] == last


def test_the_proof_script_ends_with_a_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    from scaledattn.render import run

    assert run(exercises().derivations) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("Verdict: VERIFIED")
