"""Drive a certificate: each step's instances checked and replaced, the sides compared.

For a step ``prev → claim`` by rule R with instances ``lᵢ → rᵢ`` (``forward``, applied
to prev, in order) and ``backward`` (applied to the claim), the checker

1. checks the claim defined (each divisor non-zero by its form or a declared fact);
2. replaces, in order, each node of prev equal to lᵢ in normal form (or a sub-product
   of a product, for a product lᵢ) by rᵢ, where lᵢ → rᵢ is an instance of R's schema
   at that node (bound indices, index pairs kept apart, visible facts), rᵢ is defined
   there and binds nothing free that a binder around the node would capture;
3. accepts when prev and the claim, so rewritten, have one normal form (propositions:
   one key, an equation up to a non-zero factor).

The chain starts at the statement's left side and ends at its right side. A theorem
used as a rule (``theorem:NAME``) is the certificate of that theorem (``lemmas``),
checked first; its instances are its sides, where the facts it read are declared here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from scaledattn.checker.facts import BODIES, Env, Fact, negative, nonzero, read_fact, schematic
from scaledattn.checker.normal import canon, defined, nf, prop_key, same
from scaledattn.checker.schemas import ON_PROPOSITIONS, SCHEMAS
from scaledattn.checker.terms import Term, Unreadable, children, free_vars, mul, read, remake, subst

FORMAT = 1


@dataclass(frozen=True)
class Refusal:
    """Why the checker refuses: the derivation, the step (0: the statement), the rule."""

    theorem: str
    step: int
    rule: str
    reason: str
    #: Not a refusal of a claim: the checker does not read this yet (or an axiom).
    unread: bool = False

    def __str__(self) -> str:
        where = f"step {self.step} ({self.rule})" if self.step else "the statement"
        return f"{self.theorem}, {where}: {self.reason}"


@dataclass(frozen=True)
class Verdict:
    """The checker's verdict on a certificate."""

    name: str
    refusal: Refusal | None
    used: frozenset[int] = frozenset()
    facts: tuple[Fact, ...] = ()
    statement: tuple[Term, Term] | None = None
    vectors: frozenset[str] = frozenset()
    kind: str = ""
    #: No derivative or limit in it: true for every value of a vector it leaves free.
    pointwise: bool = False

    @property
    def ok(self) -> bool:
        """True when every step and the statement were accepted."""
        return self.refusal is None


@dataclass
class _Instance:
    lhs: Term
    rhs: Term
    cited: tuple[int, ...]
    by: tuple[Term, ...]
    why: str | None = None
    memo: dict[Any, str | None] = field(default_factory=dict)


class _Refused(Exception):
    pass


class _Unread(_Refused):
    pass


def _read_instance(data: Any, nfacts: int) -> _Instance:
    if not isinstance(data, dict) or not {"lhs", "rhs"} <= set(data):
        raise Unreadable("an instance is a mapping with lhs and rhs")
    cited = tuple(int(n) for n in data.get("facts", ()))
    if any(not 0 <= n < nfacts for n in cited):
        raise Unreadable("an instance cites a fact that is not declared")
    by = tuple(read(t) for t in data.get("by", ()))
    return _Instance(read(data["lhs"]), read(data["rhs"]), cited, by)


def _valid(rule: str, inst: _Instance, env: Env, lemmas: dict[str, Verdict]) -> str | None:
    sc = env.scope  # everything a schema may read at the position
    memo_key = (sc.bound, sc.distinct, sc.ranges, sc.limits, sc.varied)
    if memo_key in inst.memo:
        return inst.memo[memo_key]
    # the lhs matched in normal form: sound where defined
    why = defined(inst.lhs, env) or _schema(rule, inst, env, lemmas) or defined(inst.rhs, env)
    if why is None:
        known = free_vars(inst.lhs) | (env.reach(("other", inst.lhs)) & env.scope.limits)
        escaping = (free_vars(inst.rhs) - known) & env.scope.bound  # λ of a definition: ours
        why = "the replacement names a variable bound here" if escaping else None
    inst.memo[memo_key] = why
    return why


