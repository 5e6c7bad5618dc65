"""Without the torch extra, the tiny models' module is not collected (its doctests import torch).

The test modules themselves skip with pytest.importorskip.
"""

from __future__ import annotations

import importlib.util

HAS_EXTRA = all(importlib.util.find_spec(name) is not None for name in ("torch", "transformers"))
collect_ignore = [] if HAS_EXTRA else ["tiny_models.py"]
