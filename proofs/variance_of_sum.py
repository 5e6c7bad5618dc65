"""Print and check the derivations of scaledattn.proofs.variance_of_sum (a thin runner)."""

from scaledattn.derive import run
from scaledattn.proofs.variance_of_sum import derivations

raise SystemExit(run(derivations))
