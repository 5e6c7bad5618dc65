"""The kernel's tests see it as every program that checks derivations does.

The kernel leaves two things outside itself: its terms' plain strings
(:mod:`scaledattn.strings`) and the report of a refused step with the test that a
difference is non-zero (:mod:`scaledattn.explain`). :mod:`scaledattn.derive` installs
both when it is imported; a test that imports only the kernel installs them here.
"""

from scaledattn import explain, strings

strings.install()
explain.install()
