"""``scaledattn audit MODEL``: each attention layer at init, measured beside the theorem.

Per attention layer, on random tokens:

- the scale c applied to q·k, *measured* from the weights the layer computes: within
  a row, log wᵢⱼ − (mask + bias)ᵢⱼ = c·qᵢ·kⱼ − log Σ, so c is the least-squares slope
  of the row-centred log-weights on the row-centred q·k;
- the logit std (root mean square of c·q·k over heads, rows and unmasked keys), the
  mean largest weight and the mean entropy of the rows;
- the prediction of ``projected_score_variance`` (proved by the kernel, evaluated
  here): Var(c·q·k) = c²·d_k·σ_q²·σ_k²·‖x‖²·‖y‖², with σ_q, σ_k the model's init std,
  d_k the head width and ‖x‖², ‖y‖² the measured norms of the tokens the query and
  key projections read, averaged over the unmasked pairs.

σ_q and σ_k are the model's init std when its config states one (transformers
models); for a custom module whose q and k come from ``nn.Linear`` layers they are
read off those layers' weights (the root mean square of the rows that compute q, k).

The verdict. Given the layer's inputs, the heads use disjoint blocks of rows of W_q
and W_k, so the per-head ratios rₕ = mean(c·q·k)²/predicted variance are i.i.d. with
mean exactly 1 when the theorem applies (with grouped keys, one ratio per key
group). The layer agrees when 1 lies in the 99% t-interval r̄ ± t·s/√H of their
mean; the interval on the std is √(predicted variance·(r̄ ± t·s/√H)).

With one head (one key group), the components e = 1..d_k play that part: the
measured M = mean(c·q·k)² is Σₑ,f mₑf with mₑf = mean(c²·qₑkₑ·q_f k_f) over the pairs,
and given the inputs the rows e of W_q, W_k are independent with mean 0, so E[mₑf] = 0
for e ≠ f and all the mₑₑ and the mₑf (e < f) are uncorrelated. Var(M) is estimated
without bias by d_k·s²(mₑₑ) + 4·Σₑ<f mₑf², and the layer agrees when the prediction
lies in M ± z·√Var(M), z the normal 99% quantile (:func:`component_interval`).

The random tokens are drawn from a stream of their own, independent of the one the
weights were drawn from (:func:`input_seed`): the theorem's prediction is for weights
independent of the tokens they project.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from statistics import NormalDist
from typing import Any

import mpmath
import numpy as np
import sympy

from scaledattn.derive import prove
from scaledattn.errors import InvalidArgument
from scaledattn.torchattn import require_torch
from scaledattn.torchattn.models import BuiltModel, InitStd, build, check_spec, init_std
from scaledattn.torchattn.probe import Call, Floats, record

__all__ = [
    "LEVEL",
    "AuditResult",
    "LayerAudit",
    "audit_layer",
    "component_interval",
    "input_seed",
    "predicted_variance",
    "run_audit",
    "t_quantile",
    "weights_init",
]

#: Two-sided level of the verdict's interval.
LEVEL = 0.99
#: An additive term below this is a mask (the key is not attended to).
MASKED = -1e4
#: Relative tolerance for naming a measured scale 1 or 1/√d_k.
SCALE_TOLERANCE = 1e-3


def t_quantile(p: float, df: int) -> float:
    """The p-quantile (p > 1/2) of Student's t with ``df`` degrees of freedom, by bisection.

    >>> round(t_quantile(0.975, 10), 3)
    2.228
    """
    if not 0.5 < p < 1 or df < 1:
        raise InvalidArgument(f"t_quantile needs 1/2 < p < 1 and df ≥ 1, got {p}, {df}")

    def cdf(t: float) -> float:
        x = df / (df + t * t)
        return float(1 - mpmath.betainc(df / 2, 0.5, 0, x, regularized=True) / 2)

    lo, hi = 0.0, 1.0
    while cdf(hi) < p:
        hi *= 2
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) < p else (lo, mid)
    return (lo + hi) / 2


@lru_cache(maxsize=1)
def _theorem() -> tuple[sympy.Expr, dict[str, Any]]:
    from scaledattn.proofs import dot_product_variance as dpv
    from scaledattn.proofs import projected_scores as ps

    theorem = prove(ps.projected_score_variance)
    symbols = {
        "d_k": dpv.d,
        "sigma_q": ps.sigma_q,
        "sigma_k": ps.sigma_k,
        "x": ps.norm_sq(ps.x),
        "y": ps.norm_sq(ps.y),
    }
    return theorem.statement.rhs, symbols


def predicted_variance(
    d_k: int, sigma_q: float, sigma_k: float, x_norm_sq: float, y_norm_sq: float
) -> float:
    """Var(q·k) = d_k·σ_q²·σ_k²·‖x‖²·‖y‖², the right side of the proved theorem, evaluated.

    >>> round(predicted_variance(64, 0.02, 0.02, 768, 768), 4)
    6.0398
    """
    rhs, sym = _theorem()
    values = {
        sym["d_k"]: d_k,
        sym["sigma_q"]: sympy.Float(sigma_q),
        sym["sigma_k"]: sympy.Float(sigma_k),
        sym["x"]: sympy.Float(x_norm_sq),
        sym["y"]: sympy.Float(y_norm_sq),
    }
    return float(rhs.xreplace(values))


@dataclass(frozen=True)
class LayerAudit:
    """One attention layer's figures, the prediction and the verdict (see the module docstring)."""

    layer: str
    heads: int
    units: int
    d_k: int
    d_model: int | None
    scale_passed: float | None
    scale_measured: float
    scale_name: str
    logit_std: float
    logit_std_interval: tuple[float, float] | None
    predicted_std: float | None
    max_weight: float
    entropy: float
    uniform_entropy: float
    x_norm: float | None
    y_norm: float | None
    sigma_q_from_q: float | None
    sigma_k_from_k: float | None
    agrees: bool | None
    reason: str
    position_bias: bool = False
    init_source: str = ""

    def as_json(self) -> dict[str, Any]:
        """JSON-ready data."""
        out = dict(vars(self))
        if self.logit_std_interval is not None:
            out["logit_std_interval"] = list(self.logit_std_interval)
        return out


