"""The theorems of scaledattn, one module per theorem (installed as scaledattn.proofs).

Each module defines its derivations and lists them in ``derivations`` (the main
one first, named like the module); ``python proofs/NAME.py`` prints and checks them.
"""

#: The theorem modules, in the order the argument is told.
MODULES: tuple[str, ...] = (
    "variance_of_sum",
    "dot_product_variance",
    "projected_scores",
    "unique_scale",
    "shift_invariance",
    "softmax_gradient",
    "saturation_limits",
    "exercises",
)
