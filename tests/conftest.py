"""Shared test set-up: Hypothesis profiles, a private theorem cache, session-wide artefacts.

Speed (issue 13): the suite runs on every core (pytest-xdist, ``-n auto`` in
pyproject.toml; ``-n 0`` runs it in one process). Whatever is expensive to compute
is computed once per session and shared; a new test should take it from here rather
than compute it again:

- ``checked_theorems``: every derivation of every proof module with its kernel
  verdict, audit and numeric witnesses (:class:`scaledattn.cache.Checked`).
- ``generated_pages``: the pages ``scaledattn docs`` writes, by path.
- ``check_output``: what ``scaledattn check`` and ``check --json`` print.
- ``built_in_proof_file``: every built-in theorem written in the proof format (each
  theorem once) and checked as one file by check-proof.

They come from the theorem cache (:mod:`scaledattn.cache`), which this file points
at a temporary folder for the whole session (``SCALEDATTN_CACHE_DIR``, shared by the
worker processes and by the commands the tests start, never the user's cache):
the first worker to check a theorem keeps it, the others read it.

Tests that share an artefact computed in their process (the pages, the ledger, the
proof-file checks, torch and the tiny models) run on one worker: ``GROUPS`` below.

Start-up: every worker imports every test module to collect it, so a test module
imports nothing heavy at its top beyond SymPy and numpy: torch, transformers and
matplotlib are imported by the tests that use them (tests/torchattn/conftest.py).
anyio's unused pytest plugin is not loaded (``-p no:anyio`` in pyproject.toml).
(Importing Hypothesis past pytest's assertion rewriting saved ~0.35 s a process where
no bytecode is written, but a second ``pytest.main`` in the same process, as mutmut
makes, then fails on pytest's "already imported" warning.)

Profiles and bounded properties: tests/profiles.py. Test through a subprocess only
where the process boundary is what is tested (exit codes of a real process, what a
fresh interpreter imports).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import tempfile
from typing import Any

import pytest

import tests.profiles  # noqa: F401  (registers and loads the Hypothesis profiles)

_OWN_CACHE = "_SCALEDATTN_TEST_CACHE_OWNER"


def pytest_configure(config: pytest.Config) -> None:
    """Give the session (and its xdist workers, which inherit it) a private theorem cache."""
    if os.environ.get("PYTEST_XDIST_WORKER") or os.environ.get(_OWN_CACHE):
        return
    folder = tempfile.mkdtemp(prefix="scaledattn-test-cache-")
    os.environ["SCALEDATTN_CACHE_DIR"] = folder
    os.environ[_OWN_CACHE] = folder


def pytest_sessionstart(session: pytest.Session) -> None:
    """Say what the silent start is: every worker imports every test module to collect it."""
    config = session.config
    workers = getattr(config.option, "numprocesses", None)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if os.environ.get("PYTEST_XDIST_WORKER") or not workers or reporter is None:
        return
    reporter.write_line(
        "collecting: each worker process imports every test module (SymPy, numpy, Hypothesis,"
        " the kernel) and pytest rewrites their asserts; about 10 s of CPU per worker"
    )


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the session's theorem cache (only the process that made it)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    folder = os.environ.pop(_OWN_CACHE, None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


class TestCPULimitExceeded(BaseException):
    """A test ran past ``SCALEDATTN_TEST_CPU_LIMIT`` seconds of CPU (mutation runs only).

    A BaseException, so that neither Hypothesis (which would shrink by running the
    looping body again) nor code under test catching ``Exception`` can absorb it.
    """


def _cpu_limit_reached(signum: int, frame: object) -> None:
    raise TestCPULimitExceeded(f"over {os.environ['SCALEDATTN_TEST_CPU_LIMIT']} s of CPU")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    """In a mutation run, fail a test that uses more than its CPU limit.

    scripts/mutation.sh sets ``SCALEDATTN_TEST_CPU_LIMIT`` (seconds, ten times the
    slowest test it selects): a mutant that makes a rewrite loop is stopped at the first
    test it hangs, not after its whole selection's time limit. CPU time, not wall time,
    so a busy machine cannot fail a test.
    """
    limit = os.environ.get("SCALEDATTN_TEST_CPU_LIMIT")
    if not limit:
        yield
        return
    before = signal.signal(signal.SIGPROF, _cpu_limit_reached)
    signal.setitimer(signal.ITIMER_PROF, float(limit))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, before)


def _shared(fixture_name: str, config: pytest.Config) -> Any:
    """Session scope, except in mutation runs, where every test recomputes (see below)."""
    return "function" if os.environ.get("SCALEDATTN_FRESH_CACHES") else "session"


#: Tests that run on one worker process, one after another (nodeid prefixes, by
#: group): each group shares what that process computed once, where the tests spread
#: over both workers would compute it once in each (issue 13). Add a test here when it
#: uses the fixtures below, runs `scaledattn check` / `docs`, or needs one of the
#: artefacts a group computes. (xdist's own xdist_group mark is not honoured under
#: pytest 9, so the grouping is done by pytest_xdist_make_scheduler below.)
GROUPS: dict[str, tuple[str, ...]] = {
    # The generated pages and what they are made of, each computed once per process:
    # the checked theorems in memory, the ledger's verdicts (claims.md), the proof-file
    # checks of the exercises and typical mistakes (your_own_derivation.md, ~8 s), the
    # output of the commands the pages show, matplotlib for the figures.
    "docs": (
        "tests/test_docs.py",
        "tests/test_docs_examples.py",
        "tests/test_readme.py",
        "tests/test_cache.py",
        "tests/cli/test_check.py",
        "tests/cli/test_strict_json.py",
        "tests/cli/test_theorem_commands.py::test_check_",
        "tests/cli/test_numeric_commands.py::test_plot_",
        "tests/claims/test_ledger.py",
        "tests/claims/test_meanings.py",
        "tests/numeric/test_evidence.py::test_every_theorem_agrees_with_numbers_on_its_modules",
        "tests/prooffile/test_check_proof.py::test_each_exercise_",
        "tests/prooffile/test_check_proof.py::test_each_typical_mistake_",
        # torch and transformers (~2 s to import), imported in-process by a command the
        # docs show (`experiment saturation --backend torch`) and by these: one import in
        # one worker, and each tiny model of test_audit.py built once.
        "tests/torchattn/test_audit.py",
        "tests/torchattn/test_sdpa.py",
        "tests/torchattn/test_model_claims.py::test_torchs_own_",
        # every audit row of the sweep: a model type or module:callable gets as far as
        # importing torch before it is refused
        "tests/cli/test_bad_input_sweep.py::test_bad_input_exits_2_with_one_line_naming_the_"
        "problem_and_writes_nothing[audit",
    ),
    # Every built-in theorem written in the proof format, read back and checked once
    # (``built_in_proof_file``, ~12 s of CPU), and the tests that read it: the round
    # trips through the proof format and the JSON certificate, the certificate headers.
    "proof-round-trip": (
        "tests/prooffile/test_check_proof.py::test_every_built_in_theorem_",
        "tests/prooffile/test_certificate_header.py",
    ),
}


def _group(nodeid: str) -> str:
    """The group of a test (see GROUPS), or its own node id."""
    for name, prefixes in GROUPS.items():
        if nodeid.startswith(prefixes):
            return name
    return nodeid


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Spread tests one by one over the workers, except the GROUPS (each on one worker)."""
    from xdist.scheduler import LoadScopeScheduling

    class Scheduler(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return _group(nodeid)

    return Scheduler(config, log)


@pytest.fixture(scope=_shared)
def checked_theorems() -> tuple[tuple[Any, Any, Any], ...]:
    """(module, derivation, Checked) for every derivation of every proof module."""
    from scaledattn.cache import checked, store
    from scaledattn.registry import theorem_modules

    found = tuple((m, d, checked(m, d)) for m in theorem_modules() for d in m.derivations)
    kept = store()
    if kept is not None:
        kept.save()
    return found


@pytest.fixture(scope=_shared)
def generated_pages() -> dict[str, str]:
    """The generated documentation pages, {path relative to docs/: text}."""
    from scaledattn.docgen import pages

    return {p.path: p.text for p in pages()}


@pytest.fixture(scope=_shared)
def built_in_proof_file() -> Any:
    """Every built-in theorem (and each theorem it cites) in the proof format, checked once.

    The blocks of ``derive --format proof`` of every derivation, each theorem once and in
    order, read back and checked as one file (a :class:`~scaledattn.prooffile.files.CheckedFile`).
    """
    from scaledattn.derive import audit_of
    from scaledattn.prooffile.files import check_text
    from scaledattn.registry import all_derivations
    from scaledattn.render.proof import proof_document

    blocks: dict[str, str] = {}
    for d in all_derivations():
        for block in proof_document(audit_of(d)).strip().split("\n\n"):
            blocks.setdefault(block.split(":", 1)[0].removeprefix("theorem "), block)
    return check_text("\n\n".join(blocks.values()) + "\n", "all.proof")


def _output(argv: list[str]) -> tuple[int, str]:
    from scaledattn.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    return code, out.getvalue()


@pytest.fixture(scope=_shared)
def check_output() -> dict[str, Any]:
    """``scaledattn check``: {"code", "text"} and {"json_code", "json"} (parsed; "json_text")."""
    code, text = _output(["check"])
    json_code, raw = _output(["check", "--json"])
    return {
        "code": code,
        "text": text,
        "json_code": json_code,
        "json": json.loads(raw),
        "json_text": raw,
    }


if os.environ.get("SCALEDATTN_FRESH_CACHES"):
    # Mutation testing (scripts/mutation.sh) forks every mutant's test run from a
    # process that has already run the tests once. Results cached there by object
    # identity, by term or by setting (the kernel's normal forms, the automation's
    # chains, the audits of derivations, the Gaussian joint moments, the witnesses and
    # verdicts of scaledattn.cache, the derivations written in the proof format, the
    # terms flattened for display) were computed by the unmutated code and would hide
    # a mutant: start every test without them. (The on-disk theorem cache is off under
    # this variable.) SymPy's own cache is kept: it is keyed by its inputs, which the
    # mutated code builds afresh, and no mutated function runs inside it.

    @pytest.fixture(autouse=True)
    def _fresh_caches() -> None:
        from scaledattn import cache, derive
        from scaledattn.automation import rewrite as automation
        from scaledattn.kernel import expr
        from scaledattn.moments import gaussian
        from scaledattn.prooffile import search
        from scaledattn.render import display, proof

        expr._NORMAL_FORMS.clear()  # the kernel's normal forms, by term
        expr._LANGUAGE.intersection_update(expr.SYMPY_TERMS)  # classes found admissible
        expr._DEFINED.clear()  # symbols whose facts were found defined
        automation._KEYS.clear()  # the automation's propositions' keys and chains
        automation._CHAINS.clear()
        derive._AUDITS.clear()
        derive._BY_CONTENT.clear()
        gaussian._joint_moments.cache_clear()
        cache.forget()
        search._KEYS.clear()  # the keys of propositions the search compared
        search._CHAINS.clear()  # chains of the kernel's rules
        proof._WRITTEN.clear()  # derivations written in the proof format
        display._FLAT.clear()  # terms flattened for display
