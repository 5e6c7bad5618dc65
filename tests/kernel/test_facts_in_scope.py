"""Facts and definitions in scope: each is used only where it holds.

A fact about a symbol a binder rebinds (a sum's index, a limit's variable, a
derivative's) is not read under that binder; definitions are followed through their
bodies, refused when they refer back to themselves, and keep their labels; a theorem
proved under a definition applies where the same definition holds; inconsistent
assumptions prove nothing. (Many came from the hostile reviews k5–k7 and the mutation
runs: docs/history.md.)
"""

from __future__ import annotations

from dataclasses import (
    dataclass,
)
from typing import (
    Any,
)

import pytest
import sympy
from sympy import (
    Integer,
    Symbol,
)

from scaledattn.definitions import (
    Lead,
)
from scaledattn.errors import (
    InvalidArgument,
)
from scaledattn.kernel import (
    RULES,
    Context,
    Derivation,
    Distinct,
    E,
    Equation,
    IndexSum,
    Lim,
    Moment,
    RealVector,
    Step,
    as_written,
    audit,
    dimension,
    index,
    random_variables,
)
from scaledattn.kernel import (
    rules as R,
)
from scaledattn.kernel.assumptions import (
    Assumption,
)
from scaledattn.kernel.binders import (
    Scope,
)

i, j, k = index("i"), index("j"), index("k")
n, m, u = dimension("n"), dimension("m"), dimension("u")
X, Y = random_variables("X Y")
c = Symbol("c", real=True)
w = index("w")


def test_a_fact_about_a_symbol_an_outer_sum_binds_stays_hidden_under_an_inner_sum() -> None:
    # E[X·t] = 1 is about the free t; under Σₜ (and under Σⱼ inside it) t is bound:
    # Σₜ Σⱼ E[X·t] is not Σₜ Σⱼ 1 (t₀ = 1, n = 2, E[X] = 1: 6 against 4).
    t = index("t")
    term = IndexSum(IndexSum(E(X * t), j, n), t, n)
    ctx = Context.of((Moment(E(X * t), 1),))
    assert R.substitute_moment.apply(term, ctx)[0] == term
    assert R.substitute_moment.apply(E(X * t), ctx)[0] == 1


@dataclass(frozen=True)
class _Fact(Assumption):
    """A fact of a kind no rule reads, about two symbols (with a note that is text)."""

    first: Any
    second: Any
    note: str = "a fact"


def test_a_fact_of_an_unknown_kind_is_about_every_symbol_it_mentions() -> None:
    # Context.of refuses a class of one's own; built directly, its fact must still be
    # dropped wherever a binder rebinds any symbol it mentions (the safe default).
    fact = _Fact(i, c)
    assert fact.constrains() == {i, c}
    ctx = Context((fact,))
    under_sum = Scope().enter(IndexSum(i, i, n))
    under_limit = Scope().enter(Lim(c * X, c))
    elsewhere = Scope().enter(IndexSum(k, k, n))
    assert ctx.visible(under_sum).assumptions == ()
    assert ctx.visible(under_limit).assumptions == ()
    assert ctx.visible(elsewhere).assumptions == (fact,)


def test_facts_that_decide_a_delta_are_listed_with_the_assumptions() -> None:
    from scaledattn.derive import audit_of, calc
    from scaledattn.render.json import audit_json

    t, p = Symbol("t", transcendental=True), Symbol("p", prime=True)
    for symbol, shown in ((t, "t transcendental"), (p, "p prime")):
        with as_written():
            lhs = sympy.KroneckerDelta(symbol, 1)
        result = audit_of(calc("d", lhs, 0).eq(0, by=RULES["ring"]).qed())
        assert result.verified  # true, given what the symbol carries, which is shown
        assert shown in audit_json(result)["carried_by_symbols"]


def test_a_range_whose_bound_an_inner_sum_rebinds_is_not_used() -> None:
    # Σ_{m≤n} Σ_{n'≤2} Σ_{j≤n'} δ_jm: inside, m ≤ n is about the outer n (3 at n = 3, not 6).
    from scaledattn.kernel import RULES as K

    inner = IndexSum(IndexSum(sympy.KroneckerDelta(j, k), j, n), n, 2)
    lhs = IndexSum(inner, k, n)
    rhs = IndexSum(IndexSum(Integer(1), n, 2), k, n)
    proof = Derivation("rebound", Equation(lhs, rhs), (Step(K["sum_delta"], rhs),), ())
    assert not audit(proof).verified


