"""Certificates: a kernel derivation written for the checker (``scaledattn.checker``).

Untrusted: it may write anything; the checker reads it with its own reader and checks
every step against its own schemas. A certificate is JSON-like data (dict, list, str,
int): the derivation's name, kind (``calc`` or ``iff``), declared facts, the sides of
its statement, and per step the rule, the claim, and the rewrites the kernel made
(``forward`` on the previous claim, ``backward`` on the claim when the kernel rewrote it
too), each a subterm, its replacement and the facts it read (by their number). Theorems
used as rules come along as ``lemmas``, certificates of their own.

:func:`doubly_checked` is the checker's verdict on the certificate of a kernel audit, or
why no certificate could be written (a term the checker's language does not hold: then
the verdict is not doubly checked); :func:`word` says it in one word for a VERIFIED line.
:func:`confirm` is the one place a kernel verdict becomes a verdict: every door (the
renderers' verdict line and JSON, ``derive.prove`` and so the API's Theorem, check-proof,
the exercises, the calculator, the cache's ``check``) asks it, and it raises
:class:`~scaledattn.errors.SoundnessAlarm` (exit 70, "please report") when the kernel
accepted and the checker refuses.

>>> from scaledattn.kernel import Derivation, E, Equation, Step, check, random_variables
>>> from scaledattn.kernel import audit, rules
>>> X, Y = random_variables("X Y")
>>> d = Derivation("lin", Equation(E(X + Y), E(X) + E(Y)),
...                (Step(rules.expectation_linear, E(X) + E(Y)),))
>>> doubly_checked(audit(d)).ok
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy
from sympy.core.function import AppliedUndef

from scaledattn.checker import Verdict, check_certificate
from scaledattn.checker.steps import FORMAT
from scaledattn.errors import CannotCertify, SoundnessAlarm
from scaledattn.kernel import Audit, Equivalence, Instance, Theorem
from scaledattn.kernel import assumptions as A  # noqa: N812
from scaledattn.kernel import expr as X  # noqa: N812
from scaledattn.kernel import vectors as V  # noqa: N812
from scaledattn.kernel.expr import rebuild

Data = Any


def _facts_of(s: sympy.Symbol) -> str:
    f = s.assumptions0
    letters = {"real": "r", "positive": "p", "integer": "i", "nonzero": "z", "nonnegative": "n"}
    letters |= {"negative": "g"}
    return "".join(sorted(v for k, v in letters.items() if f.get(k) is True))


def _number(x: sympy.Rational) -> Data:
    return ["num", f"{x.p}/{x.q}" if x.q != 1 else str(x.p)]


def term(e: Any) -> Data:
    """A SymPy term of the kernel's language as the checker's nested lists."""
    if isinstance(e, (bool, sympy.logic.boolalg.BooleanTrue, sympy.logic.boolalg.BooleanFalse)):
        return ["true"] if bool(e) else ["false"]
    if isinstance(e, int):
        return ["num", str(e)]
    if isinstance(e, (sympy.UnevaluatedExpr, X.Group)):
        return term(e.args[0])
    if isinstance(e, sympy.Rational):
        return _number(e)
    if type(e) is X.RandomVariable:
        return ["rv", e.name]
    if type(e) is sympy.Dummy:
        return ["sym", f"{e.name}_{e.dummy_index}", _facts_of(e)]
    if type(e) is sympy.Symbol:  # a class of one's own may say anything of itself
        return ["sym", e.name, _facts_of(e)]
    if e is sympy.E:
        return ["exp", ["num", "1"]]
    if isinstance(e, sympy.Add):
        return ["add", *map(term, e.args)]
    if isinstance(e, sympy.Mul):
        return ["mul", *map(term, e.args)]
    if isinstance(e, sympy.Pow):
        return ["pow", term(e.base), term(e.exp)]
    simple = {X.E: "E", X.Var: "Var", X.Cov: "Cov", X.Std: "Std", sympy.exp: "exp"}
    simple |= {sympy.log: "log", sympy.Abs: "abs", sympy.KroneckerDelta: "delta"}
    if type(e) in simple:
        return [simple[type(e)], *map(term, e.args)]
    if isinstance(e, X.DotProduct):
        return ["dot", e.args[0].name, e.args[1].name, term(e.args[2])]
    if isinstance(e, X.Component):
        return ["comp", e.label.name, term(e.index)]
    if type(e) is X.IndexSum:
        return ["sum", term(e.body), term(e.indices[0]), term(e.upper)]
    if type(e) is X.CrossSum:
        i, j = e.indices
        return ["cross", term(e.body), term(i), term(j), term(e.upper)]
    if type(e) is V.Entry:
        return ["entry", e.vector, term(e.index), term(e.dim)]
    if type(e) is V.Softmax:
        return ["softmax", e.vector, term(e.index), term(e.dim), e.shown]
    if type(e) is V.Deriv:
        return ["deriv", term(e.args[0]), term(e.args[1])]
    if type(e) is V.Lim:
        return ["lim", term(e.args[0]), term(e.args[1])]
    if isinstance(e, sympy.Equality):
        return ["eq", term(e.lhs), term(e.rhs)]
    if isinstance(e, sympy.Or):
        return ["or", *map(term, e.args)]
    if isinstance(e, AppliedUndef) and not e.func.default_assumptions:
        return ["fn", str(e.func), *map(term, e.args)]
    raise CannotCertify(f"the checker's language has no {type(e).__name__} ({e})")


def _unit(u: Any) -> Data:
    return ["rv", u.name] if isinstance(u, X.RandomVariable) else ["vec", u.name]


def fact(a: Any) -> Data:
    """A declared assumption as the checker reads it."""
    if isinstance(a, A.Independent):
        return ["independent", [_unit(u) for u in a.units]]
    if isinstance(a, A.IndependentComponents):
        return ["components", [["vec", v.name] for v in a.vectors]]
    if isinstance(a, A.IndependentPairs):
        return ["pairs", [["vec", v.name] for v in a.vectors]]
    if isinstance(a, A.Moment):
        return ["moment", term(a.lhs), term(a.value)]
    if isinstance(a, A.Positive):
        return ["positive", term(a.symbol)]
    if isinstance(a, V.Entries):
        return ["define", a.name, term(a.body), term(a.index), term(a.dim)]
    if isinstance(a, V.IndexRange):
        return ["range", term(a.index), term(a.upper)]
    if isinstance(a, V.Distinct):
        t, w = sorted(a.pair, key=str)
        return ["distinct", term(t), term(w)]
    return ["other", str(a)]


def _instances(trace: Any, index: dict[Any, int]) -> list[Data]:
    out = []
    for node, new, used in trace:
        item: dict[str, Data] = {"lhs": term(node), "rhs": term(new)}
        item["facts"] = sorted(index[a] for a in used if a in index)
        if isinstance(node, sympy.Equality) and isinstance(new, sympy.Equality):
            _num, den = sympy.fraction(sympy.together(node.lhs - node.rhs))
            item["by"] = [term(den)]
        out.append(item)
    return out


#: The audit of each theorem the kernel issued that was noted (``note``), by id.
_BY_THEOREM: dict[int, Audit] = {}


def note(result: Audit) -> None:
    """Keep ``result`` as the audit of its theorem (a theorem cited later as a lemma)."""
    if result.theorem is not None:
        _BY_THEOREM[id(result.theorem)] = result


def _lemma_audit(t: Theorem) -> Audit:
    found = _BY_THEOREM.get(id(t))
    if found is not None and found.theorem is t:
        return found
    from scaledattn.kernel import audit

    cited = {s.rule.name: s.rule for s in t.derivation.steps if isinstance(s.rule, Theorem)}
    return audit(t.derivation, cited)


def certificate(result: Audit) -> dict[str, Data]:
    """The certificate of a verified audit (CannotCertify: a term it cannot write)."""
    d = result.derivation
    index = {a: n for n, a in enumerate(d.assumptions)}
    lemmas: list[Data] = []
    steps = []
    for r in result.steps:
        rule = r.step.rule
        try:  # a step it cannot write is a gap of its own: the checker checks the others
            if isinstance(rule, Theorem):
                lemmas.append(certificate(_lemma_audit(rule)))
                name = f"theorem:{rule.name}"
            elif r.axioms:
                name = f"axiom:{r.rule_name}"
            elif isinstance(rule, Instance):  # a rule the checker has no schema for: a gap
                name = f"instance:{r.rule_name}"
            else:
                name = r.rule_name
            forward, backward = r.trace
            step: dict[str, Data] = {"rule": name, "claim": term(rebuild(r.step.claim))}
            step["forward"] = _instances(forward, index)
            if backward is not None:
                step["backward"] = _instances(backward, index)
        except CannotCertify as err:
            step = {"rule": f"unwritten:{r.rule_name}", "claim": None, "why": str(err)}
        steps.append(step)
    st = d.statement
    return {
        "format": FORMAT,
        "name": d.name,
        "kind": "iff" if isinstance(st, Equivalence) else "calc",
        "facts": [fact(a) for a in d.assumptions],
        "lhs": term(rebuild(st.lhs)),
        "rhs": term(rebuild(st.rhs)),
        "steps": steps,
        "lemmas": lemmas,
    }


@dataclass(frozen=True)
class Double:
    """The checker's verdict on a kernel audit, or why none could be given."""

    verdict: Verdict | None
    unreadable: str | None = None

    @property
    def ok(self) -> bool:
        """True when the checker accepted the certificate."""
        return self.verdict is not None and self.verdict.ok


