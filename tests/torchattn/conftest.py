"""Nothing imports torch at collection: importing torch and transformers takes seconds,
and every xdist worker collects every test module.

The test modules skip themselves without the torch extra through a ``pytestmark``
(``importlib.util.find_spec``), not ``pytest.importorskip`` at import time; tiny_models.py
(no doctests; it imports torch and transformers) is never collected, only imported by the
tests that build its models.
"""

from __future__ import annotations

collect_ignore = ["tiny_models.py"]
