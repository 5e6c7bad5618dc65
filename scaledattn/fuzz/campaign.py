"""The differential fuzzer: every primitive rule against the exact semantics.

Property 1 (rules): for every primitive rule R, drawn term e and world M of the
drawn context, R(e) and e mean the same in M — the same value at every outcome, or
both undefined (:func:`~scaledattn.numeric.semantics.compare`). ``ring`` is judged
by the kernel's normal form: e and ``normal_form(e)`` (which also renames bound
indices and reorders nested sums) must mean the same.

Property 2 (derivations): in worlds of a derivation's context, each step's claim
means the same as the expression before it (for equivalences: the same truth value),
and the chain's end the same as the statement's right side.

A disagreement is shrunk by replaying the recorded choices with fewer and smaller
ones (the Hypothesis/minithesis idea, without its database) until no simpler choice
sequence still disagrees.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import multiprocessing
import signal
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy
from sympy.core.parameters import evaluate
from sympy.logic.boolalg import Boolean

from scaledattn.errors import CaseTimeout, InvalidArgument
from scaledattn.fuzz.generate import Case, draw_case
from scaledattn.fuzz.redexes import AIMED, draw_aimed_case
from scaledattn.kernel.assumptions import Context
from scaledattn.kernel.expr import normal_form, rebuild
from scaledattn.kernel.rules import RULES
from scaledattn.kernel.theorem import Derivation, Equivalence
from scaledattn.numeric.semantics import Meaning, World, compare, meaning, show
from scaledattn.numeric.worlds import Chooser, RandomChooser, draw_world

__all__ = [
    "CaseOutcome",
    "Disagreement",
    "Reported",
    "Stats",
    "apply_rule",
    "check_case",
    "derivation_disagreements",
    "run",
    "run_case",
    "shrink",
]

WORLDS_PER_CASE = 2
#: Wall-clock seconds one case (every rule and its evaluations) may take in a campaign.
CASE_SECONDS = 20


@contextlib.contextmanager
def _time_limit(seconds: int) -> Iterator[None]:
    """Raise CaseTimeout after ``seconds`` (SIGALRM; a no-op where there is none)."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise CaseTimeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


#: The rules aimed at in turn by aimed cases.
AIM_ORDER = sorted(AIMED)

#: Examples kept of rewrites that change only whether a term is defined.
PARTIALS_KEPT = 5

#: Entries the checker's memos (its verdicts by certificate text, its terms' sort keys)
#: may hold in a campaign before they are emptied: each grows by about one entry per
#: certificate checked (some 2 kB each), 10⁶ applications would keep over a gigabyte.
MEMO_KEPT = 20_000


def _bound_memos() -> None:
    """Empty the checker's memos past :data:`MEMO_KEPT` (a memo only saves work)."""
    from scaledattn.checker import normal, steps

    for memo, kept in ((getattr(steps, "_DONE", None), MEMO_KEPT),
                       (getattr(normal, "_KEYS", None), 10 * MEMO_KEPT)):  # fmt: skip
        if isinstance(memo, dict) and len(memo) > kept:
            memo.clear()


def rule_names() -> list[str]:
    """Every registered primitive rule, ``ring`` first."""
    return sorted(RULES, key=lambda name: (name != "ring", name))


def apply_rule(
    name: str, term: Any, assumptions: Sequence[Any], context: Context | None = None
) -> Any:
    """R(term): the rule's rewrite, or for ``ring`` the kernel's normal form.

    ``context``: ``Context.of(assumptions)``, when the caller has made it already (one
    case's rules all read the same one).
    """
    if name == "ring":
        if isinstance(term, Boolean):
            return rebuild(term)
        return normal_form(term)
    result, _ = RULES[name].apply(term, context or Context.of(assumptions))
    return result


@dataclass
class RuleCount:
    """Per rule: applications, rewrites (the term changed), verdicts, crashes.

    ``fired``: the rewrites the rule itself made, whose result is not merely the term
    evaluated (a term drawn unevaluated, ``Eq(x**2, 4, evaluate=False)``, changes under
    any rule, as the kernel evaluates what it reads).
    """

    applications: int = 0
    rewrites: int = 0
    fired: int = 0
    agreed: int = 0
    undecided: int = 0
    differed: int = 0
    partial: int = 0
    crashed: int = 0
    #: with the checker as third party: the rewrites the checker accepted, refused,
    #: could not read, and those the kernel itself refused as a one-step derivation
    checked: int = 0
    refused: int = 0
    unread: int = 0
    kernel_refused: int = 0

    def add(self, other: RuleCount) -> None:
        """Add another count of the same rule to this one."""
        for f in dataclasses.fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))