@dataclass
class AuditResult:
    """The audit of one model: its layers, where the init std came from, notes."""

    model: str
    description: str
    seed: int
    batch: int
    tokens: int
    init: InitStd | None
    layers: list[LayerAudit] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def all_agree(self) -> bool:
        """True when every layer with a prediction agrees."""
        return all(layer.agrees is not False for layer in self.layers)

    def as_json(self) -> dict[str, Any]:
        """``{model, description, seed, batch, tokens, init, level, layers: [...], notes}``."""
        return {
            "model": self.model,
            "description": self.description,
            "seed": self.seed,
            "batch": self.batch,
            "tokens": self.tokens,
            "init": None if self.init is None else vars(self.init),
            "level": LEVEL,
            "layers": [layer.as_json() for layer in self.layers],
            "notes": self.notes,
        }


def _scale_name(c: float, d_k: int) -> str:
    if abs(c * math.sqrt(d_k) - 1) < SCALE_TOLERANCE:
        return f"1/√d_k = 1/√{d_k}"
    if abs(c - 1) < SCALE_TOLERANCE:
        return "1 (no division)"
    return f"{c * math.sqrt(d_k):.4g}/√d_k"


def _row_centred(a: Floats, valid: Floats) -> Floats:
    n = valid.sum(axis=-1, keepdims=True)
    mean = np.where(n > 0, (a * valid).sum(axis=-1, keepdims=True) / np.maximum(n, 1), 0.0)
    out: Floats = (a - mean) * valid
    return out


