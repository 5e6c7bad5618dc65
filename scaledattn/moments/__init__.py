"""The moments of q·k for an attention setting: the setting, and derivations of them.

Untrusted automation that writes derivations for the kernel to check, shared by the
theorem modules (:mod:`scaledattn.proofs`), the calculator (:mod:`scaledattn.calculator`)
and the claim automation (:mod:`scaledattn.automation`). It imports only the kernel,
:mod:`scaledattn.derive`, the language's parser and SymPy.

- :mod:`~scaledattn.moments.setting`: an attention setting (d_k, the component moments
  of q and k, their correlation, heads), read and validated;
- :mod:`~scaledattn.moments.expansion`: the variance expansion of q·k, the chain every
  Var(q·k) derivation shares;
- :mod:`~scaledattn.moments.gaussian`: the joint moments of a correlated Gaussian pair;
- :mod:`~scaledattn.moments.build`: the derivations of E[q·k], Var(q·k) and the scale c
  for a setting.
"""
