"""Record every attention call of a forward pass: q, k, the scale, the weights, the inputs.

Why here and not by recomputing q, k from a layer's projections: the attention
function receives q and k exactly as the scores use them (after the fused-projection
split of GPT-2, the head split, Llama's rotary embedding), and the scale the layer
passes; the projections' names and layouts differ per architecture, the call does
not. transformers routes every attention layer through its ``AttentionInterface``;
the probe registers itself there (and its mask function, so causal masks are built
as for eager attention) and delegates to the model's own eager attention, whose
returned weights are what the layer really computes. The inputs x of the projections
are captured by a forward pre-hook on each attention module.

A custom ``nn.Module`` that calls ``torch.nn.functional.scaled_dot_product_attention``
is recorded by wrapping that function for the duration of the pass; its weights
come from SDPA itself with V = I. When its q (or k) is the output of an ``nn.Linear``
layer, or a slice of one (a fused q, k, v projection), split into heads, that layer is
found by comparing the values (every Linear's input and output are kept during the
pass): its input is the token x the projection reads, and its rows for q give W_q.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scaledattn.errors import InvalidArgument
from scaledattn.torchattn import require_torch

__all__ = ["PROBE", "Call", "Recorder", "record", "register_probe"]

PROBE = "scaledattn_probe"
Floats = NDArray[np.float64]


@dataclass
class Call:
    """One attention call: q (B, H, T, E), k (B, Hₖ, S, E), the scale, the weights (B, H, T, S).

    ``additive`` is what the layer adds to scale·q·k besides (mask, T5's position
    bias), broadcastable to the weights; ``x`` (B, T, D) and ``y`` (B, S, D) are the
    inputs of the query and key projections when known; ``biases`` says whether the
    attention module has a non-zero bias parameter. For an SDPA call whose q and k come
    from ``nn.Linear`` layers, ``w_q`` and ``w_k`` are the rows of their weights that
    compute q and k, and ``projections`` names the layers.
    """

    layer: str
    query: Floats
    key: Floats
    scaling: float | None
    weights: Floats
    additive: Floats | None = None
    position_bias: bool = False
    x: Floats | None = None
    y: Floats | None = None
    biases: tuple[str, ...] = ()
    w_q: Floats | None = None
    w_k: Floats | None = None
    projections: str = ""


@dataclass
class Recorder:
    """The calls of one forward pass, and the captured inputs of the attention modules."""

    names: dict[int, str] = field(default_factory=dict)
    inputs: dict[int, tuple[Any, Any]] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)
    linears: list[tuple[str, Any, Any, Any]] = field(default_factory=list)


_ACTIVE: list[Recorder] = []


def _np(t: Any) -> Floats:
    out: Floats = t.detach().to("cpu").double().numpy()
    return out


def _nonzero_biases(module: Any) -> tuple[str, ...]:
    return tuple(
        name
        for name, p in module.named_parameters()
        if name.endswith("bias") and bool((p.detach() != 0).any())
    )


def probe_attention(
    module: Any, query: Any, key: Any, value: Any, attention_mask: Any, **kwargs: Any
) -> Any:
    """The model's own eager attention, with q, k, the scale and the weights recorded."""
    eager = getattr(sys.modules.get(type(module).__module__), "eager_attention_forward", None)
    if eager is None:
        raise InvalidArgument(
            f"{type(module).__name__} has no eager attention to delegate to; it cannot be audited"
        )
    output, weights = eager(module, query, key, value, attention_mask, **kwargs)
    if _ACTIVE and weights is not None:
        rec = _ACTIVE[-1]
        additive = None
        for extra in (attention_mask, kwargs.get("position_bias")):
            if extra is not None:
                part = _np(extra)
                additive = part if additive is None else additive + part
        x, y = rec.inputs.get(id(module), (None, None))
        rec.calls.append(
            Call(
                layer=rec.names.get(id(module), type(module).__name__),
                query=_np(query),
                key=_np(key),
                scaling=kwargs.get("scaling"),
                weights=_np(weights),
                additive=additive,
                position_bias=_is_bias(kwargs.get("position_bias")),
                x=None if x is None else _np(x),
                y=None if y is None else _np(y),
                biases=_nonzero_biases(module),
            )
        )
    return output, weights


def _is_bias(position_bias: Any) -> bool:
    """True when a position bias is given and non-zero somewhere outside the mask."""
    if position_bias is None:
        return False
    return bool(((position_bias != 0) & (position_bias > -1e4)).any())


def register_probe() -> None:
    """Register the probe (and eager attention's mask builder) under the name :data:`PROBE`."""
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, eager_mask

    AttentionInterface.register(PROBE, probe_attention)
    AttentionMaskInterface.register(PROBE, eager_mask)


