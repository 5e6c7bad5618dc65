"""A rejection in words: what the rule did, and where the claim departs from it.

The kernel refuses a step with the facts (the rule, what it gives, what was claimed);
this module, outside the kernel and trusted for nothing, reads those facts and says
what a learner needs next:

- when the rule changed nothing, it says so, with the rule's own FAILURE text, and
  names the registered rules that do change the previous expression;
- when the claim is close to what the rule gives, it names the difference in words:
  a missing or extra cross term (a product of two different random quantities), a
  count of terms (``d_k²`` against ``d_k(d_k − 1)``), a coefficient, a sign.

Examples
--------
>>> from scaledattn.kernel import E, Var, random_variables
>>> from scaledattn.kernel.rules import variance_def
>>> from scaledattn.derive import calc, audit_of
>>> X, Y = random_variables("X Y")
>>> d = calc("t", Var(X + Y), Var(X)).eq(E(X**2) - E(X)**2, by=variance_def).qed()
>>> step = audit_of(d).steps[0]
>>> diagnosis(step.error, Var(X + Y))[0]
'the claim differs from what variance_def gives: ...'
"""

from __future__ import annotations

from typing import Any

import sympy
from sympy import Expr

from scaledattn.errors import MissingAssumption, ProofError, UnknownRule
from scaledattn.kernel import RULES, Context
from scaledattn.kernel.expr import MOMENT_OPERATORS, E, Std, Var, is_random, normal_form, same

__all__ = [
    "MAX_TERMS_SHOWN",
    "applicable_rules",
    "cross_term_words",
    "diagnosis",
    "forgotten_default",
    "negative_variance",
    "simplest",
    "sum_for_product",
]

#: At most this many terms are quoted in one sentence.
MAX_TERMS_SHOWN = 2


def diagnosis(err: ProofError, previous: Any) -> list[str]:
    """Sentences that explain the rejection ``err`` of a step taken from ``previous``."""
    if isinstance(err, (MissingAssumption, UnknownRule)) or err.rule not in RULES:
        return []
    if previous is None or err.expected is None or err.got is None:
        return []
    if not (isinstance(previous, Expr) and isinstance(err.expected, Expr)):
        return []
    ctx = err.context if isinstance(err.context, Context) else Context(())
    try:
        if same(err.expected, previous) is True:
            return _unchanged(err.rule, previous, ctx)
        if isinstance(err.got, Expr):
            words = difference_words(err.got, err.expected)
            if words:
                return [f"the claim differs from what {err.rule} gives: {words}"]
    except (TypeError, ValueError, ArithmeticError, AttributeError):
        return []
    return []


def _unchanged(name: str, previous: Expr, ctx: Context) -> list[str]:
    from scaledattn.rulebook import RULEBOOK

    doc = RULEBOOK.get(name)
    fails = doc.fails if doc else ""
    said = f"{name} changed nothing here"
    if fails:
        said += f" ({fails[0].lower()}{fails[1:].rstrip('.')})"
    lines = [said]
    others = applicable_rules(previous, ctx)
    if others:
        lines.append("rules that do change the previous expression: " + ", ".join(others))
    else:
        lines.append("no registered rule changes the previous expression; try ring")
    return lines


def applicable_rules(previous: Expr, ctx: Context) -> list[str]:
    """The registered rules (ring aside) that change ``previous`` under ``ctx``."""
    found = []
    for name, rule in RULES.items():
        if name == "ring" or rule.on_propositions:
            continue
        try:
            derived, _ = rule.apply(previous, ctx)
        except Exception:
            continue
        if same(derived, previous) is not True:
            found.append(name)
    return found


def _terms(expr: Expr) -> list[Expr]:
    return list(sympy.Add.make_args(normal_form(expr)))


def _constant(term: Expr) -> bool:
    return not (is_random(term) or term.atoms(*MOMENT_OPERATORS))


def _split(term: Expr) -> tuple[Expr, Expr]:
    """(count, the rest) of a product: the count is the factors in numbers and integers."""
    count, rest = sympy.S.One, sympy.S.One
    for factor in sympy.Mul.make_args(term):
        if _constant(factor) and all(s.is_integer for s in factor.free_symbols):
            count *= factor
        else:
            rest *= factor
    return count, rest


def _cross(term: Expr) -> bool:
    """A product of two different random quantities: E[X·Y], E[X]·E[Y], Cov(X, Y)."""
    randoms = set()
    for atom in term.atoms(*MOMENT_OPERATORS):
        for part in sympy.Mul.make_args(atom.args[0]):
            base = part.as_base_exp()[0]
            if is_random(base):
                randoms.add(base)
        if len(atom.args) > 1:
            randoms.add(atom.args[1])
    return len(randoms) >= 2


