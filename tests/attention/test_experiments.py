"""The experiments: reproducible for a seed, different across seeds, right on average.

The statistical assertions use fixed seeds, so they are deterministic; each is
also set wide enough that it would hold for almost any seed: a tolerance of 6
standard errors of the estimator (the se the experiment itself reports) has a
false-alarm probability P(|Z| > 6) ≈ 2e-9 per assertion, about 1e-7 for the
~30 such assertions here. Runs are kept small (a few hundred trials).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from scaledattn.attention import (
    gradient_experiment,
    saturation_experiment,
    scores_experiment,
    train,
    training_experiment,
)
from scaledattn.attention.experiments import (
    PUBLISHED,
    check_trials,
    saturation_samples,
    saturation_samples_by_norm,
)
from scaledattn.attention.stats import (
    Z95,
    mean_measurement,
    median_measurement,
    proportion_measurement,
    ratio_measurement,
    std_measurement,
)
from scaledattn.attention.training import BLOW_UP, Runs
from scaledattn.errors import InvalidArgument

K = 6.0  # standard errors


def small(name: str, seed: int) -> dict[str, object]:
    runs = {
        "scores": lambda: scores_experiment(seed, 3000),
        "saturation": lambda: saturation_experiment(seed, 300),
        "gradient": lambda: gradient_experiment(seed, 300),
        "training": lambda: training_experiment(seed, 3, steps=6, with_sweep=False),
    }
    return runs[name]().as_json()


@pytest.mark.parametrize("name", ["scores", "saturation", "gradient", "training"])
def test_an_experiment_is_reproducible_for_a_seed_and_varies_across_seeds(name: str) -> None:
    first, again, other = small(name, 5), small(name, 5), small(name, 6)
    assert json.dumps(first) == json.dumps(again)
    assert first["measurements"] != other["measurements"]


@pytest.mark.parametrize("name", ["scores", "saturation", "gradient", "training"])
def test_the_json_has_exactly_the_contract_keys(name: str) -> None:
    data = small(name, 1)
    assert set(data) == {"experiment", "seed", "trials", "measurements"}
    for m in data["measurements"]:  # type: ignore[attr-defined]
        assert set(m) == {"name", "value", "ci95", "published"}
        lo, hi = m["ci95"]
        assert lo <= m["value"] <= hi


def test_the_measurement_names_are_the_issues() -> None:
    names = [m["name"] for m in small("scores", 0)["measurements"]]  # type: ignore[attr-defined]
    assert names == ["score_std_d4", "score_std_d64", "score_std_ratio"]
    names = [m["name"] for m in small("saturation", 0)["measurements"]]  # type: ignore[attr-defined]
    assert names == [
        "max_weight_unscaled",
        "entropy_unscaled",
        "max_weight_scaled",
        "entropy_scaled",
    ]
    names = [m["name"] for m in small("gradient", 0)["measurements"]]  # type: ignore[attr-defined]
    assert names == ["p_minus_y_norm", "gap_unscaled", "gap_scaled", "gap_ratio"]


def test_the_score_spread_is_root_d_k() -> None:
    r = scores_experiment(seed=11, trials=4000)
    for name, truth in (("score_std_d4", 2.0), ("score_std_d64", 8.0), ("score_std_ratio", 4.0)):
        m = r[name]
        assert abs(m.value - truth) <= K * m.se, (name, m)


def test_scaling_stops_saturation() -> None:
    r = saturation_experiment(seed=12, trials=400)
    uniform = math.log(64)
    assert r["max_weight_unscaled"].value > r["max_weight_scaled"].value + K * (
        r["max_weight_unscaled"].se + r["max_weight_scaled"].se
    )
    assert r["entropy_scaled"].value > r["entropy_unscaled"].value + 1.0
    assert 0 < r["entropy_unscaled"].value < r["entropy_scaled"].value < uniform
    assert 1 / 64 < r["max_weight_scaled"].value < r["max_weight_unscaled"].value < 1


def test_the_saturation_means_match_a_large_independent_run() -> None:
    # Two independent estimates differ by less than K·√(se₁² + se₂²).
    a, b = saturation_experiment(seed=13, trials=300), saturation_experiment(seed=14, trials=3000)
    for m in a.measurements:
        other = b[m.name]
        assert abs(m.value - other.value) <= K * math.hypot(m.se, other.se), m.name


@pytest.mark.parametrize("d_k", [1, 16, 256])
def test_drawing_the_scores_through_the_query_norm_gives_the_same_statistics(d_k: int) -> None:
    # The figure's sampler (‖q‖·z, ‖q‖² ~ χ²(d_k)) against q and the keys drawn
    # themselves: independent estimates of each mean within K·√(se₁² + se₂²).
    drawn = saturation_samples(np.random.default_rng(21), 1000, 64, d_k)
    by_norm = saturation_samples_by_norm(np.random.default_rng(22), 1000, 64, d_k)
    assert drawn.keys() == by_norm.keys()
    for name, x in drawn.items():
        y = by_norm[name]
        assert y.shape == x.shape
        se = math.hypot(x.std(ddof=1) / math.sqrt(len(x)), y.std(ddof=1) / math.sqrt(len(y)))
        assert abs(x.mean() - y.mean()) <= K * se, (name, d_k)


def test_the_gradient_norm_is_below_root_two_and_the_gaps_scale_by_eight() -> None:
    r = gradient_experiment(seed=15, trials=400)
    assert 1.0 < r["p_minus_y_norm"].value < math.sqrt(2)
    assert abs(r["gap_ratio"].value - 8.0) <= K * r["gap_ratio"].se
    qk = gradient_experiment(seed=15, trials=200, protocol="qk")
    assert qk["gap_ratio"].value == pytest.approx(8.0, rel=1e-12)
    assert qk["gap_ratio"].ci95 == (qk["gap_ratio"].value, qk["gap_ratio"].value)


def test_averaging_over_all_rows_lowers_the_norm() -> None:
    # Rows whose target is the argmax have a small ‖p − y‖; including them lowers the mean.
    wrong = gradient_experiment(seed=16, trials=400, protocol="wrong-rows")
    every = gradient_experiment(seed=16, trials=400, protocol="all-rows")
    assert every["p_minus_y_norm"].value <= wrong["p_minus_y_norm"].value


def test_the_published_figures_are_only_references() -> None:
    r = saturation_experiment(seed=0, trials=50)
    for m in r.measurements:
        assert m.published == PUBLISHED[m.name]
        assert m.value != m.published
    assert saturation_experiment(seed=0, trials=50, keys=32)["entropy_scaled"].published is None


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: scores_experiment(0, 1), "trials"),
        (lambda: scores_experiment(0, True), "integer"),
        (lambda: scores_experiment(-1, 100), "seed"),
        (lambda: saturation_experiment(0, 100, keys=1), "keys"),
        (lambda: gradient_experiment(0, 100, protocol="other"), "protocol"),
        (lambda: train(4, True, lr=-1.0), "learning rate"),
        (lambda: train(4, True, lr=float("nan")), "learning rate"),
        (lambda: train(4, True, lr=0.1, steps=0), "steps"),
    ],
)
def test_bad_parameters_are_refused(call: object, message: str) -> None:
    with pytest.raises(InvalidArgument, match=message):
        call()  # type: ignore[operator]


def test_check_trials_accepts_numpy_integers() -> None:
    assert check_trials(np.int64(10)) == 10


# ------------------------------------------------------------------- training


def test_training_is_reproducible_and_scaled_and_unscaled_share_the_task() -> None:
    a = train(4, True, 0.5, steps=3, runs=2, seed=7)
    b = train(4, True, 0.5, steps=3, runs=2, seed=7)
    np.testing.assert_array_equal(a.losses, b.losses)
    # Same embeddings and initial weights, scores not divided by √d: another loss.
    c = train(4, False, 0.5, steps=3, runs=2, seed=7)
    assert not np.array_equal(a.losses[:, 0], c.losses[:, 0])


def test_small_learning_rates_train_every_setting() -> None:
    for d in (4, 64):
        for scaled in (True, False):
            runs = train(d, scaled, 0.05, steps=10, runs=3, seed=2)
            assert not runs.diverged.any()
            assert np.all(runs.losses[:, -1] < runs.losses[:, 0])


def test_unscaled_d_k_64_blows_up_at_a_learning_rate_the_scaled_model_takes() -> None:
    unscaled = train(64, False, 1.0, steps=10, runs=3, seed=2)
    scaled = train(64, True, 1.0, steps=10, runs=3, seed=2)
    assert unscaled.diverged.all()
    assert not scaled.diverged.any()
    assert np.all(unscaled.divergence_steps >= 1)


def test_divergence_is_read_from_the_loss_curve() -> None:
    losses = np.array(
        [
            [3.0, 2.0, 1.0, 0.5],  # trains
            [3.0, 2.0, 4.0, 9.0],  # diverges at step 2
            [3.0, 5.0, 2.0, 1.0],  # a spike that recovers: not diverged
            [3.0, 50.0, BLOW_UP * 2, np.inf],  # blew up (stopped)
        ]
    )
    runs = Runs(4, False, 1.0, losses)
    assert runs.diverged.tolist() == [False, True, False, True]
    assert runs.divergence_steps.tolist() == [2.0, 1.0]
    assert runs.final.tolist() == [0.5, 9.0, 1.0, BLOW_UP * 2]


# ---------------------------------------------------------------- intervals


def test_the_interval_constructions_match_textbook_values() -> None:
    assert pytest.approx(1.959963985, abs=1e-9) == Z95
    w = proportion_measurement("p", 0, 20)
    assert w.ci95[0] == 0.0
    assert w.ci95[1] == pytest.approx(0.1611, abs=1e-4)  # Wilson, 0/20
    m = median_measurement("m", np.arange(20.0))
    assert m.ci95 == (5.0, 14.0)  # x₍₆₎..x₍₁₅₎, coverage 95.9%
    x = np.random.default_rng(0).standard_normal(100_000)
    s = std_measurement("s", x)
    assert s.se == pytest.approx(1 / math.sqrt(2 * x.size), rel=0.05)  # normal: σ/√(2N)
    a, b = mean_measurement("a", x + 10), mean_measurement("b", x + 5)
    r = ratio_measurement("r", a, b)
    assert r.ci95[0] < 2.0 < r.ci95[1]
