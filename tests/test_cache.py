"""The theorem cache: warm runs print what cold runs print, and nothing stale is trusted."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import sympy

from scaledattn import cache
from scaledattn.cli import main
from scaledattn.registry import find_derivation, theorem_modules


def _run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    return code, out.getvalue()


@pytest.fixture
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache folder, and no verdict remembered in this process."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("SCALEDATTN_CACHE_DIR", str(folder))
    monkeypatch.setattr(cache, "_CHECKED", {})
    monkeypatch.setattr(cache, "_STORE", [])
    return folder


@pytest.fixture
def one_module(monkeypatch: pytest.MonkeyPatch) -> tuple[Any, ...]:
    """`check` over the proof module unique_scale only (the rebuilds below stay quick)."""
    (module,) = (m for m in theorem_modules() if m.name == "unique_scale")
    monkeypatch.setattr("scaledattn.cli.theorems.theorem_modules", lambda: (module,))
    return (module,)


def _count_kernel_runs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record each derivation whose verdict is computed (not read from the cache)."""
    computed: list[str] = []
    compute: Callable[[Any, Any], cache.Checked] = cache._compute

    def counting(module: Any, derivation: Any) -> cache.Checked:
        computed.append(derivation.name)
        return compute(module, derivation)

    monkeypatch.setattr(cache, "_compute", counting)
    return computed


def _the_file(folder: Path) -> Path:
    (path,) = folder.glob("theorems-*.json")
    return path


def _forget_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "_CHECKED", {})
    monkeypatch.setattr(cache, "_STORE", [])