def _show(terms: list[Expr]) -> str:
    shown = str(sympy.sstr(sympy.Add(*terms[:MAX_TERMS_SHOWN])))
    return shown + (" + …" if len(terms) > MAX_TERMS_SHOWN else "")


def difference_words(got: Expr, expected: Expr) -> str:
    """The difference between a claim and what the rule gives, in words ('' if none fits).

    >>> from scaledattn.kernel import E, random_variables
    >>> X, Y = random_variables("X Y")
    >>> difference_words(E(X**2) + E(Y**2), E(X**2) + E(Y**2) + 2*E(X)*E(Y))
    'the cross term 2*E(X)*E(Y) is missing'
    >>> d = sympy.Symbol("d_k", positive=True, integer=True)
    >>> difference_words(d**2 * E(X), d * (d - 1) * E(X))
    'the count of terms is d_k**2, the rule gives d_k*(d_k - 1)'
    """
    got_n, expected_n = normal_form(got), normal_form(expected)
    if sympy.expand(got_n + expected_n) == 0:
        return "the sign is the opposite of what the rule gives"
    got_terms, expected_terms = _terms(got), _terms(expected)
    missing = [t for t in expected_terms if t not in got_terms]
    extra = [t for t in got_terms if t not in expected_terms]
    if missing and not extra and all(_cross(t) for t in missing):
        noun = "term" if len(missing) == 1 else "terms"
        verb = "is" if len(missing) == 1 else "are"
        return f"the cross {noun} {_show(missing)} {verb} missing"
    if extra and not missing and all(_cross(t) for t in extra):
        noun = "term" if len(extra) == 1 else "terms"
        return f"the claim has the cross {noun} {_show(extra)}, which the rule does not give"
    a, rest_a = _split(sympy.factor(got_n))
    b, rest_b = _split(sympy.factor(expected_n))
    if sympy.expand(rest_a - rest_b) == 0 and sympy.expand(a - b) != 0:
        a, b = sympy.factor(a), sympy.factor(b)
        if a.free_symbols or b.free_symbols:
            return f"the count of terms is {sympy.sstr(a)}, the rule gives {sympy.sstr(b)}"
        return f"the coefficient is {sympy.sstr(a)}, the rule gives {sympy.sstr(b)}"
    if missing and extra and len(missing) + len(extra) <= 2 * MAX_TERMS_SHOWN:
        return f"the claim has {_show(extra)} where the rule gives {_show(missing)}"
    if missing and not extra:
        return f"the claim lacks {_show(missing)}"
    if extra and not missing:
        return f"the claim adds {_show(extra)}"
    return ""


# ------------------------------------------------------- the kinds of mistake


def simplest(expr: Any) -> Any:
    """``expr`` in the shortest of its expanded, factored and cancelled forms (for printing).

    >>> d = sympy.Symbol("d_k", positive=True, integer=True)
    >>> simplest(d**2 - d * (d - 1))
    d_k
    >>> simplest(d * (d - 1) + d * (d + 1))
    2*d_k**2
    """
    if not isinstance(expr, Expr) or sympy.count_ops(expr) > 200:
        return expr
    forms = [expr]
    for fn in (sympy.expand, sympy.factor, sympy.cancel):
        try:
            forms.append(fn(expr))
        except (TypeError, ValueError, ArithmeticError, AttributeError):
            continue
    return min(forms, key=lambda f: (len(sympy.sstr(f)), sympy.count_ops(f)))


def negative_variance(previous: Any, written: Any) -> str:
    """'a variance claimed negative' when ``previous`` is a variance and ``written`` < 0.

    >>> from scaledattn.kernel import Var, random_variables
    >>> X, = random_variables("X")
    >>> negative_variance(Var(X), sympy.Rational(-7, 9))
    'a variance claimed negative: Var(X) ≥ 0 always (a mean of squares), but the claim gives -7/9'
    """
    if not isinstance(previous, (Var, Std)) or not isinstance(written, Expr):
        return ""
    if written.is_number and written.is_negative:
        what = "a variance" if isinstance(previous, Var) else "a standard deviation"
        return (
            f"{what} claimed negative: {sympy.sstr(previous)} ≥ 0 always (a mean of squares),"
            f" but the claim gives {sympy.sstr(written)}"
        )
    return ""


def _random_factors(term: Expr) -> list[Expr]:
    return [f for f in sympy.Mul.make_args(term) if is_random(f)]


