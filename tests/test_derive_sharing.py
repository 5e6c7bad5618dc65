"""Audits shared between equal derivations (``derive.audit_of``) never cross a difference
the kernel sees: Python's ``1 == 1.0 == True`` must not let an ill-formed claim take the
audit of a well-formed one."""

from __future__ import annotations

import pytest
from sympy import Integer

from scaledattn import derive
from scaledattn.derive import audit_of
from scaledattn.kernel import Derivation, Equation, Step


def _one_by_ring(claim: object) -> Derivation:
    return Derivation("one", Equation(Integer(1), Integer(1)), (Step("ring", claim),))


@pytest.mark.parametrize("python_value", [True, 1])
def test_a_claim_that_is_a_python_value_never_shares_an_audit(
    python_value: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(derive, "_BY_CONTENT", {})
    well_formed = _one_by_ring(Integer(1))
    assert audit_of(well_formed).verified
    other = _one_by_ring(python_value)
    assert other == well_formed  # equal to Python, so only the guard keeps them apart
    assert audit_of(other).verified is (type(python_value) is int)
    assert not derive._by_content(other)


def test_a_float_claim_is_refused_even_after_its_integer_twin_was_audited() -> None:
    assert audit_of(_one_by_ring(Integer(1))).verified
    assert not audit_of(_one_by_ring(1.0)).verified


def test_equal_derivations_of_terms_share_one_audit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(derive, "_BY_CONTENT", {})
    first, second = _one_by_ring(Integer(1)), _one_by_ring(Integer(1))
    assert first is not second
    assert audit_of(first) is audit_of(second)
