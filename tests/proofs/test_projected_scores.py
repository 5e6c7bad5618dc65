"""The projected-score theorems: verified, and wrong variants rejected by the kernel."""

from __future__ import annotations

import pytest
from scaledattn.proofs import projected_scores as ps

from scaledattn.derive import audit_of

ALL = ps.derivations


@pytest.mark.parametrize("derivation", ALL, ids=[d.name for d in ALL])
def test_each_projected_score_theorem_is_verified(derivation: object) -> None:
    result = audit_of(derivation)  # type: ignore[arg-type]
    assert result.verified, [str(e) for e in result.errors]


def _restated(derivation: object, rhs: object) -> object:
    """The same chain with another statement (its last step still claims the true value)."""
    from scaledattn.kernel import Derivation, Equation

    d: Derivation = derivation  # type: ignore[assignment]
    assert isinstance(d.statement, Equation)
    return Derivation(d.name, Equation(d.statement.lhs, rhs), d.steps, d.assumptions)


WRONG = {
    "no d_k": ps.sigma_q**2 * ps.sigma_k**2 * ps.norm_sq(ps.x) * ps.norm_sq(ps.y),
    "one norm only": ps.d * ps.sigma_q**2 * ps.sigma_k**2 * ps.norm_sq(ps.x),
    "d_model instead of the norms": ps.d * ps.sigma_q**2 * ps.sigma_k**2 * ps.m**2,
}


@pytest.mark.parametrize("rhs", WRONG.values(), ids=list(WRONG))
def test_a_wrong_statement_is_rejected(rhs: object) -> None:
    assert not audit_of(_restated(ps.projected_score_variance, rhs)).verified  # type: ignore[arg-type]


def test_the_same_token_needs_the_fourth_power_of_the_norm() -> None:
    squared = ps.d * ps.sigma_q**2 * ps.sigma_k**2 * ps.norm_sq(ps.x)
    wrong = _restated(ps.projected_score_variance_same_token, squared)
    assert not audit_of(wrong).verified  # type: ignore[arg-type]


def test_the_bias_case_without_its_bias_terms_is_rejected() -> None:
    plain = ps.d * ps.sigma_q**2 * ps.sigma_k**2 * ps.norm_sq(ps.x) * ps.norm_sq(ps.y)
    wrong = _restated(ps.projected_score_variance_with_bias, plain)
    assert not audit_of(wrong).verified  # type: ignore[arg-type]


def test_without_the_row_variance_the_lemma_does_not_apply() -> None:
    chain = ps.projected_score_variance
    assumptions = tuple(a for a in chain.assumptions if "Var(w_i)" not in str(a))
    assert len(assumptions) == len(chain.assumptions) - 1
    from scaledattn.kernel import Derivation

    weaker = Derivation(chain.name, chain.statement, chain.steps, assumptions)
    assert not audit_of(weaker).verified
