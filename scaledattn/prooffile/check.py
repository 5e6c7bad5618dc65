"""Checking a proof file: every step by the kernel, with feedback on the ones it rejects.

For each theorem: the declared assumptions (and the lesson's defaults for what they
leave unsaid), then each step in turn, from the previous *written* expression:

- with ``by RULE``: the kernel's step check, nothing else;
- without: the search of :mod:`scaledattn.prooffile.search` proposes a rule, a short
  chain, or a longer chain (a gap), and the kernel checks each of its steps; the
  searches of one file share a budget of :data:`MAX_FILE_CHECKS` kernel checks, and a
  step past it is not searched (it says so).

The theorem is proved only by the kernel's ``audit`` of the whole chain with the
found steps written in; a proved theorem may be cited (``by NAME``) by later ones.
A rejected step gets feedback (:mod:`scaledattn.prooffile.feedback`): what the rule
gives, the difference, a model where the two sides differ, and the likely cause.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

import sympy
from sympy.logic.boolalg import Boolean

from scaledattn.automation.consistency import inconsistency, kept_defaults
from scaledattn.automation.rewrite import key
from scaledattn.certificate import confirm, note
from scaledattn.derive import audit_of
from scaledattn.errors import ProofFileError
from scaledattn.gate import NO_MODEL, check_steps, model_found, model_line
from scaledattn.kernel import (
    RULES,
    Assumption,
    Audit,
    Context,
    Derivation,
    IndependentComponents,
    Moment,
    Positive,
    RandomVector,
    Step,
    StepResult,
    Theorem,
    audit,
)
from scaledattn.kernel.assumptions import Independence
from scaledattn.kernel.expr import Component, Dot, E, Var, rebuild
from scaledattn.kernel.theorem import check_step
from scaledattn.language.definedness import first_unmet
from scaledattn.prooffile.feedback import Feedback, feedback
from scaledattn.prooffile.instances import Resolution, resolve, rule_shown, schematic_names
from scaledattn.prooffile.library import LEMMAS
from scaledattn.prooffile.library import NAMES as LEMMA_NAMES
from scaledattn.prooffile.parse import Document, TheoremBlock
from scaledattn.prooffile.search import MAX_CHECKS, Justification, Search
from scaledattn.registry import all_derivations
from scaledattn.render.display import assumption_text, carried_assumptions

__all__ = [
    "StepVerdict",
    "TheoremVerdict",
    "builtin_theorems",
    "check_document",
    "is_known_rule",
    "refuse_undefined",
]


#: The searches of one file make at most this many kernel checks together (five steps'
#: worth of the search's own budget, MAX_CHECKS); a step without ``by`` after that is
#: not searched, and says so. A bound that does not depend on the machine's speed.
MAX_FILE_CHECKS = 5 * MAX_CHECKS
SKIPPED = (
    f"not searched: this file's searches have made their {MAX_FILE_CHECKS} kernel checks;"
    " name the step's rule with by"
)
#: The chains the searches found for one file hold at most this many kernel steps
#: together (the audit checks each one, a few milliseconds apiece): a step whose chain
#: would pass it is not taken, and says so. 399 gaps of 30 steps each took 16 s.
MAX_FILE_STEPS = 2000
TOO_LONG = (
    f"not taken: the chains found for this file would hold more than {MAX_FILE_STEPS}"
    " kernel steps; write the step smaller, or name its rule with by"
)


@dataclass(frozen=True)
class StepVerdict:
    """One written step: 'verified', 'gap' (bridged by a longer chain), 'rejected' or 'unproved'.

    'unproved': no rule or chain found, and no model tells the two sides apart.
    """

    number: int
    line: int
    written_rule: str | None
    claim: Any
    status: str
    justification: Justification | None = None
    feedback: Feedback | None = None

    @property
    def rules(self) -> tuple[str, ...]:
        """The rules the kernel checked for this step (an instance as the file writes it)."""
        if self.justification is None:
            return ()
        return tuple(rule_shown(r.step.rule, r.rule_name) for r in self.justification.results)


@dataclass
class TheoremVerdict:
    """A theorem's steps, the problems with its start or end, and the kernel's audit."""

    block: TheoremBlock
    assumptions: tuple[Assumption, ...]
    described: list[str]
    start: Any
    steps: list[StepVerdict] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    audit: Audit | None = None
    #: The gate's line: a model of the assumptions (:func:`scaledattn.gate.model_of`).
    model: str = ""
    #: Why no verdict is given ("" when one is): no model of the assumptions was found,
    #: or they are inconsistent.
    withheld: str = ""
    #: The independent checker's word on a verified theorem (``certificate.confirm``):
    #: "checked" or "unread: why"; "" when not verified (a refusal raised the alarm).
    checker: str = ""

    @property
    def verified(self) -> bool:
        """True when the kernel proved the theorem (every step justified) and a model exists."""
        rejected = any(s.status in ("rejected", "unproved") for s in self.steps)
        proved = self.audit is not None and self.audit.verified
        return proved and not self.problems and not rejected and not self.withheld

    @property
    def gaps(self) -> int:
        """How many steps were bridged by a chain longer than the search's."""
        return sum(1 for s in self.steps if s.status == "gap")


