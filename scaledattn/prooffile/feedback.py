"""Feedback on a rejected step: what the rule gives, the difference, a model, the likely cause.

- *What the rule gives*: the kernel's result of the named rule (or, for a step
  written without ``by``, of the rule whose result comes closest to the claim).
- *The difference*: claim − result, in the kernel's normal form.
- *A model*: concrete laws for the random variables and values for the constants,
  checked against every declared assumption, on which the two sides of the step are
  different numbers, computed exactly (:func:`scaledattn.automation.counterexample.counterexample`).
- *The likely cause*: a hint, never a verdict (the verdict is the kernel's): an
  assumption whose absence the kernel names, or whose addition lets the search
  justify the step; cross terms left out; a count of terms that is off; a constant
  taken out of Var(·) without squaring it; dividing by d_k where √d_k gives variance 1.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import sympy
from sympy import Expr, Symbol
from sympy.logic.boolalg import Boolean

from scaledattn.automation.rewrite import key
from scaledattn.errors import MissingAssumption
from scaledattn.kernel import (
    CrossSum,
    Derivation,
    Equation,
    Independent,
    IndependentComponents,
    Positive,
    RandomVariable,
    RandomVector,
    Step,
    StepResult,
)
from scaledattn.kernel.assumptions import Independence
from scaledattn.kernel.expr import (
    Component,
    Cov,
    Dot,
    E,
    OpaqueTerm,
    Var,
    normal_form,
    rebuild,
)
from scaledattn.prooffile.caps import MAX_MODEL_DIMENSION, dimensions
from scaledattn.prooffile.instances import independence_hint
from scaledattn.prooffile.search import chain_of
from scaledattn.render.diagnose import (
    cross_term_words,
    forgotten_default,
    negative_variance,
    simplest,
    sum_for_product,
)
from scaledattn.render.proof import proof_term

if TYPE_CHECKING:  # the model search (numpy and the numeric package) loads on a rejection
    from scaledattn.automation.counterexample import Counterexample

__all__ = ["Feedback", "feedback", "likely_cause", "model_bound"]

D_K = Symbol("d_k", integer=True, positive=True)


@dataclass(frozen=True)
class Feedback:
    """Why a step was rejected, in words and numbers."""

    rule: str
    gives: str
    difference: str
    model: Counterexample | None
    cause: str
    error: str
    values: str = ""
    #: Why no model was searched for (a dimension above the search's bound), if so.
    no_model: str = ""
    #: Why the step was not searched at all (the file's search budget spent), if so.
    skipped: str = ""

    def as_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "rule": self.rule,
            "rule_gives": self.gives,
            "difference": self.difference,
            "model": self.model.as_json() if self.model else None,
            "likely_cause": self.cause,
            "values": self.values,
            **({"no_model": self.no_model} if self.no_model else {}),
            **({"not_searched": self.skipped} if self.skipped else {}),
        }


def _show(expr: Any) -> str:
    try:
        return proof_term(expr)
    except Exception:  # display only
        return str(expr)


def _difference(claim: Any, derived: Any) -> Expr | None:
    if isinstance(claim, Boolean) or isinstance(derived, Boolean) or derived is None:
        return None
    if sympy.expand(normal_form(claim) - normal_form(derived)) == 0:
        return sympy.S.Zero
    return sympy.expand(rebuild(claim) - rebuild(derived))


def model_bound(prev: Any, claim: Any, derivation: Derivation) -> str:
    """Why no model is searched for this step (a dimension above the bound), or ''.

    A model draws every component of a vector, and the evaluator sums every term of a
    sum: a dimension above :data:`~scaledattn.prooffile.caps.MAX_MODEL_DIMENSION` would
    take minutes, so the search gives up at once and says so.
    """
    terms: list[Any] = [prev, claim]
    for a in derivation.assumptions:
        terms += [v for v in vars(a).values() if isinstance(v, sympy.Basic)]
    found = [n for t in terms if isinstance(t, sympy.Basic) for n in dimensions(t)]
    largest = max(found, default=0)
    if largest <= MAX_MODEL_DIMENSION:
        return ""
    return (
        f"no model searched: the dimension {largest} is above {MAX_MODEL_DIMENSION},"
        " the model search's limit"
    )


def _model(prev: Any, claim: Any, derivation: Derivation) -> Counterexample | None:
    from scaledattn.automation.counterexample import counterexample

    if isinstance(prev, Boolean) or isinstance(claim, Boolean):
        return None
    try:
        found = counterexample(rebuild(prev), rebuild(claim), derivation.assumptions)
    except Exception:  # the oracle knows only some terms; no model then
        found = None
    return found if found is not None else _model_with_sums(prev, claim, derivation)


def _model_with_sums(prev: Any, claim: Any, derivation: Derivation) -> Counterexample | None:
    """A model from the numeric witnesses' settings (sums over their bound indices kept)."""
    from scaledattn.automation.counterexample import LAWS, Counterexample
    from scaledattn.numeric.evaluate import Evaluator, equal, show
    from scaledattn.numeric.evidence import check_assumptions
    from scaledattn.numeric.model import build_model, signature
    from scaledattn.numeric.settings import default_settings

    assumptions = derivation.assumptions
    if not (_random_units(prev)[0] or _random_units(prev)[1] or _has_moments(rebuild(prev))):
        assumptions = tuple(a for a in assumptions if isinstance(a, Positive))
    step = Derivation("step", Equation(prev, claim), (Step("ring", claim),), assumptions)
    try:
        sig = signature(step)
        settings = default_settings(step)
    except Exception:  # no setting for these terms: no model
        return None
    constants = [dict.fromkeys(sig.constants, value) for value in (2, 3, 5)]
    if not sig.units():  # numbers only: small values of the constants
        settings = constants
    else:  # then every unit drawn from each of a few small laws
        settings += [{**constants[0], **dict.fromkeys(sig.units(), law)} for law in LAWS]
    for data in settings:
        try:
            model = build_model(sig, data)
            ev = Evaluator(model)
            if check_assumptions(step, model, ev):
                continue
            left, right = ev.value(rebuild(prev)), ev.value(rebuild(claim))
        except Exception:  # this setting cannot evaluate the terms; try the next
            continue
        if not equal(left, right):
            return Counterexample(model.describe(), show(left), show(right), data)
    return None


