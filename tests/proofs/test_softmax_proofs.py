"""The softmax theorems verify, render, and their wrong variants are rejected.

Wrong variants are the claims the source texts or a careless reader might make:
∂L/∂s = y − p, a Jacobian diag(p) + ppᵀ, a derivative that drops δᵢₘ, "‖p − y‖ → 0".
Each must be rejected at the step that is wrong, naming that step's rule.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from sympy import KroneckerDelta, S, sqrt
from sympy.core.parameters import evaluate

from scaledattn.derive import audit_of
from scaledattn.errors import ProofError, StatementMismatch
from scaledattn.kernel import Derivation, Equation, Lim, Step, as_written
from scaledattn.kernel.theorem import check_step
from scaledattn.proofs import saturation_limits as sat
from scaledattn.proofs import shift_invariance as shift
from scaledattn.proofs import softmax_gradient as grad
from scaledattn.render import FORMATS, render

ALL = (*grad.derivations, *sat.derivations, *shift.derivations)
delta = KroneckerDelta


@pytest.mark.parametrize("derivation", ALL, ids=lambda d: d.name)
def test_every_softmax_derivation_is_verified_by_the_kernel(derivation: Derivation) -> None:
    result = audit_of(derivation)
    assert result.verified, [str(e) for e in result.errors]


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_softmax_derivations_render_in_every_format(fmt: str) -> None:
    for derivation in (grad.softmax_gradient, sat.backward_vanishes, sat.p_minus_y_limit):
        text = render(audit_of(derivation), fmt)
        assert (r"\begin{aligned}" if fmt == "latex" else derivation.name) in text


def test_the_text_and_markdown_renderings_define_each_abbreviation_once() -> None:
    text = render(audit_of(sat.backward_vanishes), "text")
    assert text.count("D₁ =") == 1
    assert "Where:" in text
    markdown = render(audit_of(sat.backward_vanishes), "markdown")
    assert markdown.count("D_{1} =") == 1


def test_the_json_rendering_spells_out_every_abbreviation() -> None:
    text = render(audit_of(sat.backward_vanishes), "json")
    assert "D_1" not in text
    assert "exp(lambda)" in text


def with_claim(d: Derivation, number: int, claim: Any, rhs: Any = None) -> Derivation:
    """``d`` with step ``number``'s claim (and from then on the statement) replaced."""
    steps = list(d.steps)
    steps[number - 1] = replace(steps[number - 1], claim=claim)
    statement = d.statement if rhs is None else Equation(d.statement.lhs, rhs)
    return replace(d, steps=tuple(steps), statement=statement, name=d.name + "_wrong")


def first_error(d: Derivation) -> ProofError:
    result = audit_of(d)
    assert not result.verified
    return result.errors[0]


def first_error_with_claim(d: Derivation, number: int, claim: Any, rhs: Any = None) -> ProofError:
    """The first error of the audit of ``with_claim(d, number, claim, rhs)``.

    The steps before ``number`` are ``d``'s own, which the kernel accepts (``proven``,
    asserted here, with the same cited theorems), so the audit's first error is step
    ``number``'s exactly when ``check_step`` (what ``audit`` runs for each step) rejects
    that step against the claim before it: that one step is checked rather than the
    whole chain again, as in tests/proofs/test_theorems.py (issue 13: the whole chain of
    jacobian_vanishes is a second of CPU).
    """
    wrong = with_claim(d, number, claim, rhs)
    proven = audit_of(d)
    assert all(r.ok for r in proven.steps[: number - 1]), [str(e) for e in proven.errors]
    step = replace(proven.steps[number - 1].step, claim=claim)
    before = wrong.start if number == 1 else wrong.steps[number - 2].claim
    with evaluate(True):  # as audit checks each step
        result = check_step(before, step, number, wrong, theorems={})
    assert result.error is not None, f"step {number} accepted"
    return result.error


def test_the_gradient_y_minus_p_is_rejected() -> None:
    p, y, m = grad.p, grad.y, grad.m
    with as_written():
        claim = y[m] - p[m]
    error = first_error_with_claim(grad.cross_entropy_gradient, 9, claim, rhs=claim)
    assert (error.step, error.rule) == (9, "entries_def")


