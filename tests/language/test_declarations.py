"""Declarations a learner expects: laws, a correlation, the dimension's other names, norms."""

from __future__ import annotations

import pytest
import sympy

from scaledattn.claims.verify import verify
from scaledattn.errors import InvalidArgument, ProofFileError
from scaledattn.language.laws import law_moments, split_law
from scaledattn.prooffile.check import check_document, is_known_rule
from scaledattn.prooffile.parse import parse_document

SIGMA = sympy.Symbol("sigma", positive=True)


def _verdict(claim: str, *assume: str) -> str:
    return verify(claim, list(assume)).verdict.name


def test_a_gaussian_law_declares_its_fourth_moment_by_isserlis_stated_in_the_output() -> None:
    result = verify("E(q_i**4) = 3*sigma**4", ["q_i ~ N(0, sigma^2)"])
    assert result.verdict.name == "VERIFIED"
    assert any("E[qᵢ⁴] = 3·σ⁴" in a and "Isserlis" in a for a in result.assumptions)


def test_a_gaussian_law_gives_the_variance_of_a_square_and_of_the_dot_product() -> None:
    assert _verdict("Var(q_i**2) = 2*sigma**4", "q_i ~ N(0, sigma^2)") == "VERIFIED"
    assert _verdict("Var(q·k) = d_k*sigma**2", "q_i ~ N(0, sigma^2)") == "VERIFIED"
    assert _verdict("Var(X**2) = 2", "X ~ N(0, 1)") == "VERIFIED"


def test_a_wrong_fourth_moment_under_a_law_is_not_verified() -> None:
    # REFUTED would need a model meeting E[q_i⁴] = 3σ⁴ (the gate's, issue 30): not here
    assert _verdict("E(q_i**4) = sigma**4", "q_i ~ N(0, sigma^2)") != "VERIFIED"


def test_the_catalogue_laws_have_their_moments() -> None:
    assert law_moments("coin", []).fourth == 1
    assert law_moments("N", [sympy.S(1), SIGMA**2]).fourth == 1 + 6 * SIGMA**2 + 3 * SIGMA**4
    uniform = law_moments("uniform", [sympy.S(-1), sympy.S(1)])
    assert (uniform.mean, uniform.variance, uniform.fourth) == (
        0,
        sympy.Rational(1, 3),
        sympy.Rational(1, 5),
    )


def test_an_unknown_law_or_a_bad_parameter_is_refused_in_one_line() -> None:
    with pytest.raises(InvalidArgument, match="unknown law 'foo'"):
        split_law("X ~ foo(1)")
    with pytest.raises(InvalidArgument, match="variance is positive"):
        law_moments("N", [sympy.S(0), sympy.S(-1)])


def test_a_proof_file_declares_a_law_and_uses_its_fourth_moment() -> None:
    text = """\
theorem fourth: Var(q_i**2) = 2*sigma**4
assume: q_i ~ N(0, sigma^2)
  = E(q_i**4) - E(q_i**2)**2
  = 3*sigma**4 - E(q_i**2)**2
  = 2*sigma**4
"""
    (verdict,) = check_document(parse_document(text, is_known_rule), seconds=1.0)
    assert verdict.verified
    assert "E[qᵢ⁴] = 3·σ⁴ for every i" in verdict.described


def test_a_malformed_law_in_a_proof_file_is_a_one_line_error_at_its_line() -> None:
    with pytest.raises(ProofFileError, match="unknown law"):
        parse_document("theorem t: E(X) = 0\nassume: X ~ cauchy\n  = 0\n", is_known_rule)


def test_a_covariance_of_q_and_k_correlates_them_in_verify() -> None:
    assert _verdict("Var(q·k) = d_k*(1 + rho**2)", "Cov(q_i, k_i) = rho") == "VERIFIED"
    assert _verdict("E(q·k) = d_k*rho", "Cov(q_i, k_i) = rho") == "VERIFIED"
    assert _verdict("Var(q_i*k_i) = 1 + rho**2", "Cov(q_i, k_i) = rho") == "VERIFIED"
    result = verify("Var(q·k) = d_k", ["Cov(q_i, k_i) = rho"])
    assert result.verdict.name == "REFUTED"
    assert any("jointly Gaussian" in a for a in result.assumptions)


def test_a_covariance_of_q_and_k_is_an_assumption_of_a_proof_file() -> None:
    text = """\
theorem cov: E(q_i*k_i) = rho
assume: independent_pairs(q, k)
assume: Cov(q_i, k_i) = rho
  = Cov(q_i, k_i) + E(q_i)*E(k_i)
  = rho
"""
    (verdict,) = check_document(parse_document(text, is_known_rule), seconds=1.0)
    assert verdict.verified


@pytest.mark.parametrize("name", ["d", "n"])
def test_d_and_n_are_read_as_the_dimension_with_the_meaning_stated(name: str) -> None:
    result = verify(f"Var(q·k) = {name}")
    assert result.verdict.name == "VERIFIED"
    assert f"{name} is read as d_k, the dimension of q and k" in result.assumptions


def test_n_stays_the_number_of_scores_in_a_claim_about_softmax() -> None:
    result = verify("sum(p_i, i, 1, n) = 1")
    assert not any("n is read as d_k" in a for a in result.assumptions)


def test_an_identity_of_norms_is_proved_in_a_proof_file_and_verify_points_there() -> None:
    text = """\
theorem norms: -norm(q - k)**2/2 = dot(q, k) - norm(k)**2/2 - norm(q)**2/2
  = -‖q − k‖²/2
  = qᵀk - ‖k‖²/2 - ‖q‖²/2
"""
    (verdict,) = check_document(parse_document(text, is_known_rule), seconds=1.0)
    assert verdict.verified
    with pytest.raises(InvalidArgument, match="check-proof"):
        verify("-norm(q - k)**2/2 = dot(q, k) - norm(k)**2/2 - norm(q)**2/2")


def test_abs_is_in_the_language() -> None:
    assert _verdict("abs(-3) = 3") == "VERIFIED"
