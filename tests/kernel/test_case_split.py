"""The case split on Kronecker deltas and convergence under a limit (issue 12).

Three deltas are split into eight cases in a fixed order, a delta under a sum is not a
case; a condition found at two scopes must hold at both; a sum converges term by term
where the whole has no form; a tie of max is the only corner of two arguments. (These
came from the mutation screen of issue 12: docs/history.md.)
"""

from __future__ import annotations

from typing import (
    Any,
)

import sympy
from sympy import (
    Symbol,
)

from scaledattn.kernel import (
    RULES,
    Derivation,
    E,
    Equation,
    RealVector,
    Step,
    audit,
    dimension,
    index,
    random_variables,
)
from scaledattn.kernel.expr import (
    unclaimable,
)

n = dimension("n")
i = index("i")
X, Y = random_variables("X Y")
x = Symbol("x", real=True)


def test_a_sum_converges_term_by_term_where_the_whole_has_no_form() -> None:
    # √(1 + e^{−λ}) − 1: each term converges (the root through its square); the whole,
    # not positive, has no form P(e^λ)/Q(e^λ).
    from scaledattn.kernel import Lim
    from scaledattn.kernel.calculus import converges

    lam = Symbol("lam", positive=True)
    assert converges(sympy.sqrt(1 + sympy.exp(-lam)) - 1, lam, {}) is True
    claim = Lim(sympy.sqrt(1 + sympy.exp(-lam)) - 1, lam)
    assert audit(Derivation("s", Equation(claim, claim), (Step(RULES["ring"], claim),))).verified


def test_a_denominator_that_is_no_polynomial_in_e_lambda_has_no_form() -> None:
    from scaledattn.kernel.calculus import converges, eventual_sign

    lam = Symbol("lam", positive=True)
    assert converges(1 / (1 + sympy.sqrt(1 + sympy.exp(lam))), lam, {}) is None
    assert eventual_sign(X / (1 + sympy.sqrt(1 + sympy.exp(lam))), lam, {}) is None


def test_three_deltas_are_split_into_eight_cases_in_a_fixed_order() -> None:
    from scaledattn.kernel import Context
    from scaledattn.kernel.calculus import MAX_CASES, cases

    lam = Symbol("lam", positive=True)
    a, b, c, d = (index(x) for x in "abcd")
    deltas = [sympy.KroneckerDelta(a, b), sympy.KroneckerDelta(b, c), sympy.KroneckerDelta(c, d)]
    assert len(deltas) == MAX_CASES
    f = sympy.exp(lam) * (4 * deltas[0] + 2 * deltas[1] + deltas[2])
    split = cases(f, lam, Context())
    assert split is not None
    assert split[0] == [k * sympy.exp(lam) for k in range(8)]  # δ_ab δ_bc δ_cd: the bits


def test_a_delta_under_a_sum_is_not_counted_among_the_cases() -> None:
    # three free deltas and a fourth under a λ-free sum: still three to split
    from scaledattn.kernel import Context, IndexSum
    from scaledattn.kernel.calculus import cases

    lam = Symbol("lam", positive=True)
    a, b, c, d = (index(x) for x in "abcd")
    free = sympy.KroneckerDelta(a, b) + sympy.KroneckerDelta(b, c) + sympy.KroneckerDelta(c, d)
    bound = IndexSum(sympy.KroneckerDelta(i, a), i, n)
    split = cases(sympy.exp(-lam) * (free + bound), lam, Context())
    assert split is not None
    assert len(split[0]) == 8


def test_a_condition_found_at_two_scopes_must_hold_at_both() -> None:
    # e^λ − 2 ≠ 0 holds for large λ inside the limit, not for every λ > 0 outside it
    from scaledattn.kernel import Lim

    lam = Symbol("lam", positive=True)
    inside = Lim(sympy.exp(-lam) / (sympy.exp(lam) - 2), lam)
    outside = 1 / (sympy.exp(lam) - 2)
    for claim in (inside + outside, outside + inside, inside * outside, outside * inside):
        result = audit(Derivation("t", Equation(claim, claim), (Step(RULES["ring"], claim),)))
        assert "exp(lam) - 2 ≠ 0, which is not assumed" in str(result.errors[0])
    alone = audit(Derivation("t", Equation(inside, inside), (Step(RULES["ring"], inside),)))
    assert alone.verified


