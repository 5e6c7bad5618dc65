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
from scaledattn.kernel.expr import MOMENT_OPERATORS, is_random, normal_form, same

__all__ = ["MAX_TERMS_SHOWN", "applicable_rules", "diagnosis"]

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