def test_a_statement_of_y_minus_p_with_the_right_chain_is_rejected() -> None:
    p, y, m = grad.p, grad.y, grad.m
    wrong = replace(
        grad.cross_entropy_gradient,
        statement=Equation(grad.cross_entropy_gradient.statement.lhs, y[m] - p[m]),
    )
    assert isinstance(first_error(wrong), StatementMismatch)


def test_a_jacobian_diag_p_plus_p_p_transpose_is_rejected() -> None:
    p, i, m = grad.p, grad.i, grad.m
    plus = p[i] * delta(i, m) + p[i] * p[m]
    error = first_error_with_claim(grad.softmax_gradient, 9, plus, rhs=plus)
    assert (error.step, error.rule) == (9, "softmax_def")


def test_a_derivative_that_drops_the_kronecker_delta_is_rejected() -> None:
    d = grad.softmax_gradient
    step6 = d.steps[5].claim.xreplace({delta(grad.i, grad.m): S.One})
    error = first_error_with_claim(d, 6, step6)
    assert (error.step, error.rule) == (6, "deriv_entry")


def test_the_claim_that_the_cross_entropy_gradient_vanishes_is_rejected() -> None:
    error = first_error_with_claim(sat.p_minus_y_limit, 8, S.Zero, rhs=S.Zero)
    assert (error.step, error.rule) == (8, "limit_at_infinity")


def test_the_claim_that_the_jacobian_stays_finite_is_rejected() -> None:
    error = first_error_with_claim(sat.jacobian_vanishes, 7, S.One, rhs=S.One)
    assert (error.step, error.rule) == (7, "limit_at_infinity")


def test_the_cross_entropy_limit_needs_the_target_to_differ_from_the_leader() -> None:
    assumptions = tuple(a for a in sat.p_minus_y_limit.assumptions if "≠" not in str(a))
    wrong = replace(sat.p_minus_y_limit, assumptions=assumptions)
    error = first_error(wrong)
    # Without t ≠ w the case t = w is open, and there the form of Σpᵢ² − 2pₜ + 1 does not
    # show it ≥ 0 (its e^λ terms cancel): the root is refused at once, before δₜw = 0.
    assert (error.step, error.rule) == (1, "p_minus_y_norm_sq")
    assert "- 2*p_t + 1 ≥ 0, which is not assumed" in str(error)


def test_a_saturated_softmax_is_not_claimed_uniform() -> None:
    with as_written():
        claim = 1 / sat.n
    error = first_error_with_claim(sat.saturation_limits, 5, claim, rhs=claim)
    assert (error.step, error.rule) == (5, "limit_at_infinity")


def test_shift_invariance_needs_the_same_shift_for_every_score() -> None:
    # softmax(s + a·e_w) is not softmax(s): a lead is not a shift.
    from scaledattn.definitions import Lead

    lead = Lead(shift.r, shift.s, shift.w, shift.a)
    wrong = replace(shift.shift_invariance, assumptions=(lead,))
    assert not audit_of(wrong).verified


def test_the_limit_statement_prints_with_the_square_root_of_two() -> None:
    assert sat.p_minus_y_limit.statement.rhs == sqrt(2)
    assert isinstance(sat.p_minus_y_limit.statement.lhs, Lim)
    assert [s.rule for s in sat.saturation_limits.steps][-1].name == "delta_eq"
    assert all(isinstance(s, Step) for s in sat.saturation_limits.steps)


def test_a_score_difference_with_variance_d_k_is_rejected() -> None:
    # Forgetting the second key's variance: Var(q·k − q·k') = d_k is false.
    d = shift.d
    error = first_error_with_claim(shift.score_difference_variance, 11, d, rhs=d)
    assert (error.step, error.rule) == (11, "ring")


def test_the_scaled_difference_variance_does_not_depend_on_d_k() -> None:
    statement = shift.scaled_score_difference_variance.statement
    assert statement.rhs == 2
    assert shift.d not in statement.rhs.free_symbols