def _check_proof(text: str) -> list[Any]:
    from scaledattn.prooffile.files import check_text

    return check_text(text, "k5.proof").verdicts


def test_a_theorem_about_a_free_vector_is_not_used_where_it_is_defined() -> None:
    verdicts = _check_proof(
        "theorem r_free: deriv(r_m, s_m) = 0\n  deriv(r_m, s_m)\n  = 0   by deriv_linear\n\n"
        "theorem one_is_zero: 1 = 0\nassume: r_j = s_j + 1\n  1\n"
        "  = deriv(s_m, s_m)   by deriv_entry\n  = deriv(s_m + 1, s_m)   by deriv_linear\n"
        "  = deriv(r_m, s_m)   by entries_def\n  = 0   by r_free\n"
    )
    assert [v.verified for v in verdicts] == [True, False]


def test_a_moment_whose_value_reaches_a_limits_variable_is_not_read_under_it() -> None:
    verdicts = _check_proof(
        "theorem moment_in_limit: lim(E(q_w) - lambda, lambda) = s_w\nassume: no defaults\n"
        "assume: E(q_i) = r_i\nassume: r_j = s_j + lambda*delta(j, w)\n"
        "  lim(E(q_w) - lambda, lambda)\n  = lim(r_w - lambda, lambda)   by substitute_moment\n"
        "  = lim(s_w, lambda)   by entries_def\n  = s_w   by limit_at_infinity\n"
    )
    assert not verdicts[0].verified


def test_a_moment_is_not_taken_for_a_constant_under_a_derivative() -> None:
    # E[q_m] = s_m read under ∂/∂s_m, where deriv_linear took E[q_m] for a constant: 1 = 0.
    verdicts = _check_proof(
        "theorem one_is_zero: 1 = 0\nassume: no defaults\nassume: E(q_i) = s_i\n  1\n"
        "  = deriv(s_m, s_m)   by deriv_entry\n  = deriv(E(q_m), s_m)   by substitute_moment\n"
        "  = 0   by deriv_linear\n"
    )
    assert not verdicts[0].verified


def test_definitions_are_followed_through_their_bodies() -> None:
    # r_j = s_j with s free, cited where s_j = g_j: ∂r_m/∂g_m = 0 said nothing there.
    verdicts = _check_proof(
        "theorem r_of_g: deriv(r_m, g_m) = 0\nassume: r_j = s_j\n  deriv(r_m, g_m)\n"
        "  = 0   by deriv_linear\n\ntheorem one_is_zero: 1 = 0\nassume: r_j = s_j\n"
        "assume: s_j = g_j\n  1\n  = deriv(g_m, g_m)   by deriv_entry\n"
        "  = deriv(s_m, g_m)   by entries_def\n  = deriv(r_m, g_m)   by entries_def\n"
        "  = 0   by r_of_g\n"
    )
    assert [v.verified for v in verdicts] == [True, False]
    verdicts = _check_proof(  # and a moment reaching λ through two definitions
        "theorem moment_in_limit: lim(E(q_w) - lambda, lambda) = g_w\nassume: no defaults\n"
        "assume: E(q_i) = r_i\nassume: r_j = s_j\nassume: s_j = g_j + lambda*delta(j, w)\n"
        "  lim(E(q_w) - lambda, lambda)\n  = lim(r_w - lambda, lambda)   by substitute_moment\n"
        "  = lim(s_w - lambda, lambda)   by entries_def\n"
        "  = lim(g_w, lambda)   by entries_def\n  = g_w   by limit_at_infinity\n"
    )
    assert not verdicts[0].verified


