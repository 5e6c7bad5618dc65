"""Derivations, the step checker, and Theorem: the only way to make one is ``check``.

A derivation is a statement plus a chain of steps. An equation ``lhs = rhs`` is
proved by ``lhs = e1 = … = rhs``; an equivalence ``P ⇔ Q`` by ``P ⇔ P1 ⇔ … ⇔ Q``.
Each step names one rule (or a proved theorem) and a claimed result. The kernel
applies the rule to the previous expression and to the claim; the step stands when
the rule takes one to the other, or both to the same thing, up to SymPy algebra.
This is sound because every rule is an equality under its side conditions.

Examples
--------
>>> from scaledattn.kernel.expr import E, random_variables
>>> from scaledattn.kernel.rules import expectation_linear
>>> X, Y = random_variables("X Y")
>>> d = Derivation("linearity", Equation(E(X + Y), E(X) + E(Y)),
...                (Step(expectation_linear, E(X) + E(Y)),))
>>> check(d).name
'linearity'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sympy
from sympy import Expr
from sympy.core.parameters import evaluate
from sympy.logic.boolalg import Boolean

from scaledattn.errors import (
    CannotDecide,
    MissingAssumption,
    ProofError,
    StatementMismatch,
    StepMismatch,
    UnknownRule,
)
from scaledattn.kernel.assumptions import Assumption, Context, Independence, Moment, Positive
from scaledattn.kernel.expr import SUMS, E, Var, normal_form, rebuild, same
from scaledattn.kernel.rules import RULES, Rule, prop_key
from scaledattn.kernel.vectors import Distinct, Entries, IndexRange, Lim

__all__ = [
    "Audit",
    "Derivation",
    "Equation",
    "Equivalence",
    "Step",
    "StepResult",
    "Theorem",
    "audit",
    "check",
]


@dataclass(frozen=True)
class Equation:
    """The statement ``lhs = rhs``."""

    lhs: Expr
    rhs: Expr

    def __str__(self) -> str:
        return f"{sympy.sstr(rebuild(self.lhs))} = {sympy.sstr(rebuild(self.rhs))}"


@dataclass(frozen=True)
class Equivalence:
    """The statement ``lhs ⇔ rhs`` between two propositions (equations)."""

    lhs: Any
    rhs: Any

    def __str__(self) -> str:
        return f"({sympy.sstr(rebuild(self.lhs))}) ⇔ ({sympy.sstr(rebuild(self.rhs))})"


Statement = Equation | Equivalence


@dataclass(frozen=True)
class Step:
    """One step: the rule (a Rule, a Theorem, or a name) and the claimed result."""

    rule: Any
    claim: Any
    note: str = ""


@dataclass(frozen=True)
class Derivation:
    """A statement, its declared assumptions, and the chain of steps that proves it."""

    name: str
    statement: Statement
    steps: tuple[Step, ...]
    assumptions: tuple[Assumption, ...] = ()
    title: str = ""

    @property
    def context(self) -> Context:
        """The declared assumptions as a Context."""
        return Context.of(self.assumptions)

    @property
    def start(self) -> Any:
        """The expression (or proposition) the chain starts from."""
        return self.statement.lhs


_TOKEN = object()


@dataclass(frozen=True)
class Theorem:
    """A statement the kernel has checked, with the assumptions it used.

    Only :func:`check` creates one; the derivation is kept so it can be replayed.
    """

    name: str
    statement: Statement
    used: frozenset[Assumption]
    derivation: Derivation = field(repr=False)
    token: object = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.token is not _TOKEN:
            raise TypeError("Theorem objects are made by scaledattn.kernel.check only")

    @property
    def unused(self) -> tuple[Assumption, ...]:
        """Declared assumptions the proof never used."""
        return tuple(a for a in self.derivation.assumptions if a not in self.used)

    def __str__(self) -> str:
        return f"{self.name}: {self.statement}"


@dataclass(frozen=True)
class StepResult:
    """The kernel's verdict on one step."""

    number: int
    step: Step
    rule_name: str
    derived: Any
    used: frozenset[Assumption]
    error: ProofError | None

    @property
    def ok(self) -> bool:
        """True when the step was accepted."""
        return self.error is None


# ------------------------------------------------------------------- rules


