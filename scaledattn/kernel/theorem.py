"""Derivations, the step checker, and Theorem: the only way to make one is ``check``.

How it works and what it trusts: docs/kernel.md, ``scaledattn.kernel.theorem``.

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

import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property, partial
from typing import Any

import sympy
from sympy import Expr, Symbol
from sympy.core.function import AppliedUndef
from sympy.core.parameters import evaluate
from sympy.logic.boolalg import Boolean

from scaledattn.errors import (
    CannotDecide,
    IllFormed,
    InvalidArgument,
    ProofError,
    StatementMismatch,
    StepMismatch,
    UnknownRule,
)
from scaledattn.kernel.assumptions import (
    Assumption,
    Context,
    Independent,
    Moment,
    Positive,
    provably_positive,
    reached,
    sign_facts,
    terms_of,
)
from scaledattn.kernel.binders import Scope, arg_scopes, subst
from scaledattn.kernel.calculus import cases, converges, eventual_sign
from scaledattn.kernel.expr import (
    RandomVariable,
    as_term,
    by_own_facts,
    normal_form,
    rebuild,
    same,
    unclaimable,
)
from scaledattn.kernel.rules import (
    RULES,
    TRACE,
    Rule,
    count_terms,
    independent_terms,
    is_registered,
    prop_key,
)
from scaledattn.kernel.vectors import (
    Deriv,
    Entry,
    Lim,
    definitions,
    depends_on,
    nonnegative,
    positive,
)


@dataclass(frozen=True)
class Equation:
    """The statement ``lhs = rhs``."""

    lhs: Expr
    rhs: Expr


@dataclass(frozen=True)
class Equivalence:
    """The statement ``lhs ⇔ rhs`` between two propositions (equations)."""

    lhs: Any
    rhs: Any


Statement = Equation | Equivalence


#: How a Derivation or a Theorem shows in a notebook, by kind ("latex", "markdown"):
#: the renderers register the functions (scaledattn.render.notebook). Display only: the
#: kernel never reads them to decide anything; until one is registered, the plain repr.
NOTEBOOK: dict[str, Callable[[Any], str]] = {}


class _Shown:
    """Jupyter's rich display protocol, answered by the functions in :data:`NOTEBOOK`."""

    def _repr_latex_(self) -> str | None:
        return NOTEBOOK["latex"](self) if "latex" in NOTEBOOK else None

    def _repr_markdown_(self) -> str | None:
        return NOTEBOOK["markdown"](self) if "markdown" in NOTEBOOK else None


@dataclass(frozen=True)
class Step:
    """One step: the rule (a Rule, a Theorem, or a name) and the claimed result."""

    rule: Any
    claim: Any
    note: str = ""


@dataclass(frozen=True)
class Derivation(_Shown):
    """A statement, its declared assumptions, and the chain of steps that proves it."""

    name: str
    statement: Statement
    steps: tuple[Step, ...]
    assumptions: tuple[Assumption, ...] = ()
    title: str = ""

    def __post_init__(self) -> None:  # a list given stays the derivation's: never read later
        object.__setattr__(self, "steps", tuple(self.steps))
        object.__setattr__(self, "assumptions", tuple(self.assumptions))

    @cached_property
    def context(self) -> Context:
        """The declared assumptions as a Context (built once: a derivation is immutable)."""
        return Context.of(self.assumptions)

    @property
    def start(self) -> Any:
        """The expression (or proposition) the chain starts from."""
        return self.statement.lhs


_TOKEN = object()
#: Every Theorem ``check`` made, by id: a copy (``dataclasses.replace`` passes the token
#: on) with another statement is not one of them, and justifies nothing.
_ISSUED: weakref.WeakValueDictionary[int, Theorem] = weakref.WeakValueDictionary()


@dataclass(frozen=True)
class Theorem(_Shown):
    """A statement the kernel has checked, with the assumptions it used."""

    name: str
    statement: Statement
    used: frozenset[Assumption]
    derivation: Derivation = field(repr=False)
    token: object = field(default=None, repr=False, compare=False)
    axioms: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if self.token is not _TOKEN:
            raise TypeError("Theorem objects are made by scaledattn.kernel.check only")

    @property
    def unused(self) -> tuple[Assumption, ...]:
        """Declared assumptions the proof never used."""
        return tuple(a for a in self.derivation.assumptions if a not in self.used)


