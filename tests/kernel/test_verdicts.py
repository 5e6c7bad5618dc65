"""The kernel's verdicts: what a rejection says, and that only ``check`` makes a Theorem.

A rejection names the step, the rule, the claim, what the rule gives and how they differ.
It is the first thing a user reads when a derivation is wrong, so the message is part of
the contract: these tests pin each line of it.
"""

from __future__ import annotations

import pytest
import sympy
from sympy import Symbol, sqrt

from scaledattn.errors import (
    CannotDecide,
    IllFormed,
    MissingAssumption,
    StatementMismatch,
    StepMismatch,
    UnknownRule,
)
from scaledattn.kernel import (
    Derivation,
    E,
    Equation,
    Independent,
    Lim,
    Positive,
    RandomVariable,
    Step,
    Theorem,
    Var,
    audit,
    check,
)
from scaledattn.kernel import rules as R
from scaledattn.kernel.expr import normal_form
from tests.kernel.helpers import chain, rejection

X, Y, Z = RandomVariable("X"), RandomVariable("Y"), RandomVariable("Z")


def show(x: object) -> str:
    """How the kernel writes an expression in a message (SymPy's string printer)."""
    return str(sympy.sstr(x, order="none"))


def test_a_mismatch_shows_the_claim_what_the_rule_gives_and_their_difference() -> None:
    claim = E(X**2) + E(X) ** 2  # the sign of E[X]² flipped
    error = rejection(R.variance_def, Var(X), claim)
    assert isinstance(error, StepMismatch)
    derived = E(X**2) - E(X) ** 2
    assert (error.step, error.rule) == (1, "variance_def")
    assert normal_form(error.expected) == normal_form(derived)
    assert error.got == claim
    message = str(error)
    assert "step 1 (by variance_def)" in message
    assert f"claimed:    {show(claim)}" in message
    assert f"rule gives: {show(error.expected)}" in message
    difference = sympy.expand(normal_form(claim) - normal_form(derived))
    assert difference == sympy.expand(normal_form(2 * E(X) ** 2))
    assert f"differs by: {show(difference)}" in message


def test_an_undecided_step_says_sympy_could_not_decide_and_is_refused() -> None:
    a = Symbol("a")
    error = rejection(R.ring, sqrt(a**2), a)
    assert isinstance(error, CannotDecide)
    message = str(error)
    assert f"claimed:    {show(a)}" in message
    assert "differs by: " in message
    assert message.endswith("SymPy could not decide whether these are equal; the step is refused.")


def test_a_missing_independence_names_what_is_needed_and_what_is_in_scope() -> None:
    error = rejection(R.expectation_mul_of_indep, E(X * Y), E(X) * E(Y))
    assert isinstance(error, MissingAssumption)
    assert error.missing is not None
    assert error.missing == "an independence assumption covering the factors of E[X*Y]"
    message = str(error)
    assert f"needs:      {error.missing}" in message
    assert "in scope:" in message
    assert f"claimed:    {show(E(X) * E(Y))}" in message
    assert f"rule gives: {show(error.expected)}" in message


def test_a_theorem_cannot_be_made_except_by_check() -> None:

    proved = chain(Var(X), [(E(X**2) - E(X) ** 2, R.variance_def)]).theorem
    assert proved is not None
    forged = "^Theorem objects are made by scaledattn.kernel.check only$"
    with pytest.raises(TypeError, match=forged):
        Theorem("forged", proved.statement, frozenset(), proved.derivation)
    with pytest.raises(TypeError, match=forged):
        Theorem("forged", proved.statement, frozenset(), proved.derivation, object())


def _lemma_indep() -> object:
    """E[XY] = E[X]E[Y] for independent X, Y, checked here (built at test time)."""

    proof = chain(E(X * Y), [(E(X) * E(Y), R.expectation_mul_of_indep)], [Independent(X, Y)])
    return check(proof.derivation)


def test_a_cited_theorem_records_its_assumptions_only_where_it_rewrites() -> None:

    lemma = _lemma_indep()
    declared = [Independent(X, Y)]
    used = chain(E(X * Y) + 1, [(E(X) * E(Y) + 1, lemma)], declared).theorem
    assert used is not None
    assert used.used == frozenset(declared)
    idle = chain(E(X) + 1, [(E(X) + 1, lemma)], declared).theorem
    assert idle is not None
    assert idle.used == frozenset()


def test_a_cited_theorem_is_not_used_under_a_limit_binding_a_symbol_it_constrains() -> None:

    c = Symbol("c", real=True)
    lemma = check(
        chain(Var(X / c), [(Var(X) / c**2, R.variance_const_mul)], [Positive(c)]).derivation
    )
    outside = chain(Var(X / c) + 1, [(Var(X) / c**2 + 1, lemma)], [Positive(c)])
    assert outside.verified
    under = chain(Lim(Var(X / c), c), [(Lim(Var(X) / c**2, c), lemma)], [Positive(c)])
    assert not under.verified


