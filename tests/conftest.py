"""Shared test set-up: Hypothesis profiles and a seeded numpy generator.

Profiles (choose with HYPOTHESIS_PROFILE, or pytest --hypothesis-profile):
- ``ci``: derandomized, no deadline, no example database; what .ci/run uses.
- ``dev``: the default off CI; random seeds, fewer examples.
- ``thorough``: many examples, run by hand.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# SymPy's run time varies a lot between examples, so no profile sets a deadline.
settings.register_profile(
    "ci",
    parent=settings.get_profile("ci"),  # Hypothesis' own CI profile, tightened below
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    max_examples=100,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=30)
settings.register_profile(
    "thorough", deadline=None, max_examples=2000, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.getenv("CI") else "dev"))


if os.environ.get("SCALEDATTN_FRESH_CACHES"):
    # Mutation testing (scripts/mutation.sh) forks every mutant's test run from a
    # process that has already run the tests once. Results cached there by object
    # identity or by setting (the audits of derivations, the Gaussian joint moments)
    # were computed by the unmutated code and would hide a mutant: start every test
    # without them. SymPy's own cache is kept: it is keyed by its inputs, which the
    # mutated code builds afresh, and no mutated function runs inside it.
    import pytest

    @pytest.fixture(autouse=True)
    def _fresh_caches() -> None:
        from scaledattn import derive
        from scaledattn.calculator import gaussian

        derive._AUDITS.clear()
        gaussian._joint_moments.cache_clear()
