"""Why the kernel refused a step: the report of a refusal, and the hints behind it.

Outside the trusted kernel: these functions run only after a step has been refused
(:func:`install` registers ``report_refusal`` in ``scaledattn.kernel.theorem.REPORTS``) and choose
how the refusal is explained, never whether the step passes. A hint names the
assumption whose absence explains the refusal (``MissingAssumption``): an independence
that would factor the expectation, a sign a rule needs, a moment that is not declared.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import sympy
from sympy import Expr

from scaledattn.errors import CannotDecide, MissingAssumption, ProofError, StepMismatch
from scaledattn.kernel import expr, theorem
from scaledattn.kernel.assumptions import (
    Assumption,
    Context,
    Independence,
    Independent,
    Moment,
    Positive,
)
from scaledattn.kernel.binders import Scope, subst
from scaledattn.kernel.expr import (
    MOMENT_OPERATORS,
    SUMS,
    Component,
    Dot,
    E,
    OpaqueTerm,
    Var,
    normal_form,
    rebuild,
)
from scaledattn.kernel.theorem import _equal, _show

__all__ = ["install", "missing_assumption", "nonzero_somewhere", "report_refusal"]


def _opaque(e: Expr, found: dict[Expr, None]) -> None:
    if isinstance(e, (*MOMENT_OPERATORS, *SUMS, Dot, Component, OpaqueTerm)) or e.is_Symbol:
        found[e] = None
        return
    for a in e.args:
        _opaque(a, found)


def _sample_points() -> Iterator[Callable[[int], sympy.Rational]]:
    yield lambda n: sympy.Rational(sympy.prime(n + 5), sympy.prime(n + 3))
    yield lambda n: sympy.Rational(sympy.prime(2 * n + 7), 7 + n)


def nonzero_somewhere(diff: Expr) -> bool:
    """Whether ``diff`` is non-zero at a rational point (a refused step is then a mismatch).

    Every opaque part (E[..], sums, symbols) is replaced by the same number on both sides.
    """
    atoms: dict[Expr, None] = {}
    _opaque(diff, atoms)
    for point in _sample_points():
        values = {atom: point(n) for n, atom in enumerate(atoms)}
        number = diff.xreplace(values).evalf(40)
        if number.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo) or not number.is_number:
            continue  # undefined at this point (a division by zero): no verdict from it
        if number.is_real is False or abs(number) > 1e-25:
            return True
    return False


class _AllIndependent(Independence):
    """Hypothetical context used only to explain a rejection: everything independent."""

    def block_key(self, atom: Expr) -> Any:
        return (atom, None)


SIGN_RULES = ("exclude_by_sign", "clear_denominator", "variance_const_mul")


def _sign_relevant(name: str, prev: Any) -> set[Any]:
    """The symbols whose sign a sign rule needs: denominators, or the unknown of a root."""
    if name == "exclude_by_sign":
        parts = prev.args if isinstance(prev, sympy.Or) else (prev,)
        return {p.lhs for p in parts if isinstance(p, sympy.Equality)}
    if name == "clear_denominator" and isinstance(prev, sympy.Equality):
        return set(sympy.fraction(sympy.together(prev.lhs - prev.rhs))[1].free_symbols)
    found: set[Any] = set()
    for v in sympy.preorder_traversal(prev):
        if isinstance(v, Var):
            for f in sympy.Mul.make_args(v.args[0]):
                if f.is_Pow and f.exp.is_negative:
                    found |= f.base.free_symbols
    return found


def missing_assumption(prev: Any, claim: Any, rule: Any, ctx: Context) -> str:
    """Name the assumption whose absence explains a failed step, if one does."""
    name = getattr(rule, "name", "")
    if name == "expectation_mul_of_indep":
        hypothetical = Context((*ctx.assumptions, _AllIndependent()))
        derived, _ = rule.apply(prev, hypothetical)
        if _equal("calc", derived, claim) is True:
            pairs = sorted(
                {
                    _show(e.args[0])
                    for e in sympy.preorder_traversal(rebuild(prev))
                    if isinstance(e, E)
                }
            )
            return "an independence assumption covering the factors of " + ", ".join(
                f"E[{p}]" for p in pairs if "*" in p
            )
    # Whether the rule changes nothing: asked only for the rules whose hints need it (it
    # applies the rule again; issue 13: a third of the cost of a refused step).
    unchanged = name in (*SIGN_RULES, "substitute_moment") and _equal(
        "calc" if isinstance(prev, Expr) else "iff", rule.apply(prev, ctx)[0], prev
    )
    if name in SIGN_RULES and unchanged:
        declared = {p.symbol for p in ctx.positives()}
        lacking = sorted(
            str(s)
            for s in _sign_relevant(name, rebuild(prev))
            if type(s) is sympy.Symbol and s.is_positive is not True and s not in declared
        )
        if lacking:
            return ", ".join(f"{s} > 0" for s in lacking)
    if name == "substitute_moment" and unchanged:
        return "a declared moment for the term(s) the claim replaces (none declared fits)"
    obligations = getattr(rule, "obligations", None)
    if obligations is not None:  # an instance of a theorem: its assumptions in the claim's terms
        sigma = dict(rule.mapping)
        lacking_i = [
            instantiated(need, sigma) for need, holds in obligations if holds(ctx, Scope()) is None
        ]
        if lacking_i:
            return ", ".join(lacking_i) + f" (assumptions of {rule.name})"
        return ""
    if isinstance(getattr(rule, "used", None), frozenset):  # a theorem used as a rule
        lacking_t = [str(a) for a in rule.used if not ctx.entails(a)]
        if lacking_t:
            return ", ".join(lacking_t) + f" (assumptions of {rule.name})"
    return ""


def instantiated(a: Any, sigma: dict[Any, Any]) -> str:
    """σ(a), an instance's assumption in the user's terms: Independent(a*X, b*Z), σ(c) > 0."""
    if isinstance(a, sympy.Symbol) and not isinstance(a, Assumption):
        return f"{sympy.sstr(sigma[a])} > 0"
    if isinstance(a, Independent):
        return f"Independent({', '.join(sympy.sstr(sigma.get(u, u)) for u in a.units)})"
    if isinstance(a, Moment):
        return f"{sympy.sstr(subst(a.lhs, sigma))} = {sympy.sstr(subst(a.value, sigma))}"
    if isinstance(a, Positive):
        return f"{sympy.sstr(sigma.get(a.symbol, a.symbol))} > 0"
    return str(a)


def report_refusal(prev: Any, rule: Any, undecided: bool, fields: dict[str, Any]) -> ProofError:
    """The error of a refused step: what is claimed, what the rule gives, how they differ.

    ``MissingAssumption`` when a hint names an assumption whose absence explains it,
    ``CannotDecide`` when SymPy could not tell the two apart, else ``StepMismatch``.
    """
    claim, derived, ctx = fields["got"], fields["expected"], fields["context"]
    lines = f"  claimed:    {_show(claim)}\n  rule gives: {_show(derived)}"
    try:
        missing = missing_assumption(prev, claim, rule, ctx)
    except Exception:  # an explanation that fails explains nothing
        missing = ""
    if missing:
        text = f"  needs:      {missing}\n  in scope:   {ctx}\n{lines}"
        return MissingAssumption(text, missing=missing, **fields)
    if isinstance(derived, Expr) and isinstance(claim, Expr):
        with sympy.evaluate(True):
            diff = sympy.expand(normal_form(claim) - normal_form(derived))
        lines += f"\n  differs by: {_show(diff)}"
    if undecided:
        lines += "\n  SymPy could not decide whether these are equal; the step is refused."
        return CannotDecide(lines, **fields)
    return StepMismatch(lines, **fields)


def install() -> None:
    """Register the report of a refusal and the non-zero test with the kernel (once).

    Called by :mod:`scaledattn.derive`, where derivations are written and checked.
    """
    if report_refusal not in theorem.REPORTS:
        theorem.REPORTS.append(report_refusal)
    if nonzero_somewhere not in expr.NONZERO_TESTS:
        expr.NONZERO_TESTS.append(nonzero_somewhere)
