"""The kernel's verdicts: what a rejection says, and that only ``check`` makes a Theorem.

A rejection names the step, the rule, the claim, what the rule gives and how they differ.
It is the first thing a user reads when a derivation is wrong, so the message is part of
the contract: these tests pin each line of it.
"""

from __future__ import annotations

import sympy
from sympy import Symbol, sqrt

from scaledattn.errors import CannotDecide, MissingAssumption, StepMismatch
from scaledattn.kernel import E, RandomVariable, Var
from scaledattn.kernel import rules as R
from scaledattn.kernel.expr import normal_form
from tests.kernel.helpers import rejection

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
    import pytest

    from scaledattn.kernel import Theorem
    from tests.kernel.helpers import chain

    proved = chain(Var(X), [(E(X**2) - E(X) ** 2, R.variance_def)]).theorem
    assert proved is not None
    forged = "^Theorem objects are made by scaledattn.kernel.check only$"
    with pytest.raises(TypeError, match=forged):
        Theorem("forged", proved.statement, frozenset(), proved.derivation)
    with pytest.raises(TypeError, match=forged):
        Theorem("forged", proved.statement, frozenset(), proved.derivation, object())


def _lemma_indep() -> object:
    """E[XY] = E[X]E[Y] for independent X, Y, checked here (built at test time)."""
    from scaledattn.kernel import Independent, check
    from tests.kernel.helpers import chain

    proof = chain(E(X * Y), [(E(X) * E(Y), R.expectation_mul_of_indep)], [Independent(X, Y)])
    return check(proof.derivation)


def test_a_cited_theorem_records_its_assumptions_only_where_it_rewrites() -> None:
    from scaledattn.kernel import Independent
    from tests.kernel.helpers import chain

    lemma = _lemma_indep()
    declared = [Independent(X, Y)]
    used = chain(E(X * Y) + 1, [(E(X) * E(Y) + 1, lemma)], declared).theorem
    assert used is not None
    assert used.used == frozenset(declared)
    idle = chain(E(X) + 1, [(E(X) + 1, lemma)], declared).theorem
    assert idle is not None
    assert idle.used == frozenset()


def test_a_cited_theorem_is_not_used_under_a_limit_binding_a_symbol_it_constrains() -> None:
    from scaledattn.kernel import Lim, Positive, check
    from tests.kernel.helpers import chain

    c = Symbol("c", real=True)
    lemma = check(
        chain(Var(X / c), [(Var(X) / c**2, R.variance_const_mul)], [Positive(c)]).derivation
    )
    outside = chain(Var(X / c) + 1, [(Var(X) / c**2 + 1, lemma)], [Positive(c)])
    assert outside.verified
    under = chain(Lim(Var(X / c), c), [(Lim(Var(X) / c**2, c), lemma)], [Positive(c)])
    assert not under.verified


def test_a_missing_positivity_names_each_symbol_that_lacks_it_and_no_other() -> None:
    from scaledattn.kernel import Positive

    b, c = Symbol("b", real=True), Symbol("c", real=True)
    sigma = Symbol("sigma", positive=True)  # positive to SymPy already
    error = rejection(R.variance_const_mul, Var(X / (b * c)), Var(X) / (b * c) ** 2)
    assert isinstance(error, MissingAssumption)
    assert error.missing == "b > 0, c > 0"
    declared = [Positive(b)]
    error = rejection(
        R.variance_const_mul, Var(X / (b * c * sigma)), Var(X) / (b * c * sigma) ** 2, declared
    )
    assert isinstance(error, MissingAssumption)
    assert error.missing == "c > 0"


def test_a_rule_that_needs_no_positivity_gives_a_plain_mismatch() -> None:
    # dot_def does nothing to Var(X/c): no positivity of c would help it.
    error = rejection(R.dot_def, Var(X / Symbol("c", real=True)), E(X))
    assert isinstance(error, StepMismatch)
    assert not isinstance(error, MissingAssumption)


def test_a_missing_moment_says_no_declared_moment_fits() -> None:
    error = rejection(R.substitute_moment, E(X) + 1, Symbol("mu") + 1)
    assert isinstance(error, MissingAssumption)
    assert error.missing == (
        "a declared moment for the term(s) the claim replaces (none declared fits)"
    )


def test_a_cited_theorem_names_the_assumptions_it_lacks() -> None:
    from scaledattn.kernel import Independent, check
    from tests.kernel.helpers import chain

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
