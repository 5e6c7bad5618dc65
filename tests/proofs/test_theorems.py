"""Every theorem verifies; any single wrong claim is rejected at its own step."""

from __future__ import annotations

import json
from typing import Any

import pytest
import sympy
from sympy import Eq, Or
from sympy.core.parameters import evaluate

from scaledattn.derive import audit_of
from scaledattn.kernel import Derivation, Equivalence, Step, audit
from scaledattn.kernel.theorem import check_step
from scaledattn.registry import all_derivations, find_derivation, theorem_modules
from scaledattn.render import render

DERIVATIONS = all_derivations()
NAMES = [d.name for d in DERIVATIONS]


@pytest.mark.parametrize("derivation", DERIVATIONS, ids=NAMES)
def test_every_theorem_is_verified_by_the_kernel(derivation: Derivation) -> None:
    result = audit_of(derivation)
    assert result.verified, [str(e) for e in result.errors]


def test_the_three_core_theorems_are_registered() -> None:
    assert {m.name for m in theorem_modules()} >= {
        "variance_of_sum",
        "dot_product_variance",
        "unique_scale",
    }


def _spoil(claim: Any) -> Any:
    """A claim that is certainly false where the original is true."""
    if isinstance(claim, sympy.Equality):
        return Eq(claim.lhs + 1, claim.rhs, evaluate=False)
    if isinstance(claim, Or):
        first, *rest = claim.args
        return Or(_spoil(first), *rest, evaluate=False)
    return claim + 1


CASES = [(d, n) for d in DERIVATIONS for n in range(len(d.steps))]


@pytest.mark.parametrize("case", CASES, ids=[f"{d.name}-step{n + 1}" for d, n in CASES])
def test_changing_one_claim_makes_the_kernel_reject_that_step(case: tuple[Derivation, int]) -> None:
    """The audit of the chain with claim n spoiled rejects step n first.

    The chain before step n is the derivation's own, which the kernel accepts step by
    step (``proven``, asserted here, with the same cited theorems), so the audit's first
    rejection is at n exactly when ``check_step`` (what ``audit`` runs for each step)
    rejects the spoiled step against the claim before it: that one step is checked
    rather than the whole chain again (issue 13: the whole chain for every n checked
    each earlier step again, 20 s of CPU). That ``audit`` reports the first rejection
    of a whole chain is tests/kernel/test_corpus.py's test.
    """
    derivation, n = case
    proven = audit_of(derivation)
    steps = list(derivation.steps)
    steps[n] = Step(steps[n].rule, _spoil(steps[n].claim), steps[n].note)
    resolved = [
        Step(
            r.step.rule if not isinstance(r.step.rule, Derivation) else proven_rule(r),
            s.claim,
            s.note,
        )
        for r, s in zip(proven.steps, steps, strict=True)
    ]
    spoiled = Derivation(
        derivation.name, derivation.statement, tuple(resolved), derivation.assumptions
    )
    assert all(r.ok for r in proven.steps[:n]), [str(e) for e in proven.errors]
    before = spoiled.start if n == 0 else resolved[n - 1].claim
    with evaluate(True):  # as audit checks each step
        one = check_step(before, resolved[n], n + 1, spoiled, theorems={})
    assert one.error is not None
    first = one.error
    assert first.step == n + 1, str(first)
    assert derivation.name in str(first)


def proven_rule(result: Any) -> Any:
    """The theorem a cited derivation proved (so the spoiled chain can cite it)."""
    return audit_of(result.step.rule).theorem


def test_dot_product_variance_is_proved_for_a_symbolic_dimension() -> None:
    d = find_derivation("dot_product_variance")
    (symbol,) = d.statement.rhs.free_symbols
    assert symbol.name == "d_k"
    assert symbol.is_integer
    assert symbol.is_positive


def test_the_d3_listing_shows_nine_terms_three_diagonal_and_six_cross() -> None:
    d = find_derivation("dot_product_second_moment_d3")
    notes = " ".join(s.note for s in d.steps)
    assert "9 products" in notes
    assert "3 diagonal terms" in notes
    assert "6 cross terms" in notes
    listing = render(audit_of(d), "text")
    for a in (1, 2, 3):
        for b in (1, 2, 3):
            assert (
                f"q{chr(0x2080 + a)}⋅k{chr(0x2080 + a)}⋅q{chr(0x2080 + b)}⋅k{chr(0x2080 + b)}"
                in listing
            )


def test_unique_scale_is_an_equivalence_that_excludes_the_negative_root() -> None:
    d = find_derivation("unique_scale")
    assert isinstance(d.statement, Equivalence)
    rules = [getattr(s.rule, "name", s.rule) for s in d.steps]
    assert rules[-1] == "exclude_by_sign"
    assert "−√d_k" in d.steps[-1].note


@pytest.mark.parametrize("derivation", DERIVATIONS, ids=NAMES)
def test_json_rendering_follows_the_contract(derivation: Derivation) -> None:
    data = json.loads(render(audit_of(derivation), "json"))
    assert data["theorem"] == derivation.name
    assert data["verified"] is True
    assert isinstance(data["statement"], str)
    assert len(data["steps"]) == len(derivation.steps)
    for step in data["steps"]:
        assert set(step) >= {"rule", "expr", "latex", "verified", "note"}
        assert step["verified"] is True
        assert step["rule"]


def test_latex_of_unique_scale_contains_the_square_root_of_d_k() -> None:
    assert r"\sqrt{d_{k}}" in render(audit_of(find_derivation("unique_scale")), "latex")


def test_markdown_rendering_has_display_math_and_the_verdict() -> None:
    text = render(audit_of(find_derivation("variance_of_sum")), "markdown")
    assert text.count("$$") >= 4
    assert "VERIFIED variance_of_sum" in text


def test_a_rejected_derivation_renders_with_the_failing_step_marked() -> None:
    d = find_derivation("variance_of_sum")
    steps = list(d.steps)
    steps[2] = Step(steps[2].rule, _spoil(steps[2].claim))
    bad = Derivation(d.name, d.statement, tuple(steps), d.assumptions)
    result = audit(bad)
    text = render(result, "text")
    assert "✗ expectation_linear" in text
    assert "REJECTED variance_of_sum: step 3" in text
    data = json.loads(render(result, "json"))
    assert data["verified"] is False
    assert [s["verified"] for s in data["steps"]][:3] == [True, True, False]
