"""Bound names: a renaming never captures, binders compare up to the names they bind.

A substitution or a sum product renames a binder away from every name free where it
goes; a binder added later (an integral of the tests) compares up to its bound names,
each depth and each variable with its own canonical name; 64 nested sums are named and
a 65th is refused in a line. (Many came from the mutation runs and the hostile reviews
of the kernel: docs/history.md.)
"""

from __future__ import annotations

from typing import (
    Any,
)

import pytest
from sympy import (
    Dummy,
    Expr,
    Integer,
    Symbol,
)

from scaledattn.errors import (
    IllFormed,
    InvalidArgument,
)
from scaledattn.kernel import (
    RULES,
    Context,
    CrossSum,
    Derivation,
    E,
    Equation,
    IndexSum,
    Step,
    audit,
    dimension,
    index,
    normal_form,
    random_variables,
    same,
)
from scaledattn.kernel import (
    rules as R,
)
from scaledattn.kernel.binders import (
    Binder,
    subst,
)
from scaledattn.kernel.expr import (
    OpaqueTerm,
)

i, j, k = index("i"), index("j"), index("k")
i1 = index("i'")
n, m, u = dimension("n"), dimension("m"), dimension("u")
(X,) = random_variables("X")
c = Symbol("c", real=True)
x, y = Symbol("x", real=True), Symbol("y", real=True)


def test_renaming_an_inner_sum_avoids_every_name_free_in_it() -> None:
    # Σᵢ₌₁ᵐ Σᵢ₌₁ⁿ i·i' rebinds i inside: the inner i must be renamed to a name that is
    # neither i nor the free i' (i' would be captured: Σ_{i'} i'·i' is another sum).
    # At m = 1, n = 2, i' = 5: (1 + 2)·5 = 15, while Σ_{i'} i'² = 5.
    term = IndexSum(IndexSum(i * i1, i, n), i, m)
    assert i1 in term.free_symbols
    assert same(term, IndexSum(IndexSum(k * i1, k, n), i, m)) is True
    assert same(term, IndexSum(IndexSum(k * k, k, n), i, m)) is not True


def test_a_sum_whose_bound_names_its_index_is_renamed_away_from_every_free_name() -> None:
    # Σ_{i=1}^{i} i·i': the bound's i is free, so the index is renamed, and not to the free
    # i' (Σ_{i'=1}^{i} i'·i' is another sum: at i = 2, i' = 5 it is 5 against 15).
    term = IndexSum(i * i1, i, i)
    assert term.free_symbols == {i, i1}
    assert same(term, IndexSum(k * i1, k, i)) is True


def test_substitution_renames_a_capturing_binder_away_from_every_name_in_it() -> None:
    # (Σᵢ i·j·i')[j := i]: the sum's i would capture the new i, so it is renamed, and not
    # to the free i' (Σ_{i'} i'·i·i' is another sum).
    moved = subst(IndexSum(i * j * i1, i, n), {j: i})
    assert moved.free_symbols == {i, i1, n}
    assert same(moved, IndexSum(k * i * i1, k, n)) is True


def test_a_sum_over_a_dummy_index_is_renamed_to_a_dummy_index() -> None:
    # A Dummy is SymPy's own symbol: a sum over one is renamed like any other, keeping
    # its index an integer (Σ_d d·j with j := d is Σ_{d'} d'·d, not a refused term).
    d = Dummy("d", integer=True, positive=True)
    moved = subst(IndexSum(d * j, d, n), {j: d})
    assert moved.free_symbols == {d, n}
    assert same(moved, IndexSum(k * d, k, n)) is True


def test_both_indices_of_a_cross_sum_renamed_at_once_get_two_fresh_names() -> None:
    # (Σ_{i≠i'} i·i'·j·k)[j := i, k := i']: both indices would capture, so both are
    # renamed, each to its own fresh name (one name for both is no cross sum).
    v, w = index("v"), index("w")
    moved = subst(CrossSum(i * i1 * j * k, i, i1, n), {j: i, k: i1})
    assert moved.free_symbols == {i, i1, n}
    assert same(moved, CrossSum(v * w * i * i1, v, w, n)) is True


def test_substitution_replaces_a_term_under_a_binder_unless_the_binder_binds_it() -> None:
    # E[X·j] := c reaches into Σᵢ (j is free there); E[X·i] := c does not (i is bound).
    assert same(subst(IndexSum(E(X * j) * i, i, n), {E(X * j): c}), IndexSum(c * i, i, n))
    bound = IndexSum(E(X * i), i, n)
    assert subst(bound, {E(X * i): c}) == bound


