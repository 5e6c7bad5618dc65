"""The checker's word on a kernel verdict is about the derivation itself: a certificate
of another statement or with other assumptions is refused, and only the checker's own
flag (never the text of a name) makes a refusal "unread"."""

from __future__ import annotations

import types
from typing import Any

import pytest

import scaledattn.certificate as C
from scaledattn.cache import Checked, second
from scaledattn.certificate import term
from scaledattn.errors import SoundnessAlarm
from scaledattn.kernel import Derivation, E, Equation, Step, audit, random_variables, rules
from scaledattn.kernel.expr import rebuild
from scaledattn.render.text import verdict_line

X, Y = random_variables("X Y")


def _independence_added(d: Derivation) -> dict[str, Any]:
    lhs, rhs = term(rebuild(d.statement.lhs)), term(rebuild(d.statement.rhs))
    return {
        "format": 1,
        "name": d.name,
        "kind": "calc",
        "facts": [["independent", [["rv", "X"], ["rv", "Y"]]]],  # not an assumption of d
        "lhs": lhs,
        "rhs": rhs,
        "steps": [
            {
                "rule": "expectation_mul_of_indep",
                "claim": rhs,
                "forward": [{"lhs": lhs, "rhs": rhs, "facts": [0]}],
            }
        ],
        "lemmas": [],
    }


def _unproved() -> Derivation:
    return Derivation(
        "forged", Equation(E(X * Y), E(X) * E(Y)), (Step(rules.expectation_linear, E(X) * E(Y)),)
    )


def test_a_kept_certificate_with_an_extra_assumption_is_refused() -> None:
    d = _unproved()
    flags: dict[str, Any] = {"agrees": True, "refuted": False, "tested": False}
    kept = Checked(verified=True, witness={}, lines=(), methods=(), settings=0, comparisons=0,
                   certificate=_independence_added(d), **flags)  # fmt: skip
    assert second(d, kept).startswith("refused")


def test_the_word_is_about_the_derivation_not_the_writers_certificate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    d = _unproved()
    forged_audit: Any = types.SimpleNamespace(verified=True, theorem=None, derivation=d)
    monkeypatch.setattr(C, "certificate", lambda result: _independence_added(result.derivation))
    assert C.word(forged_audit).startswith("refused")


def _wrong_writer(result: Any) -> dict[str, Any]:
    cert = _real_certificate(result)
    cert["steps"][0]["claim"] = ["num", "0"]
    cert["rhs"] = ["num", "0"]
    return cert


_real_certificate = C.certificate


@pytest.mark.parametrize("name", ["lin_plain", "axiom_free_lin", "lin (not read yet)"])
def test_a_refusal_is_a_refusal_whatever_the_name(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(C, "certificate", _wrong_writer)
    d = Derivation(
        name, Equation(E(X + Y), E(X) + E(Y)), (Step(rules.expectation_linear, E(X) + E(Y)),)
    )
    a = audit(d)
    assert a.verified
    assert C.word(a).startswith("refused")  # the alarm, whatever the name
    with pytest.raises(SoundnessAlarm, match="please report"):
        verdict_line(a)


def test_a_kept_certificate_edited_in_place_is_judged_again() -> None:
    from scaledattn.cache import checked
    from scaledattn.registry import find_derivation, theorem_modules

    name = "dot_product_variance"
    module = next(m for m in theorem_modules() if any(x.name == name for x in m.derivations))
    d = find_derivation(name)
    kept = checked(module, d)
    assert kept.certificate is not None
    assert second(d, kept) == "checked"
    saved = kept.certificate["rhs"]
    kept.certificate["rhs"] = ["mul", ["num", "2"], ["sym", "d_k", "inprz"]]
    try:
        assert second(d, kept).startswith("refused")
    finally:
        kept.certificate["rhs"] = saved
    assert second(d, kept) == "checked"
