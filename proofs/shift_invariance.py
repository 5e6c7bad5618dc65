"""Print and check the derivations of scaledattn.proofs.shift_invariance (a thin runner)."""

from scaledattn.derive import run
from scaledattn.proofs.shift_invariance import derivations

raise SystemExit(run(derivations))
