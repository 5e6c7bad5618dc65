"""Print and check the derivations of scaledattn.proofs.projected_scores (a thin runner)."""

from scaledattn.proofs.projected_scores import derivations
from scaledattn.render import run

raise SystemExit(run(derivations))
