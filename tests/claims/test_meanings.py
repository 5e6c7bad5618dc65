"""Qualitative words judged under a stated meaning; examples judged on their own numbers."""

from __future__ import annotations

import pytest

from scaledattn.claims import Verdict
from scaledattn.claims.ledger import LEDGER, Row, check
from scaledattn.claims.ledger.report import closing_list, ledger_markdown
from scaledattn.cli import main

MEANT = [e for e in LEDGER if e.meaning is not None]


def test_the_issues_qualitative_words_all_have_meanings() -> None:
    words = " ".join(e.meaning.word for e in MEANT if e.meaning is not None)
    for word in ("uniform", "≈ 0", "vanishes", "σ = 8 scale", "size of the learning rate"):
        assert word in words, word


@pytest.mark.parametrize("entry", MEANT, ids=lambda e: f"{e.source[:3]}:{e.claim[:40]}")
def test_each_meanings_threshold_is_the_one_the_claim_is_judged_under(entry: object) -> None:
    meaning = entry.meaning  # type: ignore[attr-defined]
    claim = entry.claim.replace(" ", "")  # type: ignore[attr-defined]
    assert meaning.threshold.replace(" ", "") in claim, claim
    assert meaning.reason
    assert meaning.source


def test_a_meaning_decides_the_verdict_its_threshold_flips_it() -> None:
    """The 002 example's Jacobian is 0.457 of the scaled one: ≈ 0 under 1/10, not under 1/2."""
    (entry,) = [e for e in MEANT if e.claim.startswith("jacobian_norm(softmax([14, 10, 12]))")]
    strict = check((entry,))[0]
    assert strict.result.verdict is Verdict.REFUTED
    assert "0.4566" in strict.result.correct
    from scaledattn.claims.verify import verify

    assert verify(entry.claim.replace("<= 1/10", "<= 1/2")).verdict is Verdict.COMPUTED


def test_docs_show_the_meaning_beside_the_verdict_and_the_reasons_for_sentences_left_out() -> None:
    entries = tuple(e for e in MEANT if e.claim == "sqrt(sum([3.2, 0.1, -2.5, 0.4]^2)/4) > 4")
    page = ledger_markdown(check(entries))
    row = next(line for line in page.splitlines() if "3.2, 0.1, -2.5, 0.4" in line)
    assert row.startswith("| **REFUTED** |")
    assert "“σ = 8 量级 (on the σ = 8 scale)” :=" in row
    assert "context (not the verdict): measured(score_std_d64) ≈ 8 CONSISTENT" in row
    assert "## Sentences without an entry, and why" in page


def test_the_closing_list_names_each_refuted_or_conditional_claim_with_value_and_meaning(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["claims", "--source", "001", "--closing"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Refuted (")
    assert "  001  softmax([0.02, 0.01, 0.01]) ≈ [0.337, 0.332, 0.332]\n       value: right:" in out
    verified = out[out.index("Computed only under a condition or a meaning") :]
    assert "  001  max(softmax([20.0, 10.0, 1.0])) >= 0.99\n" in verified
    assert "meaning: “几乎所有 (almost all)” := the largest weight is at least 0.99" in verified
    rows: tuple[Row, ...] = check(tuple(e for e in LEDGER if e.source.startswith("001")))
    listed = [r for r in rows if not r.result.verdict.holds or r.conditional]
    assert closing_list(rows).endswith(
        f"{len(listed)} of {len(rows)} claims: refuted, undecided, or true only under a"
        " condition or an operational meaning."
    )
