"""Check a claim: the claim language, the verifier, and the ledger of the source texts.

The derivations, counterexamples and consistency checks it asks for are written by
:mod:`scaledattn.automation`, which proof files use too.

- :mod:`~scaledattn.claims.syntax`: the claim language, read by the calculator's
  bounded parser (never ``eval``);
- :mod:`~scaledattn.claims.terms`: kernel terms and numbers from a syntax tree;
- :mod:`~scaledattn.claims.numbers`: interval arithmetic and digit tolerances;
- :mod:`~scaledattn.claims.statistics`: ``measured(…)``, the lesson's experiments re-run;
- :mod:`~scaledattn.claims.compare`: ``≈`` and inequalities on enclosed values;
- :mod:`~scaledattn.claims.verify`: :func:`verify`, the verdict and its evidence;
- :mod:`~scaledattn.claims.ledger`: every checkable claim of the source texts, as data;
- :mod:`~scaledattn.claims.report`: one claim's verdict as text;
- :mod:`~scaledattn.claims.ledger.report`: the ledger's table, its JSON and its docs page.
"""

from scaledattn.claims.outcome import Evidence, Result, Verdict
from scaledattn.claims.syntax import parse_assumption, parse_claim
from scaledattn.claims.verify import verify

__all__ = ["Evidence", "Result", "Verdict", "parse_assumption", "parse_claim", "verify"]