def doubly_checked(result: Audit) -> Double:
    """Check a verified audit's certificate with the checker."""
    try:
        cert = certificate(result)
    except CannotCertify as err:
        return Double(None, str(err))
    except Exception as err:  # the writer is untrusted: its failure only leaves it unread
        return Double(None, f"the certificate writer failed: {type(err).__name__}: {err}")
    return Double(check_certificate(cert))


_WORDS: dict[int, tuple[Audit, str]] = {}


def word(result: Audit) -> str:
    """The checker's word on an audit: "checked", "unread: why" or "refused: why".

    The empty word when the kernel did not verify it.
    """
    hit = _WORDS.get(id(result))
    if hit is not None and hit[0] is result:
        return hit[1]
    found = ""
    if result.verified:
        double = doubly_checked(result)
        if double.verdict is None:
            found = f"unread: {double.unreadable}"
        else:
            found = judge(result.derivation, double.verdict)
    _WORDS[id(result)] = (result, found)
    return found


#: How the checker's driver begins the reason of a certificate it could not read (its
#: catch-all before step 1: a tag or a field it does not know; ``checker/steps.py``; a
#: bound met while checking, ``exp(513)``, is a refusal, the alarm). Every refusal
#: of a step it read begins with a fixed text of its own, never with this, and never with
#: a name of the certificate's (tests/checker/test_doors.py reads the driver for it).
READ_FAILURE = "cannot read the certificate: "


