"""Print and check the derivations of scaledattn.proofs.saturation_limits (a thin runner)."""

from scaledattn.derive import run
from scaledattn.proofs.saturation_limits import derivations

raise SystemExit(run(derivations))
