"""The tool reads back what it writes: every printed statement parses to the same term."""

from __future__ import annotations

from typing import Any

import pytest
import sympy

from scaledattn.automation.rewrite import key
from scaledattn.claims.syntax import parse_claim
from scaledattn.claims.terms import ClaimScope
from scaledattn.cli.theorems import _statement
from scaledattn.kernel import Derivation, Equivalence
from scaledattn.language.surface import normalise
from scaledattn.prooffile.check import builtin_derivations
from scaledattn.prooffile.parse import parse_document
from scaledattn.render.latex import statement_tex
from scaledattn.render.proof import declarations, proof_term

#: Statements that name what only a declaration says, and the declaration. ``verify`` knows
#: no random vector but q and k (and k', …), and takes ``c > 0`` as an assumption about a
#: real c, where the theorem's c is positive by its kind: a claim reads these statements as
#: other terms, a proof file with the theorem's ``assume:`` declarations (as ``derive
#: --format proof`` prints them) as the same ones.
DECLARED: dict[str, str] = {
    "projected_component_variance_q": "w random vector",
    "projected_component_variance_k": "v random vector",
    "projected_component_variance_same_token": "v random vector",
    "softmax_of_scaled_differences": "c positive",
}


def _sides(statement: Any) -> list[Any]:
    if isinstance(statement, Equivalence):
        return [statement.lhs.lhs, statement.lhs.rhs, statement.rhs.lhs, statement.rhs.rhs]
    return [statement.lhs, statement.rhs]


def _proof_text(d: Derivation) -> str:
    s = d.statement
    if isinstance(s, Equivalence):
        return (
            f"{proof_term(s.lhs.lhs)} = {proof_term(s.lhs.rhs)} <=>"
            f" {proof_term(s.rhs.lhs)} = {proof_term(s.rhs.rhs)}"
        )
    return f"{proof_term(s.lhs)} = {proof_term(s.rhs)}"


RENDERINGS = {
    "list (Unicode)": _statement,
    "derive --format latex/markdown": statement_tex,
    "derive --format proof": _proof_text,
}


def _same(read: list[Any], d: Derivation) -> bool:
    want = _sides(d.statement)
    return len(read) == len(want) and all(key(a) == key(b) for a, b in zip(read, want, strict=True))


def _reads_back_as_a_claim(text: str, d: Derivation) -> bool:
    """``verify`` (and ``--assume``) read ``text`` as the statement of ``d``."""
    claim = parse_claim(text)
    scope = ClaimScope(text=text)
    return _same([scope.build(side) for side in claim.sides], d)


def _reads_back_in_a_proof_file(text: str, d: Derivation) -> bool:
    """A proof file with ``text`` as a theorem's statement, under ``d``'s declarations, reads it."""
    start = "0 = 0" if isinstance(d.statement, Equivalence) else "0"
    assumed = "".join(f"assume: {line}\n" for line in declarations(d))
    block = parse_document(f"theorem t: {text}\n{assumed}  {start}\n").theorems[0]
    return _same(_sides(block.statement), d)


def _cases() -> list[Any]:
    return [
        pytest.param(d, render, id=f"{name}-{rendering}")
        for name, d in builtin_derivations().items()
        for rendering, render in RENDERINGS.items()
    ]


@pytest.mark.parametrize(("derivation", "render"), _cases())
def test_every_printed_statement_of_every_theorem_reads_back_as_the_same_term(
    derivation: Derivation, render: Any
) -> None:
    text = render(derivation)
    assert _reads_back_in_a_proof_file(text, derivation), text
    if derivation.name in DECLARED:
        assert not _reads_back_as_a_claim(text, derivation), text
        assert DECLARED[derivation.name] in declarations(derivation)
    else:
        assert _reads_back_as_a_claim(text, derivation), text


def test_a_claim_reads_back_every_theorem_but_those_that_need_a_declaration() -> None:
    assert set(DECLARED) <= set(builtin_derivations())
    assert len(builtin_derivations()) - len(DECLARED) >= 36


@pytest.mark.parametrize(
    ("printed", "canonical"),
    [
        ("Σ_{i=1..n} pᵢ² - 2·pₜ", "sum( p_i**2, i, 1, n) - 2*p_t"),
        ("Σ_{i=1..n} (pᵢ - yᵢ)²", "sum( (p_i - y_i)**2, i, 1, n)"),
        (r"\sum_{j=1}^{n} e^{s_{j}} + 1", "sum( exp(s_j) , j, 1, n)+ 1"),
        (r"\sum_{a=1}^{d_{model}} x_{a}^{2}", "sum( x_a^(2), a, 1, d_model)"),
        ("δᵢₘ + δ_tw", "delta(i, m) + delta(t, w)"),
        (r"\delta_{i m}", "delta(i, m)"),
        (r"d_{k} \left(a + b\right)", "d_k *(a + b)"),
    ],
)
def test_the_printed_forms_of_sums_deltas_and_products_normalise_to_the_language(
    printed: str, canonical: str
) -> None:
    assert normalise(printed)[0] == canonical


