"""The ledger of the four source texts: quoted verbatim, checked at run time, mistakes found."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scaledattn.claims import Verdict
from scaledattn.claims.ledger import LEDGER, SOURCES, Row, check, select
from scaledattn.claims.syntax import parse_assumption, parse_claim
from scaledattn.cli import main
from scaledattn.docgen import claims_page

ROOT = Path(__file__).resolve().parents[2]
TEXTS = ROOT / "docs" / "sources"


@pytest.fixture(scope="module")
def rows() -> tuple[Row, ...]:
    return check()


def test_every_source_text_is_in_the_ledger_with_several_claims() -> None:
    assert set(SOURCES) == {p.name for p in TEXTS.glob("*.txt")}
    for source in SOURCES:
        assert len(select(source)) >= 15, source
    assert len(LEDGER) >= 100


@pytest.mark.parametrize("entry", LEDGER, ids=lambda e: f"{e.source[:3]}:{e.claim[:40]}")
def test_every_quote_is_verbatim_and_every_claim_is_in_the_claim_language(entry: object) -> None:
    text = (TEXTS / entry.source).read_text(encoding="utf-8")  # type: ignore[attr-defined]
    for part in entry.parts:  # type: ignore[attr-defined]
        assert part in text, part
    parse_claim(entry.claim)  # type: ignore[attr-defined]
    for a in entry.assume:  # type: ignore[attr-defined]
        parse_assumption(a)


def _verdicts(rows: tuple[Row, ...]) -> dict[tuple[str, str, str], Row]:
    return {(r.entry.source[:3], r.entry.claim, r.entry.condition): r for r in rows}


#: The texts' mistakes: (source, claim, a piece of the right value the verifier must give).
MISTAKES = [
    ("001", "std(dot(q, k, 6144)) / std(dot(q, k, 1536)) ≈ 4", "= 2"),
    ("001", "rounded(78) / rounded(39) ≈ 4", "[1.962, 2.039]"),
    ("001", "softmax([20.0, 10.0, 1.0]) ≈ [0.99998, 0.00005, 0.00000]", "[0.99995, 0.00005"),
    ("001", "softmax([0.02, 0.01, 0.01]) ≈ [0.337, 0.332, 0.332]", "[0.336, 0.332, 0.332]"),
    ("002", "exp(14)/exp(10) >= 1000", "54.598"),
    ("002", "softmax([1.75, 1.25, 1.5]) ≈ [0.419, 0.254, 0.327]", "[0.419, 0.254, 0.326]"),
    ("002", "2*std(dot(q, k, 128)) >= 100", "22.627"),
    ("004", "softmax([60, 65, 70]) ≈ [0.25, 0.30, 0.35]", "[0.00, 0.01, 0.99]"),
    ("004", "softmax([0.89, 0.22]) ≈ [0.71, 0.29]", "[0.66, 0.34]"),
    ("004", "20/sqrt(512) ≈ 0.89", "0.88 to the claim's digits"),
    ("004", "512 / 8 = 512", "= 64"),
    ("004", "[E(Z) - 2*std(Z), E(Z) + 2*std(Z)] ≈ [200, 350]", "[233, 279]"),
]


@pytest.mark.parametrize(("source", "claim", "right"), MISTAKES)
def test_the_ledger_finds_the_texts_mistakes_and_gives_the_right_values(
    rows: tuple[Row, ...], source: str, claim: str, right: str
) -> None:
    found = [r for r in rows if r.entry.source.startswith(source) and r.entry.claim == claim]
    assert found, claim
    assert found[0].result.verdict is Verdict.REFUTED
    assert right in found[0].result.correct


@pytest.mark.parametrize(("source", "claim"), [("000", "0.786 = 0.787"), ("002", "0.327 = 32.6%")])
def test_internal_inconsistencies_have_their_own_refuted_entries(
    rows: tuple[Row, ...], source: str, claim: str
) -> None:
    (row,) = [r for r in rows if r.entry.source.startswith(source) and r.entry.claim == claim]
    assert row.entry.inconsistency
    assert row.result.verdict is Verdict.REFUTED


def test_vanishing_gradients_are_judged_on_the_examples_numbers_with_the_limit_as_context(
    rows: tuple[Row, ...],
) -> None:
    """000 and 002 name σ = 8 / d_k = 64: their 'vanishing' is measured, the limit only shown."""
    for source in ("000", "002"):
        mine = [
            r
            for r in rows
            if r.entry.source.startswith(source)
            and r.entry.meaning is not None
            and "vanish" in r.entry.meaning.word
        ]
        conditions = {r.entry.condition.split(",")[0] for r in mine}
        assert any("p − y" in c for c in conditions), source
        assert any("softmax" in c for c in conditions), source
        for r in mine:
            assert not r.entry.claim.startswith("lim("), r.entry.claim
            assert r.context is not None
            assert r.entry.context.startswith("lim(")
            cited = " ".join(e.summary for e in r.context.evidence)
            assert "theorem p_minus_y_limit" in cited or "_vanishes" in cited
    # the limit says the Jacobian vanishes; at the post's own d_k = 64 it has not
    (post,) = [r for r in rows if r.entry.claim == "measured(jacobian_norm_ratio) <= 1/10"]
    assert post.context is not None
    assert post.context.verdict is Verdict.VERIFIED
    assert post.result.verdict is Verdict.REFUTED


def test_every_verdict_is_computed_with_evidence(rows: tuple[Row, ...]) -> None:
    for r in rows:
        assert r.result.evidence or r.result.reason, r.entry.claim
        if r.result.verdict is Verdict.REFUTED:
            assert r.result.correct or r.result.counterexample or r.result.evidence


def test_the_claims_page_in_docs_is_the_generated_one() -> None:
    page = claims_page()
    assert (ROOT / "docs" / page.path).read_text(encoding="utf-8") == page.text


def test_claims_json_is_a_list_of_objects_with_source_quote_claim_verdict_evidence(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["claims", "--source", "002", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data) == len(select("002"))
    for item in data:
        assert {"source", "quote", "claim", "verdict", "evidence"} <= set(item)
        assert item["source"] == "002_ce3c95976c2eff63.txt"


def test_claims_prints_the_table_and_the_list_of_mistakes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["claims", "--source", "004_59b122b8ce81be9e.txt"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("004_59b122b8ce81be9e.txt (an interview-style article):")
    assert "Refuted (the texts' mistakes, with the right values):" in out
    assert "000_" not in out


def test_an_unknown_source_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["claims", "--source", "003"]) == 2
    assert "unknown source '003'" in capsys.readouterr().err