def test_definitions_that_refer_back_to_themselves_are_refused() -> None:
    from scaledattn.kernel import Entries, RealVector, SoftmaxVector

    r, g = RealVector("r", n), RealVector("g", n)
    with pytest.raises(InvalidArgument, match="refers back to it"):
        Context.of((Entries(r, g[j] + 1, j), Entries(g, r[j], j)))  # r = r + 1
    with pytest.raises(InvalidArgument, match="refers back to it"):
        Context.of((Entries(r, E(X) + 1, j), Moment(E(X), r[1])))
    with pytest.raises(InvalidArgument, match="cannot be defined by themselves"):
        Entries(r, SoftmaxVector(r, "p")[j], j)
    verdicts = _check_proof(
        "theorem cyc: r_1 = r_1 + 20\nassume: r_j = g_j + 1\nassume: g_j = r_j\n"
        "  r_1\n  = r_1 + 20 by entries_def\n"
    )
    assert not verdicts[0].verified


def test_a_proof_file_with_inconsistent_assumptions_proves_nothing() -> None:
    for assumptions in ("assume: E(X) = 1\nassume: E(X**2) = 0\n", "assume: E(X**2) = 0\n"
                        "assume: Var(X) = 1\n"):  # fmt: skip
        verdicts = _check_proof(
            f"theorem bad: E(X**2) - E(X)**2 = -1\n{assumptions}  E(X**2) - E(X)**2\n"
            "  = -1   by substitute_moment\n"
        )
        assert not verdicts[0].verified
        assert "inconsistent" in " ".join(verdicts[0].problems)


def test_a_theorem_proved_where_its_vector_is_defined_applies_under_the_same_definition() -> None:
    verdicts = _check_proof(
        "theorem T: deriv(r_m, s_m) = 1\nassume: r_j = s_j + 1\n  deriv(r_m, s_m)\n"
        "  = deriv(s_m + 1, s_m)   by entries_def\n  = deriv(s_m, s_m)   by deriv_linear\n"
        "  = 1   by deriv_entry\n\ntheorem U: 2*deriv(r_m, s_m) = 2\nassume: r_j = s_j + 1\n"
        "  2*deriv(r_m, s_m)\n  = 2   by T\n"
    )
    assert [v.verified for v in verdicts] == [True, True]


def test_a_theorem_with_a_derivative_on_its_right_applies_under_its_definition() -> None:
    # T: exp(c) = exp(c·(∂(2r)/∂s − 2∂r/∂s + 1)) under r_j = s_j + 1, proved by
    # linearity alone; used under the same definition. The definitions a theorem
    # is proved under are those of the vectors its two sides name.
    from scaledattn.prooffile.files import check_text

    right = "exp(c*(deriv(2*r_m, s_m) - 2*deriv(r_m, s_m) + 1))"
    defined = "assume: r_j = s_j + 1\n"
    theorem = f"theorem T: exp(c) = {right}\n{defined}  exp(c)\n  = {right}   by deriv_linear\n\n"
    for rule, verified in (("T", True), ("ring", False)):
        use = f"theorem U: 2*exp(c) = 2*{right}\n{defined}  2*exp(c)\n  = 2*{right}   by {rule}\n"
        verdicts = check_text(theorem + use, "survivors.proof").verdicts
        assert [v.verified for v in verdicts] == [True, verified]


def test_a_definition_keeps_its_label() -> None:
    from scaledattn.definitions import Shift
    from scaledattn.kernel import Entries
    from scaledattn.render.display import assumption_text

    r, s = RealVector("r", n), RealVector("s", n)
    lam = Symbol("lambda", real=True)
    assert assumption_text(Lead(r, s, w, lam)).endswith("(score w leads by λ)")
    assert assumption_text(Shift(r, s, lam)).endswith("(all scores shifted by λ)")
    j = index("j")
    assert assumption_text(Entries(r, s[j] + 1, j)) == "r_j = 1 + s_j for every j"  # no label


def test_a_definition_that_refers_back_is_named_and_found_after_any_other_assumption() -> None:
    from scaledattn.kernel import Context, Entries, Moment

    r, g = RealVector("r", n), RealVector("g", n)
    j = index("j")
    cyclic = (Entries(r, g[j] + 1, j), Entries(g, r[j], j))  # r = r + 1
    with pytest.raises(InvalidArgument, match="the definition of r refers back to it"):
        Context.of((Moment(E(Y), 0), *cyclic))
    with pytest.raises(InvalidArgument, match="the definition of r refers back to it"):
        Context.of((Entries(r, E(X) + 1, j), Moment(E(X), r[1])))  # r_1 = r_1 + 1