def _schema(rule: str, inst: _Instance, env: Env, lemmas: dict[str, Verdict]) -> str | None:
    if rule.startswith("theorem:"):
        lemma = lemmas.get(rule[8:])
        if lemma is None or not lemma.ok or lemma.statement is None:
            return "the theorem it cites is not among the checked lemmas"
        for n in lemma.used:
            fact = lemma.facts[n]
            here = [m for m, f in enumerate(env.facts) if f == fact and env.visible(m)]
            if not here:
                return "a fact the theorem read is not declared (or not visible) here"
            env.used.add(here[0])
        defs, theirs = {f for f in _defs(env.facts) if f[1] in lemma.vectors}, _defs(lemma.facts)
        free = {f for f in defs if lemma.pointwise and f[1] not in {g[1] for g in theirs}}
        if not defs - free <= theirs:  # a vector it leaves free: constant in ∂/∂x and lim
            return "the theorem was checked under other definitions"
        lhs, rhs = lemma.statement
        if not (same(lhs, inst.lhs) and same(rhs, inst.rhs)):
            return "the instance is not the theorem's statement"
        return None
    schema = SCHEMAS.get(rule)
    if schema is None:
        return f"the checker has no schema for rule {rule}"
    extra = (inst.by,) if rule == "clear_denominator" else ()
    return schema(inst.lhs, inst.rhs, inst.cited, env, *extra)  # type: ignore[no-any-return]


def _defs(facts: tuple[Fact, ...]) -> frozenset[Fact]:
    return frozenset(f for f in facts if f[0] == "define")


_SYM = re.compile(r'\["sym", "((?:[^"\\]|\\.)*)", "([a-z]*)"\]')
_VEC = re.compile(r'\["(?:entry|softmax|define)", "((?:[^"\\]|\\.)*)"')


def _symbols(text: str) -> tuple[dict[str, str], frozenset[str]]:
    """Each symbol's name in a certificate's text with its type (one only); the vectors."""
    types: dict[str, str] = {}
    for name, letters in _SYM.findall(text):
        typed = "".join(sorted(set(letters)))
        if types.setdefault(name, typed) != typed:
            raise _Refused(f"the symbol {json.loads(chr(34) + name + chr(34))} has two types")
    return types, frozenset(json.loads(f'"{v}"') for v in _VEC.findall(text))


def _inconsistent(facts: tuple[Fact, ...], types: dict[str, str]) -> str | None:
    """Why the declared facts and types contradict each other or the checker's signs."""
    env = Env(facts)
    if any("g" in t and set("pn") & set(t) for t in types.values()):
        return "a symbol is typed both negative and not"
    defs = [f[1] for f in facts if f[0] == "define"]
    if len(set(defs)) < len(defs):
        return "a vector is defined twice"
    values: dict[Term, Any] = {}
    for f in facts:
        if f[0] == "define" and f[1] in env.vectors(f):
            return "a vector is defined through itself"
        if f[0] == "positive" and "g" in f[1][2]:
            return "a negative symbol is declared positive"
        if f[0] == "distinct" and same(f[1], f[2]):
            return "a term is declared distinct from itself"
        lo = f[1][1] if f[0] == "range" and f[1][0] == "num" else 1
        empty = f[0] == "range" and (lo < 1 or negative(f[1], env) or negative(f[2], env))
        if empty or (f[0] == "range" and f[2][0] == "num" and f[2][1] < lo):
            return "an index is declared in an empty range"
        if f[0] == "moment":
            if f[1][0] == "Var" and negative(f[2], env):
                return "a variance is declared negative"
            order = sorted(schematic(f), key=lambda v: repr(f[1]).index(repr(v)))
            ren = {v: ("bv", -1 - n) for n, v in enumerate(order)}  # E[qᵢ] and E[qⱼ] alike
            lhs, value = canon(subst(f[1], ren)), canon(subst(f[2], ren))
            old = values.setdefault(lhs, value)  # two values that may be equal are no contradiction
            if nonzero(canon(("add", old, ("mul", ("num", Fraction(-1)), value))), env):
                return "a moment is declared with two values"
    return None


def _matches(t: Term, lhs: Term) -> bool:
    arith = ("add", "mul", "pow")
    if t[0] != lhs[0] and not (t[0] in arith and lhs[0] in arith):
        return False
    return nf(t) == nf(lhs)


def _flat(t: Term) -> list[Term]:
    if t[0] == "mul":
        return [f for a in t[1:] for f in _flat(a)]
    e = t[2] if t[0] == "pow" else None
    if e is not None and e[0] == "num" and e[1].denominator == 1 and 2 <= e[1] <= 64:
        return [t[1]] * int(e[1])
    return [t]


