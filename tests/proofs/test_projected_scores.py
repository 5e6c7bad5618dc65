"""The projected-score theorems: verified, and wrong variants rejected by the kernel."""

from __future__ import annotations

import pytest

from scaledattn.derive import audit_of
from scaledattn.proofs import projected_scores as ps

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


# ------------------------------------------------------------------ numeric witnesses

GOOD = {"w": "coin", "x": [1, 2, -1], "d_model": 3, "sigma_q": 1}


def test_the_component_lemma_is_measured_exactly_on_a_listed_token() -> None:
    from scaledattn.numeric.evidence import derivation_evidence

    w = derivation_evidence(ps.projected_component_variance_q, [GOOD])
    (setting,) = w.settings
    assert w.agrees
    assert setting.measurement is not None
    assert setting.measurement.method == "exact"
    assert setting.measurement.measured == 6  # ‖(1, 2, −1)‖² = 6


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"x": [1, 2]}, "x has dimension 3, the setting lists 2 entries"),
        ({"x": "coin"}, "the setting gives no entries for x"),
        ({"x": [1, "nan", 2]}, "not a number"),
    ],
)
def test_a_bad_token_in_a_setting_is_refused(change: dict[str, object], message: str) -> None:
    from scaledattn.numeric.evidence import derivation_evidence

    w = derivation_evidence(ps.projected_component_variance_q, [{**GOOD, **change}])
    (setting,) = w.settings
    assert not w.agrees
    assert setting.error is not None
    assert message in setting.error


def test_a_law_of_q_without_the_declared_variance_is_refused() -> None:
    from scaledattn.numeric.evidence import derivation_evidence

    setting = {
        "q": "coin",
        "k": "coin",
        "w": "coin",
        "v": "coin",
        "x": [1, 1],
        "y": [1, 0],
        "d_k": 3,
        "d_model": 2,
        "sigma_q": 1,
        "sigma_k": 1,
    }  # Var(q_i) = 1, not ‖x‖² = 2
    w = derivation_evidence(ps.projected_score_variance, [setting])
    assert not w.agrees
