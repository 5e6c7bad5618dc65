"""Print and check the derivations of scaledattn.proofs.softmax_gradient (a thin runner)."""

from scaledattn.proofs.softmax_gradient import derivations
from scaledattn.render import run

raise SystemExit(run(derivations))
