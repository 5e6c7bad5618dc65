"""The lesson's P1 and P2 computed through ``torch.nn.functional.scaled_dot_product_attention``.

SDPA returns softmax(scale·QKᵀ)·V, never the weights; with V = I (one value per key,
the identity) its output *is* the weight matrix. So:

- P1, the spread of q·k: one query, the keys (0, k) and scale = 1 give weights
  (1, e^{q·k})/(1 + e^{q·k}), and q·k = log w₁ − log w₀ exactly;
- P2, saturation: one query, 64 keys, V = I₆₄: the weights, unscaled (scale = 1) and
  with SDPA's default scale, whose value :func:`check_default_scale` confirms is 1/√E.

The draws are the numpy backend's (same generator, same order), so the two backends
differ only in how the weights are computed; the figures agree to float64 rounding,
hence within the intervals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scaledattn.attention.experiments import (
    CHUNK_FLOATS,
    PUBLISHED,
    ExperimentResult,
    Progress,
    check_int,
    check_trials,
)
from scaledattn.attention.softmax import entropy
from scaledattn.attention.stats import (
    Measurement,
    mean_measurement,
    ratio_measurement,
    std_measurement,
)
from scaledattn.torchattn import require_torch

__all__ = [
    "ScaleCheck",
    "check_default_scale",
    "sdpa_weights",
    "scores_via_sdpa",
    "saturation_via_sdpa",
]


def _chunks(total: int, per_trial: int, progress: Progress | None) -> list[tuple[int, int]]:
    """The numpy backend's chunks (same sizes, so the same draws in the same order)."""
    size = max(1, CHUNK_FLOATS // max(per_trial, 1))
    out = []
    for start in range(0, total, size):
        out.append((start, min(size, total - start)))
    return out


def sdpa_weights(
    q: NDArray[np.float64], k: NDArray[np.float64], scale: float | None
) -> NDArray[np.float64]:
    """softmax(scale·q·kⱼ) over the keys, read off SDPA's output with V = I.

    ``q`` is (B, E), ``k`` is (B, S, E); the result is (B, S). ``scale=None`` is
    SDPA's default.
    """
    torch = require_torch()
    batch, keys, _ = k.shape
    query = torch.from_numpy(np.ascontiguousarray(q))[:, None, :]
    key = torch.from_numpy(np.ascontiguousarray(k))
    value = torch.eye(keys, dtype=torch.float64).expand(batch, keys, keys)
    out = torch.nn.functional.scaled_dot_product_attention(query, key, value, scale=scale)
    weights: NDArray[np.float64] = out[:, 0, :].numpy()
    return weights


def scores_via_sdpa(
    seed: int = 0, trials: int = 20000, progress: Progress | None = None
) -> ExperimentResult:
    """P1 through SDPA: q·k recovered from the weights of the keys (0, k) at scale 1."""
    seed, trials = check_int(seed, "seed", 0, 2**63 - 1), check_trials(trials, 4)
    rng = np.random.default_rng(seed)
    stds: dict[int, Measurement] = {}
    for d in (4, 64):
        s = np.empty(trials)
        chunks = _chunks(trials, 2 * d, progress)
        for start, size in chunks:
            q, k = rng.standard_normal((size, d)), rng.standard_normal((size, d))
            keys = np.stack([np.zeros_like(k), k], axis=1)
            w = sdpa_weights(q, keys, scale=1.0)
            s[start : start + size] = np.log(w[:, 1]) - np.log(w[:, 0])
            if progress is not None:
                progress(start + size, trials)
        name = f"score_std_d{d}"
        stds[d] = std_measurement(name, s, PUBLISHED.get(name))
    ratio = ratio_measurement("score_std_ratio", stds[64], stds[4], PUBLISHED["score_std_ratio"])
    check = check_default_scale(seed)
    notes = (
        f"Backend torch {require_torch().__version__}: {trials} samples of q·k per d_k, each"
        " recovered from SDPA's weights with keys (0, k), V = I and scale = 1:"
        " q·k = log w₁ − log w₀. Same draws as the numpy backend.",
        check.line(),
        "Intervals: delta method on the sample variance (fourth moments); ratio by the"
        " delta method on the log-ratio of independent estimates.",
    )
    return ExperimentResult("scores", seed, trials, (stds[4], stds[64], ratio), notes)


def saturation_via_sdpa(
    seed: int = 0,
    trials: int = 2000,
    keys: int = 64,
    d_k: int = 64,
    progress: Progress | None = None,
) -> ExperimentResult:
    """P2 through SDPA: the weights with V = I, at scale 1 and at SDPA's default scale."""
    seed, trials = check_int(seed, "seed", 0, 2**63 - 1), check_trials(trials)
    keys, d_k = check_int(keys, "keys", 2, 4096), check_int(d_k, "d_k", 1, 65536)
    rng = np.random.default_rng(seed)
    names = ("max_weight_unscaled", "entropy_unscaled", "max_weight_scaled", "entropy_scaled")
    stats = {name: np.empty(trials) for name in names}
    for start, size in _chunks(trials, keys * d_k, progress):
        q = rng.standard_normal((size, d_k))
        k = rng.standard_normal((size, keys, d_k))
        for label, scale in (("unscaled", 1.0), ("scaled", None)):
            p = sdpa_weights(q, k, scale)
            stats[f"max_weight_{label}"][start : start + size] = p.max(axis=-1)
            stats[f"entropy_{label}"][start : start + size] = entropy(p)
        if progress is not None:
            progress(start + size, trials)
    lesson = (keys, d_k) == (64, 64)
    measured = tuple(
        mean_measurement(name, stats[name], PUBLISHED.get(name) if lesson else None)
        for name in names
    )
    check = check_default_scale(seed)
    notes = (
        f"Backend torch {require_torch().__version__}: {trials} trials × {keys} keys, d_k = {d_k};"
        " weights read off SDPA's output with V = I; unscaled = scale=1, scaled = SDPA's"
        f" default scale (1/√{d_k}). Same draws as the numpy backend.",
        check.line(),
        f"Uniform attention over {keys} keys has entropy ln {keys} = {math.log(keys):.4f} nat.",
        "Intervals: mean ± 1.96·s/√N over trials.",
    )
    return ExperimentResult("saturation", seed, trials, measured, notes)


@dataclass(frozen=True)
class ScaleCheck:
    """SDPA against softmax(c·QKᵀ) by hand: the default c = 1/√E, and ``scale=`` overriding it.

    ``default_error`` is max |SDPA(Q, K, I) − softmax(QKᵀ/√E)|, ``override_error`` the
    same with ``scale=override`` against softmax(override·QKᵀ), and ``wrong_error``
    the default against softmax(QKᵀ) (unscaled), which must be large: the check can
    tell a scale from none.
    """

    dim: int
    override: float
    default_error: float
    override_error: float
    wrong_error: float
    tolerance: float = 1e-12

    @property
    def holds(self) -> bool:
        """True when SDPA's default is 1/√E and scale= overrides it."""
        return (
            self.default_error <= self.tolerance
            and self.override_error <= self.tolerance
            and self.wrong_error > 1e3 * self.tolerance
        )

    def line(self) -> str:
        """One line for a report."""
        verdict = "confirmed" if self.holds else "NOT confirmed"
        return (
            f"SDPA's default scale is 1/√E {verdict} at E = {self.dim}:"
            f" max |SDPA − softmax(QKᵀ/√E)| = {self.default_error:.1e};"
            f" scale={self.override:g} overrides it: {self.override_error:.1e}"
            f" (against softmax(QKᵀ), unscaled: {self.wrong_error:.2f})."
        )

    def as_json(self) -> dict[str, Any]:
        """JSON-ready data."""
        return {
            "dim": self.dim,
            "override": self.override,
            "default_error": self.default_error,
            "override_error": self.override_error,
            "unscaled_error": self.wrong_error,
            "holds": self.holds,
        }


def _softmax_rows(scores: NDArray[np.float64]) -> NDArray[np.float64]:
    z = np.exp(scores - scores.max(axis=-1, keepdims=True))
    out: NDArray[np.float64] = z / z.sum(axis=-1, keepdims=True)
    return out


def check_default_scale(seed: int = 0, dim: int = 64, override: float = 0.3) -> ScaleCheck:
    """Compare SDPA (V = I) with softmax(c·QKᵀ) computed by hand, for c = 1/√E and c = override."""
    rng = np.random.default_rng([seed, 15])
    q = rng.standard_normal((8, dim))
    k = rng.standard_normal((8, 16, dim))
    raw = np.einsum("bd,bsd->bs", q, k)
    default = sdpa_weights(q, k, None)
    overridden = sdpa_weights(q, k, override)
    return ScaleCheck(
        dim=dim,
        override=override,
        default_error=float(np.abs(default - _softmax_rows(raw / math.sqrt(dim))).max()),
        override_error=float(np.abs(overridden - _softmax_rows(override * raw)).max()),
        wrong_error=float(np.abs(default - _softmax_rows(raw)).max()),
    )
