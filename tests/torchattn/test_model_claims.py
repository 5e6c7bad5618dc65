"""The texts' claims about other models, judged on audits of real attention code (torch extra)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from scaledattn.torchattn.model_claims import MODEL_CLAIMS, MODELS, audits, judge

TEXTS = Path(__file__).resolve().parents[2] / "docs" / "sources"


def test_every_model_claim_quotes_its_text_verbatim_and_names_known_models() -> None:
    for claim in MODEL_CLAIMS:
        assert claim.quote in (TEXTS / claim.source).read_text(encoding="utf-8"), claim.quote
        assert set(claim.models) <= set(MODELS)
        assert claim.meaning
        assert claim.unchecked


def test_torchs_own_transformer_scales_by_one_over_root_64_and_t5_does_not() -> None:
    """Measured in the models' forward passes: torch and T5 (about 4 s of CPU)."""
    judged = {j.claim.claim: j for j in judge(audits(("torch", "t5")), subset=True)}
    every = judged["every Transformer divides q·k by √d_k in its attention"]
    assert every.verdict == "REFUTED"
    assert "t5: c = 1," in every.measured
    assert "torch: c = 0.125," in every.measured
    d512 = judged["the Transformer uses d_k = 512"]
    assert (d512.verdict, d512.measured) == ("REFUTED", "torch: d_k = 64")
