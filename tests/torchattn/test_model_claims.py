"""The texts' claims about other models, judged on audits of real attention code."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from scaledattn.torchattn.model_claims import MODEL_CLAIMS, MODELS, audits, judge

TEXTS = Path(__file__).resolve().parents[2] / "docs" / "sources"


def _audit(scale: float, d_k: int, d_model: int, logit_std: float) -> object:
    layer = SimpleNamespace(scale_measured=scale, d_k=d_k, d_model=d_model, logit_std=logit_std)
    return SimpleNamespace(layers=[layer])


def test_every_model_claim_quotes_its_text_verbatim_and_names_known_models() -> None:
    for claim in MODEL_CLAIMS:
        assert claim.quote in (TEXTS / claim.source).read_text(encoding="utf-8"), claim.quote
        assert set(claim.models) <= set(MODELS)
        assert claim.meaning
        assert claim.unchecked


def test_the_verdicts_follow_the_measured_figures_under_the_stated_meanings() -> None:
    """No torch needed: audit results stand in, one model without 1/√d_k refutes 'all'."""
    scaled = _audit(0.125, 64, 768, 0.3)
    results = {"torch": _audit(0.125, 64, 512, 0.5), "gpt2": scaled, "bert": scaled}
    everyone = {j.claim.claim: j.verdict for j in judge(results, subset=True)}  # type: ignore[arg-type]
    assert everyone["every Transformer divides q·k by √d_k in its attention"] == "COMPUTED"
    results["t5"] = _audit(1.0, 64, 512, 1.0)
    judged = {j.claim.claim: j for j in judge(results)}  # type: ignore[arg-type]
    every = judged["every Transformer divides q·k by √d_k in its attention"]
    assert every.verdict == "REFUTED"
    assert "t5: c = 1, c·√d_k = 8 (d_k = 64)" in every.measured
    assert judged["the Transformer uses d_k = 512"].verdict == "REFUTED"
    assert (
        judged["modern models' q and k vectors have at least 64 dimensions"].verdict == "COMPUTED"
    )


def test_torchs_own_transformer_scales_by_one_over_root_64() -> None:
    """Measured in torch.nn.Transformer's forward pass (torch extra)."""
    pytest.importorskip("torch")
    judged = {j.claim.claim: j for j in judge(audits(("torch",), tokens=16), subset=True)}
    every = judged["every Transformer divides q·k by √d_k in its attention"]
    assert every.measured == "torch: c = 0.125, c·√d_k = 1 (d_k = 64)"
    d512 = judged["the Transformer uses d_k = 512"]
    assert (d512.verdict, d512.measured) == ("REFUTED", "torch: d_k = 64")
