"""What a text that does not read may have meant: hints that keep what it says.

A hint is offered only when what it proposes reads, and it never drops a part of what
was written: an unknown word is split into the names it is made of (``XY`` is X·Y, never
Y), spelled as a known name (``dk`` is d_k), or, for English (``… when d_k = 64``,
``dividing by d_k gives variance 1``), written back in the language with the condition as
an assumption.

Examples
--------
>>> reads = lambda text: True
>>> unknown_name("XY", "E[XY] = E[X]E[Y]", 3, reads)[1]
'; did you mean "E[X*Y] = E[X]E[Y]"?'
>>> english("Var(q·k/8) = 1 when d_k = 64", reads)[:73]
'; a condition is an assumption: "Var(q·k/8) = 1" with --assume "d_k = 64"'
>>> english("dividing by d_k gives variance 1", reads)
'; in the language: "Var(dot(q, k)/d_k) = 1"'
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable

from scaledattn.language.names import (
    DIMENSIONS,
    GREEK_NAMES,
    POSITIVE_NAMES,
    RANDOM_VARIABLES,
    is_constant_name,
)
from scaledattn.language.surface import quote

__all__ = ["ENGLISH", "english", "suggestion", "unknown_name"]

Reads = Callable[[str], bool]

#: Words of English a claim may be written in; never a name of the language.
ENGLISH = frozenset({
    "when", "where", "whenever", "if", "given", "assuming", "assume", "with", "for", "gives",
    "give", "giving", "is", "are", "equals", "equal", "has", "have", "dividing", "divided",
    "scaling", "scaled", "then", "so", "that", "the", "of", "by", "to", "and",
})  # fmt: skip
_CONDITION = re.compile(
    r"^(?P<claim>.+?)\s+(?:when|where|whenever|if|given|assuming|with|for)\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
_MOMENTS = {"variance": "Var", "mean": "E", "expectation": "E", "std": "std", "spread": "std"}
_MOMENT = r"(?P<m>variance|mean|expectation|std|standard deviation|spread)"
_SCALED = re.compile(
    r"^(?:dividing|divided|scaling|scaled)\s+(?P<what>.*?)\s*by\s+(?P<s>.+?)\s+gives?\s+"
    rf"(?:an?\s+|the\s+)?{_MOMENT}\s+(?:of\s+)?(?P<v>.+)$",
    re.IGNORECASE,
)
_OF_IS = re.compile(
    rf"^(?:the\s+)?{_MOMENT}\s+of\s+(?P<x>.+?)\s+(?:is|equals)\s+(?P<v>.+)$", re.IGNORECASE
)
_HAS = re.compile(
    rf"^(?P<x>.+?)\s+has\s+(?:an?\s+)?{_MOMENT}\s+(?:of\s+)?(?P<v>.+)$", re.IGNORECASE
)
_SCORES = {"", "q·k", "q*k", "qᵀk", "the scores", "the score", "the dot product", "scores"}


def _moment(word: str) -> str:
    return _MOMENTS.get(word.lower().replace("standard deviation", "std"), "std")


def english(text: str, reads: Reads) -> str:
    """The text in the language, when it is English of a known shape; else a pointer.

    '' when no word of it is English.
    """
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", text)}
    if not words & ENGLISH:
        return ""
    match = _CONDITION.match(text.strip())
    if match and reads(match.group("claim")):
        claim = match.group("claim").strip()
        parts = [p.strip() for p in re.split(r"\s+and\s+|,\s*", match.group("rest")) if p.strip()]
        if parts and all(reads(p) for p in parts):
            flags = " ".join(f"--assume {quote(p)}" for p in parts)
            lines = "; ".join(f"assume: {p}" for p in parts)
            return (
                f"; a condition is an assumption: {quote(claim)} with {flags}"
                f" (in a proof file, {lines})"
            )
    for pattern in (_SCALED, _OF_IS, _HAS):
        match = pattern.match(text.strip())
        if match is None:
            continue
        moment = _moment(match.group("m"))
        if pattern is _SCALED:
            what = match.group("what").strip()
            base = "dot(q, k)" if what.lower() in _SCORES else what
            term = f"{base}/{match.group('s').strip()}"
        else:
            term = match.group("x").strip()
            term = "dot(q, k)" if term.lower() in _SCORES else term
        candidate = f"{moment}({term}) = {match.group('v').strip()}"
        if reads(candidate):
            return f"; in the language: {quote(candidate)}"
    return (
        "; a claim is written in the language, not in English (see 'scaledattn verify --help');"
        " a condition goes after --assume"
    )


#: Names a spelling hint may propose (besides what ``is_constant_name`` takes).
_KNOWN = (*RANDOM_VARIABLES, "q_i", "k_i", *sorted(DIMENSIONS), *sorted(POSITIVE_NAMES),
          *sorted(GREEK_NAMES), "mu_q", "mu_k")  # fmt: skip


def _splits(word: str) -> list[str] | None:
    """``word`` as names written together (``aX`` → a, X), each a name; None if not."""
    if not word:
        return []
    for size in range(min(len(word), 8), 0, -1):
        head = word[:size]
        named = head in RANDOM_VARIABLES or (is_constant_name(head) and "_" not in head)
        if named or (size == 1 and head in "qk" and word[1:] in ("q", "k")):
            rest = _splits(word[size:])
            if rest is not None:
                return [head, *rest]
    return None


def _spelling(word: str) -> str | None:
    """A known name ``word`` misspells, keeping its letters: ``dk`` → d_k, ``Sigma`` → sigma."""
    bare = word.replace("_", "").lower()
    for known in _KNOWN:
        if known.replace("_", "").lower() == bare:
            return known
    if len(word) < 4:
        return None
    found = difflib.get_close_matches(word.lower(), [k.lower() for k in _KNOWN], n=1, cutoff=0.75)
    if not found:
        return None
    known = next(k for k in _KNOWN if k.lower() == found[0])
    return known if len(known) >= len(word) - 1 else None


def unknown_name(word: str, text: str, position: int, reads: Reads) -> tuple[str, str]:
    """(what is wrong, a hint) for a word that is no name of the language."""
    what = f"unknown name {word!r} at position {position}"
    if word.lower() in ENGLISH:
        return what, english(text, reads)
    bare = word.replace("_", "").lower()
    exact = next((k for k in _KNOWN if k.replace("_", "").lower() == bare), None)
    parts = None if exact is not None else _splits(word)
    if parts is not None and len(parts) > 1:
        product = "dot(q, k)" if parts == ["q", "k"] else "*".join(parts)
        return what, suggestion(text, word, product, reads)
    known = _spelling(word)
    if known is not None:
        return what, suggestion(text, word, known, reads)
    return what, " (names: see 'scaledattn verify --help')"


def _replaced(text: str, old: str, new: str) -> str | None:
    """``text`` with ``old`` replaced wherever it stands as a word, or None if not found."""
    word = re.compile(rf"(?<![A-Za-z0-9_']){re.escape(old)}(?![A-Za-z0-9_'])")
    if not word.search(text):
        return None
    return word.sub(new, text)


def suggestion(text: str, old: str, new: str, reads: Reads) -> str:
    """``; did you mean "…"?`` with the word ``old`` replaced, whole if it reads; else ``new``."""
    candidate = _replaced(text, old, new)
    if candidate is not None and reads(candidate):
        return f"; did you mean {quote(candidate)}?"
    return f"; did you mean {new}?"
