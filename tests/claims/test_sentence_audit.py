"""Every checkable sentence of the four texts has a ledger entry or a recorded reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from scaledattn.claims.ledger import LEDGER, SOURCES
from scaledattn.claims.ledger.audit import CHECKABLE, UNCHECKED, gaps, sentences

TEXTS = Path(__file__).resolve().parents[2] / "docs" / "sources"


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_every_checkable_sentence_has_an_entry_or_a_reason(source: str) -> None:
    text = (TEXTS / source).read_text(encoding="utf-8")
    assert gaps(source, text, LEDGER) == []
    assert sum(1 for s in sentences(text) if CHECKABLE.search(s)) >= 20


def test_every_recorded_reason_quotes_its_text_and_names_an_existing_claim() -> None:
    claims = {e.claim for e in LEDGER}
    texts = {s: (TEXTS / s).read_text(encoding="utf-8") for s in SOURCES}
    for u in UNCHECKED:
        assert u.quote in texts[u.source], u.quote
        assert u.reason, u.quote
        assert not u.same_as or u.same_as in claims, u.same_as


def test_a_sentence_without_entry_or_reason_is_found() -> None:
    """The check can fail: a new sentence with a figure is reported, a narrative one is not."""
    text = "注意力权重是 0.42。这是一个故事"
    assert gaps(sorted(SOURCES)[0], text, LEDGER) == ["注意力权重是 0.42。"]


def test_model_sentences_are_measured_by_the_model_claims() -> None:
    """A sentence excused as a claim about other models has a model claim (torch extra)."""
    from scaledattn.torchattn.model_claims import MODEL_CLAIMS

    quotes = [(c.source, c.quote) for c in MODEL_CLAIMS]
    for u in UNCHECKED:
        if u.reason.startswith("a claim about other models"):
            assert any(s == u.source and q in u.quote for s, q in quotes), u.quote
