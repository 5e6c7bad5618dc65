"""Print and check the derivations of scaledattn.proofs.dot_product_variance (a thin runner)."""

from scaledattn.proofs.dot_product_variance import derivations
from scaledattn.render import run

raise SystemExit(run(derivations))
