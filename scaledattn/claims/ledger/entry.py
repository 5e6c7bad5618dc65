"""One claim of a source text, as data: where it is, what it says, and how to check it."""

from __future__ import annotations

from dataclasses import dataclass

from scaledattn.claims.ledger.meaning import Meaning

__all__ = ["QUOTE_GAP", "LedgerEntry"]

#: Separates the parts of a quote taken from different places in the same text.
QUOTE_GAP = " … "


@dataclass(frozen=True)
class LedgerEntry:
    """A claim of a source text.

    ``source`` is the text's file name; ``quote`` the sentence in the original
    language (parts from different places joined by `` … ``); ``claim`` the claim in
    the claim language with its assumptions ``assume``; ``condition`` the reading
    under which the verdict is stated, for a claim true only under a condition;
    ``note`` how the sentence was read; ``inconsistency`` marks two statements of
    the same text that disagree. ``meaning`` gives a qualitative word of the
    sentence its operational meaning (the threshold the claim is judged under);
    ``context`` is a general result (a claim, checked too) shown beside the verdict,
    never the verdict: a concrete example is judged on its own numbers.
    """

    source: str
    quote: str
    claim: str
    assume: tuple[str, ...] = ()
    condition: str = ""
    note: str = ""
    inconsistency: bool = False
    meaning: Meaning | None = None
    context: str = ""

    @property
    def parts(self) -> tuple[str, ...]:
        """The quoted parts, each verbatim in the source."""
        return tuple(self.quote.split(QUOTE_GAP))