def sum_for_product(previous: Any, claim: Any) -> str:
    """'a sum where a product belongs' when the claim writes op(a·b) as op(a) + op(b).

    Var(qᵢkᵢ) of independent factors of mean 0 is Var(qᵢ)·Var(kᵢ), and E[XY] of
    independent X, Y is E[X]·E[Y]; the sum of the two is the rule for a sum of
    independent terms, used on a product.

    >>> from scaledattn.kernel import Var, random_variables
    >>> X, Y = random_variables("X Y")
    >>> sum_for_product(Var(X * Y), Var(X) + Var(Y))  # doctest: +ELLIPSIS
    'a sum where a product belongs: Var(X*Y) of independent factors is ...'
    """
    if not isinstance(previous, Expr) or not isinstance(claim, Expr):
        return ""
    target = normal_form(claim)
    for node in sympy.preorder_traversal(previous):
        if not isinstance(node, (E, Var)):
            continue
        factors = _random_factors(node.args[0])
        if len(factors) < 2 or sympy.Mul(*factors) != node.args[0]:
            continue
        op = type(node)
        summed = previous.xreplace({node: sympy.Add(*(op(f) for f in factors))})
        if sympy.expand(normal_form(summed) - target) == 0:
            product = "·".join(sympy.sstr(op(f)) for f in factors)
            extra = " when their means are 0" if op is Var else ""
            return (
                f"a sum where a product belongs: {sympy.sstr(node)} of independent factors is"
                f" the product {product}{extra}, not the sum (a sum of variances is the"
                " variance of a sum of independent terms)"
            )
    return ""


def _cross_part(expr: Expr) -> Expr:
    return sympy.Add(*(t for t in sympy.Add.make_args(sympy.expand(expr)) if _cross(t)))


def cross_term_words(truth: Any, written: Any) -> str:
    """'a dropped cross term' or 'a doubled cross term', from the cross terms of both sides.

    >>> from scaledattn.kernel import Cov, Var, random_variables
    >>> X, Y = random_variables("X Y")
    >>> truth = Var(X) + Var(Y) + 2 * Cov(X, Y)
    >>> cross_term_words(truth, Var(X) + Var(Y))
    'a dropped cross term: the step leaves out 2*Cov(X, Y)'
    >>> cross_term_words(truth, Var(X) + Var(Y) + 4 * Cov(X, Y))
    'a doubled cross term: the step counts 2*Cov(X, Y) twice (4*Cov(X, Y))'
    """
    if not isinstance(truth, Expr) or not isinstance(written, Expr):
        return ""
    ct, cw = _cross_part(normal_form(truth)), _cross_part(normal_form(written))
    if ct == 0 or sympy.expand(ct - cw) == 0:
        return ""
    if sympy.expand(cw - 2 * ct) == 0:
        return f"a doubled cross term: the step counts {sympy.sstr(ct)} twice ({sympy.sstr(cw)})"
    if cw == 0:
        return f"a dropped cross term: the step leaves out {sympy.sstr(ct)}"
    return ""


#: The moments' constants a learner writes for a law the defaults do not have.
_SCALE_NAMES = ("sigma", "sigma_q", "sigma_k", "mu", "mu_q", "mu_k", "rho")


def forgotten_default(truth: Any, written: Any, assumptions: Any) -> str:
    """'a default you forgot' when the claim uses σ_q, μ, ρ … that no assumption gives.

    The lesson's defaults (components of mean 0 and variance 1) are in force for what
    the assume: lines leave unsaid; a claim written for Var(qᵢ) = σ_q² is then false.

    >>> s = sympy.Symbol("sigma_q", positive=True)
    >>> forgotten_default(sympy.S(1), s**2, ())  # doctest: +ELLIPSIS
    "a default you forgot: nothing declares sigma_q, so the lesson's defaults ..."
    """
    if not isinstance(written, Expr):
        return ""
    given: set[Any] = set()
    for a in assumptions:
        for value in vars(a).values():
            items = value if isinstance(value, (tuple, frozenset)) else (value,)
            for v in items:
                if isinstance(v, sympy.Basic):
                    given |= v.free_symbols
    truth_symbols = truth.free_symbols if isinstance(truth, Expr) else set()
    names = sorted(
        s.name
        for s in written.free_symbols - truth_symbols - given
        if getattr(s, "name", "") in _SCALE_NAMES
    )
    if not names:
        return ""
    said = ", ".join(names)
    example = "assume: Var(q_i) = sigma_q**2" if "sigma_q" in names else f"assume: … = {names[0]}"
    return (
        f"a default you forgot: nothing declares {said}, so the lesson's defaults (E[qᵢ] = 0,"
        f" Var(qᵢ) = 1, …) are in force; declare the law you mean ({example})"
    )
