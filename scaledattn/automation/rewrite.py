"""Write the derivation that decides an identity (for claims and proof files); the kernel checks it.

Untrusted, like the calculator's automation it builds on. Each side of an identity
is rewritten by the kernel's own rules (``Rule.apply``), applied one at a time in a
fixed order until none changes anything, and by lemmas: the proved theorems
``dot_product_variance`` and ``dot_product_mean`` for the lesson's setting, or the
calculator's derivations of Var(q·k) and E[q·k] for other moments and dimensions.
When the two sides reach the same normal form, the steps of the left side followed
by those of the right side in reverse are one derivation ``lhs = … = rhs``, which
the kernel checks step by step; only the kernel's verdict makes a claim VERIFIED.

An equivalence ``A = a ⇔ c = r`` is worked the same way, then with the kernel's
rules on equations (clear the denominator, the two square roots, exclude the root
of the wrong sign), as in ``unique_scale``.

Examples
--------
>>> from scaledattn.kernel import Var, random_variables
>>> X, Y = random_variables("X Y")
>>> env = Environment(())
>>> chain = normalize(Var(X + Y), env)
>>> [getattr(by, "name", by) for _, by, _ in chain.steps]
['variance_def', 'expectation_linear']
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import sympy
from sympy import Eq, Expr, Pow
from sympy.logic.boolalg import Boolean

from scaledattn.derive import audit_of, calc, equivalence, group
from scaledattn.kernel import (
    Assumption,
    Audit,
    Context,
    Derivation,
    Dot,
    E,
    Equation,
    IndexSum,
    Moment,
    RandomVariable,
    Rule,
    Var,
    same,
)
from scaledattn.kernel.expr import Component, normal_form, rebuild
from scaledattn.kernel.rules import (
    clear_denominator,
    count_terms,
    covariance_def,
    dot_def,
    exclude_by_sign,
    expectation_linear,
    expectation_mul_of_indep,
    prop_key,
    split_diagonal,
    sqrt_mul,
    square_roots,
    std_def,
    substitute_moment,
    sum_mul_sum,
    variance_const_mul,
    variance_def,
)
from scaledattn.moments.build import mean_derivation, variance_derivation
from scaledattn.moments.setting import AttentionSetting
from scaledattn.registry import find_derivation

__all__ = [
    "MAX_STEPS",
    "Chain",
    "Environment",
    "Lemmas",
    "derivation_of",
    "equivalence_of",
    "instance",
    "normalize",
]

#: A side is rewritten at most this many times.
MAX_STEPS = 40
#: A rewrite that makes a term larger than this many nodes, or nest more sums, is not taken.
MAX_NODES = 600
MAX_SUMS = 6

Step = tuple[Any, Any, str]


@dataclass(frozen=True)
class Chain:
    """A start and the steps (claim, rule or lemma, note) the automation took from it."""

    start: Any
    steps: tuple[Step, ...]

    @property
    def end(self) -> Any:
        """Where the chain ends."""
        return self.steps[-1][0] if self.steps else self.start


class Lemmas:
    """Var(q·k) and E[q·k] for the claim's moments, one derivation per dimension (cached).

    For the lesson's setting and the symbolic d_k they are the proved theorems
    ``dot_product_variance`` and ``dot_product_mean``; otherwise the calculator
    writes them (:func:`scaledattn.moments.build.variance_derivation`).
    """

    def __init__(self, setting: AttentionSetting | None) -> None:
        self.setting = setting
        self._made: dict[tuple[str, Expr], Derivation] = {}

    def lemma(self, term: Expr) -> Derivation | None:
        """The derivation whose left side is ``term`` (Var(q·k) or E[q·k]), if there is one."""
        if self.setting is None or not isinstance(term, (Var, E)):
            return None
        dot = term.args[0]
        if not isinstance(dot, Dot) or dot.args[0].name != "q" or dot.args[1].name != "k":
            return None
        kind = "variance" if isinstance(term, Var) else "mean"
        key = (kind, dot.dim)
        if key not in self._made:
            self._made[key] = self._make(kind, dot.dim)
        return self._made[key]

    def _make(self, kind: str, d: Expr) -> Derivation:
        assert self.setting is not None
        s = replace(self.setting, d=d)
        lesson = (s.var_q, s.var_k, s.mean_q, s.mean_k) == (1, 1, 0, 0) and s.corr is None
        if lesson and isinstance(d, sympy.Symbol) and d.name == "d_k":
            return find_derivation(f"dot_product_{kind}")
        build = variance_derivation if kind == "variance" else mean_derivation
        return build(s)  # named as its call, variance(var_q=4, …): derive opens it


@dataclass
class Environment:
    """The declared assumptions and the lemmas a derivation may use."""

    assumptions: tuple[Assumption, ...]
    lemmas: Lemmas = field(default_factory=lambda: Lemmas(None))

    @property
    def ctx(self) -> Context:
        """The assumptions as a kernel Context."""
        return Context.of(self.assumptions)

    def declared_variance(self, atom: Expr) -> bool:
        """True when a declared moment gives Var(atom)."""
        return any(
            any(True for _ in m.instances(Var(atom)))
            for m in self.assumptions
            if isinstance(m, Moment)
        )


# -------------------------------------------------------------------- tactics

Tactic = Callable[[Any, Environment], Step | None]


#: ``key`` of the propositions seen lately, by identity (each entry holds its target, so
#: the id is not reused while the entry lives): :func:`normalize` asks for the key of the
#: same object once per tactic it tries. (The kernel keeps normal forms itself.)
_KEYS: dict[int, tuple[Any, Any]] = {}
_KEYS_KEPT = 4096


def key(target: Any) -> Any:
    """What two targets must share to be the same: a normal form, or a proposition's key."""
    if not isinstance(target, Boolean):
        return normal_form(target)
    known = _KEYS.get(id(target))
    if known is not None and known[0] is target:
        return known[1]
    found = prop_key(rebuild(target))
    if len(_KEYS) >= _KEYS_KEPT:
        _KEYS.clear()
    _KEYS[id(target)] = (target, found)
    return found


