"""A minimal attention retrieval task trained by gradient descent, scaled and unscaled.

The task: n = 64 items with embeddings xⱼ ∈ ℝᵈ (i.i.d. N(0, 1) entries). A single
attention layer with query and key maps W_q, W_k ∈ ℝ^{d×d} (entries N(0, 1/d), so
q and k have unit-variance components) scores sᵢⱼ = (xᵢW_q)·(xⱼW_k)/c and must make
each item attend to itself: the loss is the mean cross-entropy −(1/n) Σᵢ log pᵢᵢ.
c = √d ("scaled") or 1 ("unscaled"); d = d_k = 4 or 64 ("change only the length of
the vectors", lesson 000, §0). Full-batch gradient descent, the same learning rate
for all four settings; the gradients are exact (∂L/∂S = (P − I)/n, theorem
``cross_entropy_gradient``), checked against finite differences in the tests.

Steps are counted as updates: step 0 is the loss at initialisation, step k the
loss after k updates. A run *diverges* when its loss ends above where it started
or blows up (above 10⁶, after which it is stopped); its divergence step is the
first step whose loss exceeds the initial loss.

Examples
--------
>>> runs = train(d=4, scaled=True, lr=0.5, steps=3, runs=2, seed=0)
>>> runs.losses.shape
(2, 4)
>>> bool(runs.losses[0, 3] < runs.losses[0, 0])
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scaledattn.attention.experiments import (
    PUBLISHED,
    ExperimentResult,
    Progress,
    _check_seed,
    check_int,
    check_trials,
)
from scaledattn.attention.softmax import log_softmax
from scaledattn.attention.stats import (
    Measurement,
    mean_measurement,
    median_measurement,
    proportion_measurement,
)
from scaledattn.errors import InvalidArgument

__all__ = [
    "DIMS",
    "ITEMS",
    "LEARNING_RATES",
    "SETTINGS",
    "Runs",
    "gradients",
    "loss",
    "setting_name",
    "check_lr",
    "train",
    "training_experiment",
]

ITEMS = 64
DIMS = (4, 64)
SETTINGS = tuple((d, scaled) for d in DIMS for scaled in (True, False))
#: The learning rates of the sweep that shows where divergence sets in.
LEARNING_RATES = (0.1, 0.3, 0.5, 0.6, 0.7, 0.8, 1.0, 2.0)
BLOW_UP = 1e6
Array = NDArray[np.float64]


def check_lr(lr: object) -> float:
    """A learning rate: a finite positive number, or InvalidArgument."""
    if isinstance(lr, bool) or not isinstance(lr, (int, float, np.floating)):
        raise InvalidArgument(f"the learning rate must be a positive number, got {lr!r}")
    value = float(lr)
    if not (math.isfinite(value) and value > 0):
        raise InvalidArgument(f"the learning rate must be a positive number, got {lr!r}")
    return value


def setting_name(d: int, scaled: bool) -> str:
    """``d64_unscaled`` and the like."""
    return f"d{d}_{'scaled' if scaled else 'unscaled'}"


def loss(x: Array, wq: Array, wk: Array, c: float) -> Array:
    """The mean self-retrieval cross-entropy of each run (leading axis = runs)."""
    s = (x @ wq) @ np.swapaxes(x @ wk, -1, -2) / c
    logp = log_softmax(s)
    out: Array = -np.mean(np.diagonal(logp, axis1=-2, axis2=-1), axis=-1)
    return out


def gradients(x: Array, wq: Array, wk: Array, c: float) -> tuple[Array, Array, Array]:
    """(loss, ∂L/∂W_q, ∂L/∂W_k) per run, from ∂L/∂S = (softmax(S) − I)/n."""
    q, k = x @ wq, x @ wk
    s = q @ np.swapaxes(k, -1, -2) / c
    logp = log_softmax(s)
    n = s.shape[-1]
    value: Array = -np.mean(np.diagonal(logp, axis1=-2, axis2=-1), axis=-1)
    g = (np.exp(logp) - np.eye(n)) / n
    xt = np.swapaxes(x, -1, -2)
    gq: Array = xt @ (g @ k) / c
    gk: Array = xt @ (np.swapaxes(g, -1, -2) @ q) / c
    return value, gq, gk


@dataclass(frozen=True)
class Runs:
    """Loss curves of several runs of one setting (rows = runs, columns = steps)."""

    d: int
    scaled: bool
    lr: float
    losses: Array

    @property
    def diverged(self) -> NDArray[np.bool_]:
        """Runs whose loss ended above its start, or blew up."""
        start = self.losses[:, :1]
        blown = ~np.isfinite(self.losses) | (self.losses > BLOW_UP)
        ended: NDArray[np.bool_] = blown.any(axis=1) | (self.losses[:, -1:] > start)[:, 0]
        return ended

    @property
    def divergence_steps(self) -> Array:
        """For each diverged run, the first step whose loss exceeds the initial loss."""
        above = ~(self.losses[:, 1:] <= self.losses[:, :1])
        first: Array = (np.argmax(above, axis=1) + 1).astype(np.float64)
        return first[self.diverged]

    @property
    def final(self) -> Array:
        """Each run's last finite loss (a run that blew up was stopped there)."""
        steps = np.arange(self.losses.shape[1])
        last = np.where(np.isfinite(self.losses), steps, 0).max(axis=1)
        out: Array = self.losses[np.arange(len(last)), last]
        return out

    def median_curve(self) -> Array:
        """The median loss at each step over the runs (a stopped run counts as blown up)."""
        curve: Array = np.median(np.minimum(self.losses, BLOW_UP), axis=0)
        return curve


