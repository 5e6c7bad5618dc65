"""The one-head audit's interval: its variance estimate is unbiased over weight draws.

Pure numpy (no torch): fixed tokens x, many independent draws of W_q, W_k with i.i.d.
N(0, σ²) entries; for each draw the audit's M = mean(c·q·k)² and its estimate of
Var(M) given the inputs (scaledattn.torchattn.audit.component_interval). The mean of
the estimates must match the variance of M across the draws, within the combined
z = 4.89 interval of the two estimates (a false alarm has probability about 1e-6).
"""

from __future__ import annotations

import math

import numpy as np

from scaledattn.torchattn.audit import component_interval

Z = 4.89


def test_the_one_head_variance_estimate_matches_the_spread_over_weight_draws() -> None:
    rng = np.random.default_rng(20261028)
    draws, d_model, d_k, tokens = 3000, 12, 6, 10
    x = rng.standard_normal((tokens, d_model))
    x *= math.sqrt(d_model) / np.linalg.norm(x, axis=1, keepdims=True)  # LayerNorm'd
    causal = np.tril(np.ones((1, 1, tokens, tokens)))
    measured, estimated = np.empty(draws), np.empty(draws)
    for r in range(draws):
        w_q, w_k = rng.normal(0, 0.3, (2, d_k, d_model))
        q, k = (x @ w.T for w in (w_q, w_k))
        m, spread = component_interval(q[None, None], k[None, None], causal, 0.5)
        logits = 0.5 * (q @ k.T)  # M is the mean square of the logits over the valid pairs
        assert math.isclose(m, (logits**2 * causal[0, 0]).sum() / causal.sum(), rel_tol=1e-9)
        measured[r], estimated[r] = m, spread**2
    spread_of_m = measured.var(ddof=1)
    centred = measured - measured.mean()
    se_spread = math.sqrt(((centred**4).mean() - spread_of_m**2) / draws)
    se_estimate = estimated.std(ddof=1) / math.sqrt(draws)
    gap = abs(estimated.mean() - spread_of_m)
    assert gap <= Z * math.hypot(se_spread, se_estimate), (estimated.mean(), spread_of_m)
