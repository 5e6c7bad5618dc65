"""Feedback that names the real mistake: one likely cause for each kind, in both doors."""

from __future__ import annotations

import pytest
import sympy

from scaledattn.claims.verify import verify
from scaledattn.errors import InvalidArgument
from scaledattn.prooffile.guide import checked_example
from scaledattn.prooffile.lessons import MISTAKES
from scaledattn.render.diagnose import simplest

#: Each kind of mistake, the lesson text that holds it, and the words of its cause.
KINDS = {
    "a sum where a product belongs": "sum_for_product",
    "a dropped cross term": "dropped_cross_term",
    "a doubled cross term": "doubled_cross_term",
    "a wrong count": "d_k_squared_cross_terms",
    "a variance not squared when scaling": "variance_not_squared",
    "a variance claimed negative": "negative_variance",
    "a default you forgot": "forgotten_default",
}


@pytest.mark.parametrize(("words", "name"), sorted(KINDS.items()))
def test_each_kind_of_mistake_gets_its_own_likely_cause(words: str, name: str) -> None:
    mistake = MISTAKES[name]
    checked = checked_example(name)
    (verdict,) = checked.verdicts
    step = verdict.steps[mistake.step - 1]
    assert step.status == "rejected"
    assert step.feedback is not None
    assert step.feedback.cause.startswith(words), step.feedback.cause


def test_the_kinds_are_told_apart_one_cause_per_mistake() -> None:
    causes = set()
    for name in KINDS.values():
        (verdict,) = checked_example(name).verdicts
        fb = verdict.steps[MISTAKES[name].step - 1].feedback
        assert fb is not None
        causes.add(fb.cause.split(":")[0])
    assert len(causes) == len(KINDS)


def test_a_sum_for_a_product_is_not_called_a_wrong_count() -> None:
    (verdict,) = checked_example("sum_for_product").verdicts
    fb = verdict.steps[0].feedback
    assert fb is not None
    assert "wrong count" not in fb.cause


def test_verify_remarks_on_a_negative_variance_and_a_sum_for_a_product() -> None:
    negative = verify("Var(q_i*k_i) = -7/9")
    assert any("claimed negative" in r for r in negative.remedies)
    summed = verify("Var(q_i*k_i) = Var(q_i) + Var(k_i)")
    assert any("a sum where a product belongs" in r for r in summed.remedies)


def test_a_difference_is_printed_in_its_simplest_form() -> None:
    d = sympy.Symbol("d_k", positive=True, integer=True)
    assert simplest(d * (d - 1) + d * (d + 1)) == 2 * d**2
    (verdict,) = checked_example("d_k_squared_cross_terms").verdicts
    fb = verdict.steps[2].feedback
    assert fb is not None
    assert fb.difference == "d_k"


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("Var(q·k/8) = 1 when d_k = 64", '--assume "d_k = 64"'),
        ("dividing by d_k gives variance 1", '"Var(dot(q, k)/d_k) = 1"'),
    ],
)
def test_english_like_input_gets_the_language_form_back(text: str, hint: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        verify(text)
    assert hint in str(caught.value)


def test_a_did_you_mean_never_drops_a_letter_of_the_claim() -> None:
    with pytest.raises(InvalidArgument) as caught:
        verify("E[XY] = E[X]E[Y]")
    message = str(caught.value)
    assert 'did you mean "E[X*Y] = E[X]E[Y]"' in message
    assert "E[Y] = E[X]E[Y]" not in message