@dataclass(frozen=True)
class StepResult:
    """The kernel's verdict on one step."""

    number: int
    step: Step
    rule_name: str
    derived: Any
    used: frozenset[Assumption]
    error: ProofError | None
    axioms: frozenset[str] = frozenset()
    #: The rewrites the rule made on the previous claim, and on the claim when it was
    #: applied there too (None: it was not), for the step's certificate.
    trace: tuple[tuple[Any, ...], tuple[Any, ...] | None] = ((), None)

    @property
    def ok(self) -> bool:
        """True when the step was accepted."""
        return self.error is None


# ------------------------------------------------------------------- rules


@dataclass(frozen=True)
class _Rewrite:
    """An equation lhs = rhs (a theorem's, or an axiom's) used as a rewrite."""

    name: str
    lhs: Any
    rhs: Any
    used: frozenset[Assumption] = frozenset()
    axioms: frozenset[str] = frozenset()
    #: The definitions of the vectors it names, as where it was proved (none: free).
    defined: frozenset[Assumption] = frozenset()

    #: An instance's σ and what it needs: each assumption the theorem used (or a name
    #: whose image must be > 0), with the facts of a context σ of it rests on at a
    #: position, or None where it does not hold.
    mapping: tuple[tuple[Any, Any], ...] = ()
    obligations: tuple[tuple[Any, Obligation], ...] | None = None

    def facts(self, ctx: Context, scope: Scope) -> frozenset[Assumption] | None:
        """What the rewrite rests on at a position of ``ctx`` (None: it does not hold there)."""
        if self.obligations is None:
            return self.used if self.used <= set(ctx.visible(scope).assumptions) else None
        found: set[Assumption] = set()
        for _, holds in self.obligations:
            by = holds(ctx.visible(scope), scope)
            if by is None:
                return None
            found |= by
        return frozenset(found)

    def apply(self, expr: Any, ctx: Context) -> tuple[Any, frozenset[Assumption]]:
        if self.defined != _definitions(ctx.assumptions, self.lhs, self.rhs) or (
            self.obligations is None and not all(ctx.entails(a) for a in self.used)
        ):  # ∂r/∂s = 0 for a free r says nothing where r is defined by s
            return expr, frozenset()
        target, used = normal_form(self.lhs), set[Assumption]()

        def walk(e: Any, scope: Scope) -> Any:
            if not getattr(e, "args", ()) or e.is_Atom:
                return e
            if isinstance(e, Expr) and normal_form(e) == target:
                facts = self.facts(ctx, scope)
                if facts is not None:
                    used.update(facts)
                    if TRACE:
                        TRACE[-1].append((e, rebuild(self.rhs), facts))
                    return rebuild(self.rhs)
            return e.func(*(walk(a, s) for a, s in zip(e.args, arg_scopes(e, scope), strict=True)))

        with evaluate(True):
            new = walk(rebuild(expr), Scope())
        return new, frozenset(used)


def _theorem_rule(t: Theorem) -> _Rewrite:
    """A theorem as a rewrite (an equivalence rewrites nothing)."""
    lhs, rhs = (t.statement.lhs, t.statement.rhs) if isinstance(t.statement, Equation) else (0, 0)
    defined = _definitions(t.derivation.assumptions, lhs, rhs)
    return _Rewrite(t.name, as_term(lhs), as_term(rhs), t.used, t.axioms, defined)


@dataclass(frozen=True)
class Instance:
    """A proved theorem with free names of its statement replaced: σ = {X: a·X, Y: Z}.

    Used as a rule, it rewrites σ(lhs) to σ(rhs) (the capture-avoiding ``subst``) where σ
    of each assumption the theorem used holds: σ(Independent(X, Y)) when the random atoms
    of σ(X) and of σ(Y) are in different blocks of one independence family; σ of a moment
    when it is a declared moment's instance; σ(c > 0) when σ(c) is positive by the facts;
    any other assumption only if σ leaves it as it is. A name replaced is a random
    variable or a constant, and its image has the constant's facts (real, > 0, integer).
    """

    theorem: Theorem
    mapping: tuple[tuple[Any, Any], ...]

    @property
    def name(self) -> str:
        """The theorem's name and the replacements: ``scaling(c := a, X := Z)``."""
        pairs = ", ".join(f"{k} := {sympy.sstr(v)}" for k, v in self.mapping)
        return f"{self.theorem.name}({pairs})"


