"""Plots of saturation against d_k and of training losses (matplotlib, Agg backend).

matplotlib is optional (the ``plot`` extra): it is imported only when a figure is
drawn, and :func:`require_matplotlib` turns its absence into a one-line
:class:`~scaledattn.errors.InvalidArgument` that names the extra.

The data functions (:func:`saturation_curves`) need only numpy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scaledattn.attention.experiments import PUBLISHED, Progress, saturation_samples_by_norm
from scaledattn.attention.training import BLOW_UP, SETTINGS, setting_name
from scaledattn.errors import InvalidArgument
from scaledattn.numeric.montecarlo import Z95

__all__ = [
    "FORMATS",
    "SaturationCurves",
    "plot_saturation",
    "plot_training",
    "require_matplotlib",
    "saturation_curves",
]

FORMATS = (".png", ".pdf", ".svg")
DIMS = tuple(2**e for e in range(13))  # 1 … 4096
COLOURS = {"unscaled": "tab:red", "scaled": "tab:blue"}
SETTING_STYLE = {
    "d4_scaled": ("tab:blue", "--"),
    "d4_unscaled": ("tab:red", "--"),
    "d64_scaled": ("tab:blue", "-"),
    "d64_unscaled": ("tab:red", "-"),
}


def require_matplotlib() -> Any:
    """``matplotlib.pyplot`` with the Agg backend, or InvalidArgument naming the extra."""
    try:
        import matplotlib
    except ImportError as err:
        raise InvalidArgument(
            "plotting needs matplotlib, which is not installed;"
            " install the 'plot' extra: pip install 'scaledattn[plot]'"
        ) from err
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def check_output(path: str | Path) -> Path:
    """An output path whose folder exists and whose suffix matplotlib can write."""
    out = Path(path)
    if out.suffix.lower() not in FORMATS:
        raise InvalidArgument(f"output must end in {', '.join(FORMATS)}, got {str(out)!r}")
    if not out.parent.is_dir():
        raise InvalidArgument(f"the folder {str(out.parent)!r} does not exist")
    return out


@dataclass(frozen=True)
class SaturationCurves:
    """Mean largest weight and entropy (with 95% half-widths) at each d_k."""

    dims: tuple[int, ...]
    keys: int
    trials: int
    mean: dict[str, NDArray[np.float64]]
    half: dict[str, NDArray[np.float64]]


def saturation_curves(
    seed: int = 0,
    trials: int = 400,
    keys: int = 64,
    dims: tuple[int, ...] = DIMS,
    progress: Progress | None = None,
) -> SaturationCurves:
    """P2 at every d_k in ``dims``: means over ``trials`` and their 95% half-widths.

    Each trial's scores are drawn through ‖q‖ (:func:`~scaledattn.attention.experiments.
    saturation_samples_by_norm`): the same law as drawing q and the keys, at a cost
    that does not grow with d_k.
    """
    rng = np.random.default_rng(seed)
    names = ("max_weight_unscaled", "entropy_unscaled", "max_weight_scaled", "entropy_scaled")
    mean = {name: np.empty(len(dims)) for name in names}
    half = {name: np.empty(len(dims)) for name in names}
    for n, d in enumerate(dims):
        samples = saturation_samples_by_norm(rng, trials, keys, d)
        for name in names:
            x = samples[name]
            mean[name][n] = x.mean()
            half[name][n] = Z95 * x.std(ddof=1) / math.sqrt(trials)
        if progress is not None:
            progress(n + 1, len(dims))
    return SaturationCurves(tuple(dims), keys, trials, mean, half)


def plot_saturation(curves: SaturationCurves, path: str | Path) -> Path:
    """Two panels against d_k (log axis): largest weight, and entropy with ln(keys)."""
    out = check_output(path)
    plt = require_matplotlib()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.6), constrained_layout=True)
    x = np.array(curves.dims)
    for label in ("unscaled", "scaled"):
        text = "unscaled: q·k" if label == "unscaled" else "scaled: q·k / √d_k"
        for ax, what in ((left, "max_weight"), (right, "entropy")):
            m, h = curves.mean[f"{what}_{label}"], curves.half[f"{what}_{label}"]
            ax.plot(x, m, "o-", color=COLOURS[label], label=text, markersize=4)
            ax.fill_between(x, m - h, m + h, color=COLOURS[label], alpha=0.2, linewidth=0)
    uniform = math.log(curves.keys)
    right.axhline(
        uniform, color="gray", linestyle=":", label=f"uniform: ln {curves.keys} = {uniform:.2f}"
    )
    left.axhline(1 / curves.keys, color="gray", linestyle=":", label=f"uniform: 1/{curves.keys}")
    if curves.keys == 64:
        for ax, what in ((left, "max_weight"), (right, "entropy")):
            ys = [PUBLISHED[f"{what}_unscaled"], PUBLISHED[f"{what}_scaled"]]
            ax.plot([64, 64], ys, "k*", markersize=11, label="lesson P2 (d_k = 64)")
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.set_xticks(x)
        ax.set_xticklabels([str(d) for d in curves.dims], fontsize=8)
        ax.set_xlabel("d_k (dimension of q and k)")
        ax.grid(True, alpha=0.3)
    left.set_ylabel("mean largest attention weight")
    left.set_ylim(0, 1.02)
    left.set_title("Largest weight: unscaled scores saturate")
    right.set_ylabel("mean entropy of the weights (nats)")
    right.set_ylim(0, uniform * 1.08)
    right.set_title("Entropy: unscaled collapses, scaled stays high")
    left.legend(loc="center left", fontsize=8)
    right.legend(loc="lower left", fontsize=8)
    fig.suptitle(
        f"Softmax over {curves.keys} keys, q and k ~ N(0, I): {curves.trials} trials per d_k"
        " (bands: 95% intervals)",
        fontsize=11,
    )
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


def plot_training(result: Any, path: str | Path) -> Path:
    """Median loss per step for the four settings, and divergence against learning rate."""
    out = check_output(path)
    plt = require_matplotlib()
    runs, lr, steps = result.extra["runs"], result.extra["lr"], result.extra["steps"]
    sweep = result.extra.get("sweep")
    width = 2 if sweep else 1
    fig, axes = plt.subplots(1, width, figsize=(6 * width, 4.6), constrained_layout=True)
    curves_ax = axes[0] if sweep else axes
    x = np.arange(steps + 1)
    for d, scaled in SETTINGS:
        name = setting_name(d, scaled)
        colour, style = SETTING_STYLE[name]
        losses = np.minimum(runs[name].losses, BLOW_UP)
        diverged = int(runs[name].diverged.sum())
        label = (
            f"d_k = {d}, {'scaled' if scaled else 'unscaled'}"
            f" ({diverged}/{len(losses)} runs diverge)"
        )
        curves_ax.plot(x, losses.T, style, color=colour, linewidth=0.6, alpha=0.18)
        curves_ax.plot(
            x, np.median(losses, axis=0), style, color=colour, label=label, linewidth=2.4
        )
    curves_ax.set_yscale("log")
    curves_ax.axhline(BLOW_UP, color="gray", linestyle=":", linewidth=1)
    curves_ax.text(steps, BLOW_UP, " stopped (blew up)", va="bottom", ha="right", fontsize=8)
    curves_ax.set_xlabel("step (gradient updates; 0 = initialisation)")
    curves_ax.set_ylabel("cross-entropy loss (bold: median; thin: each run)")
    curves_ax.set_title(f"Loss per step at learning rate {lr:g} (self-retrieval, 64 items)")
    curves_ax.grid(True, alpha=0.3, which="both")
    curves_ax.legend(fontsize=8, handlelength=3.5)
    if sweep:
        rates = result.extra["rates"]
        ax = axes[1]
        for d, scaled in SETTINGS:
            name = setting_name(d, scaled)
            colour, style = SETTING_STYLE[name]
            frac = [f for f, _ in sweep[name]]
            label = f"d_k = {d}, {'scaled' if scaled else 'unscaled'}"
            ax.plot(rates, frac, style, marker="o", color=colour, label=label, linewidth=2)
        ax.axvline(lr, color="gray", linestyle=":", linewidth=1)
        ax.text(lr, 0.5, f" learning rate of\n the left panel ({lr:g})", fontsize=8, color="gray")
        ax.set_xscale("log")
        ax.set_xticks(rates)
        ax.set_xticklabels([f"{r:g}" for r in rates], fontsize=8)
        ax.set_ylim(-0.03, 1.03)
        ax.set_xlabel("learning rate (same for all settings)")
        ax.set_ylabel(f"fraction of {result.trials} runs that diverge")
        ax.set_title("Which settings diverge, by learning rate")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8, handlelength=3.5)
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out
