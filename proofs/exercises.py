"""Grade the lesson's exercises, then print and check their derivations (a thin runner).

The derivations are scaledattn.proofs.exercises; the grading against exact enumerations
(scaledattn.grading) sits above the proofs and is printed first.
"""

from scaledattn.grading import verdicts
from scaledattn.proofs.exercises import derivations
from scaledattn.render import run

for verdict in verdicts():
    print(f"Exercise {verdict.number}: {verdict.question}")
    print("\n".join("  " + line for line in verdict.witness))
    print()
raise SystemExit(run(derivations))
