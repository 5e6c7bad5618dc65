"""The automation that writes derivations for claims and proof files; the kernel checks them.

Untrusted: what it writes counts only once the kernel has checked it, step by step.
Claims (:mod:`scaledattn.claims`) and proof files (:mod:`scaledattn.prooffile`) both
use it, and import neither each other. Of the three automations that write
derivations, the rewriter here decides an arbitrary identity by a normal form; the
lesson's fixed routes for a setting are :mod:`scaledattn.moments.build` (the rewriter
cites them as lemmas), and a proof file's gaps are filled by
:mod:`scaledattn.prooffile.search` with the rewriter's chains.

- :mod:`~scaledattn.automation.rewrite`: each side rewritten by the kernel's rules and
  the proved lemmas to a normal form; the derivation ``lhs = … = rhs`` that decides an
  identity, and the chain of equivalences that decides ``A = a ⇔ c = r``;
- :mod:`~scaledattn.automation.counterexample`: concrete models of the assumptions on
  which the two sides of an identity differ, computed exactly;
- :mod:`~scaledattn.automation.consistency`: assumptions that no model satisfies;
- :mod:`~scaledattn.automation.theorems`: the registered theorems a claim cites by name,
  and the limits they prove (``lim(NAME)``).
"""