def _replace(t: Term, rule: str, inst: _Instance, env: Env, lemmas: dict[str, Verdict]) -> Term:
    """``t`` with every node equal to the instance's lhs (where it is valid) replaced."""
    if _matches(t, inst.lhs):
        why = _valid(rule, inst, env, lemmas)
        if why is None:
            return inst.rhs
        inst.why = inst.why or why
    if t[0] == "mul" and inst.lhs[0] in ("mul", "pow"):
        factors, wanted = _flat(t), _flat(inst.lhs)
        left = list(factors)
        for w in wanted:
            hit = next((n for n, f in enumerate(left) if nf(f) == nf(w)), None)
            if hit is None:
                break
            left.pop(hit)
        else:
            if left and len(left) < len(factors):
                why = _valid(rule, inst, env, lemmas)
                if why is None:
                    return mul(inst.rhs, *left)
                inst.why = inst.why or why
    pos = children(t)
    if not pos:
        return t
    inner = env.at(env.scope.enter(t)) if t[0] in BODIES else env
    new = [_replace(t[p], rule, inst, inner if p == 1 else env, lemmas) for p in pos]
    return remake(t, new)


def _apply(
    t: Term, rule: str, insts: list[_Instance], env: Env, lemmas: dict[str, Verdict]
) -> Term:
    for inst in insts:
        if rule in ON_PROPOSITIONS:
            why = (
                _valid(rule, inst, env, lemmas) if prop_key(t) == prop_key(inst.lhs) else "no match"
            )
            if why is not None:
                raise _Refused(f"the instance is not one of the rule: {why}")
            t = inst.rhs
        else:
            t = _replace(t, rule, inst, env, lemmas)
    return t


def _equal(kind: str, a: Term, b: Term) -> bool:
    return prop_key(a) == prop_key(b) if kind == "iff" else nf(a) == nf(b)


def _defined(kind: str, t: Term, env: Env) -> str | None:
    if kind == "iff":
        parts = [t] if t[0] != "or" else list(t[1:])
        for p in parts:
            if p[0] == "eq":
                for side in p[1:]:
                    nf(side)  # an expression, or Unreadable
                    why = defined(side, env)
                    if why:
                        return why
            elif p[0] not in ("true", "false"):
                raise Unreadable(f"a chain of equivalences claims equations, got {p[0]}")
        return None
    nf(t)
    return defined(t, env)


NOT_YET = "not read yet"


def _read_step(d: Any, nfacts: int) -> tuple[str, Term, list[_Instance], list[_Instance]]:
    fwd, back = ([_read_instance(i, nfacts) for i in d.get(k, ()) or ()] for k in FB)
    return str(d["rule"]), read(d["claim"]), fwd, back


def _read_or_gap(d: Any, nfacts: int, known: dict[str, Verdict]) -> tuple[str, Any, Any, Any]:
    """A step read, or a gap (rule, claim or None, why, None): no step of the checker's.

    An axiom, a rule or a lemma not read, a step the reader cannot read.
    """
    rule = str(d.get("rule", "")) if isinstance(d, dict) else ""
    lemma = known.get(rule[8:]) if rule.startswith("theorem:") else None
    why = f"its lemma is not read: {lemma.refusal}" if lemma and lemma.refusal else None
    if rule.startswith("axiom:"):
        why = "an axiom is taken on trust: the checker does not check it"
    elif not (rule.startswith("theorem:") or rule in SCHEMAS or rule == "ring"):
        why = f"{NOT_YET}: the rule {rule}"
    try:
        read_step = _read_step(d, nfacts)
    except Exception as err:  # a step the reader cannot read is a gap
        return rule, None, why or f"cannot read the certificate: {err}", None
    return (rule, read_step[1], why, None) if why else read_step


FB = ("forward", "backward")


#: Verdicts already given, by name, with the certificate they were given on: an equal
#: certificate (a lemma cited again) gets the same verdict without a second check.
_DONE: dict[str, Verdict] = {}


