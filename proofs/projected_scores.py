"""Print and check the derivations of scaledattn.proofs.projected_scores (a thin runner)."""

from scaledattn.derive import run
from scaledattn.proofs.projected_scores import derivations

raise SystemExit(run(derivations))
