"""Statistical claims: ``measured(NAME)`` re-runs the lesson's experiment that measures NAME.

A published figure such as "P2: max weight 0.787" is itself an estimate, from the
number of trials the lesson states (000, §6: 20000 for P1, 2000 for P2, 500 for
P3). Its standard error is taken to be the re-run's, scaled to that number of
trials, so the two estimates differ by a combined standard error
seᶜ = √(se² + se·√(n/n_pub)²). The written digits add their own half unit h. With
z = max(0, |value − published| − h) / seᶜ:

- CONSISTENT when z ≤ 1.96: the figure is consistent with the re-run at 95% (a test
  that did not reject, shown with its p-value and interval: not a proof);
- REFUTED when z > 4.89: a true figure is called wrong with probability below
  10⁻⁶ (normal approximation, the same level as the Monte Carlo witnesses);
- UNDECIDED in between, with z and its two-sided p-value.

Inside arithmetic or an inequality (``measured(a) / measured(b) < 2``) a
measurement stands for its interval value ± 4.89·se, and a relation is decided
only when it holds, or fails, on the whole interval.

Experiments run once per process for a given seed and size (cached).

Examples
--------
>>> experiment_of("gap_ratio")
'gradient'
>>> z_score(0.5, 0.01, 0.52, Fraction(1, 200), 1000, 1000) < 1.96
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from functools import cache
from statistics import NormalDist

from scaledattn.attention.dynamics import OPTIMISERS, dynamics_experiment
from scaledattn.attention.experiments import (
    ExperimentResult,
    gradient_experiment,
    saturation_experiment,
    scores_experiment,
)
from scaledattn.attention.stats import Measurement
from scaledattn.attention.training import SETTINGS, setting_name, training_experiment
from scaledattn.errors import InvalidArgument
from scaledattn.language.surface import closest
from scaledattn.numeric.montecarlo import Z95, Z_AGREE

__all__ = [
    "EXPERIMENTS",
    "LESSON_TRIALS",
    "MEASUREMENTS",
    "Z_REFUTE",
    "experiment_of",
    "measurement",
    "p_value",
    "run",
    "standard_error",
    "z_score",
]

#: Beyond this many combined standard errors a figure is refuted (false alarm 1e-6).
Z_REFUTE = Z_AGREE
#: Each experiment, its label in the lesson, and the number of trials the lesson used.
EXPERIMENTS: dict[str, tuple[str, int | None]] = {
    "scores": ("P1", 20000),
    "saturation": ("P2", 2000),
    "gradient": ("P3", 500),
    "training": ("§0 training", None),
    "dynamics": ("§4 one update", None),
}
#: The trials each experiment runs with by default (the lesson's; 20 runs for training).
LESSON_TRIALS: dict[str, int] = {
    "scores": 20000,
    "saturation": 2000,
    "gradient": 500,
    "training": 20,
    "dynamics": 400,
}

_TRAINING = tuple(
    f"{what}_{setting_name(d, scaled)}"
    for d, scaled in SETTINGS
    for what in ("diverged", "divergence_step", "final_loss")
)
_DYNAMICS = (
    *(
        f"{what}_{opt}_{scaled}"
        for opt in OPTIMISERS
        for scaled in ("scaled", "unscaled")
        for what in ("step_lr", "step_gap")
    ),
    *(f"{what}_{opt}" for opt in OPTIMISERS for what in ("step_ratio", "step_gap_ratio")),
    *(f"{what}_{sc}" for sc in ("scaled", "unscaled") for what in ("grad_norm", "jacobian_norm")),
    "grad_norm_ratio",
    "jacobian_norm_ratio",
)
#: measurement name → experiment.
MEASUREMENTS: dict[str, str] = {
    **dict.fromkeys(("score_std_d4", "score_std_d64", "score_std_ratio"), "scores"),
    **dict.fromkeys(
        ("max_weight_unscaled", "entropy_unscaled", "max_weight_scaled", "entropy_scaled"),
        "saturation",
    ),
    **dict.fromkeys(("p_minus_y_norm", "gap_unscaled", "gap_scaled", "gap_ratio"), "gradient"),
    **dict.fromkeys(_TRAINING, "training"),
    **dict.fromkeys(_DYNAMICS, "dynamics"),
}


def experiment_of(name: str) -> str:
    """The experiment that measures ``name``; InvalidArgument listing the names if unknown."""
    if name not in MEASUREMENTS:
        known = ", ".join(MEASUREMENTS)
        better = closest(name, list(MEASUREMENTS))
        hint = f"did you mean {better!r}? " if better else ""
        raise InvalidArgument(f"unknown measurement {name!r}; {hint}known: {known}")
    return MEASUREMENTS[name]


@cache
def run(experiment: str, seed: int, trials: int) -> ExperimentResult:
    """One experiment at a seed and size (the training runs without the learning-rate sweep)."""
    if experiment == "scores":
        return scores_experiment(seed=seed, trials=trials)
    if experiment == "saturation":
        return saturation_experiment(seed=seed, trials=trials)
    if experiment == "gradient":
        return gradient_experiment(seed=seed, trials=trials)
    if experiment == "dynamics":
        return dynamics_experiment(seed=seed, trials=trials)
    return training_experiment(seed=seed, trials=trials, with_sweep=False)


def measurement(
    name: str, seed: int = 0, trials: Mapping[str, int] | None = None
) -> tuple[Measurement, ExperimentResult]:
    """The measurement ``name`` from its experiment, and the experiment's result."""
    experiment = experiment_of(name)
    size = (trials or {}).get(experiment, LESSON_TRIALS[experiment])
    result = run(experiment, seed, size)
    try:
        return result[name], result
    except KeyError:
        raise InvalidArgument(
            f"the {experiment} experiment has no measurement {name} at this seed and size"
            " (no run diverged?)"
        ) from None


def standard_error(m: Measurement) -> float:
    """The measurement's standard error, or its 95% half-width over 1.96 when it has none."""
    if math.isfinite(m.se) and m.se > 0:
        return m.se
    return (m.ci95[1] - m.ci95[0]) / (2 * Z95)


def z_score(
    value: float,
    se: float,
    published: float,
    half: Fraction,
    trials: int,
    published_trials: int | None,
) -> float:
    """How many combined standard errors the published figure lies beyond its own rounding."""
    excess = max(0.0, abs(value - published) - float(half))
    se_published = se * math.sqrt(trials / published_trials) if published_trials else 0.0
    combined = math.hypot(se, se_published)
    if combined == 0:
        return 0.0 if excess == 0 else math.inf
    return excess / combined


def p_value(z: float) -> float:
    """The two-sided normal p-value of z."""
    return 2 * (1 - NormalDist().cdf(z))
