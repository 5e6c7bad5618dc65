"""A campaign's cases in worker processes: the same counts as in one, determined by the seed.

Each case is drawn from its own chooser seeded by (seed, number), so a case does not
depend on the ones before it; ``run(..., jobs=J)`` shares the cases among J worker
processes and counts them in order of number, stopping at the case one process stops at.
"""

from __future__ import annotations

from typing import Any

import pytest
import sympy

from scaledattn.fuzz.__main__ import main
from scaledattn.fuzz.campaign import RuleCount, Stats, check_case, run, run_case
from scaledattn.fuzz.generate import Case, a
from scaledattn.kernel import E, Rule, Var
from scaledattn.kernel import rules as rules_module
from scaledattn.numeric.semantics import World


def _counts(stats: Stats) -> tuple[Any, ...]:
    """Everything a campaign counts and keeps, but its seconds."""
    return (
        stats.cases,
        stats.timeouts,
        stats.undrawn,
        stats.worlds,
        stats.no_world,
        sorted(stats.rules.items()),
        stats.partials,
        stats.refusals,
    )


def test_two_worker_processes_count_what_one_process_counts() -> None:
    one, found_one = run(90, seed=11, stop_at_first=False, aimed=3, checker=True)
    two, found_two = run(90, seed=11, stop_at_first=False, aimed=3, checker=True, jobs=2)
    assert _counts(two) == _counts(one)
    assert [d.rule for _, d in found_two] == [d.rule for _, d in found_one]
    assert two.applications >= 90


def test_a_campaign_is_determined_by_its_seed() -> None:
    first, _ = run(60, seed=4, stop_at_first=False, aimed=2)
    again, _ = run(60, seed=4, stop_at_first=False, aimed=2)
    other, _ = run(60, seed=5, stop_at_first=False, aimed=2)
    assert _counts(again) == _counts(first)
    assert _counts(other) != _counts(first)


def test_a_case_depends_only_on_its_seed_and_number() -> None:
    alone = run_case(9, 5, 2, False)
    run_case(9, 4, 2, False)  # another case in between changes nothing
    again = run_case(9, 5, 2, False)
    assert again.choices == alone.choices
    assert _counts(again.stats) == _counts(alone.stats)


def test_merged_counts_are_the_sums_of_the_counts() -> None:
    left, right = Stats(cases=2, worlds=3), Stats(cases=1, no_world=1)
    left.rules["ring"] = RuleCount(applications=2, rewrites=1, agreed=1)
    right.rules["ring"] = RuleCount(applications=1, crashed=1)
    right.rules["sum_linear"] = RuleCount(applications=1)
    left.merge(right)
    assert (left.cases, left.worlds, left.no_world) == (3, 3, 1)
    assert left.rules["ring"] == RuleCount(applications=3, rewrites=1, agreed=1, crashed=1)
    assert left.applications == 4


def test_a_term_that_only_evaluates_is_rewritten_but_no_rule_fired() -> None:
    unevaluated = sympy.Mul(2, a, 3, evaluate=False)  # 6a once evaluated
    stats = Stats()
    world = World(values={a: sympy.Rational(1, 2)})
    assert check_case(Case((), unevaluated), [world], stats, ["dot_def"]) is None
    count = stats.count("dot_def")
    assert (count.rewrites, count.fired, count.agreed) == (1, 0, 1)


def test_a_rule_that_rewrites_a_term_fired() -> None:
    stats = Stats()
    term = (a + 1) ** 2  # ring expands it: more than evaluating it
    assert check_case(Case((), term), [World(values={a: 2})], stats, ["ring"]) is None
    assert stats.count("ring").fired == 1


def test_no_worker_processes_is_a_one_line_refusal(capsys: Any) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--jobs", "0"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "--jobs must be at least 1" in err
    assert "Traceback" not in err


def test_the_checkers_memos_are_emptied_past_their_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    from scaledattn.checker import steps
    from scaledattn.fuzz import campaign

    monkeypatch.setattr(campaign, "MEMO_KEPT", 3)
    monkeypatch.setattr(steps, "_DONE", {str(n): None for n in range(4)})
    run_case(9, 1, 2, True)
    assert len(steps._DONE) <= 3


def _forget_mean(e: Any, ctx: Any, scope: Any) -> Any:
    return (E(e.args[0] ** 2), frozenset()) if isinstance(e, Var) else None


def test_a_disagreement_a_worker_finds_is_reported_and_shrunk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Var(Z) = E[Z²] registered as variance_def (the workers fork with it): found, shrunk."""
    monkeypatch.setitem(
        rules_module._TABLE, "variance_def", Rule("variance_def", "x", _forget_mean)
    )
    one, found_one = run(400, seed=3, aimed=3)
    two, found_two = run(400, seed=3, aimed=3, jobs=2)
    assert [d.rule for _, d in found_two] == [d.rule for _, d in found_one] == ["variance_def"]
    assert [choices for choices, _ in found_two] == [choices for choices, _ in found_one]
    assert str(found_two[0][1]) == str(found_one[0][1])
    assert _counts(two) == _counts(one)
