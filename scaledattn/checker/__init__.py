"""A second, independent checker of the kernel's certificates (docs/trust.md).

Standard library only: it shares no code with the kernel and does not use SymPy. A
certificate (``scaledattn.certificate`` writes them) lists, for each step, the rule,
the claim and the rule's instances (a subterm and its replacement); the checker
checks each instance against its own schema of the rule, replaces it in the previous
claim and compares the result with the next claim in its own normal form.

>>> from scaledattn.checker import check_certificate
>>> cert = {"format": 1, "name": "t", "kind": "calc", "facts": [],
...         "lhs": ["add", ["num", "1"], ["num", "1"]], "rhs": ["num", "2"],
...         "steps": [{"rule": "ring", "claim": ["num", "2"], "forward": []}]}
>>> check_certificate(cert).ok
True
"""

from scaledattn.checker.steps import Refusal, Verdict, check_certificate

__all__ = ["Refusal", "Verdict", "check_certificate"]
