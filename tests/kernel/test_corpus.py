"""Run the soundness corpus (tests/kernel/corpus.py): every wrong derivation rejected at its
step with its error class, every right one accepted, every rule and theorem covered."""

from __future__ import annotations

import re

import pytest

from scaledattn.derive import audit_of
from scaledattn.kernel import RULES, Derivation
from scaledattn.registry import theorem_modules

from .corpus import RIGHT, WRONG, Right, Wrong


def _ids(names: list[str]) -> list[str]:
    """ASCII test ids (pytest escapes other characters, and then cannot select the test by id)."""
    return [
        re.sub(r"[^A-Za-z0-9]+", "_", name.replace("≠", "ne").replace("²", "2")).strip("_")
        for name in names
    ]


def _rule_name(rule: object) -> str:
    return str(getattr(rule, "name", rule))


@pytest.mark.parametrize("wrong", WRONG, ids=_ids([w.name for w in WRONG]))
def test_kernel_rejects_the_wrong_derivation_at_the_right_step(wrong: Wrong) -> None:
    derivation = wrong.build()
    result = audit_of(derivation)
    assert not result.verified
    first = result.errors[0]
    assert type(first) is wrong.error, str(first)
    if wrong.step:
        assert first.step == wrong.step, str(first)
        assert result.steps[wrong.step - 1].error is first
        assert first.rule == _rule_name(derivation.steps[wrong.step - 1].rule)
        assert all(r.ok for r in result.steps[: wrong.step - 1])
    else:
        assert all(r.ok for r in result.steps)


@pytest.mark.parametrize("right", RIGHT, ids=_ids([r.name for r in RIGHT]))
def test_kernel_accepts_the_true_derivation(right: Right) -> None:
    result = audit_of(right.build())
    assert result.verified, "\n".join(str(e) for e in result.errors)


def _rejected_rule(w: Wrong) -> str:
    d: Derivation = w.build()
    return _rule_name(d.steps[w.step - 1].rule) if w.step else ""


def test_the_corpus_holds_at_least_forty_wrong_derivations() -> None:
    assert len(WRONG) >= 40
    assert len({w.name for w in WRONG}) == len(WRONG)


def test_every_rule_is_the_rule_of_a_rejected_step_and_of_an_accepted_one() -> None:
    rejected = {_rejected_rule(w) for w in WRONG}
    accepted = {_rule_name(s.rule) for r in RIGHT for s in r.build().steps}
    assert set(RULES) - rejected == set()
    assert set(RULES) - accepted == set()


def test_every_theorem_module_is_attacked_by_the_corpus() -> None:
    attacked = {w.theorem for w in WRONG}
    assert {m.name for m in theorem_modules()} - attacked == set()