def test_a_renamed_binder_avoids_the_names_of_every_key_and_value_substituted() -> None:
    # (Σᵢ i·j)[j := i + i']: the sum is renamed, not to i' (which the value brings in).
    moved = subst(IndexSum(i * j, i, n), {j: i + i1})
    assert same(moved, IndexSum(k * (i + i1), k, n)) is True
    # (Σᵢ E[X·i]·j)[j := i, E[X·i'] := c]: renamed to i', the body's E[X·i] would become
    # the key E[X·i'] and be replaced, though no E[X·i'] was there.
    moved = subst(IndexSum(E(X * i) * j, i, n), {j: i, E(X * i1): c})
    assert same(moved, IndexSum(E(X * k) * i, k, n)) is True


def test_a_normal_form_never_takes_a_dependent_bound_outside_its_sum() -> None:
    # Σᵢ₌₁ⁿ Σⱼ₌₁ⁱ i·j² has no free index; taken the other way round, Σⱼ₌₁^ι Σᵢ₌₁ⁿ, its bound
    # ι would be free, and a term built from the normal form's own bound symbols (public,
    # via normal_form) with that ι free would be "equal" to it.
    closed = IndexSum(IndexSum(i * j**2, j, i), i, n)
    canonical = normal_form(closed)
    assert canonical.free_symbols == {n}
    outer, inner = canonical.indices[0], canonical.body.indices[0]
    dangling = IndexSum(IndexSum(inner * outer**2, inner, n), outer, inner)
    assert inner in dangling.free_symbols
    assert same(closed, dangling) is not True


class _Integral(Binder, OpaqueTerm):
    """∫₀ᵘ f dx: binds x in f; the upper limit u lies outside (a binder of the tests)."""

    is_commutative = True
    scope_at = (0,)
    bound_at = (1,)

    def __new__(cls, f: Any, var: Symbol, upper: Any) -> _Integral:
        made: _Integral = Expr.__new__(cls, f, var, upper).unshadowed()
        return made


def test_a_binder_added_later_compares_up_to_the_names_it_binds() -> None:
    # ∫₀ᵘ ∫₀ˣ y dy dx = u³/6 is ∫₀ᵘ ∫₀ʸ x dx dy renamed; ∫₀ᵘ ∫₀ˣ x dy dx = u³/3 is not.
    # Each depth has its own canonical name: one name for both would read both as the
    # same term.
    inner_y = _Integral(_Integral(y, y, x), x, u)
    renamed = _Integral(_Integral(x, x, y), y, u)
    inner_x = _Integral(_Integral(x, y, x), x, u)
    assert same(inner_y, renamed) is True
    assert same(inner_y, inner_x) is not True
    assert same(_Integral(c * x, x, u), _Integral(c * y, y, u)) is True
    assert same(_Integral(c * x, x, u), _Integral(c * y, y, n)) is not True


def test_canonical_names_are_made_on_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    # The same comparisons from an empty table of canonical names: each depth's name
    # is made when first needed, with the bound symbol's assumptions (x and y are
    # real). In a process that has compared binders before, the table is already full.
    import scaledattn.kernel.expr as expr_module

    monkeypatch.setattr(expr_module, "_CANONICAL", {})
    monkeypatch.setattr(expr_module, "_NORMAL_FORMS", {})  # else read, not computed
    test_a_binder_added_later_compares_up_to_the_names_it_binds()
    made = list(expr_module._CANONICAL.values())
    assert len(made) == 2  # depths 0 and 1
    assert all(isinstance(name, Dummy) and name.is_real for name in made)


def test_a_sum_product_renames_a_factor_away_from_every_name_in_it() -> None:
    # (Σᵢ i·i')(Σⱼ i): the first sum's i would capture the second factor's free i, so it
    # is renamed, and not to its own free i' (Σ_{i'} i'·i' is another sum).
    product = IndexSum(i * i1, i, n) * IndexSum(i, j, n)
    expanded = R.sum_mul_sum.apply(product, Context())[0]
    assert expanded.free_symbols == {i, i1, n}
    assert same(expanded, IndexSum(IndexSum(k * i1 * i, j, n), k, n)) is True


def _nested(body: Expr, depth: int, prefix: str = "a") -> Expr:
    for k in range(depth):
        body = IndexSum(body, index(f"{prefix}{k}"), n)
    return body