def _sides(target: Any, fn: Callable[[Expr], Expr]) -> Any:
    if isinstance(target, sympy.Equality):
        return Eq(fn(target.lhs), fn(target.rhs), evaluate=False)
    if isinstance(target, sympy.Or):
        return sympy.Or(*(_sides(a, fn) for a in target.args), evaluate=False)
    return fn(target)


def _terms(target: Any) -> Iterable[Expr]:
    found: Iterable[Expr] = sympy.preorder_traversal(rebuild(target))
    return found


def _replacing(swap: dict[Expr, Expr]) -> Callable[[Expr], Expr]:
    def replace_in(e: Expr) -> Expr:
        return e.xreplace(swap)

    return replace_in


def _rule(rule: Rule) -> Tactic:
    def tactic(target: Any, env: Environment) -> Step | None:
        new, _ = rule.apply(target, env.ctx)
        return (new, rule, "") if key(new) != key(target) else None

    return tactic


def _lemma(target: Any, env: Environment) -> Step | None:
    for term in _terms(target):
        found = env.lemmas.lemma(term)
        if found is None:
            continue
        statement = found.statement
        assert isinstance(statement, Equation)
        rhs = rebuild(statement.rhs)
        return _sides(rebuild(target), _replacing({term: rhs})), found, ""
    return None


def _second_moment(target: Any, env: Environment) -> Step | None:
    for term in _terms(target):
        if not (isinstance(term, E) and isinstance(term.args[0], Pow)):
            continue
        base, exponent = term.args[0].base, term.args[0].exp
        if exponent != 2:
            continue
        known = (
            env.lemmas.lemma(Var(base)) is not None
            if isinstance(base, Dot)
            else isinstance(base, (Component, RandomVariable)) and env.declared_variance(base)
        )
        if known:
            split = group(Var(base) + E(base) ** 2)
            new = _sides(rebuild(target), _replacing({term: split}))
            return new, variance_def, "E[Z²] = Var(Z) + E[Z]²"
    return None


#: The order in which tactics are tried; after each success the search restarts.
TACTICS: tuple[Tactic, ...] = (
    _rule(std_def),
    _lemma,
    _rule(variance_const_mul),
    _rule(substitute_moment),
    _rule(covariance_def),
    _second_moment,
    _rule(variance_def),
    _rule(expectation_linear),
    _rule(expectation_mul_of_indep),
    _rule(dot_def),
    _rule(sum_mul_sum),
    _rule(split_diagonal),
    _rule(count_terms),
)
#: Tactics on equations, after the expressions are reduced.
PROPOSITION_TACTICS: tuple[Tactic, ...] = (
    _rule(clear_denominator),
    _rule(square_roots),
    _rule(exclude_by_sign),
    _rule(sqrt_mul),
)


def _too_large(target: Any) -> bool:
    sums = 0
    for nodes, node in enumerate(sympy.preorder_traversal(target), 1):
        sums += isinstance(node, IndexSum)
        if nodes > MAX_NODES or sums > MAX_SUMS:
            return True
    return False


#: Chains already written, by start and what the tactics read of the environment (its
#: assumptions and the setting its lemmas are made for): the remedies of a refuted
#: claim normalize the same two sides again under an equal environment.
_CHAINS: dict[tuple[Any, tuple[Assumption, ...], AttentionSetting | None], Chain] = {}
_CHAINS_KEPT = 512


def normalize(start: Any, env: Environment) -> Chain:
    """Rewrite ``start`` (an expression or an equation) until no tactic changes it."""
    memo = (start, env.assumptions, env.lemmas.setting)
    try:
        known = _CHAINS.get(memo)
    except TypeError:  # a term SymPy cannot hash
        return _normalize(start, env)
    if known is None:
        if len(_CHAINS) >= _CHAINS_KEPT:
            _CHAINS.clear()
        known = _CHAINS[memo] = _normalize(start, env)
    return known


