"""Attention numerics: stable softmax and its gradients, the lesson's experiments, plots.

Imports numpy (and matplotlib only inside :mod:`scaledattn.attention.plots`). The
experiments, statistics and training are loaded when one of their names is first used,
so that importing the softmax (all ``scaledattn softmax`` needs) does not import the
experiments and, through their statistics, SymPy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Loaded now (numpy only): the function softmax shares its name with its module, which
# would otherwise stand in for it here once some import loaded the module.
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

if TYPE_CHECKING:
    from scaledattn.attention.experiments import (
        GRADIENT_PROTOCOLS,
        PUBLISHED,
        ExperimentResult,
        gradient_experiment,
        saturation_experiment,
        scores_experiment,
    )
    from scaledattn.attention.stats import Measurement
    from scaledattn.attention.training import train, training_experiment

#: Each public name and the module it lives in.
_HOME = {
    **dict.fromkeys(
        (
            "GRADIENT_PROTOCOLS",
            "PUBLISHED",
            "ExperimentResult",
            "gradient_experiment",
            "saturation_experiment",
            "scores_experiment",
        ),
        "scaledattn.attention.experiments",
    ),
    "Measurement": "scaledattn.attention.stats",
    "train": "scaledattn.attention.training",
    "training_experiment": "scaledattn.attention.training",
}

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


def __getattr__(name: str) -> Any:
    """Load a public name from its module on first use (PEP 562)."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value
