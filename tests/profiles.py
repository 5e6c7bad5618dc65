"""Hypothesis profiles, and the properties whose examples the ``repeatable`` profile bounds.

Profiles:
- ``repeatable``: what ``python -m pytest`` runs, on every machine and whatever the
  environment says (``CI``, ``HYPOTHESIS_PROFILE``): derandomized examples, no deadline,
  no example database, so a run here is the run CI makes, and a pass stays a pass.
- ``dev``: random exploration, opt-in by name: ``python -m pytest --hypothesis-profile dev``
  (add ``--hypothesis-seed N`` to replay a seed); fewer examples, a database in
  ``.hypothesis/``.
- ``thorough``: many random examples, run by hand the same way.

A property whose every example is expensive (a derivation checked by the kernel and
an exact enumeration or a Monte Carlo run per example) is decorated with
:func:`bounded`: under ``repeatable`` it runs the number of examples in
:data:`REPEATABLE_BOUNDS`; under ``dev`` and ``thorough`` it keeps the profile's.
docs/statistics.md lists them (tests/test_statistics_doc.py keeps that list equal to
this one).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from hypothesis import HealthCheck, settings

# SymPy's run time varies a lot between examples, so no profile sets a deadline.
settings.register_profile(
    "repeatable",
    parent=settings.get_profile("default"),  # not Hypothesis' "ci": that one follows $CI
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    max_examples=100,
    suppress_health_check=[HealthCheck.too_slow],
)
# dev keeps Hypothesis' example database (.hypothesis/); it is safe to share between
# pytest-xdist's worker processes (each entry is a file written atomically).
settings.register_profile("dev", deadline=None, max_examples=30)
settings.register_profile(
    "thorough", deadline=None, max_examples=2000, suppress_health_check=[HealthCheck.too_slow]
)
# Loaded here, when the root conftest is imported: Hypothesis' own pytest plugin loads
# the profile named by --hypothesis-profile afterwards (in pytest_configure), so naming
# one is the only way to leave ``repeatable``. No environment variable is read.
settings.load_profile("repeatable")

#: Examples under the ``repeatable`` profile of each bounded property ("module.test": examples),
#: with the seconds one example takes on the reference machine in the comment.
REPEATABLE_BOUNDS: dict[str, int] = {
    # three kernel-checked answers (four derivations), each compared with the exact law of
    # q·k at the drawn d_k, or at every d_k from 1 to 4 for a symbolic answer (~0.16 s)
    "tests.calculator.test_witnesses.test_independent_closed_forms_match_exact_enumeration": 8,
    # the same for a correlated pair, moment-matched: two answers, d_k up to 3 (~0.08 s)
    "tests.calculator.test_witnesses."
    "test_correlated_closed_forms_match_exact_enumeration_of_a_moment_matched_pair": 15,
    # 20,000 Gaussian pairs and two kernel-checked answers for a correlated pair (~0.12 s)
    "tests.calculator.test_witnesses."
    "test_correlated_closed_forms_match_monte_carlo_of_gaussian_pairs": 12,
    # two claims decided by the verifier, each a derivation the kernel checks (~0.03 s)
    "tests.claims.test_verify.test_scaling_a_variable_multiplies_its_variance_by_the_square": 40,
    # about 2²⁰ random numbers drawn (3.5 million at d_k = 4096) and a row-wise dot (~0.011 s)
    "tests.numeric.test_properties.test_dot_product_variance_with_means_holds_by_monte_carlo": 40,
    # the same draws, and the exact law of q·k up to d_k = 256 for finite laws (~0.011 s)
    "tests.numeric.test_properties.test_the_score_of_centred_vectors_has_mean_zero": 40,
    # the same draws, and a closed form simplified by SymPy (~0.010 s)
    "tests.numeric.test_properties."
    "test_scaling_by_root_d_k_leaves_the_product_of_component_variances": 40,
    # the exact law of q·k up to d_k = 64 by Miller's recurrence on big integers (~0.008 s)
    "tests.numeric.test_properties.test_scaling_by_root_d_k_holds_exactly_for_finite_laws": 40,
    # the exact law of q·k with up to 20,000 lattice points, in big integers (~0.018 s)
    "tests.numeric.test_exact."
    "test_the_exact_variance_of_q_dot_k_equals_the_theorems_closed_form": 40,
}

Test = TypeVar("Test", bound=Callable[..., Any])


def profile_name() -> str:
    """The name of the Hypothesis profile in force."""
    return settings.get_current_profile_name()


def bounded(test: Test) -> Test:
    """Under the ``repeatable`` profile, run ``test`` for its :data:`REPEATABLE_BOUNDS` examples.

    Put it above ``@given``. Other profiles keep their own number of examples.
    """
    key = f"{test.__module__}.{test.__name__}"
    if key not in REPEATABLE_BOUNDS:
        raise KeyError(f"{key} is bounded but not listed in tests/profiles.py REPEATABLE_BOUNDS")
    if profile_name() == "repeatable":
        test = settings(max_examples=REPEATABLE_BOUNDS[key])(test)
    test.repeatable_examples = REPEATABLE_BOUNDS[key]  # type: ignore[attr-defined]
    return test
