"""The ledger: every checkable claim of the four source texts, as data, checked at run time.

Each :class:`LedgerEntry` records the source file, the quoted sentence in the original
language, the claim in the claim language with its assumptions, and, for a claim
true only under a condition, that condition. Statistical claims name their
experiment through ``measured(NAME)``. Verdicts are never stored: :func:`check`
computes them with :func:`scaledattn.claims.verify` every time it runs.

Examples
--------
>>> sorted(SOURCES)[0]
'000_e1e193e71b2d1e85.txt'
>>> len(select("001")) == sum(1 for e in LEDGER if e.source.startswith("001"))
True
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from scaledattn.claims.ledger import book, interview, lesson, post
from scaledattn.claims.ledger.entry import QUOTE_GAP, LedgerEntry
from scaledattn.claims.outcome import Result
from scaledattn.claims.verify import verify
from scaledattn.errors import InvalidArgument

__all__ = ["LEDGER", "QUOTE_GAP", "SOURCES", "LedgerEntry", "Row", "check", "select"]

#: The source texts: file name → what it is.
SOURCES: dict[str, str] = {
    lesson.SOURCE: "the lesson",
    book.SOURCE: "a book chapter",
    post.SOURCE: "a blog post",
    interview.SOURCE: "an interview-style article",
}

LEDGER: tuple[LedgerEntry, ...] = (
    *lesson.ENTRIES,
    *book.ENTRIES,
    *post.ENTRIES,
    *interview.ENTRIES,
)


def select(source: str | None = None) -> tuple[LedgerEntry, ...]:
    """The entries of one source (its file name, a path to it, or its number: '000'), or all."""
    if source is None:
        return LEDGER
    name = source.replace("\\", "/").rsplit("/", 1)[-1]
    found = [s for s in SOURCES if s == name or s.split("_")[0] == name]
    if not found:
        known = ", ".join(SOURCES)
        raise InvalidArgument(f"unknown source {source!r}; the sources are {known}")
    return tuple(e for e in LEDGER if e.source == found[0])


@dataclass(frozen=True)
class Row:
    """An entry and the verdict computed for it now, with the time it took.

    ``context`` is the verdict on the entry's context claim (a general result shown
    beside the verdict, never deciding it), or None when the entry has none.
    """

    entry: LedgerEntry
    result: Result
    seconds: float
    context: Result | None = None

    @property
    def conditional(self) -> bool:
        """Judged under a condition or an operational meaning the text does not state."""
        return bool(self.entry.condition or self.entry.meaning)


def check(
    entries: Sequence[LedgerEntry] | None = None,
    seed: int = 0,
    trials: Mapping[str, int] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[Row, ...]:
    """Verify every entry (all of the ledger by default) at run time.

    ``progress(done, total)`` is told after each entry.
    """
    sizes = tuple(sorted((trials or {}).items()))
    chosen = LEDGER if entries is None else entries
    rows = []
    for n, entry in enumerate(chosen, 1):
        rows.append(_row(entry, seed, sizes))
        if progress is not None:
            progress(n, len(chosen))
    return tuple(rows)


@cache
def _row(entry: LedgerEntry, seed: int, trials: tuple[tuple[str, int], ...]) -> Row:
    """One entry verified (once per process: a subset of the ledger reuses its rows)."""
    start = time.perf_counter()
    result = verify(entry.claim, entry.assume, seed=seed, trials=dict(trials))
    context = verify(entry.context, seed=seed, trials=dict(trials)) if entry.context else None
    return Row(entry, result, time.perf_counter() - start, context)
