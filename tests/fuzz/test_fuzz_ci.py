"""The ci slice of the differential fuzzer: a few dozen drawn terms, every rule, under Hypothesis.

The long campaign is ``python -m scaledattn.fuzz``; this slice runs in seconds and is
derandomized (the same examples every run, so it never flakes), and Hypothesis shrinks
a disagreement to a minimal term before reporting it.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scaledattn.fuzz.campaign import Stats, one_case, rule_names, run, shrink
from scaledattn.kernel.rules import RULES
from tests.fuzz.chooser import HypothesisChooser

SLICE = settings(
    max_examples=20,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def test_the_fuzzer_covers_every_registered_rule() -> None:
    assert set(rule_names()) == set(RULES)


@SLICE
@given(st.data())
def test_no_rule_changes_the_value_of_a_drawn_term(data: st.DataObject) -> None:
    stats = Stats()
    found = one_case(HypothesisChooser(data), stats, None, propositions=False)
    assert found is None, str(found)


@SLICE
@given(st.data())
def test_no_rule_changes_the_truth_of_a_drawn_equation(data: st.DataObject) -> None:
    stats = Stats()
    found = one_case(HypothesisChooser(data), stats, None, propositions=True)
    assert found is None, str(found)


def test_a_short_campaign_counts_every_rule() -> None:
    stats, found = run(applications=len(RULES) * 6, seed=7)
    assert stats.applications >= len(RULES) * 6
    assert all(stats.count(name).applications > 0 for name in RULES)
    assert sum(c.rewrites for c in stats.rules.values()) > 0
    assert "applications/s" in stats.table()
    for _choices, disagreement in found:  # a disagreement is reported shrunk
        assert disagreement.rule in RULES


def test_the_shrinker_keeps_a_failure_and_never_grows_it() -> None:
    """Shrinking a choice list on which nothing fails returns it unchanged, with no failure."""
    choices = [0] * 12
    kept, found = shrink(choices, "ring")
    assert found is None
    assert kept == choices
