"""The source texts' claims about other Transformer models, checked by auditing their attention.

Each :class:`ModelClaim` quotes a sentence, states what it claims about which models,
gives its qualitative word an operational meaning, and is judged on figures that
:func:`~scaledattn.torchattn.audit.run_audit` measures in the models' own attention
code at random init (no download): the scale applied to q·k, d_k, d_model and the
spread of the logits. The models are those buildable offline on a small machine:

- ``torch``: ``torch.nn.Transformer`` with its defaults (d_model = 512, 8 heads: the
  base configuration of "Attention Is All You Need", which torch's documentation says it
  follows), one encoder and one decoder layer, inputs N(0, 1);
- ``gpt2``, ``bert``, ``t5``: transformers' default configs (2 layers), random tokens.

It needs the torch extra and builds four models (about 20-30 s of CPU), so, like
docs/attention-at-init.md, its page is not part of ``scaledattn docs --check``::

    python -m scaledattn.torchattn.model_claims            # write docs/model-claims.md
    python -m scaledattn.torchattn.model_claims --check    # exit 1 if the page is stale

What cannot be checked, and why, is stated with each claim (``unchecked``).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scaledattn.errors import InvalidArgument
from scaledattn.torchattn import require_torch
from scaledattn.torchattn.audit import AuditResult, LayerAudit, run_audit
from scaledattn.torchattn.docpage import write_or_check

__all__ = ["MODELS", "MODEL_CLAIMS", "ModelClaim", "Judged", "judge", "main", "page_text"]

PAGE = Path("docs") / "model-claims.md"
COMMAND = "python -m scaledattn.torchattn.model_claims"
TORCH_SPEC = "scaledattn.torchattn.model_claims:torch_transformer"
#: Model name → audit spec. All are built from configs with random init, nothing downloaded.
MODELS: dict[str, str] = {"torch": TORCH_SPEC, "gpt2": "gpt2", "bert": "bert", "t5": "t5"}
#: The scale counts as 1/√d_k when c·√d_k is within this of 1.
SCALE_TOLERANCE = 0.01
#: The init counts as giving the scaled logits std 1 when within this of 1.
STD_TOLERANCE = 0.10
Audits = Mapping[str, AuditResult]


def torch_transformer() -> Any:
    """``torch.nn.Transformer()`` defaults (d_model 512, 8 heads), one layer each side, eval mode.

    Called by the audit as ``module(x)`` with x of shape (batch, tokens, 512): the
    same x is the source and the target.
    """
    torch = require_torch()

    class Wrapped(torch.nn.Module):  # type: ignore[name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.transformer = torch.nn.Transformer(
                batch_first=True, num_encoder_layers=1, num_decoder_layers=1
            )
            self.d_model = int(self.transformer.d_model)

        def forward(self, x: Any) -> Any:
            return self.transformer(x, x)

    return Wrapped().eval()


def _first(audit: AuditResult) -> LayerAudit:
    return audit.layers[0]


def _scale_times_root(layer: LayerAudit) -> float:
    return layer.scale_measured * math.sqrt(layer.d_k)


def _scales(audits: Audits) -> tuple[bool, str]:
    shown, ok = [], True
    for name, audit in audits.items():
        c = _scale_times_root(_first(audit))
        ok &= abs(c - 1) <= SCALE_TOLERANCE
        layer = _first(audit)
        shown.append(
            f"{name}: c = {layer.scale_measured:.4g}, c·√d_k = {c:.4g} (d_k = {layer.d_k})"
        )
    return ok, "; ".join(shown)


def _d_k_at_least(least: int) -> Callable[[Audits], tuple[bool, str]]:
    def measure(audits: Audits) -> tuple[bool, str]:
        dims = {name: _first(a).d_k for name, a in audits.items()}
        return all(d >= least for d in dims.values()), ", ".join(
            f"{n}: d_k = {d}" for n, d in dims.items()
        )

    return measure


def _d_k_is(value: int) -> Callable[[Audits], tuple[bool, str]]:
    def measure(audits: Audits) -> tuple[bool, str]:
        dims = {name: _first(a).d_k for name, a in audits.items()}
        return all(d == value for d in dims.values()), ", ".join(
            f"{n}: d_k = {d}" for n, d in dims.items()
        )

    return measure


def _d_model_at_least(least: int) -> Callable[[Audits], tuple[bool, str]]:
    def measure(audits: Audits) -> tuple[bool, str]:
        widths = {name: _first(a).d_model for name, a in audits.items()}
        return all(w is not None and w >= least for w in widths.values()), ", ".join(
            f"{n}: d_model = {w}" for n, w in widths.items()
        )

    return measure


def _std_not_one(audits: Audits) -> tuple[bool, str]:
    shown, ok = [], True
    for name, audit in audits.items():
        std = _first(audit).logit_std
        ok &= abs(std - 1) > STD_TOLERANCE
        shown.append(f"{name}: std of the scaled logits at init = {std:.4g}")
    return ok, "; ".join(shown)


@dataclass(frozen=True)
class ModelClaim:
    """A sentence about other models, the models it is checked on, and how.

    ``claim`` says in words what is checked; ``meaning`` the operational reading of
    its qualitative word (threshold, reason, source); ``measure`` turns the audits of
    ``models`` into (holds, the measured figures); ``unchecked`` says what the
    sentence claims beyond the audited models, and why that cannot be checked.
    """

    source: str
    quote: str
    claim: str
    models: tuple[str, ...]
    meaning: str
    measure: Callable[[Audits], tuple[bool, str]]
    unchecked: str


ALL = ("torch", "gpt2", "bert", "t5")
MODEL_CLAIMS: tuple[ModelClaim, ...] = (
    ModelClaim(
        "001_a43a78bc7663ccac.txt",
        "之后所有的 Transformer 模型——包括 Sophia——都沿用了这个做法",
        "every Transformer divides q·k by √d_k in its attention",
        ALL,
        "“沿用这个做法 (uses this design)” := the attention multiplies q·k by c with"
        f" |c·√d_k − 1| ≤ {SCALE_TOLERANCE} (threshold: 1%, well above float rounding and well"
        " below any other scale in use; source: the audit's measured scale)",
        _scales,
        "'Sophia' (apparently the model the book builds) cannot be identified: no config or"
        " code of it is available; 'all' models cannot be enumerated — only the families"
        " buildable offline here are audited (llama-sized defaults are too large for this"
        " machine).",
    ),
    ModelClaim(
        "002_ce3c95976c2eff63.txt",
        "√d_k缩放仍是注意力层最基础、最不可或缺的稳定器",
        "every modern Transformer's attention applies the 1/√d_k scale (it is indispensable)",
        ALL,
        "“不可或缺 (indispensable)” := no audited model's attention does without it: c·√d_k"
        f" within {SCALE_TOLERANCE} of 1 in every model (same reading as 001's 'all models')",
        _scales,
        "Whether a model without the scale trains is not measured here (no training of these"
        " models offline); T5 keeps its logits' spread through its init instead.",
    ),
    ModelClaim(
        "000_e1e193e71b2d1e85.txt",
        "现代模型的词向量是 64 维起步",
        "modern models' q and k vectors have at least 64 dimensions",
        ALL,
        "“起步 (starting at)” := every audited model has d_k ≥ 64 (the lesson's 'vectors' are"
        " the q and k of one head, whose length it changes from 4 to 64)",
        _d_k_at_least(64),
        "'Modern models' are not named; the defaults of the families buildable offline stand for"
        " them.",
    ),
    ModelClaim(
        "000_e1e193e71b2d1e85.txt",
        "128 维打底",
        "modern models' q and k vectors have at least 128 dimensions",
        ALL,
        "“打底 (as the floor)” := every audited model has d_k ≥ 128",
        _d_k_at_least(128),
        "'Modern models' are not named; larger families (llama-sized defaults, head dimension"
        " 128) are too large to build here.",
    ),
    ModelClaim(
        "004_59b122b8ce81be9e.txt",
        "这就是为什么 Transformer 固定用 dk = 512",
        "the Transformer uses d_k = 512",
        ("torch",),
        "“固定用 (uses)” := the d_k the attention of torch.nn.Transformer's default (the paper's"
        " base configuration) is called with equals 512",
        _d_k_is(512),
        "The paper itself is not readable offline; torch.nn.Transformer's defaults stand for its"
        " base configuration.",
    ),
    ModelClaim(
        "004_59b122b8ce81be9e.txt",
        "这些权重矩阵是随机初始化的，并没有刻意保证 Q 和 K 的方差为 1",
        "the original Transformer's random init does not make the scaled logits' spread 1",
        ("torch",),
        f"“没有保证方差为 1 (not guaranteed variance 1)” := the std of q·k/√d_k at init, on"
        f" N(0, 1) inputs, is more than {STD_TOLERANCE:.0%} away from 1 (the lesson's σ = 1"
        " after scaling needs Var(q_i)·Var(k_i) = 1)",
        _std_not_one,
        "The paper's own init is not stated in the text and the paper is not readable offline;"
        " torch.nn.Transformer's init (Xavier-uniform projections) stands for it.",
    ),
    ModelClaim(
        "004_59b122b8ce81be9e.txt",
        "512 维、768 维、1024 维...现代 Transformer 用的是大维度",
        "modern Transformers have widths of 512 and more",
        ("gpt2", "bert", "t5"),
        "“大维度 (large widths)” := every audited model has d_model ≥ 512 (the smallest width"
        " the sentence lists)",
        _d_model_at_least(512),
        "torch.nn.Transformer is left out: the probe does not capture its projections' inputs,"
        " so its width is not measured. '不用缩放几乎不可能训练成功' (cannot train without the"
        " scale) is not checked: no training of these models offline, and T5 shows the scale"
        " can move into the init.",
    ),
)


@dataclass(frozen=True)
class Judged:
    """A model claim's verdict on the audited models, with the measured figures."""

    claim: ModelClaim
    verdict: str
    measured: str


