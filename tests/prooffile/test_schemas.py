"""Theorems are schemas: ``by NAME`` applies a theorem to any terms matching its statement."""

from __future__ import annotations

import pytest
import sympy

from scaledattn.errors import ProofFileError
from scaledattn.kernel import Instance, Var, random_variables
from scaledattn.prooffile.check import check_document, is_known_rule
from scaledattn.prooffile.instances import matches
from scaledattn.prooffile.parse import parse_document

X, Y, Z = random_variables("X Y Z")

SCALING = """\
theorem var_scale: Var(c*X) = c**2*Var(X)
assume: no defaults
assume: c real
  = c**2*Var(X)   by variance_const_mul
"""


def _verdicts(text: str) -> list:  # type: ignore[type-arg]
    return check_document(parse_document(text, is_known_rule), seconds=1.0)


def test_a_cited_theorem_applies_to_the_users_variables_with_its_assumption_discharged() -> None:
    text = """\
theorem mine: Var(X + Z) = Var(X) + Var(Z)
assume: independent(X, Z)
  = Var(X) + Var(Z)   by variance_of_sum_of_indep
"""
    (verdict,) = _verdicts(text)
    assert verdict.verified
    assert verdict.steps[0].rules == ("variance_of_sum_of_indep(Y := Z)",)


def test_the_acceptance_proof_of_a_scaled_sum_is_verified_without_the_theorems_letters() -> None:
    text = (
        SCALING
        + """
theorem scaled_sum: Var(a*X + b*Z) = a**2*Var(X) + b**2*Var(Z)
assume: independent(X, Z)
  = Var(a*X) + Var(b*Z)   by variance_of_sum_of_indep
  = a**2*Var(X) + Var(b*Z)   by var_scale
  = a**2*Var(X) + b**2*Var(Z)   by var_scale
"""
    )
    verdicts = _verdicts(text)
    assert [v.verified for v in verdicts] == [True, True]
    steps = verdicts[1].audit.derivation.steps  # type: ignore[union-attr]
    assert all(isinstance(s.rule, Instance) for s in steps)  # the kernel checked instances


def test_one_line_may_use_a_theorem_twice_each_use_an_instance_the_kernel_checks() -> None:
    text = (
        SCALING
        + """
theorem twice: Var(a*X) + Var(b*Z) = a**2*Var(X) + b**2*Var(Z)
  = a**2*Var(X) + b**2*Var(Z)   by var_scale
"""
    )
    verdict = _verdicts(text)[1]
    assert verdict.verified
    assert verdict.steps[0].rules == ("var_scale(c := a)", "var_scale(c := b, X := Z)")


def test_an_explicit_instance_is_used_as_written() -> None:
    text = """\
theorem mine: Var(a*X + b*Z) = Var(a*X) + Var(b*Z)
assume: independent(X, Z)
  = Var(a*X) + Var(b*Z)   by variance_of_sum_of_indep(X := a*X, Y := b*Z)
"""
    (verdict,) = _verdicts(text)
    assert verdict.verified


def test_an_explicit_instance_that_does_not_fit_is_rejected_by_the_kernel() -> None:
    text = """\
theorem mine: Var(a*X + b*Z) = Var(a*X) + Var(b*Z)
assume: independent(X, Z)
  = Var(a*X) + Var(b*Z)   by variance_of_sum_of_indep(X := X, Y := Z)
"""
    (verdict,) = _verdicts(text)
    assert not verdict.verified
    assert verdict.steps[0].status == "rejected"


def test_a_name_the_theorem_does_not_have_is_refused_naming_it() -> None:
    text = """\
theorem mine: Var(X + Z) = Var(X) + Var(Z)
assume: independent(X, Z)
  = Var(X) + Var(Z)   by variance_of_sum_of_indep(Q := Z)
"""
    (verdict,) = _verdicts(text)
    assert not verdict.verified
    fb = verdict.steps[0].feedback
    assert fb is not None
    assert "Q is not a free name" in fb.error


def test_the_refusal_names_the_missing_assumption_in_the_users_variables() -> None:
    text = """\
theorem mine: Var(a*X + b*Z) = Var(a*X) + Var(b*Z)
  = Var(a*X) + Var(b*Z)   by variance_of_sum_of_indep
"""
    (verdict,) = _verdicts(text)
    fb = verdict.steps[0].feedback
    assert fb is not None
    assert "Independent(X*a, Z*b)" in fb.cause
    assert "assume: independent(X, Z)" in fb.cause
    assert "Independent(X, Y)" not in fb.cause  # not the theorem's own letters


def test_images_that_share_a_variable_are_said_to_be_dependent() -> None:
    text = """\
theorem mine: Var(a*X + b*X) = Var(a*X) + Var(b*X)
  = Var(a*X) + Var(b*X)   by variance_of_sum_of_indep(X := a*X, Y := b*X)
"""
    (verdict,) = _verdicts(text)
    fb = verdict.steps[0].feedback
    assert fb is not None
    assert "share X" in fb.cause


def test_an_instance_is_written_as_name_colon_equals_term() -> None:
    with pytest.raises(ProofFileError, match="NAME\\(X := TERM"):
        parse_document(
            "theorem t: Var(X + Z) = Var(X) + Var(Z)\n"
            "  = Var(X) + Var(Z)   by variance_of_sum_of_indep(Y = Z)\n",
            is_known_rule,
        )


def test_matching_is_modulo_the_order_of_a_sums_terms() -> None:
    found = matches(Var(X + Y), Var(X + Z), [X, Y])
    assert {(s[X], s[Y]) for s in found} == {(X, Z), (Z, X)}


def test_matching_gives_a_random_variable_only_a_random_term() -> None:
    a = sympy.Symbol("a", real=True)
    found = matches(Var(X + Y), Var(X + a), [X, Y])
    assert found == []


def test_a_theorems_instance_is_a_gap_of_one_step_and_the_checker_checks_the_rest() -> None:
    import copy

    from scaledattn.certificate import certificate, confirm
    from scaledattn.checker import check_certificate

    text = SCALING + "\ntheorem both: Var(c*Z) = c**2*Var(Z) + 0\nassume: c real\n"
    text += "  = c**2*Var(Z)   by var_scale\n  = c**2*Var(Z) + 0\n"
    verdicts = _verdicts(text)
    assert verdicts[1].verified
    result = verdicts[1].audit
    assert result is not None
    cert = certificate(result)
    assert cert["steps"][0]["rule"].startswith("instance:")  # the kernel checked it
    said = confirm(result)
    assert said.startswith("unread: both, step 1 (instance:"), said
    false = copy.deepcopy(cert)  # the step after the gap is still checked: a false one
    false["steps"][1]["claim"] = false["rhs"] = ["num", "1"]
    refusal = check_certificate(false).refusal
    assert refusal is not None
    assert not refusal.unread
    assert refusal.step == 2
