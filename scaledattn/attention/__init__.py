"""Attention numerics: stable softmax and its gradients, the lesson's experiments, plots.

Imports numpy (and matplotlib only inside :mod:`scaledattn.attention.plots`).
"""

from scaledattn.attention.experiments import (
    GRADIENT_PROTOCOLS,
    PUBLISHED,
    ExperimentResult,
    gradient_experiment,
    saturation_experiment,
    scores_experiment,
)
from scaledattn.attention.softmax import (
    cross_entropy,
    cross_entropy_grad,
    entropy,
    log_softmax,
    mask_scores,
    one_hot,
    softmax,
    softmax_jacobian,
)
from scaledattn.attention.stats import Measurement
from scaledattn.attention.training import train, training_experiment

__all__ = [
    "GRADIENT_PROTOCOLS",
    "PUBLISHED",
    "ExperimentResult",
    "Measurement",
    "cross_entropy",
    "cross_entropy_grad",
    "entropy",
    "gradient_experiment",
    "log_softmax",
    "mask_scores",
    "one_hot",
    "saturation_experiment",
    "scores_experiment",
    "softmax",
    "softmax_jacobian",
    "train",
    "training_experiment",
]