@dataclass(frozen=True)
class _TheoremRule:
    """A proved equation used as a rewrite: every occurrence of lhs becomes rhs."""

    theorem: Theorem

    @property
    def name(self) -> str:
        return self.theorem.name

    def apply(self, expr: Any, ctx: Context) -> tuple[Any, frozenset[Assumption]]:
        statement = self.theorem.statement
        if not isinstance(statement, Equation):
            return expr, frozenset()
        missing = [a for a in self.theorem.used if not ctx.entails(a)]
        if missing:
            return expr, frozenset()
        target = normal_form(statement.lhs)
        used = self.theorem.used
        # Symbols the assumptions constrain (t ≠ w, m ∈ 1..n, c > 0) take other values
        # under a sum or limit that binds them; under a sum, the symbols a definition
        # mentions (w in rⱼ = sⱼ + λδⱼw) would be captured as well.
        in_limits: set[Any] = set().union(*(_constrained(a) for a in used))
        in_sums = in_limits.union(*(_defined(a) for a in used))
        changed = False

        def swap(e: Expr, sums: frozenset[Any], limits: frozenset[Any]) -> Expr:
            nonlocal changed
            if isinstance(e, (Expr, Boolean)) and e.args and not e.is_Atom:
                if isinstance(e, Expr) and normal_form(e) == target:
                    if sums & in_sums or limits & in_limits:
                        return e
                    changed = True
                    return rebuild(statement.rhs)
                if isinstance(e, SUMS):
                    sums = sums | set(e.indices)
                elif isinstance(e, Lim):
                    limits = limits | {e.variable}
                return e.func(*(swap(a, sums, limits) for a in e.args))
            return e

        with evaluate(True):
            new = swap(rebuild(expr), frozenset(), frozenset())
        return new, (self.theorem.used if changed else frozenset())


def _defined(a: Assumption) -> set[Any]:
    """The symbols a definition of entries mentions besides its own index (w in sⱼ + λδⱼw)."""
    if isinstance(a, Entries):
        mentioned: set[Any] = a.body.free_symbols
        return mentioned - {a.index}
    return set()


def _constrained(a: Assumption) -> set[Any]:
    """The symbols whose particular value an assumption constrains.

    A definition of a vector's entries holds for every value of its symbols, and a
    moment's indices are read "for every i"; independence is about random variables.
    """
    if isinstance(a, (Entries, Independence)):
        return set()
    if isinstance(a, Moment):
        mentioned: set[Any] = a.lhs.free_symbols | a.value.free_symbols
        return mentioned - set(a.indices)
    if isinstance(a, Distinct):
        return set(a.pair)
    if isinstance(a, IndexRange):
        upper: set[Any] = a.upper.free_symbols
        return {a.index} | upper
    if isinstance(a, Positive):
        return {a.symbol}
    found: set[Any] = set()  # any other kind: every symbol it mentions
    for value in vars(a).values():
        found |= getattr(value, "free_symbols", set())
    return found


def _resolve(rule: Any, theorems: Mapping[str, Theorem], name: str, number: int) -> Any:
    if isinstance(rule, Rule):
        return rule
    if isinstance(rule, Theorem):
        return _TheoremRule(rule)
    if isinstance(rule, str):
        if rule in RULES:
            return RULES[rule]
        if rule in theorems:
            return _TheoremRule(theorems[rule])
    known = ", ".join(sorted(RULES) + sorted(theorems))
    raise UnknownRule(
        f"  {rule!r} is neither a rule nor a proved theorem\n  known: {known}",
        theorem=name,
        step=number,
        rule=str(rule),
    )


# ----------------------------------------------------------------- checking


def _equal(kind: str, a: Any, b: Any) -> bool | None:
    if kind == "iff":
        return bool(prop_key(rebuild(a)) == prop_key(rebuild(b)))
    return same(a, b)


def _kind(statement: Statement) -> str:
    return "iff" if isinstance(statement, Equivalence) else "calc"


def _show(x: Any) -> str:
    return str(sympy.sstr(x, order="none"))


def check_step(
    prev: Any,
    step: Step,
    number: int,
    derivation: Derivation,
    theorems: Mapping[str, Theorem] | None = None,
) -> StepResult:
    """Check one step against the previous expression; never raises a ProofError."""
    theorems = theorems or {}
    name, ctx, kind = derivation.name, derivation.context, _kind(derivation.statement)
    try:
        rule = _resolve(step.rule, theorems, name, number)
    except UnknownRule as err:
        return StepResult(number, step, str(step.rule), None, frozenset(), err)
    derived, used = rule.apply(prev, ctx)
    verdicts = [_equal(kind, derived, step.claim)]
    if verdicts[0] is not True:
        claim_rewritten, used_back = rule.apply(step.claim, ctx)
        verdicts.append(_equal(kind, prev, claim_rewritten))
        verdicts.append(_equal(kind, derived, claim_rewritten))
        if True in verdicts[1:]:
            used = used | used_back
    if True in verdicts:
        return StepResult(number, step, rule.name, derived, frozenset(used), None)
    error = _rejection(prev, step, number, derivation, rule, derived, None in verdicts)
    return StepResult(number, step, rule.name, derived, frozenset(), error)


