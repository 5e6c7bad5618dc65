"""What would make a refuted identity true: a missing assumption, a right side, a condition.

A refutation says the claim is false; a learner also wants the way out. For a
refuted ``left = right`` between moments, :func:`with_remedies` tries, in order:

- **the corrected right side**: the written right side times the ratio of the two
  normal forms (``Var(2*X) = 2*Var(X)`` → ``4*Var(X)``), or plus a missing term
  (a constant, or ``n·Cov(U, V)`` of two random variables of the claim: the cross
  term of ``Var(X + Y)``);
- **the missing assumption**: the random variables of the claim independent;
- **a condition on a constant**: the values of a constant at which the two normal
  forms agree (``Var(c*X) = c*Var(X)`` holds when c = 1).

Nothing is offered that was not checked: each candidate is verified again by
:func:`scaledattn.claims.verify.verify`, as a claim or under an ``--assume``, and
offered only if VERIFIED, in a form that works when pasted back.

Examples
--------
>>> from scaledattn.claims.verify import verify
>>> verify("Var(2*X) = 2*Var(X)").correct
'Var(2 * X) = 4*Var(X)'
>>> verify("Var(X + Y) = Var(X) + Var(Y)").remedies
('holds under --assume "independent(X, Y)"',)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from itertools import combinations
from typing import Any

import sympy
from sympy import Expr

from scaledattn.automation.rewrite import Environment, normalize
from scaledattn.claims.outcome import Result, Verdict
from scaledattn.claims.setup import prepare
from scaledattn.claims.syntax import Claim, parse_assumption, unparse
from scaledattn.claims.terms import CONSTANTS, SCALARS, has_moments
from scaledattn.errors import InvalidArgument
from scaledattn.kernel import Cov, E, RandomVariable, Var
from scaledattn.kernel.expr import MOMENT_OPERATORS, is_random
from scaledattn.language.parse import names_in

__all__ = ["MAX_TRIES", "completed", "with_remedies"]

#: At most this many candidates are verified again (each is a full verification).
MAX_TRIES = 6

#: The verifier, ``verify(claim, assume, remedies=False)``: handed in by
#: :func:`scaledattn.claims.verify.verify`, so that this module does not import it back.
Verify = Callable[..., Result]


def with_remedies(claim: Claim, assume: Sequence[str], result: Result, verify: Verify) -> Result:
    """``result``, with the corrected right side and the ways out that ``verify``, if refuted."""
    if result.verdict is not Verdict.REFUTED or claim.kind != "chain" or claim.relations != ("=",):
        return result
    try:
        setup = prepare(claim, [parse_assumption(a) for a in assume])
        lhs, rhs = setup.sides
        if isinstance(lhs, tuple) or isinstance(rhs, tuple):
            return result
        if not (has_moments(lhs) or has_moments(rhs)):
            return result  # numbers: the verifier's own "correct:" says it
        left, right = normalize(lhs, setup.env).end, normalize(rhs, setup.env).end
    except (InvalidArgument, TypeError, ValueError, ArithmeticError):
        return result
    tries = _Tries(assume, verify)
    written = unparse(claim.sides[0])
    correct = result.correct
    if not correct:
        for candidate in _right_sides(rhs, left, right, _random_names(claim)):
            text = f"{written} = {_written_sum(unparse(claim.sides[1]), rhs, candidate)}"
            if tries.holds(text, ()):
                correct = text
                break
    ways: list[str] = []
    names = _random_names(claim)
    if len(names) >= 2 and not any(a.strip().startswith("independent") for a in assume):
        independent = f"independent({', '.join(names)})"
        if tries.holds(claim.text, (independent,)):
            ways.append(f'holds under --assume "{independent}"')
    for name, value in _conditions(left, right, setup.scope.constants, setup.positives):
        condition = f"{name} = {sympy.sstr(value)}"
        if value.is_number:
            if tries.holds(claim.text, (condition,)):
                ways.append(f'holds when {condition} (--assume "{condition}")')
            continue
        word = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])")
        instead = word.sub(f"({sympy.sstr(value)})", claim.text)
        if tries.holds(instead, ()):
            ways.append(f'holds when {condition}: "{instead}" is verified')
    theorem = _theorem_of(claim.text, lhs, rhs, assume, tries)
    if theorem and not any(theorem.endswith(way) for way in ways):  # said once
        ways.insert(0, theorem)
    from scaledattn.render.diagnose import negative_variance, sum_for_product

    for mistake in (negative_variance(lhs, rhs), sum_for_product(lhs, rhs)):
        if mistake:  # the kind of mistake, named (render.diagnose)
            ways.insert(0, mistake)
    return replace(result, correct=correct, remedies=tuple(ways))


#: The lesson's defaults, as --assume lines: a theorem's assumption among them goes unsaid.
_DEFAULTS = {"independent(q, k)", "E(q_i) = 0", "E(k_i) = 0", "Var(q_i) = 1", "Var(k_i) = 1"}


def _theorem_of(text: str, lhs: Expr, rhs: Expr, assume: Sequence[str], tries: _Tries) -> str:
    """When ``lhs = rhs`` is a built-in theorem's statement: the --assume lines that make it so.

    A statement pasted from ``scaledattn list`` (``Var(q·k) = σ_q²·σₖ²·dₖ``) is refuted
    under the defaults when the theorem assumes other moments; the way out is its
    assumptions, checked by verifying the claim under them.
    """
    from scaledattn.automation.rewrite import key
    from scaledattn.kernel import Equation
    from scaledattn.registry import all_derivations
    from scaledattn.render.proof import proof_assumption

    for d in all_derivations():
        statement = d.statement
        if not isinstance(statement, Equation):
            continue
        try:
            same = key(statement.lhs) == key(lhs) and key(statement.rhs) == key(rhs)
        except (TypeError, ValueError, AttributeError):
            continue
        if not same:
            continue
        try:
            lines = [proof_assumption(a) for a in d.assumptions]
        except InvalidArgument:
            return ""
        extra = [line for line in lines if line not in _DEFAULTS and line not in assume]
        if extra and tries.holds(text, extra):
            flags = " ".join(f'--assume "{line}"' for line in extra)
            return f"the theorem {d.name} (scaledattn derive {d.name}): holds under {flags}"
    return ""


class _Tries:
    """Verifications of candidates, at most MAX_TRIES of them."""

    def __init__(self, assume: Sequence[str], verify: Verify) -> None:
        self.assume = list(assume)
        self.verify = verify
        self.left = MAX_TRIES

    def holds(self, text: str, more: Sequence[str]) -> bool:
        if self.left <= 0:
            return False
        self.left -= 1
        try:
            found = self.verify(text, [*self.assume, *more], remedies=False)
        except InvalidArgument:
            return False
        return found.verdict is Verdict.VERIFIED


def _random_names(claim: Claim) -> list[str]:
    """The random variables X, Y, Z the claim mentions, in order."""
    mentioned = set().union(*(names_in(side) for side in claim.sides))
    return [n for n in SCALARS if n in mentioned]


def _no_moments(x: Expr) -> bool:
    return not (has_moments(x) or is_random(x))


def _right_sides(rhs: Expr, left: Expr, right: Expr, names: list[str]) -> Iterator[Expr]:
    """Right sides to try: the written one scaled, or plus a missing term."""
    if right != 0:
        ratio = sympy.cancel(sympy.expand(left) / sympy.expand(right))
        if _no_moments(ratio) and ratio != 1:
            yield sympy.expand(ratio * rhs)
    difference = sympy.expand(left - right)
    if _no_moments(difference) and difference != 0:
        yield rhs + difference
        return
    for a, b in combinations(names, 2):
        cov = Cov(RandomVariable(a), RandomVariable(b))
        unit = sympy.expand(normalize(cov, _bare_env()).end)
        if unit == 0:
            continue
        times = sympy.cancel(difference / unit)
        if _no_moments(times):
            yield rhs + times * cov


def _bare_env() -> Environment:
    return Environment(())


def _written_sum(text: str, rhs: Expr, candidate: Expr) -> str:
    """The candidate right side written as the user's right side plus what it lacks.

    >>> from sympy import Symbol
    >>> x = Symbol("x")
    >>> _written_sum("x", x, x + 2), _written_sum("x", x, x - 2), _written_sum("x", x, 4*x)
    ('x + 2', 'x - 2', '4*x')
    """
    extra = sympy.expand(candidate - rhs)
    if (
        extra == 0
        or len(sympy.Add.make_args(sympy.expand(candidate)))
        < len(sympy.Add.make_args(sympy.expand(rhs))) + len(sympy.Add.make_args(extra))
        or (
            sympy.Mul.make_args(candidate) == (candidate,)
            and (sympy.cancel(candidate / rhs).is_number if rhs != 0 else False)
        )
    ):
        return str(sympy.sstr(candidate))
    if extra.could_extract_minus_sign():
        return f"{text} - {sympy.sstr(-extra)}"
    return f"{text} + {sympy.sstr(extra)}"


def _conditions(
    left: Expr, right: Expr, assigned: dict[str, Expr], positives: Sequence[Expr]
) -> Iterator[tuple[str, Expr]]:
    """(constant, value) at which the normal forms agree, for each constant of the claim.

    A value may involve other constants (c = √d_k); one the constant's sign excludes
    (c = 0 for the positive scale) is not offered.
    """
    difference = sympy.expand(left - right)
    moments = sorted(difference.atoms(*MOMENT_OPERATORS), key=str)
    stand_in = {m: sympy.Symbol(f"moment_{n}") for n, m in enumerate(moments)}
    plain = difference.xreplace(stand_in)
    if plain.free_symbols - set(stand_in.values()) == set():
        return
    constants = {make() for name, make in CONSTANTS.items() if name not in assigned}
    for name, make in CONSTANTS.items():
        symbol = make()
        if symbol not in plain.free_symbols or name in assigned:
            continue
        for factor in sympy.Mul.make_args(sympy.factor(plain)):
            base = factor.as_base_exp()[0]
            if symbol not in base.free_symbols or not base.free_symbols <= constants:
                continue
            for value in sympy.solve(base, symbol):
                positive = symbol.is_positive or symbol in positives
                if value.is_real is False or (positive and not value.is_positive):
                    continue
                yield name, value


def completed(
    text: str, assume: Sequence[str], refusal: InvalidArgument, verify: Verify
) -> InvalidArgument:
    """``refusal`` of a claim without a relation, completed with the term's value if one verifies.

    ``var(dot(q, k))`` alone is not a claim; its value under the assumptions is d_k,
    so the refusal offers ``var(dot(q, k)) = d_k``, verified before it is offered.
    """
    if "needs a relation" not in str(refusal):
        return refusal
    try:
        from scaledattn.claims.syntax import CLAIMS
        from scaledattn.language.parse import Parser

        tree = Parser(text, CLAIMS).parse()
        fake = parse_claim_of(tree, text)
        setup = prepare(fake, [parse_assumption(a) for a in assume])
        (value, _) = setup.sides
        if isinstance(value, tuple) or not has_moments(value):
            return refusal
        end = normalize(value, setup.env).end
        if has_moments(end) or is_random(end):
            end = _in_moments_of(end, _random_names(fake), setup.env)
        if end is None:
            return refusal
    except (InvalidArgument, TypeError, ValueError, ArithmeticError):
        return refusal
    candidate = f"{text.strip()} = {sympy.sstr(end)}"
    if not _Tries(assume, verify).holds(candidate, ()):
        return refusal
    return InvalidArgument(f'{refusal}; did you mean "{candidate}"?')


def parse_claim_of(tree: Any, text: str) -> Claim:
    """The claim ``tree = 0`` (a stand-in right side, only to build the term's value)."""
    from scaledattn.language.parse import Node

    return Claim(text, "chain", (tree, Node("num", sympy.Integer(0), text="0")), ("=",))


def _in_moments_of(end: Expr, names: list[str], env: Environment) -> Expr | None:
    """``end`` as a constant times Var(V) or E(V) of one random variable V, if it is one."""
    for name in names:
        v = RandomVariable(name)
        for moment in (Var(v), E(v)):
            unit = sympy.expand(normalize(moment, env).end)
            if unit == 0:
                continue
            ratio = sympy.cancel(sympy.expand(end) / unit)
            if _no_moments(ratio):
                result: Expr = ratio * moment
                return result
    return None
