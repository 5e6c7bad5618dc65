"""The lesson's experiments P1–P3, re-run with intervals beside the published figures.

- ``scores`` (P1): the spread of q·k for q, k ~ N(0, I) at d_k = 4 and 64.
- ``saturation`` (P2): 64 keys per query, d_k = 64: mean largest weight and mean
  entropy of softmax(q·K), unscaled and divided by √64 = 8.
- ``gradient`` (P3): ‖p − y‖ on rows whose target is not the argmax, with scores of
  spread σ = 8; and the gap between the two largest scores at σ = 8 and σ = 1.

Each returns an :class:`ExperimentResult`; its ``as_json()`` is the command line's
``--json`` contract. The lesson's figures appear in :data:`PUBLISHED`, only as the
references a measurement is compared against.

Protocols for P3 (the lesson does not spell its protocol out; see ``GRADIENT_PROTOCOLS``):

- ``wrong-rows`` (default, the lesson's words): scores σ·N(0, 1) drawn independently
  at σ = 8 and σ = 1; a uniformly random target per row; ‖p − y‖ averaged over the
  rows whose target is not the argmax.
- ``all-rows``: the same, averaged over every row.
- ``qk``: scores q·kⱼ with q, kⱼ ~ N(0, I₆₄) (σ ≈ 8), and σ = 1 by dividing the
  same scores by 8 (so the gap ratio is exactly 8), wrong-target rows.

Examples
--------
>>> r = scores_experiment(seed=1, trials=2000)
>>> [m.name for m in r.measurements]
['score_std_d4', 'score_std_d64', 'score_std_ratio']
>>> 1.8 < r.measurements[0].value < 2.2
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scaledattn.attention.softmax import entropy, softmax
from scaledattn.attention.stats import (
    Measurement,
    exact,
    mean_measurement,
    ratio_measurement,
    std_measurement,
)
from scaledattn.errors import InvalidArgument

__all__ = [
    "GRADIENT_PROTOCOLS",
    "PUBLISHED",
    "ExperimentResult",
    "Progress",
    "check_int",
    "check_trials",
    "gradient_experiment",
    "saturation_experiment",
    "saturation_samples_by_norm",
    "scores_experiment",
]

#: The lesson's published figures (000, §1, §3, §4, §5): references only.
PUBLISHED: dict[str, float] = {
    "score_std_d4": 2.0,  # "4 维玩具时分数在 ±2 尺度"
    "score_std_d64": 8.0,  # "分数在 ±8 的尺度上晃"
    "score_std_ratio": 4.0,  # "分数翻了 4 倍"
    "max_weight_unscaled": 0.787,  # P2 "不缩放时最大权重平均 0.787"
    "entropy_unscaled": 0.594,  # P2 "熵 0.594 nat"
    "max_weight_scaled": 0.108,  # P2, scores divided by 8: "0.108"
    "entropy_scaled": 3.684,  # P2 "3.684"
    "p_minus_y_norm": 1.28,  # P3 "错目标行实测 ‖p−y‖ = 1.28"
    "gap_unscaled": 2.95,  # P3 "σ = 8 时是 2.95"
    "gap_scaled": 0.37,  # P3 "σ = 1 时是 0.37"
    "gap_ratio": 7.9,  # P3 "7.9 倍"
    "entropy_uniform": 4.16,  # §0 "均匀是 4.16"
    "divergence_step_d64_unscaled": 2.0,  # §0 "训练第 2 步发散"
}

GRADIENT_PROTOCOLS = ("wrong-rows", "all-rows", "qk")

#: Called as progress(done, total) after each chunk of trials.
Progress = Callable[[int, int], None]

#: Floats per chunk: bounds memory for any number of trials.
CHUNK_FLOATS = 4_000_000
MAX_TRIALS = 10_000_000


@dataclass(frozen=True)
class ExperimentResult:
    """Measurements of one experiment, plus lines of context for the text report."""

    experiment: str
    seed: int
    trials: int
    measurements: tuple[Measurement, ...]
    notes: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def as_json(self) -> dict[str, Any]:
        """``{experiment, seed, trials, measurements: [{name, value, ci95, published}]}``."""
        return {
            "experiment": self.experiment,
            "seed": self.seed,
            "trials": self.trials,
            "measurements": [m.as_json() for m in self.measurements],
        }

    def __getitem__(self, name: str) -> Measurement:
        for m in self.measurements:
            if m.name == name:
                return m
        raise KeyError(name)


def check_trials(trials: object, least: int = 2) -> int:
    """``trials`` as an int in least..MAX_TRIALS, or InvalidArgument."""
    return check_int(trials, "trials", least, MAX_TRIALS)


def _check_seed(seed: object) -> int:
    return check_int(seed, "seed", 0, 2**63 - 1)


def check_int(value: object, name: str, least: int, most: int) -> int:
    """``value`` as an int in least..most, or InvalidArgument naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InvalidArgument(f"{name} must be an integer, got {value!r}")
    if not least <= value <= most:
        raise InvalidArgument(f"{name} must be between {least} and {most}, got {value}")
    return int(value)


