"""The score q·k as a numeric witness: exact law or Monte Carlo, against a closed form.

:func:`witness_scores` measures the mean and variance of q·k for q, k with
independent components drawn from two catalogue distributions, either exactly
(finite laws: the convolution of :mod:`scaledattn.numeric.exact`) or by chunked
Monte Carlo (:mod:`scaledattn.numeric.montecarlo`), and compares the variance with
a closed form, normally the statement of the theorem
``dot_product_variance_with_means`` with the two laws' moments put in.

Examples
--------
>>> import sympy
>>> from scaledattn.numeric.distributions import distribution
>>> d_k, s_q, s_k, m_q, m_k = sympy.symbols("d_k sigma_q sigma_k mu_q mu_k")
>>> form = d_k * (s_q**2 * s_k**2 + s_q**2 * m_k**2 + m_q**2 * s_k**2)
>>> w = witness_scores(distribution("coin"), distribution("die"), 3, closed_form=form)
>>> w.variance, w.expected_variance, w.agrees
(Fraction(35, 4), 35/4, True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from scaledattn.errors import InvalidArgument
from scaledattn.numeric.distributions import Distribution
from scaledattn.numeric.exact import BinomialLaw, Combinations, ExactLaw, combinations, score_law
from scaledattn.numeric.montecarlo import Z95, Z_AGREE, Estimate, estimate_scores

__all__ = ["MAX_D_K", "ScoreWitness", "moment_values", "witness_scores"]

#: The largest d_k a witness accepts (memory of one Monte Carlo row grows with d_k).
MAX_D_K = 1 << 20


def moment_values(q: Distribution, k: Distribution, d: int) -> dict[str, Any]:
    """Values for the symbols of the closed forms, by name: d_k, σ_q, σ_k, μ_q, μ_k."""
    for dist in (q, k):
        dist.require_variance()
    return {
        "d_k": sympy.Integer(d),
        "sigma_q": sympy.sqrt(q.variance()),
        "sigma_k": sympy.sqrt(k.variance()),
        "mu_q": q.mean(),
        "mu_k": k.mean(),
    }


def evaluate_closed_form(form: Any, values: dict[str, Any]) -> Any:
    """``form`` with each symbol replaced by the value of the same name."""
    form = sympy.sympify(form)
    missing = sorted(s.name for s in form.free_symbols if s.name not in values)
    if missing:
        raise InvalidArgument(f"no value for {', '.join(missing)} in the closed form {form}")
    return sympy.expand(form.xreplace({s: values[s.name] for s in form.free_symbols}))


@dataclass(frozen=True)
class ScoreWitness:
    """The measured mean and variance of q·k, the closed form's value, and the verdict."""

    q: Distribution
    k: Distribution
    d: int
    method: str
    mean: Fraction | float
    variance: Fraction | float
    expected_variance: Any
    agrees: bool
    law: ExactLaw | None = None
    estimate: Estimate | None = None
    listing: Combinations | None = None

    @property
    def trusted(self) -> bool:
        """False when a Monte Carlo interval has no justification (no fourth moment)."""
        return self.estimate is None or self.estimate.trusted

    def as_json(self) -> dict[str, Any]:
        """The JSON contract: mean, variance, ci95 (Monte Carlo), expected_variance, agrees."""
        out: dict[str, Any] = {
            "distribution": self.q.spec,
            "k_distribution": self.k.spec,
            "d_k": self.d,
            "method": self.method,
        }
        if self.law is not None:
            out["mean"] = str(self.mean)
            out["variance"] = str(self.variance)
            out["support_size"] = self.law.support_size
            if isinstance(self.law, BinomialLaw):
                out["law"] = self.law.closed_form("q·k")
        if self.estimate is not None:
            est = self.estimate
            out.update(
                mean=est.mean,
                variance=est.variance,
                ci95=list(est.interval(Z95)),
                mean_ci95=list(est.mean_interval(Z95)),
                samples=est.n,
                seed=est.seed,
                agreement_interval=list(est.interval(Z_AGREE)),
                agreement_z=Z_AGREE,
                trusted=est.trusted,
            )
            if est.warning:
                out["warning"] = est.warning
        out["expected_variance"] = sympy.sstr(self.expected_variance)
        out["agrees"] = self.agrees
        if self.listing is not None:
            out["combinations"] = [
                {
                    "products": [str(v) for v in row.products],
                    "score": str(row.score),
                    "probability": str(row.probability),
                }
                for row in self.listing.rows
            ]
        return out


def witness_scores(
    q: Distribution,
    k: Distribution,
    d: int,
    *,
    closed_form: Any,
    samples: int | None = None,
    seed: int = 0,
    listing: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> ScoreWitness:
    """Measure q·k exactly (``samples=None``) or by Monte Carlo and compare the variance.

    Raises InvalidArgument for d < 1, a law without variance, an exact request on
    a non-finite law, or a bad seed.
    """
    if not 1 <= d <= MAX_D_K:
        raise InvalidArgument(f"--d-k must be between 1 and {MAX_D_K}, got {d}")
    if seed < 0:
        raise InvalidArgument(f"--seed must be a non-negative integer, got {seed}")
    expected = evaluate_closed_form(closed_form, moment_values(q, k, d))
    if samples is None:
        law = score_law(q, k, d)
        mean, variance = law.mean(), law.variance()
        agrees = bool(sympy.Rational(variance.numerator, variance.denominator) == expected)
        shown = combinations(q, k, d) if listing else None
        return ScoreWitness(q, k, d, "exact", mean, variance, expected, agrees, law, None, shown)
    if listing:
        raise InvalidArgument("--list needs --exact (it lists the exact combinations)")
    est = estimate_scores(q, k, d, samples, seed, progress)
    agrees = est.agrees(float(expected))
    return ScoreWitness(q, k, d, "monte-carlo", est.mean, est.variance, expected, agrees, None, est)