def _instance_rule(inst: Instance) -> _Rewrite:
    t, sigma = inst.theorem, dict(inst.mapping)
    if not isinstance(t.statement, Equation):
        raise InvalidArgument("only a theorem that is an equation has instances")
    sides = (as_term(t.statement.lhs), as_term(t.statement.rhs))
    free = sides[0].free_symbols | sides[1].free_symbols
    for key, value in sigma.items():
        value = as_term(value)
        why = unclaimable(value)
        if not (isinstance(key, Symbol) and type(key) in (Symbol, RandomVariable)) or why:
            raise InvalidArgument(why or f"{key} is not a name an instance may replace")
        if key not in free:
            raise InvalidArgument(f"{key} is not a free name of {t.name}'s statement")
        facts = {f for f in ("integer", "positive", "real") if getattr(key, f"is_{f}")}
        if any(getattr(value, f"is_{f}") is not True for f in facts - {"positive"}):
            raise InvalidArgument(f"{sympy.sstr(value)} is not {', '.join(facts)} as {key} is")
        sigma[key] = value
    if any(isinstance(n, (Deriv, Lim)) for x in sides for n in sympy.preorder_traversal(x)):
        raise InvalidArgument(f"{t.name} holds a derivative or a limit: it is used as stated")
    lhs, rhs = (subst(x, sigma) for x in sides)
    needs: list[tuple[Any, Obligation]] = [(k, _positive(sigma[k])) for k in sigma if k.is_positive]
    needs += [(a, partial(_discharged, a, sigma)) for a in t.used]
    mapping = tuple(sigma.items())
    return _Rewrite(inst.name, lhs, rhs, t.used, t.axioms, frozenset(), mapping, tuple(needs))


Obligation = Callable[[Context, Scope], "frozenset[Assumption] | None"]


def _positive(value: Any) -> Obligation:
    def holds(ctx: Context, scope: Scope) -> frozenset[Assumption] | None:
        ok, by = provably_positive(value, ctx)
        return by if ok else None

    return holds


def _discharged(
    a: Assumption, sigma: dict[Any, Any], ctx: Context, scope: Scope
) -> frozenset[Assumption] | None:
    """The facts of ``ctx`` σ(a) rests on, or None when σ(a) does not follow from them."""
    named = set(terms_of(vars(a).values(), labels=True))
    if not any(k in n.free_symbols or k == n for n in named for k in sigma):
        return frozenset({a}) if a in ctx.assumptions else None
    if isinstance(a, Moment):
        lhs, value = subst(a.lhs, sigma), subst(a.value, sigma)
        for m in ctx.moments():
            if any(same(v, value) is True for v in m.instances(lhs)):
                return frozenset({m})
        return None
    if isinstance(a, Positive):
        ok, by = provably_positive(sigma[a.symbol], ctx)
        return by if ok else None
    if isinstance(a, Independent) and all(isinstance(u, RandomVariable) for u in a.units):
        images = [sigma.get(u, u) for u in a.units]
        for family in ctx.independences():
            if independent_terms(images, family, scope):
                return frozenset({family})
    return None


def _definitions(assumptions: Any, *terms: Any) -> frozenset[Assumption]:
    """The definitions among ``assumptions`` of the vectors ``terms`` name.

    Only when the terms hold a derivative or a limit: there a vector left undefined does
    not vary (∂r/∂s = 0), so a theorem about it says nothing where it is defined.
    """
    nodes = (n for t in terms for n in sympy.preorder_traversal(t))
    if not any(isinstance(n, (Deriv, Lim)) for n in nodes):
        return frozenset()
    return reached(assumptions, *terms)  # r, and s where r_j = s_j, and on