def test_a_definition_by_a_moment_declared_a_number_is_not_circular() -> None:
    from scaledattn.kernel import Context, Entries, Moment

    r, j = RealVector("r", n), index("j")
    context = Context.of((Entries(r, E(X) + 1, j), Moment(E(X), 2)))  # r_j = 3
    assert len(context.assumptions) == 2


def test_a_definition_reaching_a_parameter_a_limit_binds_still_defines_its_vector() -> None:
    # r_j = s_j + 1 and s_j = t_j + μδ_jw: under lim over μ, r_i = s_i + 1 still holds (the
    # definition of s, with its μ, is read where it is used). With i ≠ w, s_i = t_i and
    # the limit exists (at i = w it would not: s_w = t_w + μ).
    from scaledattn.definitions import Lead, Shift
    from scaledattn.kernel import Lim

    r, s, t = RealVector("r", n), RealVector("s", n), RealVector("t", n)
    mu = Symbol("mu", real=True)
    claim = Lim(s[i] + 1, mu)
    facts = (Lead(s, t, w, mu), Shift(r, s, 1))
    step = (Step(RULES["entries_def"], claim),)
    proof = Derivation("unfold", Equation(Lim(r[i], mu), claim), step, facts)
    assert "converges, which is not assumed" in str(audit(proof).errors[0])
    proof = Derivation("unfold", Equation(Lim(r[i], mu), claim), step, (*facts, Distinct(i, w)))
    assert audit(proof).verified


def test_a_moment_about_a_constant_is_not_used_where_a_limit_binds_it() -> None:
    # E[X] = c + r_1 is about the free c; inside lim over c, c is another variable.
    from scaledattn.definitions import Shift
    from scaledattn.kernel import Lim, Moment

    r, s = RealVector("r", n), RealVector("s", n)
    c, a = Symbol("c", positive=True), Symbol("a", real=True)  # E[X]/c needs c ≠ 0
    facts = (Shift(r, s, a), Moment(E(X), sympy.exp(c) + r[1]))
    decay = sympy.exp(-2 * c)  # so that the limit converges: (e^c + r_1)e^{−2c} → 0
    for lhs, claim, verified in (
        (E(X) / c, (sympy.exp(c) + r[1]) / c, True),
        (Lim(E(X) * decay, c), Lim((sympy.exp(c) + r[1]) * decay, c), False),
    ):
        steps = (Step(RULES["substitute_moment"], claim),)
        assert audit(Derivation("moment", Equation(lhs, claim), steps, facts)).verified is verified


def test_an_outer_indexs_range_is_known_under_a_binder_that_does_not_rebind_it() -> None:
    # Σ_{m≤n} Σ_{k≤u} Σ_{j≤n} δ_jm = Σ_{m≤n} Σ_{k≤u} 1: inside Σ_k, m still ranges over 1..n.
    from scaledattn.kernel import IndexSum

    u = dimension("u")
    j, m, kk = index("j"), index("m"), index("k")
    lhs = IndexSum(IndexSum(IndexSum(sympy.KroneckerDelta(j, m), j, n), kk, u), m, n)
    claim = IndexSum(IndexSum(sympy.Integer(1), kk, u), m, n)
    proof = Derivation("outer", Equation(lhs, claim), (Step(RULES["sum_delta"], claim),))
    assert audit(proof).verified


def test_a_moment_about_scores_is_not_read_under_a_derivative_inside_a_sum() -> None:
    from scaledattn.kernel import Deriv, IndexSum, Moment, RealVector

    s = RealVector("s", n)
    inside = Deriv(IndexSum(E(X) * i, i, n), s[1])
    claim = Deriv(IndexSum(s[1] * i, i, n), s[1])
    step = (Step(RULES["substitute_moment"], claim),)
    result = audit(Derivation("m", Equation(inside, claim), step, (Moment(E(X), s[1]),)))
    assert not result.verified
    assert "MissingAssumption" in repr(result.errors[0])
