"""Print and check the derivations of scaledattn.proofs.shift_invariance (a thin runner)."""

from scaledattn.proofs.shift_invariance import derivations
from scaledattn.render import run

raise SystemExit(run(derivations))