@dataclass(frozen=True)
class Axiom:
    """A rule taken on trust, like Lean's ``sorry``: steps by it are accepted unchecked."""

    name: str
    rewrite: Any = field(repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.name.isidentifier() or self.name in RULES:
            raise InvalidArgument(f"an axiom's name is an identifier, not a rule's: {self.name}")

    def apply(self, expr: Any, ctx: Context) -> tuple[Any, frozenset[Assumption]]:
        """Apply the assumed rewrite."""
        with evaluate(True):
            result: tuple[Any, frozenset[Assumption]] = self.rewrite.apply(rebuild(expr), ctx)
        return result


def axiom(rule: Any, lhs: Any = None, rhs: Any = None) -> Axiom:
    """Declare an unchecked rule: ``axiom(Rule(...))`` or the equation ``axiom(NAME, lhs, rhs)``.

    >>> from scaledattn.kernel.expr import E, random_variables
    >>> X, = random_variables("X")
    >>> d = Derivation("mean_zero", Equation(E(X), 0), (Step(axiom("EX0", E(X), 0), 0),))
    >>> print(check(d))
    mean_zero: E(X) = 0 (verified modulo axiom EX0)
    """
    if isinstance(rule, str) and rule.isidentifier() and lhs is not None and rhs is not None:
        lhs, rhs = as_term(lhs), as_term(rhs)
        for why in (unclaimable(lhs), unclaimable(rhs)):
            if why is not None:
                raise InvalidArgument(why)
        return Axiom(rule, _Rewrite(rule, lhs, rhs))
    if isinstance(rule, Rule) and lhs is None and rhs is None:
        return Axiom(rule.name, rule)
    raise InvalidArgument("axiom takes a Rule, or a name (an identifier) and the sides lhs, rhs")


def _resolve(rule: Any, theorems: Mapping[str, Theorem], name: str, number: int) -> Any:
    if is_registered(rule) or isinstance(rule, Axiom):
        return rule
    if isinstance(rule, Theorem) and _ISSUED.get(id(rule)) is rule:
        return _theorem_rule(rule)
    if isinstance(rule, Instance) and _ISSUED.get(id(rule.theorem)) is rule.theorem:
        return _instance_rule(rule)
    if isinstance(rule, str):
        if rule in RULES:
            return RULES[rule]
        if rule in theorems and _ISSUED.get(id(theorems[rule])) is theorems[rule]:
            return _theorem_rule(theorems[rule])
    if isinstance(rule, Rule):
        raise UnknownRule(
            f"  {rule.name!r} is not the registered primitive rule of that name;"
            " a rule of your own must be declared axiom(rule)",
            theorem=name,
            step=number,
            rule=rule.name,
        )
    known = ", ".join(sorted(RULES) + sorted(theorems))
    raise UnknownRule(
        f"  {rule!r} is neither a rule nor a proved theorem\n  known: {known}",
        theorem=name,
        step=number,
        rule=str(getattr(rule, "name", rule)),
    )


def _axioms_of(rule: Any) -> frozenset[str]:
    if isinstance(rule, Axiom):
        return frozenset({rule.name})
    if isinstance(rule, _Rewrite):
        return rule.axioms
    return frozenset()


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
    admitted: dict[int, tuple[Any, Any, set[Assumption]]] | None = None,
) -> StepResult:
    """Check one step against the previous expression; never raises a ProofError.

    ``admitted``: the claims of this derivation already admitted, by identity (``audit``).
    """
    theorems = theorems or {}
    name, kind = derivation.name, _kind(derivation.statement)
    try:
        rule = _resolve(step.rule, theorems, name, number)
    except UnknownRule as err:
        return StepResult(number, step, err.rule, None, frozenset(), err)
    except InvalidArgument as err:  # an instance that is no instance (a name not free)
        shown = str(getattr(step.rule, "name", step.rule))
        error = _refusal(err, theorem=name, step=number, rule=shown, got=step.claim)
        return StepResult(number, step, shown, None, frozenset(), error)
    try:
        ctx, needs, seen = (
            derivation.context,
            set[Assumption](),
            {} if admitted is None else admitted,
        )
        prev, claim = (_admitted(kind, x, ctx, needs, seen) for x in (prev, step.claim))
        result = _check_step(prev, replace(step, claim=claim), number, derivation, rule, ctx, kind)
        return replace(result, used=result.used | needs) if result.ok else result
    except Exception as err:  # a term the kernel cannot take apart is refused
        if isinstance(err, ProofError):  # pragma: no cover - _check_step returns its errors
            raise
        error = _refusal(err, theorem=name, step=number, rule=rule.name, got=step.claim)
        return StepResult(number, step, rule.name, None, frozenset(), error)


def _admitted(kind: str, x: Any, ctx: Context, used: set[Assumption], seen: dict[int, Any]) -> Any:
    """``_claim(kind, x, ctx, used)``, once for each object ``x`` of one derivation."""
    if id(x) not in seen or seen[id(x)][0] is not x:  # (x is kept: its id is not reused)
        needs: set[Assumption] = set()
        seen[id(x)] = (x, _claim(kind, x, ctx, needs), needs)
    used |= seen[id(x)][2]
    return seen[id(x)][1]


