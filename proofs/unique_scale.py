"""Print and check the derivations of scaledattn.proofs.unique_scale (a thin runner)."""

from scaledattn.proofs.unique_scale import derivations
from scaledattn.render import run

raise SystemExit(run(derivations))