def alarm_text(name: str, said: str) -> str:
    """The alarm when the kernel accepted ``name`` and the checker's word ``said`` refuses it.

    It names the step and the checker's reason (the refusal says both) and asks for a
    report; it never says the derivation is verified.
    """
    return (
        f"soundness alarm: the kernel accepted {name}, but the independent checker refuses"
        f" its certificate: {said.removeprefix('refused: ')}. Both must accept a derivation,"
        " so the verdict is withheld (please report it)"
    )


def confirm(result: Audit) -> str:
    """The checker's word on a kernel audit, raising the alarm when the two disagree.

    "checked" (the kernel and the checker accept: doubly checked), "unread: why" (the
    kernel accepts, the checker cannot read it yet: the kernel's word only, never said
    to be doubly checked), or "" (the kernel did not verify it). When the kernel accepts
    and the checker refuses: :class:`~scaledattn.errors.SoundnessAlarm`, whose text is
    :func:`alarm_text`. One checker run per audit (:func:`word` keeps its word).
    """
    said = word(result)
    if said.startswith("refused"):
        raise SoundnessAlarm(alarm_text(result.derivation.name, said))
    return said


def confirm_theorem(t: Theorem) -> str:
    """:func:`confirm` for a Theorem the kernel issued (``scaledattn.kernel.check``'s).

    Its audit is the one kept when it was noted (:func:`note`), else the kernel's audit
    of its derivation again: "checked" or "unread: why", or SoundnessAlarm.
    """
    return confirm(_lemma_audit(t))


def judge(derivation: Any, verdict: Verdict) -> str:
    """The word on a verdict: "checked", "unread: why" or "refused: why".

    "checked" only when the certificate the checker accepted is of ``derivation`` itself
    (its name, kind, sides and assumptions). A refusal is "unread" when the checker says
    so by its flag, or by the reason its driver gives a certificate it could not read
    (:data:`READ_FAILURE`, a prefix of its own text, never searched for in the rest: a
    certificate it could not read, before step 1, is no disagreement, and nothing doubly
    checked); else "refused", the alarm (:func:`confirm`), also for a term past its bounds.
    """
    refusal = verdict.refusal
    if refusal is not None:
        unread = refusal.unread or refusal.reason.startswith(READ_FAILURE)
        return f"{'unread' if unread else 'refused'}: {refusal}"
    from scaledattn.checker.facts import read_fact
    from scaledattn.checker.terms import read

    st = derivation.statement
    try:
        ours = (
            derivation.name,
            "iff" if isinstance(st, Equivalence) else "calc",
            (read(term(rebuild(st.lhs))), read(term(rebuild(st.rhs)))),
            tuple(read_fact(fact(a)) for a in derivation.assumptions),
        )
    except Exception as err:  # the statement cannot be written: never doubly checked
        return f"unread: the statement is not written in the checker's terms ({err})"
    if ours != (verdict.name, verdict.kind, verdict.statement, verdict.facts):
        return "refused: the certificate is not of this derivation's statement and assumptions"
    return "checked"