@cache
def builtin_derivations() -> Mapping[str, Derivation]:
    """Every built-in derivation (all that ``scaledattn check`` lists), by name."""
    return {d.name: d for d in all_derivations()}


def builtin_theorems() -> Mapping[str, Theorem]:
    """Every built-in theorem, proved (each one is proved once, when first asked for)."""
    return Citable("", {}, bare=True)


class Citable(Mapping[str, Theorem]):
    """The theorems a step may cite: the file's proved ones, the lemmas, the built-in ones.

    A built-in theorem is proved by the kernel only when it is looked up; its statement
    is known before (:meth:`statement`), so the search can pick candidates cheaply.
    """

    def __init__(self, exclude: str, proved: Mapping[str, Theorem], bare: bool = False) -> None:
        self.exclude, self.proved, self.bare = exclude, dict(proved), bare

    def _names(self) -> list[str]:
        names = [*self.proved, *builtin_derivations()]
        if not self.bare:
            names += list(LEMMA_NAMES)
        return [n for n in dict.fromkeys(names) if n != self.exclude]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name != self.exclude and name in self._names()

    def __getitem__(self, name: str) -> Theorem:
        if name == self.exclude:
            raise KeyError(name)
        if name in self.proved:
            return self.proved[name]
        if not self.bare and name in LEMMA_NAMES:
            return library_theorems()[name]
        derivation = builtin_derivations().get(name)
        theorem = audit_of(derivation).theorem if derivation is not None else None
        if theorem is None:
            raise KeyError(name)
        return theorem

    def statement(self, name: str) -> Any:
        """The statement of a citable theorem, without proving it."""
        if name in self.proved:
            return self.proved[name].statement
        if not self.bare and name in LEMMA_NAMES and name != self.exclude:
            return _lemma_statements()[name]
        derivation = builtin_derivations().get(name)
        return derivation.statement if derivation is not None else self[name].statement


@cache
def _lemma_statements() -> Mapping[str, Any]:
    """The lemmas' statements as written (the kernel proves them when one is cited)."""
    from scaledattn.prooffile.parse import parse_document

    return {block.name: block.statement for block in parse_document(LEMMAS, is_known_rule).theorems}


@cache
def library_theorems() -> Mapping[str, Theorem]:
    """The lemmas of :mod:`scaledattn.prooffile.library`, proved by the kernel."""
    from scaledattn.prooffile.parse import parse_document

    checker = Checker(bare=True)
    for block in parse_document(LEMMAS, is_known_rule).theorems:
        verdict = checker.check(block)
        if not verdict.verified:  # pragma: no cover - a wrong lemma is a bug, found by tests
            raise RuntimeError(f"the lemma {block.name} is not proved")
    return dict(checker.theorems)


@cache
def _builtin_names() -> frozenset[str]:
    return frozenset(d.name for d in all_derivations()) | frozenset(LEMMA_NAMES)


def is_known_rule(name: str) -> bool:
    """True for a registered rule, a built-in theorem or a lemma of the library."""
    return name in RULES or name in _builtin_names()


# ------------------------------------------------------------------ defaults