def test_an_equivalence_printed_with_brackets_reads_as_an_equivalence() -> None:
    claim = parse_claim("(Var((q·k)/c) = 1) ⇔ (c = √dₖ)")
    assert claim.kind == "equivalence"


def test_a_dot_product_of_a_written_dimension_is_printed_with_it() -> None:
    d = builtin_derivations()["exercise1_variance"]
    assert _statement(d) == "Var(dot(q, k, 2)) = 2"
    assert r"\operatorname{dot}" in statement_tex(d)
    assert sympy.Symbol("d_k") not in parse_claim(_statement(d)).sides[0].children


def test_a_pasted_theorem_refuted_under_the_defaults_is_told_the_assumptions_that_make_it() -> None:
    from scaledattn.claims.verify import verify

    result = verify("Var(q·k) = σ_q²·σₖ²·dₖ")
    assert result.remedies
    way = result.remedies[0]
    assert "dot_product_variance_general" in way
    assert '--assume "Var(q_i) = sigma_q**2" --assume "Var(k_i) = sigma_k**2"' in way
    lines = ["Var(q_i) = sigma_q**2", "Var(k_i) = sigma_k**2"]
    assert verify("Var(q·k) = σ_q²·σₖ²·dₖ", lines).verdict.name == "VERIFIED"


def test_the_score_difference_list_prints_reads_back_and_is_verified_under_the_defaults() -> None:
    from scaledattn.claims.verify import verify

    d = builtin_derivations()["score_difference_variance"]
    result = verify(_statement(d))
    assert result.verdict.name == "VERIFIED"
    assert any("k'" in line and "(as k)" in line for line in result.assumptions)


def test_a_name_subscripted_by_a_sums_index_is_an_entry_of_a_vector_of_its_dimension() -> None:
    from scaledattn.kernel import Entry, IndexSum
    from scaledattn.language.terms import build_term

    a = sympy.Symbol("a", integer=True, positive=True)
    i = sympy.Symbol("i", integer=True, positive=True)
    d_model, d_k = (sympy.Symbol(n, integer=True, positive=True) for n in ("d_model", "d_k"))
    assert build_term("Σ_{a=1..d_model} xₐ²") == IndexSum(Entry("x", a, d_model) ** 2, a, d_model)
    assert build_term("sum(b_q_i, i, 1, d_k)") == IndexSum(Entry("b_q", i, d_k), i, d_k)
    assert build_term("sum(y_i, i, 1, d_k)") == IndexSum(Entry("y", i, d_k), i, d_k)
    assert build_term("x_a") == sympy.Symbol("x_a", real=True)  # no sum: a constant


def test_a_softmax_of_other_scores_is_printed_with_them_and_reads_back() -> None:
    d = builtin_derivations()["shift_invariance"]
    assert _statement(d) == "softmax(r, i, n, p') = pᵢ"
    assert statement_tex(d).startswith(r"\mathrm{softmax}(r, i, n, p')")
    assert (
        _statement(builtin_derivations()["saturation_limits"]) == "lim_{λ→∞} softmax(r, i) = δ_iw"
    )


@pytest.mark.parametrize(
    ("written", "message"),
    [
        ("∂pᵢ = 1", "a derivative is written ∂pᵢ/∂sₘ"),
        ("∂/∂sₘ = 1", "a derivative is written ∂pᵢ/∂sₘ"),
        ("lim_{λ} pᵢ = 1", "a limit is written lim_{λ→∞} BODY"),
        (r"\lim_{\lambda \to \infty} p_{i} = 1", "followed by its parenthesised body"),
    ],
)
def test_a_malformed_derivative_or_limit_is_refused_in_one_line(written: str, message: str) -> None:
    from scaledattn.errors import InvalidArgument

    with pytest.raises(InvalidArgument) as caught:
        parse_claim(written)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    "claim", ["∂pᵢ/∂sₘ = pᵢ·δᵢₘ - pᵢ·pₘ", "sum(p_i, i, 1, n) = 1", "deriv(s_i, s_i) = 1"]
)
def test_a_true_statement_of_softmax_weights_or_derivatives_is_never_refuted_by_its_form(
    claim: str,
) -> None:
    from scaledattn.claims.verify import verify

    result = verify(claim)
    assert result.verdict.name == "UNDECIDED", result.verdict
    assert "check-proof" in result.reason
    assert "theorem(NAME)" in result.reason
