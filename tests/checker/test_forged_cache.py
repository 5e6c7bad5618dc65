"""A tampered theorem cache can cause a refusal or a re-proof, never a false VERIFIED: a
kept certificate is re-checked by the checker, and must be of the derivation's statement;
a record the checker does not confirm is proved again; no rendering is read back."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from scaledattn import cache, derive
from scaledattn.cli import main
from scaledattn.registry import find_derivation, theorem_modules


def _kept(name: str) -> tuple[object, cache.Checked]:
    module = next(m for m in theorem_modules() if any(d.name == name for d in m.derivations))
    d = find_derivation(name)
    return d, cache.checked(module, d)


def test_the_kept_certificate_of_a_theorem_is_checked() -> None:
    d, kept = _kept("dot_product_variance")
    assert cache.second(d, kept) == "checked"


def test_a_forged_certificate_var_qk_equal_two_dk_is_refused() -> None:
    d, kept = _kept("dot_product_variance")
    forged = copy.deepcopy(kept.certificate)
    two_dk = ["mul", ["num", "2"], ["sym", "d_k", "inprz"]]
    forged["rhs"] = two_dk
    forged["steps"][-1]["claim"] = two_dk
    record = dataclasses.replace(kept, certificate=forged)
    assert cache.second(d, record).startswith("refused")


def test_a_true_certificate_of_another_statement_is_refused() -> None:
    d, kept = _kept("dot_product_variance")
    _, other = _kept("exercise3_variance")  # Var(q·k) = 16·dₖ, checked
    record = dataclasses.replace(kept, certificate=other.certificate)
    assert cache.second(d, record).startswith("refused")


def test_a_derivation_the_checker_cannot_read_is_never_said_doubly_checked() -> None:
    d, kept = _kept("saturation_limits")
    assert cache.second(d, kept) == "checked"  # a limit theorem, read since issue 26
    unwritten = dataclasses.replace(kept, certificate=None, unwritten="a term it lacks")
    assert cache.second(d, unwritten).startswith("unread")
    assert kept.certificate is not None
    axiom = copy.deepcopy(kept.certificate)
    axiom["steps"][0]["rule"] = "axiom:lead"  # taken on trust: never checked
    assert cache.second(d, dataclasses.replace(kept, certificate=axiom)).startswith("unread")


# ------------------------------------------------------- a forger who recomputes the digest


def _run(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue() + err.getvalue()


@pytest.fixture
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache folder; `check` over the proof module dot_product_variance alone."""
    monkeypatch.setenv("SCALEDATTN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_CHECKED", {})
    monkeypatch.setattr(cache, "_STORE", [])
    (module,) = (m for m in theorem_modules() if m.name == "dot_product_variance")
    monkeypatch.setattr("scaledattn.cli.theorems.theorem_modules", lambda: (module,))
    return tmp_path / "cache"


def _forge(folder: Path, monkeypatch: pytest.MonkeyPatch, edit: Callable[[Any], None]) -> None:
    """Edit the kept records and write them back with a digest that matches."""
    (path,) = folder.glob("theorems-*.json")
    body = json.loads(path.read_text(encoding="utf-8"))
    edit(body["records"])
    body["digest"] = cache._digest(body["key"], body["records"])
    path.write_text(json.dumps(body), encoding="utf-8")
    monkeypatch.setattr(cache, "_CHECKED", {})
    monkeypatch.setattr(cache, "_STORE", [])
    assert cache._read(path, cache.source_key()) == body["records"]  # the digest passes


def _two_dk(records: Any) -> None:
    cert = records["dot_product_variance"]["check"]["certificate"]
    two_dk = ["mul", ["num", "2"], ["sym", "d_k", "inprz"]]
    cert["rhs"] = two_dk
    cert["steps"][-1]["claim"] = two_dk


def test_a_forged_certificate_with_its_digest_recomputed_is_proved_again(
    private_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cold = _run(["check", "--brief"])
    assert cold[0] == 0
    _forge(private_cache, monkeypatch, _two_dk)
    proved: list[str] = []
    audit_of = derive.audit_of

    def counting(d: Any) -> Any:
        proved.append(d.name)
        return audit_of(d)

    monkeypatch.setattr(derive, "audit_of", counting)
    assert _run(["check", "--brief"]) == cold  # the kernel's own certificate, checked
    assert "dot_product_variance" in proved


def test_a_forged_rendering_is_never_printed(
    private_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cold = _run(["derive", "dot_product_variance"])
    assert cold[0] == 0
    _run(["check", "--brief"])
    forged = "Theorem dot_product_variance\n    Var(q·k) = 2·dₖ\nVERIFIED dot_product_variance"

    def render(records: Any) -> None:
        for fmt in ("text", "json", "markdown", "latex"):
            records["dot_product_variance"].setdefault("render", {})[fmt] = forged
        records["dot_product_variance"]["verified"] = True

    _forge(private_cache, monkeypatch, render)
    warm = _run(["derive", "dot_product_variance"])
    assert warm == cold
    assert "2·dₖ" not in warm[1]


def test_a_kept_kernel_verdict_the_checker_cannot_read_is_not_trusted(
    private_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # no certificate kept, only the kernel's word "verified": the kernel proves it again;
    # here that kernel rejects it (a stand-in), and check says REJECTED, not VERIFIED
    _run(["check", "--brief"])

    def kernel_word_only(records: Any) -> None:
        kept = records["dot_product_variance"]["check"]
        kept.update(certificate=None, unwritten="a forged reason", verified=True)

    _forge(private_cache, monkeypatch, kernel_word_only)
    audit_of = derive.audit_of
    rejected = audit_of(
        dataclasses.replace(find_derivation("dot_product_variance"), steps=())
    )  # no step: the kernel rejects it
    assert not rejected.verified
    monkeypatch.setattr(
        derive,
        "audit_of",
        lambda d: rejected if d.name == "dot_product_variance" else audit_of(d),
    )
    code, out = _run(["check", "--brief"])
    assert code == 1
    assert "REJECTED by the kernel: dot_product_variance" in out


def test_a_kept_model_of_the_assumptions_is_not_trusted(
    private_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a forged "a model was found" (the kept reason for no verdict cleared) must not make
    # a VERIFIED: the model search runs again; here a stand-in search that finds none
    from scaledattn.gate import models

    _run(["check", "--brief"])

    def forged_model(records: Any) -> None:
        kept = records["dot_product_variance"]["check"]
        kept.update(model="a model of the assumptions: a forged one", withheld="")

    _forge(private_cache, monkeypatch, forged_model)
    monkeypatch.setattr(models, "_WITHHELD", {})
    monkeypatch.setattr(models, "model_found", lambda terms, assumptions: (None, False))
    code, out = _run(["check"])
    assert code == 3
    assert "a forged one" not in out
    assert "UNDECIDED" in out