def feedback(
    prev: Any,
    claim: Any,
    result: StepResult,
    derivation: Derivation,
    search: Any,
    named: bool = True,
) -> Feedback:
    """The feedback on a step the kernel rejected (``result``; ``named``: by a written rule)."""
    derived = result.derived
    diff = _difference(claim, derived)
    boolean = isinstance(prev, Boolean) or isinstance(claim, Boolean)
    no_model = "" if boolean else model_bound(prev, claim, derivation)
    model = None if no_model else _model(prev, claim, derivation)
    cause = likely_cause(prev, claim, result, derivation, search, model is not None)
    error = str(result.error.message).strip() if result.error is not None else ""
    values = ""
    if not isinstance(claim, Boolean):
        truth, written = _closed(prev, derivation), _closed(claim, derivation)
        closed = not any(_has_moments(x) or _opaque(x) for x in (truth, written))
        if closed and key(truth) != key(written):
            values = (
                f"the previous expression comes to {_show(truth)}, the claim to {_show(written)}"
            )
            if not named:  # no rule was named: the difference of the values says more
                diff = sympy.expand(rebuild(written) - rebuild(truth))
    return Feedback(
        rule=result.rule_name,
        gives=_show(derived) if derived is not None else "",
        difference=_show(simplest(diff)) if diff is not None else "",
        model=model,
        cause=cause,
        error=error,
        values=values,
        no_model=no_model,
    )


# ------------------------------------------------------------------- causes


def _random_units(expr: Any) -> tuple[list[RandomVariable], list[str]]:
    scalars: dict[RandomVariable, None] = {}
    vectors: dict[str, None] = {}
    for node in sympy.preorder_traversal(rebuild(expr)):
        if isinstance(node, RandomVariable):
            scalars.setdefault(node, None)
        elif isinstance(node, Component):
            vectors.setdefault(node.label.name, None)
        elif isinstance(node, Dot):
            vectors.setdefault(node.args[0].name, None)
            vectors.setdefault(node.args[1].name, None)
    return list(scalars), list(vectors)


def _independence_hint(prev: Any, claim: Any, derivation: Derivation, search: Any) -> str:
    """An independence whose declaration lets the search justify the step, if one does."""
    scalars, vectors = _random_units(prev)
    declared = [a for a in derivation.assumptions if isinstance(a, Independence)]
    trials: list[tuple[str, Any]] = []
    for a, b in itertools.combinations(scalars, 2):
        if not any(x.block_key(a) and x.block_key(b) for x in declared):
            trials.append((f"independent({a}, {b})", Independent(a, b)))
    if vectors and not declared:
        labels = ", ".join(vectors)
        d = D_K
        trials.append(
            (
                f"independent({labels})",
                IndependentComponents(*(RandomVector(v, d) for v in vectors)),
            )
        )
    for text, assumption in trials:
        richer = replace(derivation, assumptions=(*derivation.assumptions, assumption))
        trial = type(search)(richer, search.theorems, seconds=0.5)
        if trial.one_rule(prev, claim, 0) is not None or trial.bridge(prev, claim, 0):
            return f"a missing assumption: the step holds when {text} is declared (assume: {text})"
    return ""


def _closed(expr: Any, derivation: Derivation) -> Any:
    """``expr`` rewritten as far as the claims automation goes (for comparing values)."""
    try:
        return chain_of(expr, derivation.assumptions).end
    except Exception:  # untrusted automation: fall back to the expression
        return expr


