"""Tiny models for the audit tests, reached as ``tests.torchattn.tiny_models:NAME``."""

from __future__ import annotations

from typing import Any

import torch
import transformers


def gpt2() -> Any:
    """GPT-2 with 8 heads of width 8, 2 layers, 97 tokens."""
    config = transformers.GPT2Config(
        n_embd=64,
        n_head=8,
        n_layer=2,
        n_positions=64,
        vocab_size=97,
        bos_token_id=0,
        eos_token_id=0,
    )
    return transformers.GPT2Model(config)


def gpt2_weights_doubled() -> Any:
    """The tiny GPT-2 with every attention weight doubled: σ is 0.04, not the config's 0.02."""
    model = gpt2()
    with torch.no_grad():
        for block in model.h:
            block.attn.c_attn.weight.mul_(2)
    return model


def t5() -> Any:
    """T5 (no 1/√d_k, folded into the init) with 8 heads of width 8, one block each side."""
    config = transformers.T5Config(
        d_model=64, d_kv=8, num_heads=8, d_ff=128, num_layers=1, num_decoder_layers=1, vocab_size=97
    )
    return transformers.T5Model(config)


class SdpaModel(torch.nn.Module):
    """A custom module that calls scaled_dot_product_attention with its default scale."""

    d_model = 32

    def __init__(self) -> None:
        super().__init__()
        self.qkv = torch.nn.Linear(32, 96, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(x).split(32, dim=-1)
        b, t, _ = x.shape
        q, k, v = (a.view(b, t, 4, 8).transpose(1, 2) for a in (q, k, v))
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)


def sdpa_model() -> torch.nn.Module:
    """The custom SDPA module."""
    return SdpaModel()


class NoAttention(torch.nn.Module):
    """A module without attention."""

    d_model = 16

    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(16, 16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(x)


def no_attention() -> torch.nn.Module:
    """The module without attention."""
    return NoAttention()


def raises() -> Any:
    """A callable that fails."""
    raise RuntimeError("cannot build today")


def not_a_module() -> int:
    """A callable that returns something else."""
    return 42


def llama_gqa() -> Any:
    """Llama with 8 query heads sharing 4 key heads (grouped-query attention), RoPE."""
    config = transformers.LlamaConfig(
        hidden_size=64,
        intermediate_size=128,
        num_attention_heads=8,
        num_key_value_heads=4,
        num_hidden_layers=1,
        vocab_size=97,
        bos_token_id=0,
        eos_token_id=0,
    )
    return transformers.LlamaModel(config)


def opt() -> Any:
    """OPT, which multiplies q by 1/√d_k itself and passes scale 1 to the attention call."""
    config = transformers.OPTConfig(
        hidden_size=64,
        num_attention_heads=8,
        ffn_dim=128,
        num_hidden_layers=1,
        vocab_size=97,
        word_embed_proj_dim=64,
        max_position_embeddings=64,
        bos_token_id=0,
        eos_token_id=0,
        pad_token_id=1,
    )
    return transformers.OPTModel(config)


class LinearHead(torch.nn.Module):
    """Issue 28's module: LayerNorm(768), then q, k, v from three Linear(768, 64) layers
    (no bias, weights N(0, 0.02²)), then scaled_dot_product_attention with its 1/√64."""

    def __init__(self, d_model: int = 768, d_k: int = 64) -> None:
        super().__init__()
        self.d_model = d_model
        self.norm = torch.nn.LayerNorm(d_model)
        self.q = torch.nn.Linear(d_model, d_k, bias=False)
        self.k = torch.nn.Linear(d_model, d_k, bias=False)
        self.v = torch.nn.Linear(d_model, d_k, bias=False)
        for linear in (self.q, self.k, self.v):
            torch.nn.init.normal_(linear.weight, std=0.02)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm(x)
        return torch.nn.functional.scaled_dot_product_attention(self.q(h), self.k(h), self.v(h))


def linear_head() -> torch.nn.Module:
    """Issue 28's module (see LinearHead)."""
    return LinearHead()
