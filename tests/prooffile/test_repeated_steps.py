"""A file that repeats a step searches it once; the chains found have a bound of their own."""

from __future__ import annotations

import pytest

from scaledattn.prooffile import check
from scaledattn.prooffile.check import Checker, check_document, is_known_rule
from scaledattn.prooffile.parse import parse_document

REPEATED = (
    "theorem t: E(X + Y) = E(X) + E(Y)\n  E(X + Y)\n"
    + ("  = E(X) + E(Y)\n  = E(X + Y)\n" * 6)
    + "  = E(X) + E(Y)\n"
)


def test_a_repeated_step_is_searched_once_and_every_step_is_still_audited() -> None:
    checker = Checker(seconds=1.0)
    (block,) = parse_document(REPEATED, is_known_rule).theorems
    verdict = checker.check(block)
    assert verdict.verified
    assert len(checker.found) == 2  # two different steps, thirteen written
    assert verdict.audit is not None
    assert len(verdict.audit.steps) >= len(block.steps)


def test_a_file_whose_found_chains_pass_the_bound_is_told_which_steps_were_not_taken(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(check, "MAX_FILE_STEPS", 3)
    (verdict,) = check_document(parse_document(REPEATED, is_known_rule), seconds=1.0)
    assert not verdict.verified
    skipped = [s for s in verdict.steps if s.feedback is not None and s.feedback.skipped]
    assert skipped
    assert skipped[0].feedback is not None
    assert "kernel steps" in skipped[0].feedback.skipped
