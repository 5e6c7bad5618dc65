"""A tampered theorem cache can cause a refusal, never a false VERIFIED: a kept
certificate is re-checked by the checker, and must be of the derivation's statement."""

from __future__ import annotations

import copy
import dataclasses

from scaledattn import cache
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