@dataclass
class Stats:
    """A campaign's counts."""

    cases: int = 0
    timeouts: int = 0
    undrawn: int = 0
    worlds: int = 0
    no_world: int = 0
    rules: dict[str, RuleCount] = field(default_factory=dict)
    seconds: float = 0.0
    #: rewrites that change only whether a term is defined, shown (the first few kept)
    partials: list[str] = field(default_factory=list)
    #: rewrites the kernel accepted and the checker refused, shown as (rule, case,
    #: rewritten) (the first few kept)
    refusals: list[tuple[str, str, str]] = field(default_factory=list)
    third_party: bool = False

    def count(self, name: str) -> RuleCount:
        """The counts of one rule."""
        return self.rules.setdefault(name, RuleCount())

    def merge(self, other: Stats) -> None:
        """Add another campaign's (or case's) counts and examples to these (seconds apart)."""
        for name in ("cases", "timeouts", "undrawn", "worlds", "no_world"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name, count in other.rules.items():
            self.count(name).add(count)
        self.partials = (self.partials + other.partials)[:PARTIALS_KEPT]
        self.refusals = (self.refusals + other.refusals)[:PARTIALS_KEPT]

    @property
    def applications(self) -> int:
        """Rule applications in all."""
        return sum(c.applications for c in self.rules.values())

    def table(self) -> str:
        """A plain-text table: one line per rule, then the totals and the rate."""
        head = f"{'rule':26} {'applied':>9} {'rewrote':>8} {'fired':>8} {'agreed':>8}"
        head += f" {'undecided':>9}"
        head += f" {'DIFFERED':>8} {'partial':>7} {'crashed':>7}"
        if self.third_party:
            head += f" {'checked':>8} {'REFUSED':>7} {'unread':>7} {'k-refused':>9}"
        lines = [head]
        for name in rule_names():
            x = self.count(name)
            line = (
                f"{name:26} {x.applications:9d} {x.rewrites:8d} {x.fired:8d} {x.agreed:8d}"
                f" {x.undecided:9d}"
                f" {x.differed:8d} {x.partial:7d} {x.crashed:7d}"
            )
            if self.third_party:
                line += f" {x.checked:8d} {x.refused:7d} {x.unread:7d} {x.kernel_refused:9d}"
            lines.append(line)
        rate = self.applications / self.seconds if self.seconds else 0.0
        lines.append(
            f"{self.applications} rule applications on {self.cases} terms in {self.worlds}"
            f" worlds ({self.no_world} contexts without a world drawn, {self.timeouts} cases over"
            f" {CASE_SECONDS} s dropped, {self.undrawn} aimed cases not drawn),"
            f" {self.seconds:.1f} s,"
            f" {rate:.0f} applications/s"
        )
        return "\n".join(lines)


@dataclass(frozen=True)
class Disagreement:
    """A rule that changed the meaning of a term in a world of its context."""

    rule: str
    case: Case
    rewritten: Any
    world: World
    before: Meaning
    after: Meaning

    def __str__(self) -> str:
        def shown(m: Meaning) -> str:
            if m.kind != "value":
                return m.kind
            return ", ".join(x if isinstance(x, str) else _show(x) for x in m.values[:4])

        return (
            f"rule {self.rule} changes a meaning\n  term:      {self.case}\n"
            f"  rewritten: {sympy.sstr(self.rewritten)}\n  world:     {self.world.describe()}\n"
            f"  before:    {shown(self.before)}\n  after:     {shown(self.after)}"
        )


def _show(x: Any) -> str:
    return str(x).lower() if isinstance(x, bool) else show(x)


def check_case(
    case: Case,
    worlds: Sequence[World],
    stats: Stats,
    rules: Iterable[str] | None = None,
) -> Disagreement | None:
    """Apply every rule to the case's term and compare meanings in each world.

    The term's meaning in each world is evaluated once, and the case's context made
    once, for all the rules.
    """
    cache: dict[int, Meaning] = {}
    try:
        context: Context | None = Context.of(case.assumptions)
    except Exception:  # each rule but ring, which reads no context, crashes on it
        context = None
    for name in rules if rules is not None else rule_names():
        count = stats.count(name)
        count.applications += 1
        try:
            if context is None and name != "ring":
                raise InvalidArgument("the case's context is not one")
            rewritten = apply_rule(name, case.term, case.assumptions, context)
        except Exception:
            count.crashed += 1
            continue
        if rewritten == case.term:
            continue
        count.rewrites += 1
        if _fired(rewritten, case.term):
            count.fired += 1
        for n, world in enumerate(worlds):
            if n not in cache:
                cache[n] = meaning(case.term, world)
            after = meaning(rewritten, world)
            verdict = compare(cache[n], after)
            if verdict == "agree":
                count.agreed += 1
            elif verdict == "undecided":
                count.undecided += 1
            elif verdict == "partial":
                count.partial += 1
                if len(stats.partials) < PARTIALS_KEPT:
                    shown = Disagreement(name, case, rewritten, world, cache[n], after)
                    stats.partials.append(str(shown))
            else:
                count.differed += 1
                return Disagreement(name, case, rewritten, world, cache[n], after)
        if stats.third_party:
            _third_party(name, case, rewritten, stats, count)
    return None


def _fired(rewritten: Any, term: Any) -> bool:
    """Whether ``rewritten`` is more than ``term`` evaluated (the kernel's rebuild of it)."""
    try:
        with evaluate(True):
            return bool(rewritten != rebuild(term))
    except Exception:  # a term that does not rebuild: the rule's result is its own
        return True


def _third_party(name: str, case: Case, rewritten: Any, stats: Stats, count: RuleCount) -> None:
    """The kernel's and the checker's verdicts on the rewrite as a one-step derivation."""
    from scaledattn.fuzz.third_party import checker_word

    try:
        said = checker_word(name, case.term, rewritten, case.assumptions)
    except Exception:  # the kernel refusing a term it cannot take apart
        said = "kernel refused"
    if said == "checked":
        count.checked += 1
    elif said == "unread":
        count.unread += 1
    elif said == "kernel refused":
        count.kernel_refused += 1
    else:
        count.refused += 1
        if len(stats.refusals) < PARTIALS_KEPT:
            stats.refusals.append((name, str(case), str(rewritten)))


def _worlds(case: Case, ch: Chooser, stats: Stats) -> list[World]:
    found = []
    for _ in range(WORLDS_PER_CASE):
        world, _why = draw_world([case.term], case.assumptions, ch)
        if world is not None:
            found.append(world)
    stats.worlds += len(found)
    if not found:
        stats.no_world += 1
    return found


def one_case(
    ch: Chooser,
    stats: Stats,
    rules: Iterable[str] | None = None,
    propositions: bool = False,
    aim: str | None = None,
) -> Disagreement | None:
    """Draw one case and its worlds, and check every rule on it.

    ``aim``: a case aimed at that rule (:mod:`.redexes`: its redex in a drawn term, the
    facts it reads in the context), on which that rule alone is checked.
    """
    if aim is not None:
        case, rules = draw_aimed_case(ch, aim), [aim]
    else:
        case = draw_case(ch, propositions)
    stats.cases += 1
    worlds = _worlds(case, ch, stats)
    if not worlds:
        return None
    return check_case(case, worlds, stats, rules)


# ------------------------------------------------------------------- shrinking


class _Recorder:
    def __init__(self, inner: Chooser) -> None:
        self.inner, self.choices = inner, []  # type: ignore[var-annotated]

    def integer(self, lo: int, hi: int) -> int:
        v = self.inner.integer(lo, hi)
        self.choices.append(v - lo)
        return v


class _Replay:
    """Choices from a recorded list (offsets from each range's low end; then the lowest)."""

    def __init__(self, choices: Sequence[int]) -> None:
        self.choices, self.at = list(choices), 0
        self.used: list[int] = []

    def integer(self, lo: int, hi: int) -> int:
        offset = self.choices[self.at] if self.at < len(self.choices) else 0
        self.at += 1
        v = min(lo + max(offset, 0), hi)
        self.used.append(v - lo)
        return v


def _fails(
    choices: Sequence[int], rule: str, propositions: bool, aim: str | None = None
) -> Disagreement | None:
    stats = Stats()
    try:
        return one_case(_Replay(choices), stats, [rule], propositions, aim)
    except Exception:
        return None


def shrink(
    choices: Sequence[int],
    rule: str,
    propositions: bool = False,
    budget: int = 600,
    aim: str | None = None,
) -> tuple[list[int], Disagreement | None]:
    """Fewer and smaller choices that still make ``rule`` disagree (greedy, bounded)."""
    best = list(choices)
    found = _fails(best, rule, propositions, aim)
    if found is None:
        return best, None
    tries = 0
    improved = True
    while improved and tries < budget:
        improved = False
        for size in (8, 4, 2, 1):
            start = 0
            while start < len(best) and tries < budget:
                candidate = best[:start] + best[start + size :]
                tries += 1
                result = _fails(candidate, rule, propositions, aim)
                if result is not None:
                    best, found, improved = candidate, result, True
                else:
                    start += 1
        for pos in range(len(best)):
            for smaller in (0, best[pos] // 2, best[pos] - 1):
                if tries >= budget or smaller >= best[pos] or smaller < 0:
                    continue
                candidate = [*best[:pos], smaller, *best[pos + 1 :]]
                tries += 1
                result = _fails(candidate, rule, propositions, aim)
                if result is not None:
                    best, found, improved = candidate, result, True
                    break
    return best, found


# ------------------------------------------------------------------- campaigns


def plan(number: int, aimed: int) -> tuple[str | None, bool]:
    """Case ``number``'s aim (None for a drawn case) and whether it draws a proposition.

    After each drawn case come ``aimed`` aimed cases, the rules in turn; every fourth
    drawn case is a proposition.
    """
    turn = number % (aimed + 1)
    aim = (
        None
        if turn == 0
        else AIM_ORDER[(number // (aimed + 1) * aimed + turn - 1) % len(AIM_ORDER)]
    )
    return aim, aim is None and number // (aimed + 1) % 4 == 3


@dataclass(frozen=True)
class Reported:
    """A disagreement a worker process found and the parent did not find again (its text)."""

    rule: str
    text: str

    def __str__(self) -> str:
        return self.text


@dataclass
class CaseOutcome:
    """One numbered case of a campaign: its counts, its choices, its disagreement if any.

    ``result`` is the Disagreement itself in the process that ran the case; from a worker
    process (whose kernel terms do not pickle) only its rule and text come back.
    """

    number: int
    stats: Stats
    choices: list[int]
    result: Disagreement | None = None
    rule: str | None = None
    text: str | None = None


def run_case(seed: int, number: int, aimed: int, checker: bool) -> CaseOutcome:
    """Case ``number`` of the campaign of ``seed``: drawn from its own seeded chooser.

    A case depends only on (seed, number, aimed, checker), not on the cases before it,
    so any process may run any case and the counts of a campaign are the same however
    its cases are shared out (:func:`run` with ``jobs``).
    """
    stats = Stats(third_party=checker)
    recorder = _Recorder(RandomChooser(seed * 1_000_003 + number))
    aim, propositions = plan(number, aimed)
    result = None
    try:
        with _time_limit(CASE_SECONDS):
            result = one_case(recorder, stats, None, propositions, aim)
    except (RecursionError, CaseTimeout):
        stats.timeouts += 1
    except InvalidArgument:  # an aimed case whose redex could not be drawn
        stats.undrawn += 1
    if checker:
        _bound_memos()
    rule, text = (result.rule, str(result)) if result is not None else (None, None)
    return CaseOutcome(number, stats, recorder.choices, result, rule, text)


def _run_chunk(seed: int, first: int, size: int, aimed: int, checker: bool) -> list[CaseOutcome]:
    """Cases first..first+size-1, for a worker process: disagreements as rule and text."""
    outcomes = [run_case(seed, number, aimed, checker) for number in range(first, first + size)]
    for outcome in outcomes:
        outcome.result = None
    return outcomes


def _outcomes(
    seed: int, aimed: int, checker: bool, jobs: int
) -> Generator[CaseOutcome, None, None]:
    """Every case of the campaign, in order of number: here, or shared among ``jobs`` workers.

    Workers take chunks of consecutive cases (one drawn case and its aimed ones each),
    a few chunks ahead of the ones read; the pool is ended when the reader stops.
    """
    if jobs <= 1:
        number = 0
        while True:
            yield run_case(seed, number, aimed, checker)
            number += 1
    methods = multiprocessing.get_all_start_methods()
    mp = multiprocessing.get_context("fork" if "fork" in methods else None)
    size = aimed + 1
    with mp.Pool(jobs) as pool:
        pending: collections.deque[Any] = collections.deque()
        first = 0
        while True:
            while len(pending) < 2 * jobs:
                pending.append(pool.apply_async(_run_chunk, (seed, first, size, aimed, checker)))
                first += size
            yield from pending.popleft().get()


def run(
    applications: int,
    seed: int = 0,
    seconds: float | None = None,
    progress: Callable[[Stats], None] | None = None,
    stop_at_first: bool = True,
    aimed: int = 0,
    checker: bool = False,
    jobs: int = 1,
) -> tuple[Stats, list[tuple[list[int], Disagreement | Reported]]]:
    """A campaign of at least ``applications`` rule applications (or ``seconds``).

    Every fourth drawn case is a proposition (for the rules on equations). After each
    drawn case come ``aimed`` cases aimed at one rule each, the rules in turn
    (:mod:`.redexes`), so that every rule rewrites many terms, not only the rules
    whose redex a drawn term often holds. Returns the counts and the first
    disagreement of each rule, shrunk, with its choice sequence (the counts go on after
    a disagreement unless ``stop_at_first``). ``checker``: every rewrite is also audited
    by the kernel as a one-step derivation and its certificate checked by the independent
    checker (:mod:`.third_party`). ``jobs``: the cases run in that many worker processes
    and are counted in order of number, so that the counts (not the seconds) are those
    of one process.
    """
    stats = Stats(third_party=checker)
    found: list[tuple[list[int], Disagreement | Reported]] = []
    start = time.perf_counter()
    cases = _outcomes(seed, aimed, checker, jobs)
    try:
        while stats.applications < applications:
            if seconds is not None and time.perf_counter() - start > seconds:
                break
            outcome = next(cases)
            stats.merge(outcome.stats)
            if outcome.rule is not None:
                if outcome.rule not in {d.rule for _, d in found}:  # shrink the first of each
                    found.append(_shrunk(outcome, seed, aimed, checker))
                if stop_at_first:
                    break
            if progress is not None and not (outcome.stats.timeouts or outcome.stats.undrawn):
                stats.seconds = time.perf_counter() - start  # a progress bar throttles itself
                progress(stats)
    finally:
        cases.close()
    stats.seconds = time.perf_counter() - start
    return stats, found


def _shrunk(
    outcome: CaseOutcome, seed: int, aimed: int, checker: bool
) -> tuple[list[int], Disagreement | Reported]:
    """The outcome's disagreement shrunk (found again here if a worker found it)."""
    aim, propositions = plan(outcome.number, aimed)
    result: Disagreement | Reported | None = outcome.result
    if result is None:
        result = run_case(seed, outcome.number, aimed, checker).result
    if result is None:
        result = Reported(outcome.rule or "", outcome.text or "")
    choices, small = shrink(outcome.choices, result.rule, propositions, aim=aim)
    return choices, small or result


# ------------------------------------------------------------------ derivations


def _chain(derivation: Derivation) -> list[tuple[str, Any, Any]]:
    """(label, before, after) for every step and for the statement's right side."""
    pairs = []
    prev = derivation.statement.lhs
    for n, step in enumerate(derivation.steps, 1):
        label = getattr(step.rule, "name", str(step.rule))
        pairs.append((f"step {n} ({label})", prev, step.claim))
        prev = step.claim
    pairs.append(("statement", prev, derivation.statement.rhs))
    return pairs


def derivation_disagreements(
    derivation: Derivation, ch: Chooser, worlds: int = 2
) -> tuple[list[str], int]:
    """Steps whose two sides mean different things in a world of the derivation's context.

    Returns the disagreements (as text) and how many step comparisons were decided.
    """
    chain = _chain(derivation)
    terms = [x for _, before, after in chain for x in (before, after)]
    if isinstance(derivation.statement, Equivalence):
        terms = [side for prop in terms for side in _sides(prop)]
    problems: list[str] = []
    decided = 0
    for _ in range(worlds):
        world, _why = draw_world(terms, derivation.assumptions, ch, shrink=True)
        if world is None:
            continue
        # each claim is the after of one step and the before of the next: its meaning
        # in this world is computed once (issue 13)
        meanings: dict[int, Any] = {}

        def meant(term: Any, world: Any = world, meanings: dict[int, Any] = meanings) -> Any:
            if id(term) not in meanings:
                meanings[id(term)] = meaning(rebuild(term), world)
            return meanings[id(term)]

        for label, before, after in chain:
            verdict = compare(meant(before), meant(after))
            if verdict == "differ":
                problems.append(f"{derivation.name}, {label}: differ in {world.describe()}")
            elif verdict == "agree":
                decided += 1
    return problems, decided


def _sides(prop: Any) -> list[Any]:
    if isinstance(prop, sympy.Equality):
        return [prop.lhs, prop.rhs]
    return [x for a in getattr(prop, "args", ()) for x in _sides(a)]