def _refusal(err: Exception, **where: Any) -> IllFormed:
    """The refusal of a term the kernel cannot take apart (an InvalidArgument says why)."""
    kind_of = "" if isinstance(err, InvalidArgument) else f"{type(err).__name__}: "
    return IllFormed(f"  {kind_of}{err}", **where)


def _name_clash(derivation: Derivation) -> str | None:
    """A name two different symbols or vectors of the derivation share (they print alike)."""
    seen: dict[str, Any] = {}
    st = derivation.statement
    terms = [st.lhs, st.rhs, derivation.start, *(s.claim for s in derivation.steps)]
    for a in derivation.assumptions:
        terms += terms_of(vars(a).values(), labels=True)
        if hasattr(a, "body"):  # the vector it defines, named as its entries are
            terms.append(_entry_of(a))
    for term in terms:
        for node in sympy.preorder_traversal(term) if isinstance(term, sympy.Basic) else ():
            named: tuple[Any, ...] = ()
            if isinstance(node, sympy.Symbol):
                named = ((str(node), node),)
            elif isinstance(node, AppliedUndef):  # SymPy tells f from a positive f by name
                facts = tuple(sorted(node.func.default_assumptions.items()))
                named = ((str(node.func), ("function", facts)),)
            elif getattr(node, "vector", None) is not None:  # an entry, a softmax weight
                shown = str(node.args[3].name) if len(node.args) > 3 else node.vector
                named = ((shown, (type(node), node.vector, node.args[2])),)
            for name, what in named:
                if seen.setdefault(name, what) != what:
                    return str(name)
    return None


def _entry_of(definition: Any) -> Any:
    return Entry(definition.name, definition.index, definition.dim)


#: The signs a term may have for large λ, for each condition.
_SIGNS = {"nonzero": (1, -1), "positive": (1,), "nonnegative": (0, 1)}


def _claim(kind: str, x: Any, ctx: Context, used: set[Assumption]) -> Any:
    """A claim as a term: an expression in a chain of equalities, a proposition in one of ⇔.

    It is defined wherever the assumptions hold: each condition it is real under (a
    divisor ≠ 0) follows from them (those it uses go into ``used``) or from its form.
    Inside lim over λ, one on λ need hold only for large λ: decided from its form
    P(e^λ)/Q(e^λ), with definitions unfolded and for each value of its deltas.
    """
    if kind == "iff" and isinstance(x, bool):
        return sympy.true if x else sympy.false

    def holds(kind: str, term: Expr, scope: Scope) -> bool:
        local = ctx.visible(scope)
        if kind in ("smooth", "free"):  # a corner under ∂; ∂/∂r₁ of a defined r
            return kind == "free" and term.vector not in defs
        if kind == "convergent":  # lim e^λ is no number
            f, lam = term.args
            return for_large(kind, f, lam, ctx.visible(scope.enter(term)))
        for counted in (False, True):  # then with sums of constants counted: Σᵢ 16 = 16n
            e = sympy.expand(count_terms.apply(term, local)[0]) if counted else term
            facts, by = sign_facts(e, local)
            form = nonnegative(facts) if kind == "nonnegative" else positive(facts)
            if by_own_facts(kind, facts) or form:
                used.update(by)
                return True
        limits = [v for v in scope.limits if depends_on(term, "", defs, v)]
        growing = {s for v in limits for s in scope.growing(v)}  # j of Σ_{j≤λ} is no constant
        if any(depends_on(term, "", defs, s) for s in growing):
            return False
        # inside lim over λ, for large λ only
        return bool(limits) and all(for_large(kind, term, v, local) for v in limits)

    def for_large(kind: str, f: Expr, lam: Any, local: Context) -> bool:
        """Whether f is ``kind`` for large λ by its form P(e^λ)/Q(e^λ), or in each case."""

        def test(g: Expr) -> bool:
            if kind == "convergent":
                return converges(g, lam, defs) is True
            return eventual_sign(g, lam, defs) in _SIGNS[kind]

        if test(f):
            return True
        split = cases(f, lam, local)  # definitions unfolded, deltas 0 and 1
        if split is None or not all(map(test, split[0])):
            return False
        used.update(split[1])
        return True

    term = as_term(x)
    defs = definitions(ctx)
    why = unclaimable(term, holds, total=True)
    if why is not None:
        raise InvalidArgument(why)
    if kind == "calc" and not isinstance(term, Expr):
        raise InvalidArgument(f"a chain of equalities claims expressions, got {_show(term)}")
    if kind == "iff" and not isinstance(term, Boolean):
        raise InvalidArgument(f"a chain of equivalences claims equations, got {_show(term)}")
    return term


