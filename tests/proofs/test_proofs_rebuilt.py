"""Every proof module, executed again now, still verifies.

The registry's derivations are built once, when their modules are first imported;
running each module's code again inside the test builds every term, assumption and
automated derivation afresh (``ZeroMean``, ``Shift``, ``Lead``, the calculator's
exercises …), so a fault in how they are built cannot hide behind objects made earlier.
"""

from __future__ import annotations

import importlib
import runpy
from pathlib import Path

import pytest

from scaledattn import derive
from scaledattn.derive import audit_of

PROOFS = Path(__file__).resolve().parents[2] / "scaledattn" / "proofs"
MODULES = importlib.import_module("scaledattn.proofs").MODULES


@pytest.mark.parametrize("name", MODULES)
def test_a_proof_module_built_again_is_verified_step_by_step(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the kernel audits every rebuilt derivation: none takes the audit of an equal one
    monkeypatch.setattr(derive, "_BY_CONTENT", {})
    namespace = runpy.run_path(str(PROOFS / f"{name}.py"), run_name=f"rebuilt_{name}")
    derivations = namespace["derivations"]
    assert derivations
    for d in derivations:
        result = audit_of(d)
        assert result.verified, "\n".join(str(e) for e in result.errors)
