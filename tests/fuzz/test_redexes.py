"""Cases aimed at one rule: each rule's redex is one the rule rewrites, and means the same after.

An undirected campaign rewrites about one term in a hundred with the narrow rules
(``delta_distinct``, ``expectation_mul_of_indep``, ``sqrt_mul``); the aimed cases of
:mod:`scaledattn.fuzz.redexes` make each rule rewrite, so a hole in it is found.
"""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scaledattn.fuzz.campaign import AIM_ORDER, Stats, apply_rule, one_case, run
from scaledattn.fuzz.redexes import AIMED, draw_aimed_case
from scaledattn.kernel.rules import RULES
from scaledattn.numeric.worlds import RandomChooser
from tests.fuzz.chooser import HypothesisChooser

#: Seeded draws per rule; each rule must rewrite in at least half of them.
DRAWS = 12


def test_every_rule_but_ring_has_an_aimed_redex() -> None:
    assert set(AIMED) == set(RULES) - {"ring"}


@pytest.mark.parametrize("rule", AIM_ORDER)
def test_the_aimed_case_of_a_rule_is_one_it_rewrites(rule: str) -> None:
    rewrote = 0
    for seed in range(DRAWS):
        case = draw_aimed_case(RandomChooser(seed), rule)
        # a crash is counted by the campaign; here it is no rewrite
        with contextlib.suppress(Exception):
            rewrote += apply_rule(rule, case.term, case.assumptions) != case.term
    assert rewrote * 2 >= DRAWS, f"{rule} rewrote {rewrote} of {DRAWS} aimed cases"


@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.data(), st.sampled_from(AIM_ORDER))
def test_no_rule_changes_the_meaning_of_its_aimed_redex(data: st.DataObject, rule: str) -> None:
    found = one_case(HypothesisChooser(data), Stats(), aim=rule)
    assert found is None, str(found)


def test_an_aimed_campaign_makes_every_rule_rewrite() -> None:
    rounds = 3  # each a drawn case (every rule) and one aimed case per rule
    stats, found = run(applications=rounds * (len(RULES) + len(AIMED)), seed=5, aimed=len(AIMED))
    assert not found, str(found[0][1])
    assert all(stats.count(name).rewrites > 0 for name in AIMED), stats.table()