def _hidden(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return kwargs.get("hidden_states", args[0] if args else None)


@contextmanager
def record(model: Any) -> Iterator[Recorder]:
    """Record the attention calls made inside the ``with`` block."""
    torch = require_torch()
    rec = Recorder(names={id(m): name for name, m in model.named_modules()})
    handles = []

    def capture(module: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        x = _hidden(args, kwargs)
        y = kwargs.get("key_value_states")
        if y is None:
            y = kwargs.get("encoder_hidden_states")
        if torch.is_tensor(x):
            rec.inputs[id(module)] = (x, y if torch.is_tensor(y) else x)

    def keep(module: Any, args: tuple[Any, ...], output: Any) -> None:
        if args and torch.is_tensor(args[0]) and torch.is_tensor(output):
            rec.linears.append((rec.names.get(id(module), "Linear"), module, args[0], output))

    for module in model.modules():
        if "attention" in type(module).__name__.lower():
            handles.append(module.register_forward_pre_hook(capture, with_kwargs=True))
        if isinstance(module, torch.nn.Linear):
            handles.append(module.register_forward_hook(keep))
    original = torch.nn.functional.scaled_dot_product_attention

    def sdpa(query: Any, key: Any, value: Any, attn_mask: Any = None, *a: Any, **kw: Any) -> Any:
        out = original(query, key, value, attn_mask, *a, **kw)
        if query.dim() >= 3 and query.dtype.is_floating_point:
            rec.calls.append(_sdpa_call(rec, original, query, key, attn_mask, *a, **kw))
        return out

    _ACTIVE.append(rec)
    torch.nn.functional.scaled_dot_product_attention = sdpa
    try:
        yield rec
    finally:
        torch.nn.functional.scaled_dot_product_attention = original
        _ACTIVE.remove(rec)
        for h in handles:
            h.remove()


def _sdpa_call(
    rec: Recorder,
    original: Any,
    query: Any,
    key: Any,
    attn_mask: Any,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    **kw: Any,
) -> Call:
    """An SDPA call recorded: its weights recomputed by SDPA itself with V = I."""
    torch = require_torch()
    q4 = query if query.dim() == 4 else query.unsqueeze(1)
    k4 = key if key.dim() == 4 else key.unsqueeze(1)
    s = k4.shape[-2]
    eye = torch.eye(s, dtype=q4.dtype).expand(*k4.shape[:-2], s, s)
    if k4.shape[1] != q4.shape[1]:  # grouped keys: one key head per group of query heads
        reps = q4.shape[1] // k4.shape[1]
        k4 = k4.repeat_interleave(reps, dim=1)
        eye = eye.repeat_interleave(reps, dim=1)
    mask = attn_mask
    if mask is not None and mask.dim() == 3:
        mask = mask.unsqueeze(1)
    weights = original(q4, k4, eye, mask, is_causal=is_causal, scale=scale)
    additive = None
    if mask is not None:
        additive = (
            _np(mask) if mask.dtype.is_floating_point else np.where(_np(mask) > 0, 0.0, -np.inf)
        )
    elif is_causal:
        t = q4.shape[-2]
        additive = np.where(np.tril(np.ones((t, s))) > 0, 0.0, -np.inf)
    k_own = key if key.dim() == 4 else key.unsqueeze(1)
    found_q, found_k = _projection(rec, q4), _projection(rec, k_own)
    projected: dict[str, Any] = {}
    if found_q is not None and found_k is not None:
        (name_q, x, w_q, b_q), (name_k, y, w_k, b_k) = found_q, found_k
        projected = {
            "x": _np(x),
            "y": _np(y),
            "w_q": _np(w_q),
            "w_k": _np(w_k),
            "biases": tuple(
                f"{name}.bias" for name, b in ((name_q, b_q), (name_k, b_k))
                if b is not None and bool((b != 0).any())
            ),
            "projections": f"q from the Linear {name_q!r} ({w_q.shape[0]}×{w_q.shape[1]}),"
            f" k from {name_k!r} ({w_k.shape[0]}×{w_k.shape[1]})",
        }  # fmt: skip
    return Call(
        layer=f"scaled_dot_product_attention call {len(rec.calls) + 1}",
        query=_np(q4),
        key=_np(k_own),
        scaling=scale,
        weights=_np(weights),
        additive=additive,
        **projected,
    )


def _projection(rec: Recorder, heads: Any) -> tuple[str, Any, Any, Any] | None:
    """The Linear layer whose output (or a block of its columns) is ``heads`` (B, H, T, E).

    Returns its name, its input, the rows of its weight that give ``heads``, and the
    same entries of its bias; None when no Linear of the pass computed these values.
    """
    torch = require_torch()
    b, h, t, e = heads.shape
    flat = heads.transpose(1, 2).reshape(b, t, h * e)
    for name, module, given, output in reversed(rec.linears):
        if output.shape[:-1] != flat.shape[:-1] or output.shape[-1] % (h * e):
            continue
        for start in range(0, output.shape[-1], h * e):
            if torch.equal(output[..., start : start + h * e], flat):
                rows = slice(start, start + h * e)
                bias = None if module.bias is None else module.bias.detach()[rows]
                return name, given, module.weight.detach()[rows], bias
    return None
