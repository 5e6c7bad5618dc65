"""Issue 18: the claim language reads what the tool writes and what a learner types.

Every phrasing quoted in the issue is either understood (it gets a verdict) or
refused with a suggestion that, pasted back, is understood.
"""

from __future__ import annotations

import re

import pytest

from scaledattn.claims import Verdict, verify
from scaledattn.claims.syntax import parse_claim, reading, unparse
from scaledattn.errors import InvalidArgument
from scaledattn.language.parse import parse_expression

V, R = Verdict.VERIFIED, Verdict.REFUTED


@pytest.mark.parametrize(
    ("typed", "canonical", "verdict"),
    [
        # the phrasings
        ("Var(q·k) = d_k", "Var(dot(q, k)) = d_k", V),
        ("Var(q·k) = dₖ", "Var(dot(q, k)) = d_k", V),
        ("E[dot(q, k)] = 0", "E(dot(q, k)) = 0", V),
        (r"\mathrm{Var}(q\cdot k) = d_k", "Var(dot(q, k)) = d_k", V),
        ("var(dot(q, k)) = d_k", "Var(dot(q, k)) = d_k", V),
        ("2Cov(X, Y) = Cov(X, Y) + Cov(Y, X)", "2 * Cov(X, Y) = Cov(X, Y) + Cov(Y, X)", V),
        ("Var(4*dot(q, k)) = 16 d_k", "Var(4 * dot(q, k)) = 16 * d_k", V),
        # what the tool prints, pasted back
        ("Var(q⋅k) = dₖ", "Var(dot(q, k)) = d_k", V),
        ("E[q₁⋅k₁] = 0", "E(q_1 * k_1) = 0", V),
        ("Var(qᵢ) = 1", "Var(q_i) = 1", V),
        ("σ² = sigma^2", "sigma**2 = sigma**2", V),
        # more of a learner's spellings
        ("Var(qᵀk) = d_k", "Var(dot(q, k)) = d_k", V),
        ("Var(q^T k) = d_k", "Var(dot(q, k)) = d_k", V),
        (r"\operatorname{Var}\left(\frac{q \cdot k}{\sqrt{d_k}}\right) = 1", None, V),
        (r"$\mathbb{E}[q \cdot k] = 0$", "E(dot(q, k)) = 0", V),
        ("cov(X, X) = var(X)", "Cov(X, X) = Var(X)", V),
        ("std(q·k) = √dₖ", "std(dot(q, k)) = sqrt(d_k)", V),
        ("Var(2X) = 2Var(X)", "Var(2 * X) = 2 * Var(X)", R),
        ("Var(X^2) = Var(X**2)", None, V),
        ("d_{k} = d_k", None, V),
        ("E[q_1 k_1] = 0", "E(q_1 * k_1) = 0", V),
        ("c Var(X) = Var(X) c", "c * Var(X) = Var(X) * c", V),
    ],
)
def test_each_phrasing_is_read_into_the_canonical_claim(
    typed: str, canonical: str | None, verdict: Verdict
) -> None:
    if canonical is not None:
        assert reading(typed) == canonical
        claim = parse_claim(typed)
        assert " = ".join(unparse(s) for s in claim.sides) == canonical
    assert verify(typed).verdict is verdict


def _suggestions(message: str) -> list[str]:
    return re.findall(r'did you mean "([^"]+)"', message) + re.findall(r'or "([^"]+)"\?', message)


@pytest.mark.parametrize(
    "typed",
    [
        "Var(q) = 1",
        "variance(X) = 1",
        "Var(dk*X) = dk**2*Var(X)",
        "mean(X) = 0",
        "Var(X) = Sigma**2",
        "expectation(dot(q, k)) = 0",
        "Covariance(X, Y) = 0",
        "Var(dot(q, k)/2d_k) = 1",
    ],
)
def test_a_refusal_names_the_closest_form_and_it_works_when_pasted_back(typed: str) -> None:
    with pytest.raises(InvalidArgument) as err:
        verify(typed)
    message = str(err.value)
    assert "\n" not in message
    found = _suggestions(message)
    assert found, message
    for suggestion in found:
        verify(suggestion)  # understood: a verdict, not a refusal


def test_an_assumption_reads_the_same_spellings() -> None:
    result = verify("Var(q·k) = 16 dₖ", assume=["var(qᵢ) = 4", "Var(k_i) = 2^2"])
    assert result.verdict is V


@pytest.mark.parametrize(
    ("typed", "fragment"),
    [
        (r"x \neq 1", "there is no ≠"),
        (r"\sqrt[3]{x} = 1", "only square roots"),
        (r"\frac{1} = 1", r"\frac takes a braced argument"),
        ("2^3x = 8", "is ambiguous"),
    ],
)
def test_what_stays_outside_the_grammar_is_refused_in_one_line(typed: str, fragment: str) -> None:
    with pytest.raises(InvalidArgument) as err:
        verify(typed)
    assert fragment in str(err.value)
    assert "\n" not in str(err.value)


def test_the_calculator_reads_powers_both_ways_and_the_same_characters() -> None:
    assert parse_expression("sigma^2") == parse_expression("sigma**2") == parse_expression("σ²")
    assert parse_expression("2 sigma^2") == 2 * parse_expression("sigma**2")


@pytest.mark.parametrize(
    ("typed", "assume"),
    [
        ("var(dot(q, k))", []),
        ("E[q·k/√dₖ]", []),
        ("std(dot(q, k))", ["Var(q_i) = 4"]),
        ("Var(2*X)", []),
    ],
)
def test_a_bare_term_is_refused_with_its_value_which_verifies_when_pasted_back(
    typed: str, assume: list[str]
) -> None:
    with pytest.raises(InvalidArgument, match="a claim needs a relation") as err:
        verify(typed, assume)
    (suggestion,) = _suggestions(str(err.value))
    assert suggestion.startswith(typed)
    assert verify(suggestion, assume).verdict is V