def audit_layer(call: Call, init: InitStd | None) -> LayerAudit:
    """Measure one recorded attention call and set the theorem's prediction beside it."""
    q, k, w = call.query, call.key, call.weights
    batch, heads, tokens, d_k = q.shape
    units = k.shape[1]
    k_full = np.repeat(k, heads // units, axis=1) if units != heads else k
    s = np.einsum("bhte,bhse->bhts", q, k_full)
    additive = (
        np.zeros_like(w) if call.additive is None else np.broadcast_to(call.additive, w.shape)
    )
    valid = ((additive > MASKED) & (w > 0)).astype(np.float64)
    log_w = np.where(
        valid > 0, np.log(np.where(w > 0, w, 1.0)) - np.where(valid > 0, additive, 0.0), 0.0
    )
    s_c, l_c = _row_centred(s, valid), _row_centred(log_w, valid)
    c = float((s_c * l_c).sum() / (s_c * s_c).sum())
    logits = c * s
    count = valid.sum()
    logit_std = float(math.sqrt((logits**2 * valid).sum() / count))
    rows = valid.sum(axis=-1) > 0
    max_weight = float(w.max(axis=-1)[rows].mean())
    ent = -(np.where(w > 0, w * np.log(np.where(w > 0, w, 1.0)), 0.0)).sum(axis=-1)
    entropy = float(ent[rows].mean())
    uniform = float(np.log(valid.sum(axis=-1)[rows]).mean())
    passed = call.scaling
    scale = passed if passed is not None else 1 / math.sqrt(d_k)
    base: dict[str, Any] = {
        "layer": call.layer,
        "heads": heads,
        "units": units,
        "d_k": d_k,
        "scale_passed": passed,
        "scale_measured": c,
        "scale_name": _scale_name(c, d_k),
        "logit_std": logit_std,
        "max_weight": max_weight,
        "entropy": entropy,
        "uniform_entropy": uniform,
        "position_bias": call.position_bias,
    }
    if call.x is None or call.y is None:
        return LayerAudit(
            **base,
            d_model=None,
            logit_std_interval=None,
            predicted_std=None,
            x_norm=None,
            y_norm=None,
            sigma_q_from_q=None,
            sigma_k_from_k=None,
            agrees=None,
            reason="no prediction: the inputs of the query and key projections were not captured",
        )
    x_sq = (call.x**2).sum(axis=-1)  # (B, T)
    y_sq = (call.y**2).sum(axis=-1)  # (B, S)
    d_model = int(call.x.shape[-1])
    pair = x_sq[:, None, :, None] * y_sq[:, None, None, :] * valid
    mean_pair = float(pair.sum() / count)
    sigma_q_hat = math.sqrt(float((q**2).mean()) / float(x_sq.mean()))
    sigma_k_hat = math.sqrt(float((k**2).mean()) / float(y_sq.mean()))
    measured_extra: dict[str, Any] = {
        "d_model": d_model,
        "x_norm": float(np.sqrt(x_sq).mean()),
        "y_norm": float(np.sqrt(y_sq).mean()),
        "sigma_q_from_q": sigma_q_hat,
        "sigma_k_from_k": sigma_k_hat,
    }
    if call.w_q is not None and call.w_k is not None:
        init = weights_init(call.w_q, call.w_k, call.projections)
        base["init_source"] = init.source
    if init is None:
        return LayerAudit(
            **base,
            **measured_extra,
            logit_std_interval=None,
            predicted_std=None,
            agrees=None,
            reason="no prediction: the model's init std is not known (no initializer_range)",
        )
    if _prescaled(sigma_q_hat / init.sigma_q, d_k) and not base["scale_name"].startswith("1/√"):
        # q arrives already multiplied by 1/√d_k (OPT, BART scale q_proj's output): the
        # scale on (W_q x)·(W_k y) is c/√d_k; the lemma's Var(qᵢ) = σ_q²‖x‖² reveals it
        scale = c / math.sqrt(d_k)
        base["scale_name"] = f"1/√d_k = 1/√{d_k}, applied to q before the call"
    predicted = scale**2 * predicted_variance(d_k, init.sigma_q, init.sigma_k, mean_pair, 1.0)
    if units < 2:
        # one head: its d_k components are the independent parts (module docstring)
        measured, spread = component_interval(q, k_full, valid, c)
        half = NormalDist().inv_cdf((1 + LEVEL) / 2) * spread / predicted
        r_bar, how = measured / predicted, f" (one head: from its {d_k} components)"
    else:
        group = heads // units
        unit_sq = (logits**2 * valid).reshape(batch, units, group, tokens, -1)
        unit_n = valid.reshape(batch, units, group, tokens, -1).sum(axis=(0, 2, 3, 4))
        ratios = unit_sq.sum(axis=(0, 2, 3, 4)) / unit_n / predicted
        r_bar, how = float(ratios.mean()), ""
        half = t_quantile((1 + LEVEL) / 2, units - 1) * float(ratios.std(ddof=1)) / math.sqrt(units)
    interval = (
        math.sqrt(predicted * max(r_bar - half, 0.0)),
        math.sqrt(predicted * (r_bar + half)),
    )
    agrees = abs(r_bar - 1) <= half
    pred_std = math.sqrt(predicted)
    where = f"[{interval[0]:.4g}, {interval[1]:.4g}]"
    if agrees:
        reason = (
            f"predicted {pred_std:.4g} lies in the {LEVEL:.0%} interval {where} of the measured"
            f" std{how}"
        )
    else:
        reason = f"predicted {pred_std:.4g} lies outside the {LEVEL:.0%} interval {where}; " + _why(
            call, init, sigma_q_hat, sigma_k_hat, r_bar
        )
    return LayerAudit(
        **base,
        **measured_extra,
        logit_std_interval=interval,
        predicted_std=pred_std,
        agrees=agrees,
        reason=reason,
    )


def weights_init(w_q: Floats, w_k: Floats, projections: str) -> InitStd:
    """σ_q, σ_k read off the rows of the weights that compute q and k (root mean square).

    >>> w = np.full((2, 3), 0.5)
    >>> weights_init(w, 2 * w, "q, k").sigma_k
    1.0
    """
    sigma_q, sigma_k = (float(np.sqrt((w**2).mean())) for w in (w_q, w_k))
    return InitStd(
        sigma_q,
        sigma_k,
        f"σ_q = {sigma_q:.4g}, σ_k = {sigma_k:.4g}, the root mean square of the weights"
        f" that compute q and k ({projections})",
    )


def component_interval(q: Floats, k: Floats, valid: Floats, c: float) -> tuple[float, float]:
    """M = mean(c·q·k)² over the valid pairs, and the standard error of M given the inputs.

    M = Σₑ,f mₑf with mₑf = mean over the pairs of c²·qₑkₑ·q_f k_f; with the rows of W_q
    and W_k independent and of mean 0 given the inputs, d_k·s²(mₑₑ) + 4·Σₑ<f mₑf² is an
    unbiased estimate of Var(M) (module docstring). ``k`` has one head per query head.
    """
    batch, heads, tokens, e = q.shape
    m = np.zeros((e, e))
    block = max(1, 2**22 // (e * e * max(k.shape[2], 1)))  # rows of a block: ≤ 32 MB
    for b in range(batch):
        for h in range(heads):
            keys = (k[b, h][:, :, None] * k[b, h][:, None, :]).reshape(-1, e * e)
            for t0 in range(0, tokens, block):
                rows = q[b, h, t0 : t0 + block]
                pairs = (rows[:, :, None] * rows[:, None, :]).reshape(-1, e * e)
                m += (pairs * (valid[b, h, t0 : t0 + block] @ keys)).sum(axis=0).reshape(e, e)
    m *= c * c / valid.sum()
    diagonal = np.diag(m)
    upper = m[np.triu_indices(e, 1)]
    variance = e * float(diagonal.var(ddof=1)) + 4 * float((upper**2).sum()) if e > 1 else 0.0
    return float(m.sum()), math.sqrt(variance)


def _prescaled(ratio: float, d_k: int) -> bool:
    """True when q's spread is 1/√d_k times the lemma's σ_q‖x‖ (to 10%): q was pre-scaled."""
    return d_k > 4 and abs(ratio * math.sqrt(d_k) - 1) < 0.1


def _why(call: Call, init: InitStd, sigma_q_hat: float, sigma_k_hat: float, r_bar: float) -> str:
    """The likeliest reason for a disagreement, from what was measured."""
    if call.biases:
        return (
            f"the layer has non-zero biases ({', '.join(call.biases)}): the bias case of the"
            " theorem (projected_score_variance_with_bias) adds σ_q²‖x‖²‖b_k‖² + σ_k²‖y‖²‖b_q‖²"
        )
    off = [
        f"{name} implied by the layer's outputs is {hat:.4g}, the init says {sigma:.4g}"
        for name, hat, sigma in (
            ("σ_q", sigma_q_hat, init.sigma_q),
            ("σ_k", sigma_k_hat, init.sigma_k),
        )
        if abs(hat / sigma - 1) > 0.1
    ]
    if off:
        return "; ".join(off) + " (the weights are not the stated init)"
    return f"measured/predicted variance = {r_bar:.3f} with W_q, W_k at their stated init"


#: The random stream of the input tokens, spawned from the seed beside the weights'.
INPUT_STREAM = 1


def input_seed(seed: int) -> int:
    """The seed of the tokens' random stream: independent of ``seed``, the weights' own.

    NumPy's SeedSequence spawns it (a child stream of ``seed``), so the tokens never
    repeat the draws that made the weights, as they did when both used ``seed``.

    >>> input_seed(0) != 0, input_seed(0) == input_seed(0)
    (True, True)
    """
    state = np.random.SeedSequence(seed, spawn_key=(INPUT_STREAM,)).generate_state(1, np.uint64)
    return int(state[0]) >> 1  # below 2**63, as torch.Generator.manual_seed takes


def _inputs(built: BuiltModel, batch: int, tokens: int, seed: int) -> dict[str, Any]:
    torch = require_torch()
    generator = torch.Generator().manual_seed(input_seed(seed))
    config = built.config
    if built.hf:
        vocab = int(getattr(config, "vocab_size", 0) or 0)
        if vocab < 2:
            raise InvalidArgument(f"{built.name}: its config has no vocab_size to draw tokens from")
        ids = torch.randint(0, vocab, (batch, tokens), generator=generator)
        inputs = {"input_ids": ids}
        if getattr(config, "is_encoder_decoder", False):
            inputs["decoder_input_ids"] = torch.randint(
                0, vocab, (batch, tokens), generator=generator
            )
        return inputs
    width = _input_width(built.module)
    if width is None:
        raise InvalidArgument(
            f"{built.name}: the width of its input is not known: give the module an int"
            " attribute d_model, embed_dim or hidden_size (its input is a (batch, tokens,"
            " width) tensor of N(0, 1) entries)"
        )
    return {"input": torch.randn(batch, tokens, width, generator=generator)}


def _input_width(module: Any) -> int | None:
    """d_model, embed_dim or hidden_size; else what the first LayerNorm or Linear reads."""
    for name in ("d_model", "embed_dim", "hidden_size"):
        value = getattr(module, name, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    torch = require_torch()
    for part in module.modules():
        if isinstance(part, torch.nn.LayerNorm) and len(part.normalized_shape) == 1:
            return int(part.normalized_shape[0])
        if isinstance(part, torch.nn.Linear):
            return int(part.in_features)
    return None


def check_options(model: str, layers: int | None, batch: int, tokens: int) -> None:
    """Refuse bad options in one line before anything is imported or built."""
    for name, value, least, most in (("--batch", batch, 1, 64), ("--tokens", tokens, 2, 4096)):
        if not least <= value <= most:
            raise InvalidArgument(f"{name} must be between {least} and {most}, got {value}")
    check_spec(model, layers)


def run_audit(
    model: str,
    layers: int | None = 2,
    seed: int = 0,
    batch: int = 2,
    tokens: int = 128,
    progress: Any = None,
) -> AuditResult:
    """Build ``model``, run one forward pass on random tokens, audit every attention call."""
    check_options(model, layers, batch, tokens)
    torch = require_torch()
    built = build(model, layers, seed)
    init = init_std(built.config) if built.config is not None else None
    inputs = _inputs(built, batch, tokens, seed)
    try:
        with torch.no_grad(), record(built.module) as rec:
            if "input" in inputs:
                built.module(inputs["input"])
            else:
                built.module(**inputs)
    except InvalidArgument:
        raise
    except Exception as err:
        text = str(err).strip().splitlines()
        raise InvalidArgument(
            f"{built.name}: the forward pass on random tokens failed: {type(err).__name__}:"
            f" {text[0][:200] if text else ''}"
        ) from None
    if not rec.calls:
        raise InvalidArgument(
            f"{built.name}: no attention layer was called in a forward pass (attention computed"
            " outside transformers' AttentionInterface and torch's scaled_dot_product_attention"
            " cannot be recorded)"
        )
    result = AuditResult(model, built.description, seed, batch, tokens, init)
    for n, call in enumerate(rec.calls, 1):
        result.layers.append(audit_layer(call, init))
        if progress is not None:
            progress(n, len(rec.calls))
    result.notes = _notes(result)
    return result


def _notes(result: AuditResult) -> list[str]:
    notes = []
    if result.init is not None:
        notes.append(f"Init: {result.init.source}.")
    first = result.layers[0]
    if first.scale_name.startswith("1 (") and result.init is not None and first.d_model:
        d_k, d_model = first.d_k, first.d_model
        unscaled = predicted_variance(
            d_k, result.init.sigma_q, result.init.sigma_k, d_model, d_model
        )
        notes.append(
            f"No 1/√d_k: the layer applies scale 1 to q·k. The factor is folded into the init:"
            f" with ‖x‖² = d_model = {d_model} (normalised tokens), d_k·σ_q²·σ_k²·d_model² ="
            f" {unscaled:.4g}, the variance the lesson's 1/√d_k aims at."
        )
    if any(layer.position_bias for layer in result.layers):
        notes.append(
            "Position bias: added to the logits besides c·q·k; it is in the weights (max weight,"
            " entropy) and removed before the scale is measured; the logit std is that of c·q·k."
        )
    read_off = sorted({layer.init_source for layer in result.layers if layer.init_source})
    notes += [f"Init: {source}." for source in read_off]
    notes.append(
        f"Verdict: the {LEVEL:.0%} t-interval over heads (or key groups), i.i.d. given the layer's"
        " inputs, of mean(c·q·k)²/predicted; agrees when it holds the prediction."
    )
    if any(layer.units < 2 and layer.agrees is not None for layer in result.layers):
        notes.append(
            "With one head the d_k components are the independent parts: M = mean(c·q·k)² ="
            " Σₑ,f mₑf, Var(M) ≈ d_k·s²(mₑₑ) + 4·Σₑ<f mₑf² (uncorrelated terms of mean 0 given"
            f" the inputs); agrees when the prediction lies in M ± z·√Var(M), z the normal"
            f" {LEVEL:.0%} quantile."
        )
    return notes
