"""The three kinds of input of ``check-proof``: a proof file, a Markdown lesson, a JSON certificate.

- A proof file: the format of :mod:`scaledattn.prooffile.parse`.
- A Markdown file (``.md``): every fenced block whose info string is ``proof``
  (```` ```proof ````) is one proof text; lines and columns refer to the Markdown file.
- A JSON certificate (``.json``, as ``scaledattn derive NAME --format json`` writes
  it): its ``certificate`` field holds each theorem's statement, assumptions and
  steps in the proof format, read by the same parser; an error names the line and
  column of the JSON string it is in. Any JSON output of the tool that holds
  certificates (``exercises --format json``, ``variance --format json``) reads the same
  way, each theorem once. The object that holds a certificate (its header: ``theorem``,
  ``statement``, ``assumptions``, the steps, …) must say what the certificate proves:
  it is compared with the rendering of what is checked (:mod:`~scaledattn.prooffile.header`),
  and a field that differs is refused (exit 2, naming the field).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from scaledattn.errors import ProofFileError
from scaledattn.prooffile.check import TheoremVerdict, check_document, is_known_rule
from scaledattn.prooffile.header import check_headers
from scaledattn.prooffile.parse import (
    MAX_BYTES,
    Document,
    TheoremBlock,
    parse_document,
    read_bytes,
)
from scaledattn.prooffile.report import report_json, report_text

__all__ = ["CheckedFile", "ProofFileError", "check_file", "check_text", "read_document"]

_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})\s*(?P<info>[^\s`]*)")


@dataclass(frozen=True)
class CheckedFile:
    """The verdicts on one file."""

    path: str
    verdicts: list[TheoremVerdict]
    blocks: int = 0

    @property
    def verified(self) -> bool:
        """True when every theorem is verified."""
        return all(v.verified for v in self.verdicts)

    @property
    def undecided(self) -> bool:
        """True when no theorem is rejected but some verdict is withheld (no model found).

        A ✗ step is a rejection whatever the assumptions: a file with one exits 1, not 3.
        """
        withheld = any(v.withheld for v in self.verdicts)
        return withheld and all(
            v.verified or (v.withheld and not _rejects(v)) for v in self.verdicts
        )

    def text(self) -> str:
        """The text report."""
        return report_text(self.path, self.verdicts, self.blocks)

    def as_json(self) -> dict[str, Any]:
        """The JSON report."""
        return report_json(self.path, self.verdicts, self.blocks)


def markdown_blocks(text: str) -> list[tuple[int, str]]:
    """(first line number, text) of each fenced ```proof block of a Markdown text."""
    lines = text.split("\n")
    found: list[tuple[int, str]] = []
    n = 0
    while n < len(lines):
        match = _FENCE.match(lines[n])
        if match is None:
            n += 1
            continue
        fence, info = match.group("fence"), match.group("info")
        body: list[str] = []
        start = n + 2
        n += 1
        while n < len(lines) and not lines[n].lstrip().startswith(fence):
            body.append(lines[n])
            n += 1
        if n >= len(lines) and info == "proof":
            raise ProofFileError("a ```proof block is never closed", start - 1, 1)
        n += 1
        if info == "proof":
            found.append((start, "\n".join(body)))
    return found


def _markdown(text: str) -> Document:
    blocks = markdown_blocks(text)
    if not blocks:
        raise ProofFileError("no ```proof block in this Markdown file", 1, 1)
    theorems: list[TheoremBlock] = []
    known: set[str] = set()

    def citable(name: str) -> bool:
        return is_known_rule(name) or name in known

    for number, (first, body) in enumerate(blocks, start=1):
        doc = parse_document(body, citable, first, number)
        theorems += doc.theorems
        known.update(t.name for t in doc.theorems)
    return Document(theorems, len(blocks))


def _locate(raw: str, value: str) -> tuple[int, int]:
    """Line and column of the JSON string ``value`` in the raw JSON text."""
    needle = json.dumps(value, ensure_ascii=False)
    at = raw.find(needle)
    if at < 0:
        return 1, 1
    line = raw.count("\n", 0, at) + 1
    return line, at - (raw.rfind("\n", 0, at) + 1) + 2


