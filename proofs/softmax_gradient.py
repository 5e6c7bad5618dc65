"""Print and check the derivations of scaledattn.proofs.softmax_gradient (a thin runner)."""

from scaledattn.derive import run
from scaledattn.proofs.softmax_gradient import derivations

raise SystemExit(run(derivations))