def audits(
    models: tuple[str, ...] = tuple(MODELS), seed: int = 0, tokens: int = 64
) -> dict[str, AuditResult]:
    """Audit each model once (2 sequences of ``tokens`` random tokens)."""
    return {m: run_audit(MODELS[m], layers=2, seed=seed, batch=2, tokens=tokens) for m in models}


def judge(results: Audits, subset: bool = False) -> list[Judged]:
    """Each model claim whose models were all audited: COMPUTED or REFUTED on those models.

    COMPUTED, not VERIFIED: a figure measured in the models' forward passes is no proof.

    With ``subset`` a claim is judged on those of its models that were audited (a
    quicker, partial check), and skipped only when none was.
    """
    out = []
    for claim in MODEL_CLAIMS:
        mine = {m: results[m] for m in claim.models if m in results}
        if not mine or (len(mine) < len(claim.models) and not subset):
            continue
        holds, measured = claim.measure(mine)
        out.append(Judged(claim, "COMPUTED" if holds else "REFUTED", measured))
    return out


def _cell(text: str) -> str:
    return text.replace("|", "&#124;").replace("\n", " ")


def page_text(results: Audits | None = None) -> str:
    """docs/model-claims.md: each claim, its meaning, the measured figures, the verdict."""
    judged = judge(results if results is not None else audits())
    lines = [
        f"<!-- generated by `{COMMAND}` (needs the torch extra); not checked by"
        " `scaledattn docs --check`. -->",
        "",
        "# Claims about other Transformer models, measured",
        "",
        "The source texts say what other models do. Each such sentence is checked here on the",
        "attention code of the models that can be built offline (random init, nothing",
        "downloaded), with `scaledattn audit`: the scale applied to q·k, d_k, d_model and the",
        "spread of the logits are measured in each model's own forward pass. A verdict holds for",
        "the audited models only; what the sentence says beyond them, and why it is not checked,",
        "is in the last column.",
        "",
        "| verdict | source | claim | meaning | measured | not checked |",
        "|---|---|---|---|---|---|",
    ]
    for j in judged:
        c = j.claim
        cells = (
            f"**{j.verdict}**",
            f"`{c.source[:3]}` {c.quote}",
            f"{c.claim} ({', '.join(c.models)})",
            c.meaning,
            j.measured,
            c.unchecked,
        )
        lines.append("| " + " | ".join(_cell(x) for x in cells) + " |")
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Write the page, --check it, or --closing: print the refuted claims with their figures."""
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is stale")
    parser.add_argument("--closing", action="store_true", help="print verdicts, write nothing")
    parser.add_argument("-o", "--output", default=str(PAGE), help=f"the page (default {PAGE})")
    args = parser.parse_args(argv)
    try:
        results = audits()
    except InvalidArgument as err:
        print(f"{COMMAND}: error: {err}", file=sys.stderr)
        return 2
    if args.closing:
        for j in judge(results):
            print(f"{j.verdict:<9} {j.claim.source[:3]}  {j.claim.claim}")
            print(f"          measured: {j.measured}")
            print(f"          meaning: {j.claim.meaning}")
        return 0
    return write_or_check(Path(args.output), page_text(results), COMMAND, check=args.check)


if __name__ == "__main__":
    sys.exit(main())
