"""Print and check the derivations of scaledattn.proofs.variance_of_sum (a thin runner)."""

from scaledattn.proofs.variance_of_sum import derivations
from scaledattn.render import run

raise SystemExit(run(derivations))
