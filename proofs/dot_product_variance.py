"""Print and check the derivations of scaledattn.proofs.dot_product_variance (a thin runner)."""

from scaledattn.derive import run
from scaledattn.proofs.dot_product_variance import derivations

raise SystemExit(run(derivations))