def _has_cross(expr: Expr) -> bool:
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, (Cov, CrossSum)):
            return True
        if isinstance(node, E):
            atoms = {
                a for a in sympy.preorder_traversal(node.args[0])
                if isinstance(a, (RandomVariable, Component))
            }  # fmt: skip
            if len(atoms) > 1:
                return True
    return False


def _divides_by_dimension(expr: Any) -> bool:
    for node in sympy.preorder_traversal(rebuild(expr)):
        if isinstance(node, Var):
            const = sympy.Mul(*(f for f in sympy.Mul.make_args(node.args[0]) if not f.atoms(Dot)))
            if const.has(D_K) and sympy.fraction(const)[1].has(D_K):
                return sympy.sqrt(D_K) not in const.atoms(sympy.Pow)
    return False


def _scaled_variance(prev: Any) -> Expr | None:
    for node in sympy.preorder_traversal(rebuild(prev)):
        if isinstance(node, Var):
            factors = sympy.Mul.make_args(node.args[0])
            const = sympy.Mul(*(f for f in factors if not _random(f)))
            if const != 1:
                return const
    return None


def _random(expr: Any) -> bool:
    return any(
        isinstance(n, (RandomVariable, Component, Dot)) for n in sympy.preorder_traversal(expr)
    )


def likely_cause(
    prev: Any,
    claim: Any,
    result: StepResult,
    derivation: Derivation,
    search: Any,
    refuted: bool,
) -> str:
    """A hint at what went wrong in a rejected step (empty when none is recognised)."""
    error = result.error
    if isinstance(error, MissingAssumption) and error.missing:
        declare = independence_hint(result.step.rule)
        return f"a missing assumption: {error.missing}" + (f"; {declare}" if declare else "")
    if isinstance(claim, Boolean):
        return ""
    truth, written = _closed(prev, derivation), _closed(claim, derivation)
    # The kinds of mistake of render.diagnose, the most telling first.
    derived = result.derived
    as_ruled = (
        cross_term_words(rebuild(derived), rebuild(claim))
        if isinstance(derived, Expr) and not isinstance(derived, Boolean)
        else ""
    )
    crossed = as_ruled or cross_term_words(truth, written)
    for found in (
        negative_variance(rebuild(prev), written),
        sum_for_product(rebuild(prev), rebuild(claim)),
        crossed if crossed.startswith("a doubled") else "",  # before: independence hides it
    ):
        if found:
            return found
    if refuted:
        hint = _independence_hint(prev, claim, derivation, search)
        if hint:
            return hint
    scale = _scaled_variance(prev)
    derived = result.derived
    if scale is not None and derived is not None and not isinstance(derived, Boolean):
        ratio = sympy.simplify(normal_form(derived) / normal_form(claim))
        if (ratio != 1 and sympy.simplify(ratio - scale**-1) == 0) or ratio == scale:
            return (
                f"a variance not squared when scaling: Var(a·Z) = a²·Var(Z), so the factor"
                f" {_show(scale)} comes out of Var squared, as ({_show(scale)})**2"
            )
    if key(truth) == key(written):
        return ""
    if crossed:
        return crossed
    forgot = forgotten_default(truth, written, derivation.assumptions)
    if forgot:
        return forgot
    try:
        gap = sympy.factor(sympy.expand(normal_form(written) - normal_form(truth)))
    except Exception:  # display only
        return ""
    if _divides_by_dimension(prev) or (_divides_by_dimension(derivation.statement.lhs)):
        ratio = sympy.simplify(normal_form(written) / normal_form(truth))
        if ratio.has(D_K):
            return (
                f"c = d_k: dividing by d_k leaves the variance {_show(truth)}, off by a factor"
                f" {_show(ratio)}; the scale that gives variance 1 is c = sqrt(d_k)"
            )
    missing = sympy.expand(normal_form(truth) - normal_form(written))
    if _has_cross(missing):
        return f"a dropped cross term: the step leaves out {_show(missing)}"
    if gap.has(D_K) and not _has_moments(gap):
        if (D_K - 1) in sympy.Mul.make_args(gap) or (1 - D_K) in sympy.Mul.make_args(gap):
            return (
                f"a dropped cross term: the d_k(d_k - 1) terms with i ≠ j are missing"
                f" ({_show(-gap)})"
            )
        if sympy.simplify(gap / D_K).has(D_K) is False:
            return (
                f"a wrong count: the sums are counted {_show(gap)} off; Σᵢ has d_k terms"
                " and Σ over i ≠ j has d_k(d_k - 1), not d_k²"
            )
    return ""


def _opaque(expr: Expr) -> bool:
    """True when ``expr`` holds a term numbers cannot be read from (softmax, ∂, lim)."""
    return any(isinstance(n, OpaqueTerm) for n in sympy.preorder_traversal(expr))


def _has_moments(expr: Expr) -> bool:
    return any(isinstance(n, (E, Var, Cov)) for n in sympy.preorder_traversal(expr))