def _rejection(
    prev: Any,
    step: Step,
    number: int,
    derivation: Derivation,
    rule: Any,
    derived: Any,
    undecided: bool,
) -> ProofError:
    ctx = derivation.context
    fields: dict[str, Any] = {
        "theorem": derivation.name,
        "step": number,
        "rule": rule.name,
        "expected": derived,
        "got": step.claim,
        "context": ctx,
    }
    missing = _missing_assumption(prev, step.claim, rule, ctx)
    if missing:
        return MissingAssumption(
            f"  needs:      {missing}\n  in scope:   {ctx}\n"
            f"  claimed:    {_show(step.claim)}\n  rule gives: {_show(derived)}",
            missing=missing,
            **fields,
        )
    lines = f"  claimed:    {_show(step.claim)}\n  rule gives: {_show(derived)}"
    if isinstance(derived, Expr) and isinstance(step.claim, Expr):
        with evaluate(True):
            diff = sympy.expand(normal_form(step.claim) - normal_form(derived))
        lines += f"\n  differs by: {_show(diff)}"
    if undecided:
        return CannotDecide(
            lines + "\n  SymPy could not decide whether these are equal; the step is refused.",
            **fields,
        )
    return StepMismatch(lines, **fields)


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


def _missing_assumption(prev: Any, claim: Any, rule: Any, ctx: Context) -> str:
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
    unchanged = _equal("calc" if isinstance(prev, Expr) else "iff", rule.apply(prev, ctx)[0], prev)
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
    if getattr(rule, "theorem", None) is not None:
        lacking_t = [str(a) for a in rule.theorem.used if not ctx.entails(a)]
        if lacking_t:
            return ", ".join(lacking_t) + f" (assumptions of {rule.theorem.name})"
    return ""


@dataclass(frozen=True)
class Audit:
    """Every step's verdict, the statement's verdict, and the Theorem if all passed."""

    derivation: Derivation
    steps: tuple[StepResult, ...]
    statement_error: ProofError | None
    theorem: Theorem | None

    @property
    def verified(self) -> bool:
        """True when every step and the statement were accepted."""
        return self.theorem is not None

    @property
    def errors(self) -> tuple[ProofError, ...]:
        """The rejections, in step order (the statement's last)."""
        found = [r.error for r in self.steps if r.error is not None]
        if self.statement_error is not None:
            found.append(self.statement_error)
        return tuple(found)


def audit(derivation: Derivation, theorems: Mapping[str, Theorem] | None = None) -> Audit:
    """Check every step (each against its predecessor's claim) and the statement.

    Unlike :func:`check` it does not stop at the first rejection, so a renderer
    can mark each step.
    """
    with evaluate(True):
        results = []
        prev = derivation.start
        for number, step in enumerate(derivation.steps, start=1):
            results.append(check_step(prev, step, number, derivation, theorems))
            prev = step.claim
        statement_error: ProofError | None = None
        kind = _kind(derivation.statement)
        if not derivation.steps:
            statement_error = StatementMismatch(
                "  a derivation needs at least one step", theorem=derivation.name
            )
        elif _equal(kind, prev, derivation.statement.rhs) is not True:
            statement_error = StatementMismatch(
                f"  the chain ends at   {_show(prev)}\n"
                f"  the statement says  {_show(derivation.statement.rhs)}",
                theorem=derivation.name,
                step=len(derivation.steps),
                expected=derivation.statement.rhs,
                got=prev,
            )
    theorem = None
    if statement_error is None and all(r.ok for r in results):
        used: frozenset[Assumption] = frozenset().union(*(r.used for r in results))
        theorem = Theorem(derivation.name, derivation.statement, used, derivation, _TOKEN)
    return Audit(derivation, tuple(results), statement_error, theorem)


def check(derivation: Derivation, theorems: Mapping[str, Theorem] | None = None) -> Theorem:
    """Check a derivation; return its Theorem or raise the first ProofError."""
    result = audit(derivation, theorems)
    if result.theorem is None:
        raise result.errors[0]
    return result.theorem