def _vectors(exprs: list[Any]) -> list[str]:
    found: dict[str, None] = {}
    for e in exprs:
        node: Any
        for node in sympy.preorder_traversal(rebuild(e)):
            if isinstance(node, Component):
                found.setdefault(node.label.name, None)
            elif isinstance(node, Dot):
                found.setdefault(node.args[0].name, None)
                found.setdefault(node.args[1].name, None)
    return list(found)


def _moment_given(assumptions: list[Assumption], op: type[Any], vector: str) -> bool:
    for a in assumptions:
        lhs: Any = a.lhs if isinstance(a, Moment) else None
        if lhs is not None and isinstance(lhs, op):
            atom = lhs.args[0]
            if isinstance(atom, Component) and atom.label.name == vector:
                return True
    return False


def with_defaults(block: TheoremBlock) -> tuple[tuple[Assumption, ...], list[str]]:
    """The declared assumptions, and the lesson's defaults for what they leave unsaid."""
    declared = list(block.assumptions)
    described = [assumption_text(a) for a in declared]
    if "no defaults" in block.described:
        return tuple(declared), described
    exprs = [block.statement.lhs, block.statement.rhs, *(s.claim for s in block.steps)]
    if block.start is not None:
        exprs.append(block.start)
    exprs += [o.condition.term for o in block.needs]  # c in c·X/c, which reads as X
    added: list[Assumption] = []
    vectors = _vectors(exprs)
    if vectors:
        d = sympy.Symbol("d_k", integer=True, positive=True)
        i = sympy.Symbol("i", integer=True, positive=True)
        families = [a for a in declared if isinstance(a, Independence)]
        covered = all(
            any(f.block_key(Component(RandomVector(v, d).label, i)) is not None for f in families)
            for v in vectors
        )
        if not covered:
            added.append(IndependentComponents(*(RandomVector(v, d) for v in vectors)))
        for v in vectors:
            atom = Component(RandomVector(v, d).label, i)
            if not _moment_given(declared, E, v):
                added.append(Moment(E(atom), 0))
            if not _moment_given(declared, Var, v):
                added.append(Moment(Var(atom), 1))
    c = sympy.Symbol("c", real=True)
    mentions_c = any(c in rebuild(e).free_symbols for e in exprs if hasattr(e, "free_symbols"))
    if mentions_c and not any(isinstance(a, Positive) and a.symbol == c for a in declared):
        added.append(Positive(c))
    added, dropped = kept_defaults(declared, added, exprs)
    described += [assumption_text(a) + " (default)" for a in added]
    described += [f"{assumption_text(a)} (default dropped: {why})" for a, why in dropped]
    return tuple(declared + added), described


def refuse_undefined(block: TheoremBlock, assumptions: tuple[Assumption, ...]) -> None:
    """ProofFileError at the first term that needs what the assumptions do not give.

    A divisor SymPy cancelled as the term was read must be ≠ 0, a logarithm's argument
    > 0, a square root squared away ≥ 0 (:mod:`scaledattn.language.definedness`):
    decided with the symbols' facts and the declared (or default) ``Positive`` facts,
    the same context the kernel checks the theorem in.
    """
    from scaledattn.language.definedness import declared_nonzero
    from scaledattn.language.terms import has_moments

    context = Context(assumptions)
    conditions = [o.condition for o in block.needs]
    needed = [c for c in conditions if not declared_nonzero(c, assumptions)]
    unmet = first_unmet(needed, context)
    if unmet is not None:
        where = block.needs[conditions.index(unmet)]
        why = unmet.refusal(context)
        if unmet.need == "nonzero" and has_moments(unmet.term):
            why = why.replace(
                "nothing that can be declared keeps it nonzero",
                f"declare its value (assume: {sympy.sstr(unmet.term)} = 1) or write the"
                " term uncancelled",
            )
        raise ProofFileError(why, where.line, where.column)


# --------------------------------------------------------------------- check


