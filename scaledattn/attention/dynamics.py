"""How far one optimiser update moves the attention logits: SGD and Adam, with and without 1/√d_k.

The lesson (000, §4) says the optimiser "steps the size of the learning rate" while the
gap between the two largest logits widens with σ. This experiment measures it on the
lesson's setting: one query, n = 64 keys, d_model = d_k = 64, tokens xⱼ ~ N(0, I),
W_q, W_k ~ N(0, 1/d) (so q and k have unit-variance components and the unscaled
logits sⱼ = q·kⱼ have σ = 8), logits s = q·K/c with c = √d_k ("scaled") or 1
("unscaled"), and the cross-entropy against a uniformly random target key (random
init: nothing makes the leader right). The gradients are exact:

    ∂L/∂s = p − y,   ∂L/∂W_q = x_q ⊗ (Kᵀ(p − y))/c,   ∂L/∂W_k = Xᵀ((p − y) ⊗ q)/c

(checked against finite differences in the tests). One update of W_q and W_k:

- SGD: W ← W − η·∇W;
- Adam (β₁ = 0.9, β₂ = 0.999, ε = 1e−8), its first step with bias correction:
  W ← W − η·m̂/(√v̂ + ε) = W − η·∇W/(|∇W| + ε), about η per weight.

The logits are recomputed exactly after the update. The step is ‖Δs‖_∞, the largest
change of a logit. Each trial draws its own tokens, weights and target; the scaled
and unscaled runs of a trial share them (paired). Measurements are geometric means
over trials, with the 95% interval exp(mean(log r) ± z·s/√N) from the sample variance
of the logs (logs tame the heavy tail of step/gap when the two leaders nearly tie):

- ``step_lr_<opt>_<scaled|unscaled>``: step / η;
- ``step_gap_<opt>_<…>``: step / (top1 − top2) of the logits before the update;
- ``step_ratio_<opt>``: step unscaled / step scaled, per trial;
- ``step_gap_ratio_<opt>``: (step/gap) unscaled / (step/gap) scaled, per trial.

And, from the same draws, the gradients the texts call vanishing (arithmetic means,
mean ± z·s/√N): ``grad_norm_<…>`` = ‖p − y‖ over all rows, ``jacobian_norm_<…>`` =
‖diag(p) − ppᵀ‖_F (what a loss on the attention output sends back through the
softmax: ‖J‖_F² = E‖J g‖² for an isotropic unit-variance g = ∂L/∂p), and their
paired geometric-mean ratios unscaled/scaled ``grad_norm_ratio`` and
``jacobian_norm_ratio``.

Examples
--------
>>> r = dynamics_experiment(seed=0, trials=50)
>>> r["step_gap_ratio_adam"].ci95[0] < 8 < r["step_ratio_sgd"].value
True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scaledattn.attention.experiments import ExperimentResult, _check_seed, check_trials
from scaledattn.attention.softmax import softmax
from scaledattn.attention.stats import Measurement, mean_measurement
from scaledattn.attention.training import check_lr
from scaledattn.numeric.montecarlo import Z95

__all__ = [
    "DIM",
    "KEYS",
    "OPTIMISERS",
    "Draws",
    "draw",
    "dynamics_experiment",
    "geometric_measurement",
    "logit_gradients",
    "logits",
    "one_update",
]

KEYS = 64
DIM = 64
OPTIMISERS = ("sgd", "adam")
ADAM_BETAS = (0.9, 0.999)
ADAM_EPS = 1e-8
#: Trials per chunk (bounds memory: a chunk holds 3·CHUNK·DIM² floats of weights).
CHUNK = 256
Array = NDArray[np.float64]


class Draws:
    """One chunk of trials: query token x_q (T, d), key tokens X (T, n, d), W_q, W_k, targets."""

    def __init__(self, xq: Array, xk: Array, wq: Array, wk: Array, target: NDArray[Any]):
        self.xq, self.xk, self.wq, self.wk, self.target = xq, xk, wq, wk, target


def draw(rng: np.random.Generator, trials: int, keys: int = KEYS, d: int = DIM) -> Draws:
    """Tokens N(0, I), weights N(0, 1/d), a uniformly random target key per trial."""
    xq = rng.standard_normal((trials, d))
    xk = rng.standard_normal((trials, keys, d))
    wq = rng.standard_normal((trials, d, d)) / math.sqrt(d)
    wk = rng.standard_normal((trials, d, d)) / math.sqrt(d)
    return Draws(xq, xk, wq, wk, rng.integers(0, keys, trials))


def logits(xq: Array, xk: Array, wq: Array, wk: Array, c: float) -> Array:
    """The logits (x_q W_q)·(X W_k)ᵀ / c, one row per trial."""
    q = (xq[:, None, :] @ wq)[:, 0, :]
    k = xk @ wk
    out: Array = (k @ q[:, :, None])[:, :, 0] / c
    return out


def logit_gradients(
    xq: Array, xk: Array, wq: Array, wk: Array, target: NDArray[Any], c: float
) -> tuple[Array, Array, Array]:
    """(∂L/∂s = p − y, ∂L/∂W_q, ∂L/∂W_k) of the cross-entropy −log p_target."""
    q = (xq[:, None, :] @ wq)[:, 0, :]
    k = xk @ wk
    s = (k @ q[:, :, None])[:, :, 0] / c
    g: Array = np.asarray(softmax(s), dtype=np.float64)
    g[np.arange(len(target)), target] -= 1.0
    dq = (g[:, None, :] @ k)[:, 0, :] / c
    dk = g[:, :, None] * q[:, None, :] / c
    gwq: Array = xq[:, :, None] * dq[:, None, :]
    gwk: Array = np.swapaxes(xk, 1, 2) @ dk
    return g, gwq, gwk


def one_update(draws: Draws, c: float, optimiser: str, lr: float) -> tuple[Array, Array, Array]:
    """(logits before, logits after one update, ∂L/∂s) for each trial of the chunk."""
    d = draws
    before = logits(d.xq, d.xk, d.wq, d.wk, c)
    g, gwq, gwk = logit_gradients(d.xq, d.xk, d.wq, d.wk, d.target, c)
    if optimiser == "sgd":
        uq, uk = gwq, gwk
    else:  # Adam's first step: m̂ = g, v̂ = g² after bias correction
        uq = gwq / (np.abs(gwq) + ADAM_EPS)
        uk = gwk / (np.abs(gwk) + ADAM_EPS)
    after = logits(d.xq, d.xk, d.wq - lr * uq, d.wk - lr * uk, c)
    return before, after, g


def geometric_measurement(name: str, ratios: Array) -> Measurement:
    """The geometric mean of positive ``ratios``, interval exp(mean(log) ± z·s/√N).

    ``se`` is the delta-method standard error of the geometric mean, G·s/√N.
    """
    logs = np.log(ratios)
    m = mean_measurement(name, logs)
    value = math.exp(m.value)
    se_log = (m.ci95[1] - m.value) / Z95
    return Measurement(
        name, value, (math.exp(m.ci95[0]), math.exp(m.ci95[1])), None, value * se_log
    )


def _gap(s: Array) -> Array:
    top2 = np.partition(s, -2, axis=-1)[..., -2:]
    out: Array = top2[..., 1] - top2[..., 0]
    return out


def _jacobian_norm(p: Array) -> Array:
    """‖diag(p) − ppᵀ‖_F per row, from the matrix itself (no cancellation near one-hot)."""
    jac = -np.einsum("ti,tj->tij", p, p)
    idx = np.arange(p.shape[-1])
    jac[:, idx, idx] += p
    out: Array = np.linalg.norm(jac, axis=(-2, -1))
    return out


def dynamics_experiment(
    seed: int = 0,
    trials: int = 400,
    lr: float = 0.001,
    progress: Callable[[int, int], None] | None = None,
) -> ExperimentResult:
    """One update's logit step for SGD and Adam, scaled and unscaled, and the gradient norms.

    ``progress(done, trials)`` is told after each chunk of trials.
    """
    seed, trials, lr = _check_seed(seed), check_trials(trials), check_lr(lr)
    rng = np.random.default_rng([seed, 17])
    names = [f"{o}_{sc}" for o in OPTIMISERS for sc in ("scaled", "unscaled")]
    step: dict[str, list[Array]] = {n: [] for n in names}
    gap: dict[str, list[Array]] = {sc: [] for sc in ("scaled", "unscaled")}
    grad: dict[str, list[Array]] = {sc: [] for sc in ("scaled", "unscaled")}
    jac: dict[str, list[Array]] = {sc: [] for sc in ("scaled", "unscaled")}
    done = 0
    while done < trials:
        size = min(CHUNK, trials - done)
        draws = draw(rng, size)
        for scaled, c in (("scaled", math.sqrt(DIM)), ("unscaled", 1.0)):
            for opt in OPTIMISERS:
                before, after, g = one_update(draws, c, opt, lr)
                step[f"{opt}_{scaled}"].append(np.max(np.abs(after - before), axis=-1))
            gap[scaled].append(_gap(before))
            grad[scaled].append(np.linalg.norm(g, axis=-1))
            jac[scaled].append(_jacobian_norm(np.asarray(softmax(before), dtype=np.float64)))
        done += size
        if progress is not None:
            progress(done, trials)
    st = {n: np.concatenate(v) for n, v in step.items()}
    gp = {n: np.concatenate(v) for n, v in gap.items()}
    gr = {n: np.concatenate(v) for n, v in grad.items()}
    jc = {n: np.concatenate(v) for n, v in jac.items()}
    out: list[Measurement] = []
    for opt in OPTIMISERS:
        for sc in ("scaled", "unscaled"):
            out.append(geometric_measurement(f"step_lr_{opt}_{sc}", st[f"{opt}_{sc}"] / lr))
            out.append(geometric_measurement(f"step_gap_{opt}_{sc}", st[f"{opt}_{sc}"] / gp[sc]))
        up, down = st[f"{opt}_unscaled"], st[f"{opt}_scaled"]
        out.append(geometric_measurement(f"step_ratio_{opt}", up / down))
        out.append(
            geometric_measurement(
                f"step_gap_ratio_{opt}", (up / gp["unscaled"]) / (down / gp["scaled"])
            )
        )
    for sc in ("scaled", "unscaled"):
        out.append(mean_measurement(f"grad_norm_{sc}", gr[sc]))
        out.append(mean_measurement(f"jacobian_norm_{sc}", jc[sc]))
    out.append(geometric_measurement("grad_norm_ratio", gr["unscaled"] / gr["scaled"]))
    out.append(geometric_measurement("jacobian_norm_ratio", jc["unscaled"] / jc["scaled"]))
    notes = (
        f"One query, {KEYS} keys, d_model = d_k = {DIM}, W_q, W_k ~ N(0, 1/d); cross-entropy"
        f" on a uniformly random target; one update at learning rate {lr:g}; {trials} trials,"
        " scaled (c = √d_k) and unscaled (c = 1) on the same draws.",
        "Step = max |Δs| over the keys after one update (logits recomputed exactly);"
        " gap = top1 − top2 before it. SGD: W −= η∇W. Adam's first step: W −= η∇W/(|∇W| + ε).",
        "Intervals: geometric means exp(mean log ± 1.96·s/√N) for steps and ratios (paired"
        " per trial); mean ± 1.96·s/√N for the gradient norms.",
    )
    return ExperimentResult("dynamics", seed, trials, tuple(out), notes, {"lr": lr})
