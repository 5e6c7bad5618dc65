"""A cold check does the kernel's work first, and runs with the collector less busy.

Neither changes what is computed: ``checked_all`` gives what ``checked`` gives pair by
pair, and the collector's settings are restored after a command.
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest

from scaledattn import cache, derive
from scaledattn.cli.collect import YOUNG, fewer_collections
from scaledattn.registry import theorem_modules


@pytest.fixture
def unique_scale_pairs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, Any]]:
    """The (module, derivation) pairs of unique_scale, with nothing computed or kept yet."""
    monkeypatch.setenv("SCALEDATTN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_CHECKED", {})
    monkeypatch.setattr(cache, "_WITNESSES", {})
    monkeypatch.setattr(cache, "_STORE", [])
    (module,) = (m for m in theorem_modules() if m.name == "unique_scale")
    return [(module, d) for d in module.derivations]


def test_every_audit_comes_before_any_witness_and_the_result_is_checked_pair_by_pair(
    unique_scale_pairs: list[tuple[Any, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[tuple[str, str]] = []
    audit_of, witness_of = derive.audit_of, cache.witness_of

    def audited(d: Any) -> Any:
        events.append(("audit", d.name))
        return audit_of(d)

    def witnessed(m: Any, d: Any) -> Any:
        events.append(("witness", d.name))
        return witness_of(m, d)

    monkeypatch.setattr(derive, "audit_of", audited)
    monkeypatch.setattr(cache, "witness_of", witnessed)
    found = cache.checked_all(unique_scale_pairs)
    names = [d.name for _, d in unique_scale_pairs]
    first_witness = [kind for kind, _ in events].index("witness")
    # every derivation (and what it cites) audited before the first witness; later
    # audit_of calls, from the lines' computation, find the audit made then
    assert set(names) <= {name for _, name in events[:first_witness]}
    assert {kind for kind, _ in events[:first_witness]} == {"audit"}
    assert {name for kind, name in events if kind == "witness"} == set(names)
    assert found == [cache.checked(m, d) for m, d in unique_scale_pairs]
    assert all(c.verified and c.agrees for c in found)


def test_a_kept_record_is_not_audited_again(
    unique_scale_pairs: list[tuple[Any, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    cold = cache.checked_all(unique_scale_pairs)
    monkeypatch.setattr(cache, "_CHECKED", {})

    def no_kernel(*args: Any) -> Any:
        raise AssertionError("the kernel ran for a kept record")

    monkeypatch.setattr(derive, "audit_of", no_kernel)
    monkeypatch.setattr(cache, "witness_of", no_kernel)
    assert cache.checked_all(unique_scale_pairs) == cold


def test_the_collector_is_less_busy_during_a_command_and_restored_after_it() -> None:
    threshold = gc.get_threshold()
    gc.unfreeze()
    with fewer_collections():
        assert gc.get_threshold()[0] >= YOUNG
        assert gc.get_threshold()[1:] == threshold[1:]
        frozen = gc.get_freeze_count()
        assert frozen > 0
        with fewer_collections():  # a command run by a command: the outer one unfreezes
            pass
        assert gc.get_freeze_count() >= frozen
        assert gc.get_threshold()[0] >= YOUNG
    assert (gc.get_threshold(), gc.get_freeze_count()) == (threshold, 0)
    with pytest.raises(KeyError), fewer_collections():
        raise KeyError("a command that fails")
    assert (gc.get_threshold(), gc.get_freeze_count()) == (threshold, 0)


def test_the_last_command_of_a_process_leaves_everything_frozen_for_the_shutdown() -> None:
    threshold = gc.get_threshold()
    gc.unfreeze()
    try:
        with fewer_collections(last=True):
            made = [object()]
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == threshold
        assert made
    finally:
        gc.unfreeze()