def test_a_missing_positivity_names_each_symbol_that_lacks_it_and_no_other() -> None:

    # The claim Var(X/(bc)) itself needs b, c ≠ 0: refused before the rule's own check.
    b, c = Symbol("b", real=True), Symbol("c", real=True)
    sigma = Symbol("sigma", positive=True)  # positive to SymPy already
    error = rejection(R.variance_const_mul, Var(X / (b * c)), Var(X) / (b * c) ** 2)
    assert isinstance(error, IllFormed)
    assert "defined only where b ≠ 0, c ≠ 0, which is not assumed" in str(error)
    declared = [Positive(b)]
    error = rejection(
        R.variance_const_mul, Var(X / (b * c * sigma)), Var(X) / (b * c * sigma) ** 2, declared
    )
    assert isinstance(error, IllFormed)
    assert "defined only where c ≠ 0, which is not assumed" in str(error)


def test_a_rule_that_needs_no_positivity_gives_a_plain_mismatch() -> None:
    # dot_def does nothing to Var(X/c): no positivity of c would help it.
    c = Symbol("c", real=True)
    error = rejection(R.dot_def, Var(X / c), E(X), [Positive(c)])
    assert isinstance(error, StepMismatch)
    assert not isinstance(error, MissingAssumption)


def test_a_missing_moment_says_no_declared_moment_fits() -> None:
    error = rejection(R.substitute_moment, E(X) + 1, Symbol("mu") + 1)
    assert isinstance(error, MissingAssumption)
    assert error.missing == (
        "a declared moment for the term(s) the claim replaces (none declared fits)"
    )


def test_a_cited_theorem_names_the_assumptions_it_lacks() -> None:

    both = [Independent(X, Y), Independent(X, Z)]
    lemma = check(
        chain(
            E(X * Y) + E(X * Z),
            [(E(X) * E(Y) + E(X) * E(Z), R.expectation_mul_of_indep)],
            both,
            name="two_products",
        ).derivation
    )
    error = chain(E(X * Y) + E(X * Z), [(E(X) * E(Y) + E(X) * E(Z), lemma)]).steps[0].error
    assert isinstance(error, MissingAssumption)
    lacking = ", ".join(str(a) for a in lemma.used)
    assert error.missing == f"{lacking} (assumptions of two_products)"


def test_each_step_result_carries_its_number_step_rule_derivation_and_assumptions() -> None:

    c = Symbol("c", real=True)
    steps = [(E(X**2) - E(X) ** 2, R.variance_def), (E(X), R.ring)]
    result = chain(Var(X), steps)
    first, second = result.steps
    assert (first.number, first.step.claim, first.rule_name) == (1, steps[0][0], "variance_def")
    assert normal_form(first.derived) == normal_form(steps[0][0])
    assert first.used == frozenset()
    assert (second.number, second.rule_name, second.ok) == (2, "ring", False)
    assert second.step.claim == E(X)
    assert normal_form(second.derived) == normal_form(steps[0][0])
    assert second.used == frozenset()
    # Folding a definition back (the rule takes the claim to the previous expression)
    # records the assumptions the rule used on the claim.
    folded = chain(Var(X) / c**2, [(Var(X / c), R.variance_const_mul)], [Positive(c)])
    assert folded.steps[0].ok
    assert folded.steps[0].used == frozenset({Positive(c)})
    assert normal_form(folded.steps[0].derived) == normal_form(Var(X) / c**2)


def test_an_unknown_rule_is_named_with_every_rule_and_theorem_known() -> None:

    derivation = Derivation("t", Equation(Var(X), E(X)), (Step("no_such_rule", E(X)),), ())
    result = audit(derivation)
    step = result.steps[0]
    assert (step.number, step.rule_name, step.derived, step.used) == (
        1,
        "no_such_rule",
        None,
        frozenset(),
    )
    assert step.step == derivation.steps[0]
    error = step.error
    assert isinstance(error, UnknownRule)
    assert (error.theorem, error.step, error.rule) == ("t", 1, "no_such_rule")
    known = ", ".join(sorted(R.RULES))
    assert str(error).endswith(
        f"'no_such_rule' is neither a rule nor a proved theorem\n  known: {known}"
    )


def test_a_chain_that_ends_elsewhere_than_its_statement_says_so() -> None:

    claim = E(X**2) - E(X) ** 2
    derivation = Derivation("t", Equation(Var(X), E(X**2)), (Step(R.variance_def, claim),), ())
    error = audit(derivation).statement_error
    assert isinstance(error, StatementMismatch)
    assert (error.theorem, error.step, error.expected, error.got) == ("t", 1, E(X**2), claim)
    assert f"the chain ends at   {show(claim)}\n  the statement says  {show(E(X**2))}" in str(error)
    empty = audit(Derivation("t", Equation(Var(X), Var(X)), (), ())).statement_error
    assert isinstance(empty, StatementMismatch)
    assert empty.theorem == "t"
    assert str(empty).endswith("\n  a derivation needs at least one step")


def test_a_missing_independence_lists_every_product_it_would_split() -> None:
    error = rejection(R.expectation_mul_of_indep, E(X * Y) + E(X * Z), E(X) * E(Y) + E(X) * E(Z))
    assert isinstance(error, MissingAssumption)
    assert error.missing == "an independence assumption covering the factors of E[X*Y], E[X*Z]"
