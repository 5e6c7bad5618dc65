"""The one-update experiment: exact gradients, the two optimisers, intervals that cannot flake."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scaledattn.attention.dynamics import (
    draw,
    dynamics_experiment,
    geometric_measurement,
    logit_gradients,
    logits,
    one_update,
)
from scaledattn.claims.statistics import MEASUREMENTS, experiment_of
from scaledattn.errors import InvalidArgument


def _loss(d: object, wq: np.ndarray, wk: np.ndarray, c: float) -> float:
    s = logits(d.xq, d.xk, wq, wk, c)[0]  # type: ignore[attr-defined]
    t = int(d.target[0])  # type: ignore[attr-defined]
    return float(np.log(np.sum(np.exp(s - s.max()))) + s.max() - s[t])


@pytest.mark.parametrize("c", [1.0, math.sqrt(6)])
def test_weight_gradients_match_finite_differences(c: float) -> None:
    d = draw(np.random.default_rng(3), 1, keys=5, d=6)
    _, gwq, gwk = logit_gradients(d.xq, d.xk, d.wq, d.wk, d.target, c)
    h = 1e-6
    for w, g, which in ((d.wq, gwq, "q"), (d.wk, gwk, "k")):
        for i, j in [(0, 0), (2, 5), (5, 1)]:
            plus, minus = w.copy(), w.copy()
            plus[0, i, j] += h
            minus[0, i, j] -= h
            args = (plus, d.wk) if which == "q" else (d.wq, plus)
            back = (minus, d.wk) if which == "q" else (d.wq, minus)
            numeric = (_loss(d, *args, c) - _loss(d, *back, c)) / (2 * h)
            assert numeric == pytest.approx(g[0, i, j], rel=1e-5, abs=1e-8)


def test_a_small_sgd_step_moves_the_logits_by_the_first_order_prediction() -> None:
    """Δs ≈ −η Σᵢ gᵢ (‖x_q‖² kᵢ·kⱼ + ‖q‖² xᵢ·xⱼ)/c², the chain rule through W_q and W_k."""
    d = draw(np.random.default_rng(5), 2, keys=7, d=8)
    c, lr = math.sqrt(8), 1e-7
    before, after, g = one_update(d, c, "sgd", lr)
    q = np.einsum("td,tde->te", d.xq, d.wq)
    k = np.einsum("tnd,tde->tne", d.xk, d.wk)
    kk = np.einsum("tie,tje->tij", k, k) * np.sum(d.xq**2, axis=1)[:, None, None]
    xx = np.einsum("tid,tjd->tij", d.xk, d.xk) * np.sum(q**2, axis=1)[:, None, None]
    predicted = -lr * np.einsum("ti,tij->tj", g, kk + xx) / c**2
    assert np.allclose(after - before, predicted, rtol=1e-4, atol=1e-12)


def test_adams_first_step_moves_every_weight_by_the_learning_rate() -> None:
    d = draw(np.random.default_rng(1), 1, keys=4, d=4)
    before, after, _ = one_update(d, 2.0, "adam", 1e-3)
    assert not np.allclose(before, after)
    _, gwq, _ = logit_gradients(d.xq, d.xk, d.wq, d.wk, d.target, 2.0)
    moved = 1e-3 * gwq / (np.abs(gwq) + 1e-8)
    assert np.allclose(np.abs(moved[np.abs(gwq) > 1e-6]), 1e-3, rtol=1e-4)


@pytest.fixture(scope="module")
def result() -> object:
    return dynamics_experiment(seed=0, trials=120)


def test_the_experiment_is_reproducible_and_every_interval_holds_its_value(result: object) -> None:
    again = dynamics_experiment(seed=0, trials=120)
    assert again.as_json() == result.as_json()  # type: ignore[attr-defined]
    for m in result.measurements:  # type: ignore[attr-defined]
        lo, hi = m.ci95
        assert lo < m.value < hi, m.name
        assert experiment_of(m.name) == "dynamics"
    names = {m.name for m in result.measurements}  # type: ignore[attr-defined]
    assert names == {n for n, e in MEASUREMENTS.items() if e == "dynamics"}


def test_paired_ratios_agree_with_the_ratio_of_their_geometric_means(result: object) -> None:
    """G(a/b) = G(a)/G(b) for geometric means over the same trials: an identity, no tolerance."""
    r = result
    for opt in ("sgd", "adam"):
        ratio = r[f"step_lr_{opt}_unscaled"].value / r[f"step_lr_{opt}_scaled"].value  # type: ignore[index]
        assert r[f"step_ratio_{opt}"].value == pytest.approx(ratio, rel=1e-9)  # type: ignore[index]


def test_geometric_intervals_come_from_the_spread_of_the_logs() -> None:
    m = geometric_measurement("x", np.array([1.0, math.e, math.e**2, math.e**3]))
    assert m.value == pytest.approx(math.e**1.5)
    se = np.std([0.0, 1.0, 2.0, 3.0], ddof=1) / 2
    assert m.ci95[1] == pytest.approx(math.exp(1.5 + 1.959963984540054 * se))


def test_bad_sizes_are_refused() -> None:
    with pytest.raises(InvalidArgument):
        dynamics_experiment(trials=1)
    with pytest.raises(InvalidArgument):
        dynamics_experiment(lr=-1.0)


def test_the_experiment_command_runs_dynamics(capsys: pytest.CaptureFixture[str]) -> None:
    from scaledattn.cli import main

    assert main(["experiment", "dynamics", "--trials", "20", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"experiment": "dynamics"' in out
    assert '"name": "step_ratio_adam"' in out