def test_one_step_is_checked_alone_without_a_derivations_memo() -> None:
    from scaledattn.kernel.theorem import check_step

    proof = Derivation("one", Equation(E(X + Y), E(X) + E(Y)), ())
    step = Step(RULES["expectation_linear"], E(X) + E(Y))
    assert check_step(E(X + Y), step, 1, proof).ok
    seen: dict[int, Any] = {}
    assert check_step(E(X + Y), step, 1, proof, admitted=seen).ok
    assert len(seen) == 2  # the previous expression and the claim, each admitted once


def test_conditions_keeps_every_scope_a_condition_stands_at() -> None:
    from scaledattn.kernel import Lim
    from scaledattn.kernel.expr import conditions

    lam = Symbol("lam", positive=True)
    divisor = sympy.exp(lam) - 2
    for claim in (Lim(sympy.exp(-lam) / divisor, lam) + 1 / divisor, 1 / divisor + 1 / divisor**3):
        scopes = conditions(claim)[("nonzero", divisor)]
        limits = sorted(len(s.limits) for s in scopes)
        assert limits == ([0, 1] if claim.has(Lim) else [0]), scopes


def test_which_conditions_a_term_is_asked_for_written_and_evaluated() -> None:
    # 1/√x written as (x^{1/2})^{−1}: written, x ≥ 0 and √x ≠ 0; evaluated, x^{−1/2}: x > 0

    x = Symbol("x", real=True)
    written = sympy.Pow(sympy.Pow(x, sympy.Rational(1, 2), evaluate=False), -1, evaluate=False)
    for total, expected in (
        (False, {("nonzero", sympy.sqrt(x))}),  # x > 0 kept by evaluation covers x ≥ 0
        (True, {("nonzero", sympy.sqrt(x)), ("nonnegative", x), ("positive", x)}),
    ):
        asked: set[tuple[str, Any]] = set()

        def holds(kind: str, base: Any, scope: Any, asked: Any = asked) -> bool:
            asked.add((kind, base))
            return True

        assert unclaimable(written, holds, total=total) is None
        assert asked == expected


def test_a_tie_of_max_is_the_only_corner_of_two_arguments() -> None:
    # Max(s₁, s₁ + Σⱼ e^{sⱼ}): the tie is never (the sum is > 0 by its form), though s₁ may be 0
    from scaledattn.kernel import Deriv, IndexSum

    s = RealVector("s", n)
    jj = index("jj")
    f = Deriv(sympy.Max(s[1], s[1] + IndexSum(sympy.exp(s[jj]), jj, n)), s[1])
    assert audit(Derivation("t", Equation(f, f), (Step(RULES["ring"], f),))).verified


def test_a_condition_inside_a_sum_up_to_lambda_that_names_an_entry_holds_for_large_lambda() -> None:
    from scaledattn.kernel import IndexSum, Lim

    lam = Symbol("λ", positive=True, integer=True)
    s = RealVector("s", n)
    jj = index("jj")
    body = IndexSum(sympy.KroneckerDelta(jj, 1) / (sympy.exp(lam) - sympy.exp(s[1])), jj, lam)
    claim = Lim(body, lam)
    assert audit(Derivation("g", Equation(claim, claim), (Step(RULES["ring"], claim),))).verified


def test_a_form_with_more_deltas_than_the_cases_is_read_directly() -> None:
    from scaledattn.kernel import Lim

    lam = Symbol("lam", positive=True)
    a, b, c, d, e = (index(x) for x in "abcde")
    deltas = sum(sympy.KroneckerDelta(*p) for p in ((a, b), (b, c), (c, d), (d, e)))
    claim = Lim((deltas + 1) * sympy.exp(-lam), lam)
    assert audit(Derivation("f", Equation(claim, claim), (Step(RULES["ring"], claim),))).verified
