"""Independence, shown: holes the kernel once had (docs/history.md), each re-opened as a
mutant switched on in the test alone. The mutated kernel accepts a false derivation;
the checker refuses its certificate (or no certificate can be written, and then the
verdict is never doubly checked)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from sympy import Eq, Or, S, Symbol, sqrt

from scaledattn.certificate import certificate
from scaledattn.checker import check_certificate
from scaledattn.errors import CannotCertify
from scaledattn.kernel import (
    CrossSum,
    Derivation,
    E,
    Equation,
    Equivalence,
    IndependentComponents,
    IndexSum,
    Mean,
    Moment,
    RandomVector,
    Rule,
    Step,
    Theorem,
    Var,
    audit,
    check,
    dimension,
    index,
    random_variables,
)
from scaledattn.kernel import assumptions as assumptions_module
from scaledattn.kernel import binders as binders_module
from scaledattn.kernel import expr as expr_module
from scaledattn.kernel import rules as R
from scaledattn.kernel import theorem as theorem_module
from scaledattn.kernel.assumptions import Independence

X, Y = random_variables("X Y")
n, m = dimension("n"), dimension("m")
i, j, t = index("i"), index("j"), index("t")
q = RandomVector("q", n)
x = Symbol("x", real=True)


def one(rule: Any, prev: Any, claim: Any, assuming: Any = (), iff: bool = False) -> Derivation:
    statement = Equivalence(prev, claim) if iff else Equation(prev, claim)
    return Derivation("mutant", statement, (Step(rule, claim),), tuple(assuming))


def _fresh_caches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(expr_module, "_NORMAL_FORMS", {})


def _enter_keeping_pairs(self: Any, b: Any) -> Any:
    inner = ORIGINAL_ENTER(self, b)
    return binders_module.Scope(inner.ranges, inner.limits, inner.distinct | self.distinct)


ORIGINAL_ENTER = binders_module.Scope.enter


class _EveryAtomAlone(Independence):
    def block_key(self, atom: Any) -> Any:
        return (object(), None)


def _forget_mean(e: Any, ctx: Any, scope: Any) -> Any:
    return (E(e.args[0] ** 2), frozenset()) if isinstance(e, Var) else None


ORIGINAL_RESOLVE = theorem_module._resolve


def _resolve_any_theorem(rule: Any, *args: Any) -> Any:
    if isinstance(rule, Theorem):
        return theorem_module._theorem_rule(rule)
    return ORIGINAL_RESOLVE(rule, *args)


def _forged_theorem() -> Theorem:
    proved = check(Derivation("reflexive", Equation(E(X), E(X)), (Step(R.ring, E(X)),)))
    return dataclasses.replace(proved, statement=Equation(E(X), S.Zero))


#: (hole, how the mutant re-opens it, the false derivation the mutated kernel accepts)
MUTANTS: list[tuple[str, Callable[[pytest.MonkeyPatch], None], Callable[[], Derivation]]] = [
    (
        "Σ_{i≠j} Σ_j E[qᵢqⱼ] = 0: an inner sum rebinding j keeps the pair i ≠ j",
        lambda mp: (
            mp.setattr(binders_module.Scope, "enter", _enter_keeping_pairs),
            mp.setattr(binders_module.Binder, "unshadowed", lambda self: self),
        ),
        lambda: one(
            R.expectation_mul_of_indep,
            CrossSum(IndexSum(E(q[i] * q[j]), j, n), i, j, n),
            CrossSum(IndexSum(E(q[i]) * E(q[j]), j, n), i, j, n),
            [IndependentComponents(q)],
        ),
    ),
    (
        "Σₜ E[X] = Σₜ t from E[X] = t: a fact about the free t read where t is bound",
        lambda mp: mp.setattr(assumptions_module.Context, "visible", lambda self, scope: self),
        lambda: one(R.substitute_moment, IndexSum(E(X), t, n), IndexSum(t, t, n), [Mean(X, t)]),
    ),
    (
        "Σᵢ i · Σⱼ i = Σᵢ Σⱼ i·i by sum_mul_sum: the free i captured (no rename_away)",
        lambda mp: mp.setattr(R, "rename_away", lambda b, avoid: b),
        lambda: one(
            R.sum_mul_sum,
            IndexSum(i, i, n) * IndexSum(i, j, n),
            IndexSum(IndexSum(i * i, j, n), i, n),
        ),
    ),
    (
        "E[X] + 1 = 1 by a proved theorem E[X] = E[X] copied as E[X] = 0 (dataclasses.replace)",
        lambda mp: mp.setattr(theorem_module, "_resolve", _resolve_any_theorem),
        lambda: one(_forged_theorem(), E(X) + 1, S.One),
    ),
    (
        "E[q_i q_j] = E[q_i]E[q_j] under Σᵢ Σⱼ: indices taken apart without i ≠ j",
        lambda mp: mp.setattr(R, "_provably_distinct", lambda a, b, scope: True),
        lambda: one(
            R.expectation_mul_of_indep,
            IndexSum(IndexSum(E(q[i] * q[j]), j, n), i, n),
            IndexSum(IndexSum(E(q[i]) * E(q[j]), j, n), i, n),
            [IndependentComponents(q)],
        ),
    ),
    (
        "Var(X) = E[X²] by a user's own Rule named variance_def (the frozen table)",
        lambda mp: mp.setattr(theorem_module, "is_registered", lambda rule: True),
        lambda: one(Rule("variance_def", "false", _forget_mean), Var(X), E(X**2)),
    ),
    (
        "E[XY] = E[X]E[Y] under a user's Independence subclass (every atom its own block)",
        lambda mp: mp.setattr(assumptions_module, "kernel_class", lambda cls: True),
        lambda: one(R.expectation_mul_of_indep, E(X * Y), E(X) * E(Y), [_EveryAtomAlone()]),
    ),
    (
        "x·(1/x + 1) = 1 ⇔ x = 0 by ring: a claim undefined at its root (definedness)",
        lambda mp: mp.setattr(theorem_module, "unclaimable", lambda *a, **k: None),
        lambda: one(R.ring, Eq(x * (1 / x + 1), 1), Eq(x, 0), iff=True),
    ),
    (
        "Σ_{i≠j} c = n²·c: the cross sum counted with its diagonal",
        lambda mp: mp.setitem(
            R.count_terms.__dict__,
            "local",
            lambda e, ctx, s: (
                (e.upper**2 * e.body, frozenset())
                if isinstance(e, CrossSum) and not set(e.indices) & e.body.free_symbols
                else None
            ),
        ),
        lambda: one(R.count_terms, CrossSum(x, i, j, n), n**2 * x),
    ),
    (
        "Cov(X, Y) = E[XY] with the product of means dropped",
        lambda mp: mp.setitem(
            R.covariance_def.__dict__,
            "local",
            lambda e, ctx, s: (
                (E(e.args[0] * e.args[1]), frozenset()) if type(e).__name__ == "Cov" else None
            ),
        ),
        lambda: one(R.covariance_def, expr_module.Cov(X, Y), E(X * Y)),
    ),
    (
        "c² = d ⇔ c = √d: the negative root dropped without c > 0",
        lambda mp: mp.setitem(
            R.square_roots.__dict__,
            "local",
            lambda p, ctx, s: (
                (Eq(p.lhs.base, sqrt(p.rhs), evaluate=False), frozenset())
                if isinstance(p, Eq)
                else None
            ),
        ),
        lambda: one(R.square_roots, Eq(x**2, m), Eq(x, sqrt(m)), iff=True),
    ),
    (
        "c = √d excluded by sign as if √d < 0 (c > 0 declared)",
        lambda mp: mp.setattr(R, "provably_negative", lambda e, ctx: (True, frozenset())),
        lambda: one(
            R.exclude_by_sign,
            Or(Eq(x, sqrt(m)), Eq(x, -sqrt(m))),
            Eq(x, -sqrt(m)),
            [assumptions_module.Positive(x)],
            iff=True,
        ),
    ),
    (
        "the bound-index escape: E[Σᵢ qᵢ] = i declared, so E[Σᵢ qᵢ] = i",
        lambda mp: mp.setattr(assumptions_module, "bound_symbols", lambda e: set()),
        lambda: one(
            R.substitute_moment, E(IndexSum(q[i], i, n)), i, [Moment(E(IndexSum(q[i], i, n)), i)]
        ),
    ),
]


@pytest.mark.parametrize(
    ("hole", "mutant", "build"), MUTANTS, ids=[str(k) for k in range(len(MUTANTS))]
)
def test_the_checker_refuses_what_a_mutated_kernel_accepts(
    monkeypatch: pytest.MonkeyPatch, hole: str, mutant: Any, build: Any
) -> None:
    _fresh_caches(monkeypatch)
    mutant(monkeypatch)
    result = audit(build())
    assert result.verified, f"the mutant does not re-open the hole: {result.errors[0]}"
    try:
        cert = certificate(result)
    except CannotCertify:
        return
    verdict = check_certificate(cert)
    assert not verdict.ok, hole
    print(f"{hole}\n    refused: {verdict.refusal}")


def test_at_least_ten_holes_and_the_bound_index_escape_are_reopened() -> None:
    assert len(MUTANTS) >= 11
    assert any("escape" in hole for hole, _, _ in MUTANTS)
