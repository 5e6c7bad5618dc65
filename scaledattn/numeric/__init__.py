"""Numbers as the second witness: distributions, exact laws, Monte Carlo, step evaluation.

- :mod:`~scaledattn.numeric.distributions`: the catalogue (symbolic moments, seeded
  samplers, exact pmfs) and :func:`distribution`, which reads a spec.
- :mod:`~scaledattn.numeric.exact`: the exact law of q·k by convolution.
- :mod:`~scaledattn.numeric.montecarlo`: chunked Monte Carlo with streaming moments.
- :mod:`~scaledattn.numeric.witness`: the mean and variance of q·k against a closed form.
- :mod:`~scaledattn.numeric.model`, :mod:`~scaledattn.numeric.evaluate`,
  :mod:`~scaledattn.numeric.evidence`: concrete models of a derivation's assumptions,
  and the evaluation of every step of a derivation on them (the evidence, reported in
  the types of :mod:`~scaledattn.numeric.checks`).
- :mod:`~scaledattn.numeric.scores`, :mod:`~scaledattn.numeric.calculus`,
  :mod:`~scaledattn.numeric.enclosure`, :mod:`~scaledattn.numeric.calculus_evidence`:
  the same for the softmax calculus: concrete scores and indices, values of softmax,
  derivatives (``sympy.diff`` of the written-out expression) and limits (samples along
  λ → ∞) as rigorous interval enclosures.

Nothing here can make a Theorem: numbers are evidence, shown as such.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scaledattn.numeric.distributions import CATALOGUE, Distribution, distribution
    from scaledattn.numeric.exact import combinations, score_law
    from scaledattn.numeric.montecarlo import Estimate, RunningMoments, estimate_scores
    from scaledattn.numeric.witness import ScoreWitness, witness_scores

#: Where each name below lives; imported on first use (PEP 562), so that importing
#: one submodule (the proofs read the coin's moments) does not load numpy.
_HOME = {
    "CATALOGUE": "distributions",
    "Distribution": "distributions",
    "distribution": "distributions",
    "combinations": "exact",
    "score_law": "exact",
    "Estimate": "montecarlo",
    "RunningMoments": "montecarlo",
    "estimate_scores": "montecarlo",
    "ScoreWitness": "witness",
    "witness_scores": "witness",
}

__all__ = [
    "CATALOGUE",
    "Distribution",
    "Estimate",
    "RunningMoments",
    "ScoreWitness",
    "combinations",
    "distribution",
    "estimate_scores",
    "score_law",
    "witness_scores",
]


def __getattr__(name: str) -> Any:
    """The names of ``__all__``, from their submodules."""
    if name in _HOME:
        return getattr(importlib.import_module(f"scaledattn.numeric.{_HOME[name]}"), name)
    raise AttributeError(f"module 'scaledattn.numeric' has no attribute {name!r}")
