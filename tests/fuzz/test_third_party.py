"""The checker as the campaign's third party: kernel, checker and semantics judge each rewrite.

A rewrite the kernel makes is written as a one-step derivation, audited, and its
certificate checked by the independent checker (scaledattn/fuzz/third_party.py).
A rule broken on purpose (a mutant in this test only) is caught twice: the semantics
find a world where its two sides differ, and the checker refuses its certificate.
"""

from __future__ import annotations

from typing import Any

import pytest

from scaledattn.fuzz.campaign import Stats, apply_rule, one_case, run
from scaledattn.fuzz.redexes import draw_aimed_case
from scaledattn.fuzz.third_party import checker_word
from scaledattn.kernel import E, Rule, Var, random_variables
from scaledattn.kernel import rules as rules_module
from scaledattn.kernel import theorem as theorem_module
from scaledattn.numeric.worlds import RandomChooser

X, Y = random_variables("X Y")


def test_a_rule_the_kernel_applies_is_checked_by_the_checker() -> None:
    assert checker_word("variance_def", Var(X), E(X**2) - E(X) ** 2, ()) == "checked"


def test_a_rewrite_the_rule_does_not_give_is_refused_by_the_kernel() -> None:
    assert checker_word("variance_def", Var(X), E(X**2), ()) == "kernel refused"


def _forget_mean(e: Any, ctx: Any, scope: Any) -> Any:
    return (E(e.args[0] ** 2), frozenset()) if isinstance(e, Var) else None


def test_a_broken_rule_is_caught_by_the_semantics_and_refused_by_the_checker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Var(Z) = E[Z²] (the mean forgotten) registered as variance_def: a kernel hole."""
    monkeypatch.setitem(
        rules_module._TABLE, "variance_def", Rule("variance_def", "x", _forget_mean)
    )
    monkeypatch.setattr(theorem_module, "is_registered", lambda rule: True)
    found = None
    for seed in range(20):
        found = one_case(RandomChooser(seed), Stats(third_party=True), aim="variance_def")
        if found is not None:
            break
    assert found is not None, "no aimed case drew a world where Var(Z) and E[Z²] differ"
    rewritten = apply_rule("variance_def", found.case.term, found.case.assumptions)
    # the mutated kernel accepts the one-step derivation; the checker, on its own, refuses it
    assert checker_word("variance_def", found.case.term, rewritten, found.case.assumptions) == (
        "refused"
    )


def test_a_campaign_with_the_checker_counts_its_verdicts() -> None:
    stats, found = run(applications=60, seed=11, aimed=4, checker=True)
    assert not found
    assert sum(c.checked for c in stats.rules.values()) > 0
    assert "REFUSED" in stats.table()


def test_the_aimed_redexes_of_the_probability_rules_are_checked() -> None:
    for rule in ("variance_def", "covariance_def", "expectation_linear", "dot_def"):
        case = draw_aimed_case(RandomChooser(1), rule)
        rewritten = apply_rule(rule, case.term, case.assumptions)
        assert checker_word(rule, case.term, rewritten, case.assumptions) == "checked", rule
