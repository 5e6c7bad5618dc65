"""Issue 18: a rejection says what the rule did and where the claim departs from it."""

from __future__ import annotations

import sympy

from scaledattn.derive import audit_of, calc
from scaledattn.kernel import CrossSum, E, Var, dimension, index, random_variables
from scaledattn.kernel.rules import count_terms, covariance_def, expectation_linear
from scaledattn.render import render
from scaledattn.render.diagnose import applicable_rules, difference_words

X, Y = random_variables("X Y")


def test_a_rule_that_changed_nothing_says_so_and_names_the_rules_that_apply() -> None:
    d = (
        calc("t", Var(X + Y), Var(X) + Var(Y))
        .eq(E((X + Y) ** 2) - E(X + Y) ** 2, by=covariance_def)
        .qed()
    )
    text = render(audit_of(d))
    assert "covariance_def changed nothing here (does nothing where no Cov(·,·) occurs)" in text
    assert "rules that do change the previous expression: variance_def" in text


def test_the_rules_that_apply_are_the_ones_that_change_the_expression() -> None:
    from scaledattn.kernel import Context

    assert applicable_rules(Var(X + Y), Context(())) == ["variance_def"]
    assert "expectation_linear" in applicable_rules(E(X + Y), Context(()))


def test_a_missing_cross_term_is_named() -> None:
    words = difference_words(E(X**2) + E(Y**2), E(X**2) + E(Y**2) + 2 * E(X) * E(Y))
    assert words == "the cross term 2*E(X)*E(Y) is missing"
    d = calc("t", E((X + Y) ** 2), E(X**2) + E(Y**2)).eq(E(X**2) + E(Y**2), by=expectation_linear)
    assert "the cross term 2*E(X*Y) is missing" in render(audit_of(d.qed()))


def test_a_wrong_count_of_terms_is_named_as_a_count() -> None:
    d, i, j = dimension("d_k"), index("i"), index("j")
    mu = sympy.Symbol("mu", real=True)
    cross = CrossSum(mu**2, i, j, d)
    proof = calc("t", cross, d * (d - 1) * mu**2).eq(d**2 * mu**2, by=count_terms).qed()
    text = render(audit_of(proof))
    assert "the count of terms is d_k**2, the rule gives d_k*(d_k - 1)" in text


def test_a_sign_and_a_coefficient_are_named() -> None:
    assert difference_words(-E(X), E(X)) == "the sign is the opposite of what the rule gives"
    assert difference_words(3 * E(X), 2 * E(X)) == "the coefficient is 3, the rule gives 2"
    assert difference_words(E(X), E(X) + sympy.Integer(0)) == ""
