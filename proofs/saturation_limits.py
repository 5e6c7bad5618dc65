"""Print and check the derivations of scaledattn.proofs.saturation_limits (a thin runner)."""

from scaledattn.proofs.saturation_limits import derivations
from scaledattn.render import run

raise SystemExit(run(derivations))
