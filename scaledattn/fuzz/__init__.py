"""The differential fuzzer: kernel rules against the exact semantics of their terms.

``python -m scaledattn.fuzz`` runs a campaign (see :mod:`scaledattn.fuzz.campaign`);
the test suite runs a short slice of it under Hypothesis (tests/fuzz).
"""
