"""The audit as text (a table per layer, then reasons and notes) and as a figure."""

from __future__ import annotations

from pathlib import Path

from scaledattn.attention.plots import check_output, require_matplotlib
from scaledattn.torchattn.audit import LEVEL, AuditResult

__all__ = ["plot_audit", "report"]


def _f(x: float | None, digits: int = 4) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def report(result: AuditResult) -> str:
    """A row per attention layer: scale, logit std (measured, interval, predicted), verdict."""
    width = max(len("layer"), *(len(layer.layer) for layer in result.layers))
    scale_w = max(len("scale on q·k"), *(len(layer.scale_name) for layer in result.layers))
    out = [
        f"Audit of {result.description}: seed {result.seed}, {result.batch}×{result.tokens}"
        " random tokens",
        f"  {'layer':<{width}}  {'scale on q·k':<{scale_w}}  {'logit std':>9}  "
        f"{f'{LEVEL:.0%} interval':<18}  {'predicted':>9}  {'max w':>6}  {'entropy':>7}"
        f"  {'(uniform)':>9}  verdict",
    ]
    for layer in result.layers:
        lo_hi = layer.logit_std_interval
        interval = "-" if lo_hi is None else f"[{lo_hi[0]:.4f}, {lo_hi[1]:.4f}]"
        verdict = {True: "agrees", False: "DISAGREES", None: "no verdict"}[layer.agrees]
        out.append(
            f"  {layer.layer:<{width}}  {layer.scale_name:<{scale_w}}  {layer.logit_std:>9.4f}  "
            f"{interval:<18}  {_f(layer.predicted_std):>9}  {layer.max_weight:>6.3f}  "
            f"{layer.entropy:>7.3f}  {layer.uniform_entropy:>9.3f}  {verdict}"
        )
    out.append("")
    for layer in result.layers:
        inputs = ""
        if layer.x_norm is not None:
            inputs = (
                f"d_model {layer.d_model}, d_k {layer.d_k}, {layer.heads} heads,"
                f" mean ‖x‖ {layer.x_norm:.2f}, ‖y‖ {layer.y_norm:.2f};"
                f" σ_q, σ_k implied by q, k: {layer.sigma_q_from_q:.4g},"
                f" {layer.sigma_k_from_k:.4g};"
                f" scale measured {layer.scale_measured:.6g}"
            )
        out.append(f"  {layer.layer}: {inputs}")
        out.append(f"    {layer.reason}")
    out.append("")
    out += [f"  {note}" for note in result.notes]
    return "\n".join(out)


def plot_audit(result: AuditResult, path: str | Path) -> Path:
    """Measured logit std with its interval and the prediction per layer; entropy beside uniform."""
    out = check_output(path)
    plt = require_matplotlib()
    layers = result.layers
    xs = list(range(len(layers)))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for x, layer in zip(xs, layers, strict=True):
        if layer.logit_std_interval is not None:
            lo, hi = layer.logit_std_interval
            ax1.plot([x, x], [lo, hi], color="tab:blue", lw=3, alpha=0.5)
    ax1.plot(xs, [layer.logit_std for layer in layers], "o", color="tab:blue", label="measured")
    predicted = [(x, layer.predicted_std) for x, layer in zip(xs, layers, strict=True)]
    shown = [(x, p) for x, p in predicted if p is not None]
    if shown:
        ax1.plot(*zip(*shown, strict=True), "x", color="tab:red", ms=9, label="theorem")
    ax1.set_title(f"logit std ({LEVEL:.0%} interval)")
    ax2.plot(xs, [layer.entropy for layer in layers], "o-", label="entropy")
    ax2.plot(xs, [layer.uniform_entropy for layer in layers], "--", label="uniform")
    ax2.set_title("mean entropy of a row (nat)")
    for ax in (ax1, ax2):
        ax.set_xticks(xs)
        ax.set_xticklabels([str(i) for i in xs])
        ax.set_xlabel("attention call")
        ax.legend()
    fig.suptitle(result.description)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
    return out