def _check_step(
    prev: Any, step: Step, number: int, derivation: Derivation, rule: Any, ctx: Context, kind: str
) -> StepResult:
    (derived, used), forward = _traced(rule, prev, ctx)
    verdicts, backward = [_equal(kind, derived, step.claim)], None
    if verdicts[0] is not True:
        (claim_rewritten, used_back), backward = _traced(rule, step.claim, ctx)
        verdicts.append(_equal(kind, prev, claim_rewritten))
        verdicts.append(_equal(kind, derived, claim_rewritten))
        if True in verdicts[1:]:
            used = used | used_back
    if True in verdicts:
        axioms, trace = _axioms_of(rule), (forward, backward)
        return StepResult(number, step, rule.name, derived, frozenset(used), None, axioms, trace)
    error = _rejection(prev, step, number, derivation, rule, derived, None in verdicts)
    return StepResult(
        number, step, rule.name, derived, frozenset(), error, trace=(forward, backward)
    )


def _traced(rule: Any, expr: Any, ctx: Context) -> tuple[Any, tuple[Any, ...]]:
    """``rule.apply(expr, ctx)`` and the rewrites it made (rules.TRACE)."""
    TRACE.append([])
    try:
        return rule.apply(expr, ctx), tuple(TRACE[-1])
    finally:
        TRACE.pop()


#: How a refused step is reported, filled from outside the kernel (``scaledattn.explain``):
#: ``report(prev, rule, undecided, fields)`` makes the error (with ``fields``: theorem,
#: step, rule, what the rule gives, the claim, the context). It runs after the verdict.
REPORTS: list[Callable[[Any, Any, bool, dict[str, Any]], ProofError]] = []


def _rejection(
    prev: Any,
    step: Step,
    number: int,
    derivation: Derivation,
    rule: Any,
    derived: Any,
    undecided: bool,
) -> ProofError:
    fields = {"theorem": derivation.name, "step": number, "rule": rule.name}
    fields |= {"expected": derived, "got": step.claim, "context": derivation.context}
    for report in REPORTS:
        try:
            return report(prev, rule, undecided, fields)
        except Exception:  # a report that fails reports nothing: the fallback does
            continue
    return (CannotDecide if undecided else StepMismatch)(
        f"  rule gives: {_show(derived)}", **fields
    )


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
    """Check every step (each against its predecessor's claim) and the statement."""
    with evaluate(True):
        results, seen = [], dict[int, tuple[Any, Any, set[Assumption]]]()
        prev = derivation.start
        for number, step in enumerate(derivation.steps, start=1):
            results.append(check_step(prev, step, number, derivation, theorems, seen))
            prev = step.claim
        statement_error: ProofError | None = None
        kind, ends, needs = _kind(derivation.statement), None, set[Assumption]()
        try:
            if (clash := _name_clash(derivation)) is not None:
                raise InvalidArgument(f"two different things are named {clash}")
            ctx = derivation.context
            prev, rhs = (
                _admitted(kind, x, ctx, needs, seen) for x in (prev, derivation.statement.rhs)
            )
            ends = _equal(kind, prev, rhs) if derivation.steps else None
        except Exception as err:  # as in check_step: a term it cannot take apart is refused
            statement_error = statement_error or _refusal(err, theorem=derivation.name)
        if statement_error is not None:
            pass
        elif not derivation.steps:
            statement_error = StatementMismatch(
                "  a derivation needs at least one step", theorem=derivation.name
            )
        elif ends is not True:
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
        used: frozenset[Assumption] = frozenset(needs).union(*(r.used for r in results))
        axioms: frozenset[str] = frozenset().union(*(r.axioms for r in results))
        theorem = Theorem(
            derivation.name, derivation.statement, used, derivation, _TOKEN, axioms=axioms
        )
        _ISSUED[id(theorem)] = theorem
    return Audit(derivation, tuple(results), statement_error, theorem)


def check(derivation: Derivation, theorems: Mapping[str, Theorem] | None = None) -> Theorem:
    """Check a derivation; return its Theorem or raise the first ProofError."""
    result = audit(derivation, theorems)
    if result.theorem is None:
        raise result.errors[0]
    return result.theorem