def _certificates(data: Any, depth: int = 0) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(header, certificate) for every ``certificate`` object in a JSON document.

    The header is the object that holds the certificate (the tool's outputs nest them).
    """
    if depth > 20:
        return []
    out: list[tuple[dict[str, Any], dict[str, Any]]] = []
    if isinstance(data, dict):
        cert = data.get("certificate")
        if isinstance(cert, dict) and isinstance(cert.get("theorems"), list):
            out.append((data, cert))
        for key, value in data.items():
            if key != "certificate":
                out += _certificates(value, depth + 1)
    elif isinstance(data, list):
        for value in data:
            out += _certificates(value, depth + 1)
    return out


def _certificate(raw: str) -> Document:
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as err:
        raise ProofFileError(f"not valid JSON: {err.msg}", err.lineno, err.colno) from None
    found: dict[str, Any] = {}
    holders = _certificates(data)
    for _, cert in holders:
        for t in cert["theorems"]:
            if isinstance(t, dict):
                # a lemma repeated by nested certificates is one theorem; a name reused
                # for another theorem would hide it (a false one, unchecked, exit 0)
                if found.setdefault(str(t.get("name")), t) != t:
                    raise ProofFileError(f"theorem {t.get('name')} is stated twice", 1, 1)
            else:
                raise ProofFileError("a certificate's theorem is not an object", 1, 1)
    if not found:
        raise ProofFileError(
            "no 'certificate' with 'theorems' in this JSON"
            " (scaledattn derive NAME --format json writes one)",
            1,
            1,
        )
    lines: list[str] = []
    sources: list[str] = []
    for t in found.values():
        try:
            lines.append(f"theorem {t['name']}: {t['statement']}")
            sources.append(t["statement"])
            for a in t.get("assume", []):
                lines.append(f"assume: {a}")
                sources.append(a)
            lines.append(f"  {t['start']}")
            sources.append(t["start"])
            relation = "<=>" if t.get("kind") == "iff" else "="
            for s in t["steps"]:
                lines.append(f"  {relation} {s['expr']}    by {s['by']}")
                sources.append(s["expr"])
        except (KeyError, TypeError) as err:
            raise ProofFileError(f"a certificate theorem lacks the field {err}", 1, 1) from None
    try:
        document = parse_document("\n".join(lines), is_known_rule)
    except ProofFileError as err:
        source = sources[err.line - 1] if 0 < err.line <= len(sources) else ""
        line, column = _locate(raw, source) if source else (1, 1)
        raise ProofFileError(err.message, line, column) from None
    places = [_locate(raw, source) for source in sources]
    lines_in_json = [line for line, _ in places]
    for block in document.theorems:
        block.line = lines_in_json[block.line - 1]
        block.steps = [replace(s, line=lines_in_json[s.line - 1]) for s in block.steps]
        for needs in (block.statement_obligations, block.obligations):
            needs[:] = [replace(o, line=places[o.line - 1][0], column=places[o.line - 1][1])
                        for o in needs]  # fmt: skip
    for header, _ in holders:
        name = header.get("theorem")
        at = raw.find(f'"theorem": {json.dumps(name, ensure_ascii=False)}')
        document.headers.append((header, raw.count("\n", 0, at) + 1 if at >= 0 else 1))
    return document


def read_document(path: Path) -> Document:
    """The document in ``path``; ProofFileError (with the path) for anything malformed."""
    name = str(path)
    try:
        try:
            with path.open("rb") as stream:  # at most one byte past the limit, whatever it is
                data = stream.read(MAX_BYTES + 1)
        except OSError as err:
            raise ProofFileError(f"cannot read the file: {err.strerror or err}", 1, 1) from None
        text = read_bytes(data)
        if path.suffix.lower() in (".md", ".markdown"):
            return _markdown(text)
        if path.suffix.lower() == ".json" or text.lstrip().startswith("{"):
            return _certificate(text)
        return parse_document(text, is_known_rule)
    except ProofFileError as err:
        raise err.located(name) from None


def check_file(path: Path, seconds: float = 3.0) -> CheckedFile:
    """Read and check one file."""
    document = read_document(path)
    try:
        verdicts = check_document(document, seconds)
    except ProofFileError as err:  # a term that needs what the assumptions do not give
        raise err.located(str(path)) from None
    for header, line in document.headers:
        try:
            check_headers([header], verdicts)
        except ProofFileError as err:
            raise ProofFileError(err.message, line, 1).located(str(path)) from None
    return CheckedFile(str(path), verdicts, document.blocks)


def check_text(text: str, path: str = "<proof>", seconds: float = 3.0) -> CheckedFile:
    """Check a proof text (not a file); ProofFileError naming ``path`` if malformed."""
    try:
        document = parse_document(text, is_known_rule)
        verdicts = check_document(document, seconds)
    except ProofFileError as err:
        raise err.located(path) from None
    return CheckedFile(path, verdicts)


def _rejects(verdict: Any) -> bool:
    """Whether a theorem's check rejected a step or found a problem in the chain."""
    return bool(verdict.problems) or any(
        s.status in ("rejected", "unproved") for s in verdict.steps
    )