def check_certificate(
    cert: Any, lemmas: dict[str, Verdict] | None = None, depth: int = 0
) -> Verdict:
    """The checker's verdict on a certificate (its lemmas checked first)."""
    name = str(cert.get("name", "?")) if isinstance(cert, dict) else "?"
    try:  # the text itself is kept, never the (mutable) object handed over
        text = json.dumps(cert, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as err:
        return Verdict(name, Refusal(name, 0, "", f"cannot read the certificate: {err}"))
    done = _DONE.get(text)
    if done is not None and not lemmas:
        return done
    verdict = _check(json.loads(text), lemmas, depth, text)
    if not lemmas:
        _DONE[text] = verdict
    return verdict


def _check(cert: Any, lemmas: dict[str, Verdict] | None, depth: int, text: str) -> Verdict:
    name = str(cert.get("name", "?")) if isinstance(cert, dict) else "?"
    known: dict[str, Verdict] = dict(lemmas or {})
    step, rule, reading = 0, "", True  # "unread": only a failure to read it, before step 1
    try:
        if not isinstance(cert, dict) or cert.get("format") != FORMAT:
            raise Unreadable(f"not a certificate of format {FORMAT}")
        for sub in cert.get("lemmas", ()):
            if depth > 20 or not isinstance(sub, dict):
                raise Unreadable("a lemma is a certificate, nested at most 20 deep")
            if str(sub.get("name")) not in known:
                verdict = check_certificate(sub, None, depth + 1)
                if verdict.refusal is not None and not verdict.refusal.unread:
                    said = f"its lemma is refused: {verdict.refusal}"
                    return Verdict(name, Refusal(name, 0, "", said))
                known[verdict.name] = verdict  # one not read: the steps citing it are gaps
        if (kind := cert["kind"]) not in ("calc", "iff"):
            raise Unreadable("a certificate's kind is calc or iff")
        facts = tuple(read_fact(f) for f in cert["facts"])
        types, vectors = _symbols(text)
        lhs, rhs = read(cert["lhs"]), read(cert["rhs"])
        steps = [_read_or_gap(d, len(facts), known) for d in cert["steps"]]
        reading = False  # from here a bound met or an error is a refusal: the alarm
        contradiction = _inconsistent(facts, types)
        if contradiction:
            raise _Refused(f"the facts contradict each other: {contradiction}")
        env = Env(facts)
        prev: Term | None = lhs
        if why := _defined(kind, lhs, env) or _defined(kind, rhs, env):
            raise _Refused(why)
        if not steps:
            raise _Refused("a derivation needs at least one step")
        gap: tuple[int, str, str] | None = None  # the first step taken on trust
        for step, (rule, claim, fwd, back) in enumerate(steps, start=1):
            if isinstance(fwd, str) or prev is None:  # a gap: every other step is checked
                gap = gap or (step, rule, fwd if isinstance(fwd, str) else "after a gap")
                prev = claim
                continue
            if why := _defined(kind, claim, env):
                raise _Refused(f"the claim may be undefined: {why}")
            if rule == "ring" and (fwd or back):
                raise _Refused("ring algebra has no instances")
            a = _apply(prev, rule, fwd, env, known)
            b = _apply(claim, rule, back, env, known) if back else claim
            if not (_equal(kind, a, claim) or _equal(kind, prev, b) or _equal(kind, a, b)):
                whys = [i.why for i in fwd + back if i.why]
                detail = f" ({whys[0]})" if whys else ""
                raise _Refused(f"the claim is not what the rule's instances give{detail}")
            prev = claim
        step, rule = 0, ""
        if prev is not None and not _equal(kind, prev, rhs):
            raise _Refused("the chain does not end at the statement's right side")
        if gap is not None:  # every step read passed; the gaps' are the kernel's word
            step, rule, why = gap
            raise _Unread(why)
    except _Refused as err:
        return Verdict(name, Refusal(name, step, rule, str(err), isinstance(err, _Unread)))
    except Exception as err:  # whatever the data, a refusal (never a crash)
        kind_of = "" if isinstance(err, Unreadable) else f"{type(err).__name__}: "
        if not reading:  # a bound or an error met checking a step (or the statement)
            return Verdict(name, Refusal(name, step, rule, f"{kind_of}{err}"))
        said = f"cannot read the certificate: {kind_of}{err}"
        return Verdict(name, Refusal(name, step, rule, said, True))
    pointwise = '["deriv"' not in text and '["lim"' not in text
    return Verdict(name, None, frozenset(env.used), facts, (lhs, rhs), vectors, kind, pointwise)