def test_a_warm_check_prints_what_a_cold_one_prints_without_the_kernel(
    private_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    computed = _count_kernel_runs(monkeypatch)
    cold = [_run(["check"]), _run(["check", "--json"])]
    assert len(computed) == sum(len(m.derivations) for m in theorem_modules())
    _forget_in_process(monkeypatch)
    kept = cache.Store.load().records
    # a certificate the checker cannot read yet: the kernel's verdict is not read from the cache
    unread = {
        name
        for name, r in kept.items()
        if cache.second(find_derivation(name), cache.Checked.from_record(r["check"])) != "checked"
    }
    audited: list[str] = []
    audit_of = cache_audit_of()

    def only_the_unread(d: Any) -> Any:
        audited.append(d.name)
        assert d.name in unread, f"a warm check ran the kernel on {d.name}"
        return audit_of(d)

    def no_kernel(*args: Any) -> Any:
        raise AssertionError("a warm check ran the kernel")

    monkeypatch.setattr(cache, "_compute", no_kernel)
    monkeypatch.setattr("scaledattn.derive.audit_of", only_the_unread)
    warm = _run(["check"])
    assert warm == cold[0]
    assert set(audited) == unread
    monkeypatch.undo()  # check --json renders every audit: the kernel runs for it
    assert _run(["check", "--json"]) == cold[1]
    assert cold[0][0] == 0
    assert json.loads(cold[1][1])["verified"] is True


def cache_audit_of() -> Callable[[Any], Any]:
    """The kernel's audit, as ``scaledattn.derive`` has it before a test replaces it."""
    from scaledattn.derive import audit_of

    return audit_of


@pytest.mark.parametrize("fmt", ["text", "latex", "markdown", "json"])
def test_a_warm_derive_prints_what_a_cold_one_prints_and_keeps_no_rendering(
    private_cache: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    cold = _run(["derive", "exercise3_scale", "--format", fmt])
    _forget_in_process(monkeypatch)
    assert _run(["derive", "exercise3_scale", "--format", fmt]) == cold
    assert cold[0] == 0
    kept = cache.Store.load().records  # a rendering is a verdict in text: never kept
    assert not any("render" in record for record in kept.values())


@pytest.mark.parametrize(
    "damage",
    [
        # a verdict edited by hand: the digest no longer matches
        lambda body: body["records"]["unique_scale"]["check"].update(verified=False),
        # a record of another layout
        lambda body: body.update(format=0),
        # a file made for other sources
        lambda body: body.update(key="0" * 64),
    ],
    ids=["edited-verdict", "old-format", "other-key"],
)
def test_a_tampered_or_stale_file_is_rebuilt_not_trusted(
    private_cache: Path,
    one_module: tuple[Any, ...],
    monkeypatch: pytest.MonkeyPatch,
    damage: Callable[[Any], None],
) -> None:
    cold = _run(["check", "--brief"])
    path = _the_file(private_cache)
    body = json.loads(path.read_text(encoding="utf-8"))
    damage(body)
    path.write_text(json.dumps(body), encoding="utf-8")
    _forget_in_process(monkeypatch)
    computed = _count_kernel_runs(monkeypatch)
    assert _run(["check", "--brief"]) == cold
    assert "unique_scale" in computed
    assert len(computed) == sum(len(m.derivations) for m in one_module)
    # rebuilt: the file holds a valid digest again, and the kernel's verdict
    rebuilt = json.loads(path.read_text(encoding="utf-8"))
    assert cache._read(path, cache.source_key()) == rebuilt["records"]
    assert rebuilt["records"]["unique_scale"]["check"]["verified"] is True


def test_a_corrupt_file_is_rebuilt(
    private_cache: Path, one_module: tuple[Any, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    cold = _run(["check", "--brief"])
    _the_file(private_cache).write_bytes(b"\x00{not json")
    _forget_in_process(monkeypatch)
    computed = _count_kernel_runs(monkeypatch)
    assert _run(["check", "--brief"]) == cold
    assert computed
    assert cache._read(_the_file(private_cache), cache.source_key())


def test_an_edited_kernel_source_gives_another_key_and_no_record(
    private_cache: Path,
    one_module: tuple[Any, ...],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    _run(["check", "--brief"])
    assert cache.Store.load().records
    real = cache.source_files()
    common = Path(os.path.commonpath(real))
    copies = []
    for f in real:
        target = tmp_path / "src" / f.relative_to(common)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, target)
        copies.append(target)
    key = cache.source_key()
    # the same key from copies of the same files (so the key is of their content) ...
    monkeypatch.setattr(cache, "source_files", lambda: tuple(sorted(copies)))
    monkeypatch.setattr(cache, "source_key", cache.source_key.__wrapped__)
    same = cache.source_key()
    assert same == key
    # ... and another once one line of the kernel changes
    kernel = next(c for c in copies if c.parts[-2:] == ("kernel", "theorem.py"))
    kernel.write_text(kernel.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    edited = cache.source_key()
    assert edited != same
    assert cache.Store.load().key == edited
    assert cache.Store.load().records == {}


def test_the_key_covers_every_source_file_of_the_kernel_the_automation_and_the_proofs() -> None:
    names = {(f.parent.name, f.name) for f in cache.source_files()}
    for needed in [
        ("kernel", "theorem.py"),
        ("kernel", "rules.py"),
        ("scaledattn", "derive.py"),
        ("moments", "build.py"),
        ("numeric", "evidence.py"),
        ("proofs", "unique_scale.py"),
    ]:
        assert needed in names, needed


def test_a_changed_derivation_has_another_fingerprint_so_its_record_is_not_used() -> None:
    d = find_derivation("variance_of_sum")
    step = d.steps[-1]
    changed = replace(d, steps=(*d.steps[:-1], replace(step, claim=step.claim + sympy.S.One)))
    assert cache.fingerprint(changed) != cache.fingerprint(d)
    assert cache.fingerprint(d) == cache.fingerprint(find_derivation("variance_of_sum"))
    kept = cache.Store(Path("unused"), "k", {d.name: {"fingerprint": cache.fingerprint(d)}})
    assert kept.get(d.name, cache.fingerprint(changed)) is None


def test_only_proof_modules_are_kept() -> None:
    real = theorem_modules()[0]
    assert cache.cacheable(real)
    fake = replace(real, module=type(real.module)("scaledattn.proofs.fake"))
    assert not cache.cacheable(fake)


def test_the_cache_is_off_under_mutation_runs_and_on_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in cache.OFF:
        with monkeypatch.context() as m:
            m.setenv(name, "1")
            assert cache.store() is None


def test_an_unwritable_folder_only_makes_runs_cold(
    one_module: tuple[Any, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCALEDATTN_CACHE_DIR", "/proc/no_such_cache")
    monkeypatch.setattr(cache, "_CHECKED", {})
    monkeypatch.setattr(cache, "_STORE", [])
    code, out = _run(["check", "--brief"])
    assert code == 0
    assert "verified" in out
    assert not Path("/proc/no_such_cache").exists()


def test_the_folder_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SCALEDATTN_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", "/somewhere")
    assert cache.cache_dir() == Path("/somewhere/scaledattn")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache.cache_dir() == Path.home() / ".cache" / "scaledattn"


def test_fingerprints_are_the_same_in_every_process() -> None:
    # Python randomises the order of sets per process (PYTHONHASHSEED); a fingerprint
    # that followed it would make every warm run recheck some theorems.
    code = (
        "from scaledattn import cache\n"
        "from scaledattn.registry import all_derivations\n"
        "print([cache.fingerprint(d) for d in all_derivations()])\n"
    )
    seen = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(seen) == 1