def train(d: int, scaled: bool, lr: float, steps: int = 50, runs: int = 20, seed: int = 0) -> Runs:
    """Train ``runs`` independent tasks (embeddings and initial weights from ``seed``)."""
    lr = check_lr(lr)
    steps = check_int(steps, "steps", 1, 10000)
    runs = check_int(runs, "runs", 1, 100000)
    d = check_int(d, "d", 1, 4096)
    rng = np.random.default_rng([seed, d])
    x = rng.standard_normal((runs, ITEMS, d))
    wq = rng.standard_normal((runs, d, d)) / math.sqrt(d)
    wk = rng.standard_normal((runs, d, d)) / math.sqrt(d)
    c = math.sqrt(d) if scaled else 1.0
    losses = np.full((runs, steps + 1), np.inf)
    alive = np.ones(runs, dtype=bool)
    for step in range(steps + 1):
        value, gq, gk = gradients(x[alive], wq[alive], wk[alive], c)
        losses[alive, step] = value
        if step == steps:
            break
        wq[alive] -= lr * gq
        wk[alive] -= lr * gk
        alive[alive] = value <= BLOW_UP
        if not alive.any():
            break
    return Runs(d, scaled, float(lr), losses)


def sweep(
    seed: int,
    runs: int,
    steps: int,
    rates: tuple[float, ...] = LEARNING_RATES,
    progress: Progress | None = None,
    trained: Sequence[Runs] = (),
) -> dict[str, list[tuple[float, float]]]:
    """Per setting and learning rate: (fraction diverged, mean divergence step or NaN).

    ``trained`` are runs already trained with the same ``seed``, ``runs`` and ``steps``:
    :func:`train` is deterministic given its arguments, so a setting and learning rate
    among them is taken from there rather than trained again.
    """
    known = {(r.d, r.scaled, r.lr): r for r in trained}
    out: dict[str, list[tuple[float, float]]] = {setting_name(d, sc): [] for d, sc in SETTINGS}
    total, done = len(rates) * len(SETTINGS), 0
    for lr in rates:
        for d, sc in SETTINGS:
            result = known.get((d, sc, float(lr))) or train(d, sc, lr, steps, runs, seed)
            at = result.divergence_steps
            mean_step = float(at.mean()) if at.size else math.nan
            out[setting_name(d, sc)].append((float(result.diverged.mean()), mean_step))
            done += 1
            if progress is not None:
                progress(done, total)
    return out


def training_experiment(
    seed: int = 0,
    trials: int = 20,
    lr: float = 0.7,
    steps: int = 50,
    with_sweep: bool = True,
    progress: Progress | None = None,
) -> ExperimentResult:
    """Train the four settings at one learning rate; measure divergence and final loss.

    ``trials`` is the number of independent tasks per setting. Measurements per
    setting: ``diverged_<setting>`` (fraction, Wilson interval),
    ``divergence_step_<setting>`` (mean step among diverged runs; present only if
    some run diverged) and ``final_loss_<setting>`` (median, order-statistic interval).
    """
    seed, trials = _check_seed(seed), check_trials(trials, 1)
    measurements: list[Measurement] = []
    curves: dict[str, Any] = {}
    for d, sc in SETTINGS:
        name = setting_name(d, sc)
        result = train(d, sc, lr, steps, trials, seed)
        curves[name] = result
        diverged = result.diverged
        measurements.append(proportion_measurement(f"diverged_{name}", int(diverged.sum()), trials))
        steps_at = result.divergence_steps
        if steps_at.size >= 2:
            measurements.append(
                mean_measurement(
                    f"divergence_step_{name}", steps_at, PUBLISHED.get(f"divergence_step_{name}")
                )
            )
        elif steps_at.size == 1:
            value = float(steps_at[0])
            measurements.append(
                Measurement(
                    f"divergence_step_{name}",
                    value,
                    (value, value),
                    PUBLISHED.get(f"divergence_step_{name}"),
                )
            )
        measurements.append(
            median_measurement(f"final_loss_{name}", np.minimum(result.final, BLOW_UP))
        )
    extra: dict[str, Any] = {"runs": curves, "lr": lr, "steps": steps}
    if with_sweep:
        trained = tuple(curves.values())  # the sweep's runs at this learning rate
        extra["sweep"] = sweep(seed, trials, steps, progress=progress, trained=trained)
        extra["rates"] = LEARNING_RATES
    notes = (
        f"Self-retrieval over {ITEMS} items, d_model = d_k = d, W_q, W_k ~ N(0, 1/d);"
        f" full-batch gradient descent, learning rate {lr:g}, {steps} steps, {trials} runs"
        " per setting (same seed, same tasks for scaled and unscaled).",
        "Step k = the loss after k updates (step 0 = initialisation). Diverged = the loss"
        f" ends above its start or exceeds {BLOW_UP:g}; divergence step = first step above"
        " the initial loss.",
        "Intervals: Wilson for fractions, mean ± 1.96·s/√N for steps, order statistics"
        " for the median final loss (capped at the blow-up threshold).",
    )
    return ExperimentResult("training", seed, trials, tuple(measurements), notes, extra)