@dataclass
class Checker:
    """Checks the theorems of a document in order; proved ones become citable."""

    seconds: float = 3.0
    theorems: dict[str, Theorem] = field(default_factory=dict)
    bare: bool = False
    #: Kernel checks the searches of this file have made (see MAX_FILE_CHECKS).
    searched: int = 0
    #: What the search found for a (theorem, previous, claim) already searched: a file
    #: that repeats a step (399 lines of the same two) searches it once. The kernel's
    #: audit still checks every step of the chain.
    found: dict[tuple[Any, ...], StepVerdict] = field(default_factory=dict)
    #: Kernel steps of the chains the searches found in this file (see MAX_FILE_STEPS).
    chained: int = 0

    def citable(self, name: str) -> Citable:
        """The file's proved theorems, the lemmas, the built-in ones; never ``name`` itself."""
        return Citable(name, self.theorems, self.bare)

    def check(self, block: TheoremBlock) -> TheoremVerdict:
        """The verdict on one theorem block."""
        assumptions, described = with_defaults(block)
        refuse_undefined(block, assumptions)
        statement = block.statement
        skeleton = Derivation(block.name, statement, (), assumptions)
        theorems = self.citable(block.name)
        search = Search(skeleton, theorems, seconds=self.seconds)
        start = block.start if block.start is not None else statement.lhs
        verdict = TheoremVerdict(block, assumptions, described, start)
        problem = inconsistency(assumptions, {}, {})
        if problem:  # as scaledattn verify: nothing follows from assumptions no model meets
            verdict.withheld = f"the assumptions are inconsistent ({problem})"
        elif not self.bare:  # the library's lemmas have models (tests/gate/test_steps.py)
            terms = [statement.lhs, statement.rhs, start, *(s.claim for s in block.steps)]
            drawn = [t for t in terms if not isinstance(t, Boolean)]
            world, alone = model_found(drawn, assumptions)
            if world is None:
                verdict.withheld = NO_MODEL
            else:
                verdict.model = model_line(world, assumptions, alone)
        if key(start) != key(statement.lhs):
            verdict.problems.append(
                "the chain does not start at the statement's left side"
                f" (it starts at {_show(start)}; the statement's left side is"
                f" {_show(statement.lhs)})"
            )
        # Steps without ``by``: the search proposes kernel steps (each checked as it goes).
        prev = start
        found: dict[int, StepVerdict] = {}
        for number, written in enumerate(block.steps, start=1):
            if written.rule is None:
                found[number] = self._search(number, written, prev, skeleton, theorems, search)
            prev = written.claim
        if block.steps and key(prev) != key(statement.rhs):
            verdict.problems.append(
                f"the chain ends at {_show(prev)}, but the statement's right side is"
                f" {_show(statement.rhs)}"
            )
        # The whole chain, the found steps written in, goes to the kernel's audit once;
        # a step with ``by`` gets the audit's verdict on it.
        # A cited theorem is a schema: its instances (matched, or written) are the steps.
        kernel_steps: list[Step] = []
        spans: list[tuple[int, int]] = []
        refusals: dict[int, StepResult] = {}
        prev = start
        for number, written in enumerate(block.steps, start=1):
            first = len(kernel_steps)
            if written.rule is not None and written.rule not in RULES and written.rule in theorems:
                resolution = self._instances(number, written, prev, skeleton, theorems)
                kernel_steps += resolution.steps
                if resolution.refusal is not None:
                    refusals[number] = resolution.refusal
            elif written.rule is not None:
                kernel_steps.append(Step(theorems.get(written.rule, written.rule), written.claim))
            else:
                justification = found[number].justification
                kernel_steps += (
                    list(justification.steps)
                    if justification is not None
                    else [Step("ring", written.claim)]  # rejected already; keeps the chain
                )
            spans.append((first, len(kernel_steps)))
            prev = written.claim
        completed = replace(skeleton, steps=tuple(kernel_steps))
        verdict.audit = audit(completed, theorems)
        verdict.described += [
            f"{f} (carried by the symbol)" for f in carried_assumptions(completed)
        ]
        prev = start
        for number, (written, (first, last)) in enumerate(
            zip(block.steps, spans, strict=True), start=1
        ):
            if written.rule is None:
                verdict.steps.append(found[number])
            else:
                results = verdict.audit.steps[first:last]
                result = next((r for r in results if not r.ok), results[0])
                if result.ok:
                    kind = "rule" if len(results) == 1 else "chain"
                    step = StepVerdict(
                        number, written.line, written.rule, written.claim, "verified",
                        Justification(kind, tuple(results)),
                    )  # fmt: skip
                else:
                    result = refusals.get(number, result)
                    step = StepVerdict(
                        number, written.line, written.rule, written.claim, "rejected",
                        feedback=feedback(prev, written.claim, result, skeleton, search),
                    )  # fmt: skip
                verdict.steps.append(step)
            prev = written.claim
        note(verdict.audit)  # its certificate, when a later theorem cites it
        if verdict.verified and not self.bare:  # the gate: every step true on models
            check_steps(completed)  # (the library's lemmas: tests/gate/test_steps.py)
            # and the independent checker: its refusal is an alarm (SoundnessAlarm)
            verdict.checker = confirm(verdict.audit)
        if verdict.verified and verdict.audit.theorem is not None:
            self.theorems[block.name] = verdict.audit.theorem
        return verdict

    def _instances(
        self,
        number: int,
        written: Any,
        prev: Any,
        skeleton: Derivation,
        theorems: Mapping[str, Theorem],
    ) -> Resolution:
        """The instances of the cited theorem that take ``prev`` to the written claim."""
        theorem = theorems[written.rule]
        explicit = None
        if written.instance is not None:
            by_name = {str(n): n for n in schematic_names(theorem)}
            explicit = {
                by_name.get(name, sympy.Symbol(name)): term for name, term in written.instance
            }
        return resolve(prev, written.claim, theorem, number, skeleton, theorems, explicit)

    def _search(
        self,
        number: int,
        written: Any,
        prev: Any,
        skeleton: Derivation,
        theorems: Mapping[str, Theorem],
        search: Search,
    ) -> StepVerdict:
        claim = written.claim
        if self.searched >= MAX_FILE_CHECKS:  # the file's searches have spent their budget
            return StepVerdict(
                number, written.line, None, claim, "unproved",
                feedback=Feedback("", "", "", None, "", "", skipped=SKIPPED),
            )  # fmt: skip
        try:
            memo = (skeleton.name, skeleton.assumptions, key(prev), key(claim))
            hash(memo)
        except TypeError:  # pragma: no cover - every key is hashable; no memo then
            memo = None
        earlier = self.found.get(memo) if memo is not None else None
        if earlier is not None:  # searched before: the same verdict, at this step
            verdict = replace(earlier, number=number, line=written.line, claim=claim)
        else:
            before = search.checks
            try:
                verdict = self._searched(number, written, prev, skeleton, theorems, search)
            finally:
                self.searched += search.checks - before
            if memo is not None:
                self.found[memo] = verdict
        steps = len(verdict.justification.steps) if verdict.justification is not None else 0
        if self.chained + steps > MAX_FILE_STEPS:
            return StepVerdict(
                number, written.line, None, claim, "unproved",
                feedback=Feedback("", "", "", None, "", "", skipped=TOO_LONG),
            )  # fmt: skip
        self.chained += steps
        return verdict

    def _searched(
        self,
        number: int,
        written: Any,
        prev: Any,
        skeleton: Derivation,
        theorems: Mapping[str, Theorem],
        search: Search,
    ) -> StepVerdict:
        claim = written.claim
        found = search.justify(prev, claim, number)
        if found is not None:
            status = "gap" if found.kind == "gap" else "verified"
            return StepVerdict(number, written.line, None, claim, status, found)
        nearest: StepResult | None = search.nearest(prev, claim, number)
        if nearest is None:
            nearest = check_step(prev, Step("ring", claim), number, skeleton, theorems)
        why = feedback(prev, claim, nearest, skeleton, search, named=False)
        # No justification, but nothing shows the step false either: a gap left open.
        status = "rejected" if why.model is not None or why.values else "unproved"
        return StepVerdict(number, written.line, None, claim, status, feedback=why)


def check_document(document: Document, seconds: float = 3.0) -> list[TheoremVerdict]:
    """The verdict on every theorem of ``document``, in order."""
    for block in document.theorems:  # a malformed term before any theorem is checked
        refuse_undefined(block, with_defaults(block)[0])
    checker = Checker(seconds, bare=False)
    return [checker.check(block) for block in document.theorems]


def _show(expr: Any) -> str:
    from scaledattn.render.proof import proof_term

    try:
        return proof_term(expr)
    except Exception:  # a display fallback only
        return str(expr)