def _normalize(start: Any, env: Environment) -> Chain:
    tactics = TACTICS + (PROPOSITION_TACTICS if isinstance(start, Boolean) else ())
    steps: list[Step] = []
    current = start
    seen = {key(start)}
    for _ in range(MAX_STEPS):
        for tactic in tactics:
            found = tactic(current, env)
            if found is None or _too_large(found[0]) or key(found[0]) in seen:
                continue
            steps.append(found)
            seen.add(key(found[0]))
            current = found[0]
            break
        else:
            break
    return Chain(start, tuple(steps))


# ---------------------------------------------------------------- derivations


def _pruned(derivation: Derivation) -> Derivation:
    """The same derivation declaring only the assumptions the kernel saw it use."""
    result = audit_of(derivation)
    if result.theorem is None:
        return derivation
    used = result.theorem.used
    kept = tuple(a for a in derivation.assumptions if a in used)
    if kept == derivation.assumptions:
        return derivation
    pruned = replace(derivation, assumptions=kept)
    return pruned if audit_of(pruned).verified else derivation


def derivation_of(
    name: str, lhs: Expr, rhs: Expr, left: Chain, right: Chain, env: Environment
) -> Derivation:
    """``lhs = … = rhs``: the left chain, then the right chain backwards (unchecked)."""
    proof = calc(name, lhs, rhs, assuming=env.assumptions)
    for claim, by, note in left.steps:
        proof = proof.eq(claim, by=by, note=note)
    if right.steps:
        exprs = [right.start, *(claim for claim, _, _ in right.steps)]
        if exprs[-1] != left.end:
            proof = proof.eq(exprs[-1], by="ring")
        for n in range(len(right.steps), 0, -1):
            proof = proof.eq(exprs[n - 1], by=right.steps[n - 1][1], note=right.steps[n - 1][2])
    elif not left.steps:
        proof = proof.eq(rhs, by="ring")
    return _pruned(proof.qed())


def equivalence_of(
    name: str, left: Any, right: Any, chain: Chain, env: Environment, back: Chain | None = None
) -> Derivation:
    """``left ⇔ … ⇔ right``: the chain from the left, then ``back`` (from the right) reversed."""
    proof = equivalence(name, left, right, assuming=env.assumptions)
    for claim, by, note in chain.steps:
        proof = proof.iff(claim, by=by, note=note)
    if back is not None and back.steps:
        props = [back.start, *(claim for claim, _, _ in back.steps)]
        for n in range(len(back.steps), 0, -1):
            proof = proof.iff(props[n - 1], by=back.steps[n - 1][1], note=back.steps[n - 1][2])
    elif not chain.steps:
        proof = proof.iff(right, by="ring")
    return _pruned(proof.qed())


def audit_summary(result: Audit) -> str:
    """'N steps checked by the kernel (rules: …)' for a verified derivation."""
    names = []
    for step in result.steps:
        if step.rule_name not in names:
            names.append(step.rule_name)
    n = len(result.steps)
    return f"{n} step{'s' if n != 1 else ''} checked by the kernel ({', '.join(names)})"


# ------------------------------------------------------------------ instances

#: Values tried for the constants when looking for an instance where two sides differ.
TRIAL_VALUES: dict[str, tuple[int | sympy.Rational, ...]] = {
    "integer": (1, 2, 3, 4, 8),
    "positive": (2, sympy.Rational(1, 2), 3),
    "real": (sympy.Rational(1, 2), -1, 2),
}


def _trials(symbol: sympy.Symbol) -> tuple[Any, ...]:
    if symbol.is_integer:
        return TRIAL_VALUES["integer"]
    if symbol.is_positive:
        return TRIAL_VALUES["positive"]
    return TRIAL_VALUES["real"]


def instance(
    left: Expr,
    right: Expr,
    positive: Sequence[sympy.Symbol] = (),
    admissible: Callable[[dict[Any, Any]], bool] | None = None,
) -> dict[Any, Any] | None:
    """Values of the free constants at which ``left`` and ``right`` are different numbers.

    ``positive`` lists symbols declared positive; ``admissible`` (when given) must accept
    the values (the verifier asks whether some model of the assumptions has them). None
    when no tried value separates the two sides.

    >>> d = sympy.Symbol("d_k", integer=True, positive=True)
    >>> instance(1 / d, sympy.S.One)
    {d_k: 2}
    """
    symbols = sorted((left - right).free_symbols, key=str)
    choices = [_trials(s) if s not in positive else TRIAL_VALUES["positive"] for s in symbols]
    for values in itertools.islice(itertools.product(*choices), 200):
        at = dict(zip(symbols, values, strict=True))
        verdict = same(left.xreplace(at), right.xreplace(at))
        if verdict is False and (admissible is None or admissible(at)):
            return at
    return None