def test_sixty_four_nested_sums_are_compared_and_a_sixty_fifth_is_refused_in_a_line() -> None:
    # The kernel names at most 64 bound indices (_BOUND): one sum deeper is refused, at a
    # step and at the statement, never a crash (a zip over too few names raised).
    deepest = _nested(Integer(1), 64)
    assert normal_form(deepest) == normal_form(_nested(Integer(1), 64, prefix="b"))
    proof = Derivation("deep", Equation(deepest, deepest), (Step(RULES["ring"], deepest),), ())
    assert audit(proof).verified
    deeper = IndexSum(deepest, index("z"), n)
    with pytest.raises(InvalidArgument, match="more than 64 sums nested"):
        normal_form(deeper)
    proof = Derivation("deeper", Equation(deeper, deeper), (Step(RULES["ring"], deeper),), ())
    result = audit(proof)
    assert not result.verified
    assert all(isinstance(e, IllFormed) for e in result.errors)
    assert all("more than 64 sums nested" in str(e) for e in result.errors)
    step, statement = result.errors  # each refusal names where it is
    assert (step.theorem, step.step, step.rule) == ("deeper", 1, "ring")
    assert (statement.theorem, statement.step) == ("deeper", 0)
    assert str(step.args[0]).startswith("  more than 64")  # an InvalidArgument says why


def test_a_cross_sum_takes_two_of_the_sixty_four_names_and_its_body_the_next() -> None:
    # 61 sums, a cross sum (two indices) and a sum inside it: 64 names, the last one the
    # innermost sum's; naming it a place further in runs out of names.
    inner = IndexSum(E(X) * index("c"), index("c"), n)
    term = _nested(CrossSum(inner, i, j, n), 61)
    assert same(term, _nested(CrossSum(inner, j, i, n), 61, prefix="b")) is True


def test_a_fresh_index_is_found_when_every_usual_letter_is_taken() -> None:
    from scaledattn.kernel.expr import fresh_index

    taken = {index(x) for x in ("j", "i", "l", "m", "r", "s", "t", "u", "v", "w", "i1")}
    fresh = fresh_index(taken)
    assert fresh.name not in {s.name for s in taken}
    assert fresh.is_integer
    assert fresh.is_positive


class _DoubleIntegral(Binder, OpaqueTerm):
    """∫₀ᵘ∫₀ᵘ f dx dy: binds x and y in f; u lies outside (a binder of the tests)."""

    is_commutative = True
    scope_at = (0,)
    bound_at = (1, 2)

    def __new__(cls, f: Any, x: Symbol, y: Symbol, upper: Any) -> _DoubleIntegral:
        made: _DoubleIntegral = Expr.__new__(cls, f, x, y, upper)
        return made


class _PlainIntegral(Binder, OpaqueTerm):
    """∫₀ᵘ f dx: binds x in f; u lies outside (a binder of the tests)."""

    is_commutative = True
    scope_at = (0,)
    bound_at = (1,)

    def __new__(cls, f: Any, x: Symbol, upper: Any) -> _PlainIntegral:
        made: _PlainIntegral = Expr.__new__(cls, f, x, upper)
        return made


def test_each_variable_of_a_binder_has_its_own_canonical_name() -> None:
    # ∫₀ᵘ ∫∫ a·b da db da₀ against ∫₀ᵘ ∫∫ a·a₀ da db da₀: the first has b where the
    # second has the outer variable; one canonical name for b and the outer a₀ would
    # read them alike.
    a0, a, b, u = (Symbol(s, real=True) for s in ("a0", "a", "b", "u"))
    first = _PlainIntegral(_DoubleIntegral(a * b, a, b, u), a0, u)
    second = _PlainIntegral(_DoubleIntegral(a * a0, a, b, u), a0, u)
    assert same(first, _PlainIntegral(_DoubleIntegral(b * a, b, a, u), a0, u)) is True
    assert same(first, second) is not True


def test_a_binder_in_another_binders_bound_compares_up_to_its_names() -> None:
    # ∫₀^(∫₀ᵘ y dy) x dx is ∫₀^(∫₀ᵘ z dz) t dt renamed.
    x_, y_, z_, t_, u = (Symbol(s, real=True) for s in ("x", "y", "z", "t", "u"))
    first = _PlainIntegral(x_, x_, _PlainIntegral(y_, y_, u))
    assert same(first, _PlainIntegral(t_, t_, _PlainIntegral(z_, z_, u))) is True
