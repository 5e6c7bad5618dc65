"""CPU time of the checker re-checking every built-in theorem's certificate.

    python benchmarks/checker.py

The kernel audits every derivation and the certificates are written first (not
timed); then the checker, with its normal-form memo emptied, checks them all, and the
CPU time of that (time.process_time) is printed with how many it accepted. The goal
of issue 26: at most 0.5 s.
"""

from __future__ import annotations

import time

from scaledattn.certificate import certificate
from scaledattn.checker import check_certificate, normal, steps
from scaledattn.derive import audit_of
from scaledattn.errors import CannotCertify
from scaledattn.registry import theorem_modules


def main() -> None:
    """Print the checker's CPU time over every built-in theorem."""
    certs, unwritten = [], []
    for m in theorem_modules():
        for d in m.derivations:
            try:
                certs.append(certificate(audit_of(d)))
            except CannotCertify:
                unwritten.append(d.name)
    normal._NF.clear()
    normal._KEYS.clear()
    steps._DONE.clear()
    start = time.process_time()
    verdicts = [check_certificate(c) for c in certs]
    spent = time.process_time() - start
    accepted = sum(v.ok for v in verdicts)
    print(f"checker: {accepted} of {len(certs)} certificates accepted in {spent:.3f} s CPU")
    print(f"not written (terms the checker's language lacks): {len(unwritten)}")


if __name__ == "__main__":
    main()
