"""The ledger's verdicts for people and programs: its table, its JSON, its docs page.

One claim's report is :func:`scaledattn.claims.report.result_text`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scaledattn.claims.ledger import SOURCES, Row
from scaledattn.claims.outcome import HOLDS, Verdict
from scaledattn.claims.report import key_line

__all__ = ["closing_list", "ledger_json", "ledger_markdown", "ledger_text"]


def _counts(rows: Sequence[Row]) -> str:
    n = {v: sum(1 for r in rows if r.result.verdict is v) for v in Verdict}
    counted = ", ".join(f"{n[v]} {v.value.lower()}" for v in Verdict)
    return f"{len(rows)} claims: {counted}"


def _by_source(rows: Sequence[Row]) -> dict[str, list[Row]]:
    grouped: dict[str, list[Row]] = {}
    for row in rows:
        grouped.setdefault(row.entry.source, []).append(row)
    return grouped


def _context_line(row: Row) -> str:
    """The general result beside the verdict: its claim, its own verdict, its evidence."""
    if row.context is None:
        return ""
    first = row.context.evidence[0].summary if row.context.evidence else ""
    return f"context (not the verdict): {row.entry.context} {row.context.verdict.value}" + (
        f" — {first}" if first else ""
    )


def closing_list(rows: Sequence[Row]) -> str:
    """Every claim refuted, undecided or judged under a condition or meaning, with its value.

    One block per claim: verdict, source, claim, the measured or computed value (or
    the reason it is undecided), and the condition and meaning it was judged under
    (the meaning's reason and source are in the full table and docs/claims.md).
    """
    out: list[str] = []
    chosen = [r for r in rows if not r.result.verdict.holds or r.conditional]
    for verdict in (Verdict.REFUTED, Verdict.UNDECIDED, *HOLDS):
        group = [r for r in chosen if r.result.verdict is verdict]
        if not group:
            continue
        what = " only under a condition or a meaning" if verdict.holds else ""
        out.append(f"{verdict.value.capitalize()}{what} ({len(group)}):")
        for r in group:
            out.append(f"  {r.entry.source[:3]}  {r.entry.claim}")
            out.append(f"       value: {key_line(r.result)}")
            if r.entry.condition:
                out.append(f"       condition: {r.entry.condition}")
            if r.entry.meaning is not None:
                out.append(f"       meaning: {r.entry.meaning.short()}")
        out.append("")
    out.append(
        f"{len(chosen)} of {len(rows)} claims: refuted, undecided, or true only under a"
        " condition or an operational meaning."
    )
    return "\n".join(out)


def _claim_label(row: Row) -> str:
    label = row.entry.claim
    if row.entry.assume:
        label += "   given " + "; ".join(row.entry.assume)
    return label


def ledger_text(rows: Sequence[Row]) -> str:
    """The ledger as a table: per source, each claim's verdict, quote and key evidence."""
    out: list[str] = []
    for source, group in _by_source(rows).items():
        out.append(f"{source} ({SOURCES[source]}): {_counts(group)}")
        for row in group:
            tag = " [inconsistency]" if row.entry.inconsistency else ""
            out.append(f"  {row.result.verdict.value:<10} {_claim_label(row)}{tag}")
            if row.entry.condition:
                out.append(f"             condition: {row.entry.condition}")
            if row.entry.meaning is not None:
                out.append(f"             meaning: {row.entry.meaning.text()}")
            out.append(f"             “{row.entry.quote}”")
            key = key_line(row.result)
            if key:
                out.append(f"             {key}")
            context = _context_line(row)
            if context:
                out.append(f"             {context}")
        out.append("")
    out.append(f"All {len(_by_source(rows))} texts: {_counts(rows)}.")
    mistakes = [r for r in rows if r.result.verdict is Verdict.REFUTED]
    if mistakes:
        out.append("Refuted (the texts' mistakes, with the right values):")
        for r in mistakes:
            where = r.entry.source.split("_")[0]
            condition = f" ({r.entry.condition})" if r.entry.condition else ""
            out.append(f"  {where}  {r.entry.claim}{condition}")
            out.append(f"       {key_line(r.result)}")
    undecided = [r for r in rows if r.result.verdict is Verdict.UNDECIDED]
    if undecided:
        out.append("Undecided:")
        for r in undecided:
            out.append(f"  {r.entry.source.split('_')[0]}  {r.entry.claim}: {r.result.reason}")
    return "\n".join(out)


def ledger_json(rows: Sequence[Row]) -> list[dict[str, Any]]:
    """``[{source, quote, claim, verdict, evidence, …}]``, one object per claim."""
    out = []
    for row in rows:
        e, r = row.entry, row.result
        item: dict[str, Any] = {
            "source": e.source,
            "quote": e.quote,
            "claim": e.claim,
            "assume": list(e.assume),
            "condition": e.condition,
            "note": e.note,
            "inconsistency": e.inconsistency,
            **{k: v for k, v in r.as_json().items() if k != "claim"},
        }
        if e.meaning is not None:
            item["meaning"] = {
                "word": e.meaning.word,
                "reading": e.meaning.reading,
                "threshold": e.meaning.threshold,
                "reason": e.meaning.reason,
                "source": e.meaning.source,
            }
        if row.context is not None:
            item["context"] = {"claim": e.context, **row.context.as_json()}
        out.append(item)
    return out


def _cell(text: str) -> str:
    return text.replace("|", "&#124;").replace("\n", " ")


GENERATED_NOTE = (
    "<!-- generated by `scaledattn docs` from the ledger; edit scaledattn/claims/ledger -->"
)


def ledger_markdown(rows: Sequence[Row]) -> str:
    """The docs page: every claim of the four texts with the verdict computed now."""
    lines = [
        GENERATED_NOTE,
        "",
        "# Claims of the source texts, checked",
        "",
        "Every checkable claim of the four source texts (`docs/sources/`), written in the",
        "claim language and verified when this page is generated: identities by derivations",
        "the kernel checks, numbers by interval arithmetic to the tolerance their digits imply,",
        "measurements by re-running the lesson's experiments (seed 0, the lesson's sizes) and",
        "the one-update experiment (`scaledattn experiment dynamics`: how far one SGD or Adam",
        "update moves the logits, with and without 1/√d_k, against the top-two gap).",
        'Run `scaledattn claims` to check them yourself, or `scaledattn verify "CLAIM"` for one.',
        "",
        "A qualitative word (“uniform”, “≈ 0”, “vanishes”, “on the σ = 8 scale”, …) is judged",
        "under the operational meaning in the *meaning* column: a threshold, its reason, its",
        "source. A concrete example is judged on its own numbers; a general theorem appears only",
        "as *context* beside the evidence, never as the verdict. `scaledattn claims --closing`",
        "lists every claim refuted, undecided or true only under a condition or a meaning.",
        "",
        "A claim that holds gets the word of its standard: **VERIFIED** a derivation the kernel",
        "checked (a proof), **COMPUTED** interval arithmetic on numbers, **CONSISTENT** a",
        "statistical test that did not reject (its p-value and 95% interval in the evidence).",
        "",
        f"**{_counts(rows)}.**",
        "",
    ]
    for source, group in _by_source(rows).items():
        lines += [f"## `{source}` — {SOURCES[source]}", "", _counts(group) + ".", ""]
        lines += ["| verdict | claim | meaning | quote | evidence |", "|---|---|---|---|---|"]
        for row in group:
            e, r = row.entry, row.result
            claim = f"`{e.claim}`"
            if e.assume:
                claim += " given " + ", ".join(f"`{a}`" for a in e.assume)
            if e.condition:
                claim += f" — *{e.condition}*"
            if e.inconsistency:
                claim += " (inconsistency)"
            verdict = f"**{r.verdict.value}**"
            evidence = key_line(r)
            if e.note:
                evidence += f" ({e.note})"
            context = _context_line(row)
            if context:
                evidence += f"; *{context}*"
            meaning = e.meaning.text() if e.meaning is not None else ""
            cells = (verdict, claim, meaning, e.quote, evidence)
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
        lines.append("")
    lines += _unchecked_section(tuple(_by_source(rows)))
    return "\n".join(lines)


def _unchecked_section(sources: tuple[str, ...]) -> list[str]:
    """The sentences with a number, formula or judgement but no entry, each with its reason."""
    from scaledattn.claims.ledger.audit import UNCHECKED

    lines = [
        "## Sentences without an entry, and why",
        "",
        "Every sentence of the texts with a number, a formula, a comparison or a qualitative",
        "judgement of attention has an entry above or a reason here (a test checks that none is",
        "missing: `scaledattn.claims.ledger.audit`). Claims about other models are measured on",
        "their attention code in [model-claims.md](model-claims.md) (torch extra).",
        "",
    ]
    for source in sources:
        mine = [u for u in UNCHECKED if u.source == source]
        if not mine:
            continue
        lines += [f"### `{source}`", "", "| sentence | why no entry |", "|---|---|"]
        for u in mine:
            why = u.reason + (f" (entry: `{u.same_as}`)" if u.same_as else "")
            lines.append(f"| {_cell(u.quote)} | {_cell(why)} |")
        lines.append("")
    return lines