def _check_keys(keys: object) -> int:
    return check_int(keys, "keys", 2, 4096)


def _chunks(total: int, per_trial: int, progress: Progress | None) -> Iterator[tuple[int, int]]:
    """(start, size) blocks of at most CHUNK_FLOATS floats; reports progress after each."""
    size = max(1, CHUNK_FLOATS // max(per_trial, 1))
    for start in range(0, total, size):
        yield start, min(size, total - start)
        if progress is not None:
            progress(min(start + size, total), total)


def _published(name: str) -> float | None:
    return PUBLISHED.get(name)


# ------------------------------------------------------------------------ P1


def scores_experiment(
    seed: int = 0, trials: int = 20000, progress: Progress | None = None
) -> ExperimentResult:
    """P1: the standard deviation of q·k at d_k = 4 and 64 (q, k ~ N(0, I)), and their ratio.

    Intervals: delta method for each standard deviation (fourth moments), and for the
    ratio the delta method on log σ̂₆₄ − log σ̂₄ (independent samples).
    """
    seed, trials = _check_seed(seed), check_trials(trials, 4)
    rng = np.random.default_rng(seed)
    stds: dict[int, Measurement] = {}
    for d in (4, 64):
        s = np.empty(trials)
        for start, size in _chunks(trials, 2 * d, progress):
            q, k = rng.standard_normal((size, d)), rng.standard_normal((size, d))
            s[start : start + size] = np.einsum("td,td->t", q, k)
        name = f"score_std_d{d}"
        stds[d] = std_measurement(name, s, _published(name))
    ratio = ratio_measurement("score_std_ratio", stds[64], stds[4], _published("score_std_ratio"))
    notes = (
        f"{trials} samples of q·k per d_k, q and k with i.i.d. N(0, 1) components;"
        " theory: std √d_k (2 and 8), ratio √(64/4) = 4.",
        "Intervals: delta method on the sample variance (fourth moments); ratio by the"
        " delta method on the log-ratio of independent estimates.",
    )
    return ExperimentResult("scores", seed, trials, (stds[4], stds[64], ratio), notes)


# ------------------------------------------------------------------------ P2


def saturation_experiment(
    seed: int = 0,
    trials: int = 2000,
    keys: int = 64,
    d_k: int = 64,
    progress: Progress | None = None,
) -> ExperimentResult:
    """P2: mean largest weight and mean entropy of softmax(q·K), unscaled and divided by √d_k.

    Each trial draws one query q and ``keys`` keys, all with i.i.d. N(0, 1)
    components of dimension ``d_k``; both scalings use the same draws.
    """
    seed, trials, keys = _check_seed(seed), check_trials(trials), _check_keys(keys)
    d_k = check_int(d_k, "d_k", 1, 65536)
    rng = np.random.default_rng(seed)
    stats = saturation_samples(rng, trials, keys, d_k, progress)
    names = ("max_weight_unscaled", "entropy_unscaled", "max_weight_scaled", "entropy_scaled")
    measured = tuple(
        mean_measurement(name, stats[name], _published(name) if (keys, d_k) == (64, 64) else None)
        for name in names
    )
    uniform = math.log(keys)
    notes = (
        f"{trials} trials × {keys} keys, d_k = {d_k}, q and keys with i.i.d. N(0, 1)"
        f" components; scaled = scores / √{d_k} = scores / {math.sqrt(d_k):g}.",
        f"Uniform attention over {keys} keys has entropy ln {keys} = {uniform:.4f} nat"
        + (f" (lesson: {PUBLISHED['entropy_uniform']})." if keys == 64 else "."),
        "Intervals: mean ± 1.96·s/√N over trials.",
    )
    return ExperimentResult("saturation", seed, trials, measured, notes)


def saturation_samples(
    rng: np.random.Generator, trials: int, keys: int, d_k: int, progress: Progress | None = None
) -> dict[str, NDArray[np.float64]]:
    """Per-trial largest weight and entropy, unscaled and scaled by 1/√d_k.

    Each trial draws q and the ``keys`` keys themselves (i.i.d. N(0, 1) components) and
    takes their dot products: the lesson's experiment as written, the draws the torch
    backend repeats.
    """
    out = _saturation_stats(trials)
    for start, size in _chunks(trials, keys * d_k, progress):
        q = rng.standard_normal((size, d_k))
        k = rng.standard_normal((size, keys, d_k))
        _weigh(out, start, np.einsum("tnd,td->tn", k, q), d_k)
    return out


def saturation_samples_by_norm(
    rng: np.random.Generator, trials: int, keys: int, d_k: int
) -> dict[str, NDArray[np.float64]]:
    """What :func:`saturation_samples` measures, with each trial's scores drawn through ‖q‖.

    Given q, the scores k_j·q of keys k_j ~ N(0, I) independent of q are i.i.d.
    N(0, ‖q‖²), and ‖q‖² ~ χ²(d_k): so ‖q‖·z with ‖q‖² drawn from χ²(d_k) and
    z ~ N(0, I_keys) has exactly the joint law of one trial's scores, and the weights
    and their statistics are functions of the scores alone. The same model, simulated
    with keys + 1 draws a trial instead of (keys + 1)·d_k (the saturation figure goes
    to d_k = 4096); the draws differ from :func:`saturation_samples`' for a seed.
    """
    out = _saturation_stats(trials)
    for start, size in _chunks(trials, keys + 1, None):
        norm = np.sqrt(rng.chisquare(d_k, size))
        _weigh(out, start, norm[:, None] * rng.standard_normal((size, keys)), d_k)
    return out


def _saturation_stats(trials: int) -> dict[str, NDArray[np.float64]]:
    names = ("max_weight_unscaled", "entropy_unscaled", "max_weight_scaled", "entropy_scaled")
    return {name: np.empty(trials) for name in names}


def _weigh(
    out: dict[str, NDArray[np.float64]], start: int, s: NDArray[np.float64], d_k: int
) -> None:
    """Fill rows ``start``… of ``out`` from the scores ``s`` (one row a trial)."""
    block = slice(start, start + len(s))
    for label, scores in (("unscaled", s), ("scaled", s / math.sqrt(d_k))):
        p = softmax(scores)
        out[f"max_weight_{label}"][block] = p.max(axis=-1)
        out[f"entropy_{label}"][block] = entropy(p)


# ------------------------------------------------------------------------ P3


def _top_gap(s: NDArray[np.float64]) -> NDArray[np.float64]:
    top2 = np.partition(s, -2, axis=-1)[..., -2:]
    gap: NDArray[np.float64] = top2[..., 1] - top2[..., 0]
    return gap


def gradient_experiment(
    seed: int = 0,
    trials: int = 500,
    keys: int = 64,
    protocol: str = "wrong-rows",
    progress: Progress | None = None,
) -> ExperimentResult:
    """P3: ‖p − y‖ at σ = 8 on wrong-target rows, and the top1 − top2 gap at σ = 8 and 1.

    Intervals: mean ± 1.96·s/√N for the norm and each gap; the gap ratio by the delta
    method on the log-ratio (independent draws) — under ``qk`` the two gaps come
    from the same scores and the ratio is exactly 8.
    """
    seed, trials, keys = _check_seed(seed), check_trials(trials), _check_keys(keys)
    if protocol not in GRADIENT_PROTOCOLS:
        known = ", ".join(GRADIENT_PROTOCOLS)
        raise InvalidArgument(f"unknown protocol {protocol!r}; choose one of {known}")
    rng = np.random.default_rng(seed)
    norms, wrong = np.empty(trials), np.empty(trials, dtype=bool)
    gap8, gap1 = np.empty(trials), np.empty(trials)
    for start, size in _chunks(trials, keys * (64 if protocol == "qk" else 2), progress):
        block = slice(start, start + size)
        if protocol == "qk":
            q = rng.standard_normal((size, 64))
            s8 = np.einsum("tnd,td->tn", rng.standard_normal((size, keys, 64)), q)
            s1 = s8 / 8.0
        else:
            s8 = 8.0 * rng.standard_normal((size, keys))
            s1 = rng.standard_normal((size, keys))
        target = rng.integers(0, keys, size)
        p = softmax(s8)
        p[np.arange(size), target] -= 1.0
        norms[block] = np.linalg.norm(p, axis=-1)
        wrong[block] = target != s8.argmax(axis=-1)
        gap8[block], gap1[block] = _top_gap(s8), _top_gap(s1)
    rows = norms if protocol == "all-rows" else norms[wrong]
    norm = mean_measurement("p_minus_y_norm", rows, _published("p_minus_y_norm"))
    g8 = mean_measurement("gap_unscaled", gap8, _published("gap_unscaled"))
    g1 = mean_measurement("gap_scaled", gap1, _published("gap_scaled"))
    if protocol == "qk":
        ratio = exact("gap_ratio", g8.value / g1.value, _published("gap_ratio"))
    else:
        ratio = ratio_measurement("gap_ratio", g8, g1, _published("gap_ratio"))
    used = (
        "all rows" if protocol == "all-rows" else f"{rows.size} rows whose target is not the argmax"
    )
    notes = (
        f"protocol {protocol}: {trials} rows of {keys} scores; ‖p − y‖ at σ = 8 over {used}.",
        "σ = 8 and σ = 1 drawn independently (σ·N(0, 1))."
        if protocol != "qk"
        else "scores q·k at d_k = 64 (σ ≈ 8); σ = 1 by dividing the same scores by 8.",
        f"Limit as the lead grows (theorem p_minus_y_limit): ‖p − y‖ → √2 = {math.sqrt(2):.4f}.",
        "Intervals: mean ± 1.96·s/√N; ratio by the delta method on logs"
        + (" (exact under qk)." if protocol == "qk" else "."),
    )
    return ExperimentResult("gradient", seed, trials, (norm, g8, g1, ratio), notes)
