"""Print and check the derivations of scaledattn.proofs.unique_scale (a thin runner)."""

from scaledattn.derive import run
from scaledattn.proofs.unique_scale import derivations

raise SystemExit(run(derivations))
