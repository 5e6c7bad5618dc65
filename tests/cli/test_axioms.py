"""``scaledattn check`` and ``derive`` tell a theorem verified modulo an axiom apart (exit 4)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from scaledattn.cli import main
from scaledattn.cli.exits import EXIT_MODULO_AXIOM
from scaledattn.derive import calc
from scaledattn.kernel import E, Var, axiom, random_variables
from scaledattn.registry import TheoremModule

(X,) = random_variables("X")
# A true law taken on trust: the kernel does not check it, the numbers still do.
ASSUMED = axiom("variance_assumed", Var(X), E(X**2) - E(X) ** 2)
RESTS = calc("rests_on_an_axiom", Var(X), E(X**2) - E(X) ** 2).eq(E(X**2) - E(X) ** 2, by=ASSUMED)


def _only(monkeypatch: pytest.MonkeyPatch) -> None:
    module = SimpleNamespace(evidence=lambda: {"rests_on_an_axiom": ({"X": "die"},)})
    fake = TheoremModule("assumed", "an axiom", (RESTS.qed(),), module)  # type: ignore[arg-type]
    monkeypatch.setattr("scaledattn.cli.theorems.theorem_modules", lambda: (fake,))
    monkeypatch.setattr("scaledattn.registry.theorem_modules", lambda: (fake,))


def test_check_says_verified_modulo_axiom_and_exits_4(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _only(monkeypatch)
    assert EXIT_MODULO_AXIOM == 4
    assert main(["check", "--brief"]) == EXIT_MODULO_AXIOM
    out = capsys.readouterr().out
    assert "rests_on_an_axiom: verified modulo axiom variance_assumed" in out
    assert main(["check", "--json"]) == EXIT_MODULO_AXIOM
    data = json.loads(capsys.readouterr().out)
    assert data["modulo_axioms"] is True
    assert data["theorems"][0]["axioms"] == ["variance_assumed"]


def test_derive_says_verified_modulo_axiom_and_exits_4(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _only(monkeypatch)
    assert main(["derive", "rests_on_an_axiom"]) == EXIT_MODULO_AXIOM
    assert "verified modulo axiom variance_assumed" in capsys.readouterr().out
