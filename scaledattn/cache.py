"""Checked theorems kept between runs, so that ``check`` answers at once.

What is kept, for each derivation of a proof module (``scaledattn.proofs``): the
kernel's certificate of it (or why none could be written) and its numeric witnesses
(the lines ``check`` prints, the data ``check --json`` prints). No rendering and no
verdict is read back: ``derive`` renders from the kernel's audit every time.

Why a kept record cannot make a false VERIFIED (docs/soundness.md, "The theorem cache"):

- A kept certificate is re-checked by the independent checker every time it is read
  (:func:`second`), and must be of the derivation as built in this process (its name,
  kind, sides and assumptions). A record the checker does not confirm (a certificate
  it cannot read yet, one it refuses, a verdict "not verified") is not trusted: the
  kernel proves the derivation again (:func:`_reproved`). A tampered entry can cause
  a re-proof, or an alarm if the fresh proof is refused too, never a VERIFIED.
- The key is a SHA-256 over the bytes of *every* Python file of the installed
  package and of every proof module, with the versions of Python, SymPy, mpmath and
  numpy; each record carries a fingerprint of the derivation as built in this
  process. Only derivations whose module is a proof module loaded from those hashed
  files are kept. The file carries a SHA-256 of its own content; a file that does not
  parse, has another layout, another key or a digest that does not match is ignored
  and rebuilt. These catch stale records and corruption; an unkeyed digest is no
  defence against a forger, which is why no kept verdict is read.
- The numeric witnesses are read as kept (numbers, not verdicts: a forged one can
  change a "Numbers agree" line, never a VERIFIED).

The folder is ``$SCALEDATTN_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/scaledattn``,
else ``~/.cache/scaledattn``. ``SCALEDATTN_NO_CACHE=1`` turns the cache off (so do
mutation runs: ``SCALEDATTN_FRESH_CACHES`` or mutmut's ``MUTANT_UNDER_TEST``). A
folder that cannot be written only makes every run cold.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

#: Bump when the layout of a record changes (4: the gate's fields; no rendering is read).
FORMAT = 4
#: Environment variables that turn the cache off.
OFF = ("SCALEDATTN_NO_CACHE", "SCALEDATTN_FRESH_CACHES", "MUTANT_UNDER_TEST")


def cache_dir() -> Path:
    """Where checked theorems are kept (see the module docstring)."""
    chosen = os.environ.get("SCALEDATTN_CACHE_DIR")
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "scaledattn"


def enabled() -> bool:
    """False when an environment variable in :data:`OFF` is set (non-empty)."""
    return not any(os.environ.get(name) for name in OFF)


@cache
def source_files() -> tuple[Path, ...]:
    """Every Python file whose behaviour a kept verdict depends on: the package and the proofs."""
    import importlib

    import scaledattn

    proofs = importlib.import_module("scaledattn.proofs")
    roots = [Path(scaledattn.__file__).resolve().parent]
    roots += [Path(p).resolve() for p in proofs.__path__]
    files = {f for root in roots for f in root.rglob("*.py")}
    return tuple(sorted(files))


@cache
def source_key() -> str:
    """SHA-256 of every source file (path and bytes) and of the versions it runs on."""
    import mpmath
    import numpy
    import sympy

    digest = hashlib.sha256()
    versions = (FORMAT, sys.version, sympy.__version__, mpmath.__version__, numpy.__version__)
    digest.update(repr(versions).encode())
    for path in source_files():
        data = path.read_bytes()
        digest.update(f"\0{path.name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


#: Fingerprints computed in this process, by the identity of the (frozen) derivation,
#: which each entry holds so that its id is not reused.
_FINGERPRINTS: dict[int, tuple[Any, str]] = {}


def fingerprint(derivation: Any) -> str:
    """SHA-256 of what the kernel checks: name, statement, assumptions, each step's rule and claim.

    A step citing another derivation contributes that derivation's fingerprint.
    Computed once per derivation object and process (a Derivation is immutable).
    """
    hit = _FINGERPRINTS.get(id(derivation))
    if hit is not None and hit[0] is derivation:
        return hit[1]
    print_ = _fingerprint(derivation)
    _FINGERPRINTS[id(derivation)] = (derivation, print_)
    return print_


def _fingerprint(derivation: Any) -> str:
    from scaledattn.kernel import Derivation

    parts = [derivation.name, derivation.title, _canonical(derivation.statement)]
    parts += [_canonical(a) for a in derivation.assumptions]
    for step in derivation.steps:
        rule = step.rule
        if isinstance(rule, Derivation):
            cited = "derivation:" + fingerprint(rule)
        else:
            cited = "rule:" + (rule if isinstance(rule, str) else str(getattr(rule, "name", rule)))
        parts += [cited, _canonical(step.claim), step.note]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _canonical(x: Any) -> str:
    """A text that is the same in every process for equal terms (sets are sorted).

    SymPy terms are written as their class and arguments; an atom (a symbol with its
    assumptions, a number) as SymPy's ``srepr``.
    """
    import dataclasses

    from sympy import Basic, srepr

    if isinstance(x, Basic):
        if not x.args:
            return str(srepr(x))
        inner = ",".join(_canonical(a) for a in x.args)
        return f"{type(x).__name__}({inner})"
    if isinstance(x, (set, frozenset)):
        return "{" + ",".join(sorted(_canonical(e) for e in x)) + "}"
    if isinstance(x, (tuple, list)):
        return "(" + ",".join(_canonical(e) for e in x) + ")"
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        fields = ",".join(
            f"{f.name}={_canonical(getattr(x, f.name))}" for f in dataclasses.fields(x)
        )
        return f"{type(x).__name__}({fields})"
    return repr(x)


def cacheable(module: Any) -> bool:
    """True for a proof module loaded from the hashed sources (not a test's stand-in)."""
    real = getattr(module, "module", None)
    name = getattr(real, "__name__", "")
    path = getattr(real, "__file__", None)
    if not name.startswith("scaledattn.proofs.") or path is None:
        return False
    return Path(path).resolve() in set(source_files())


@dataclass
class Store:
    """The records kept under the current key, loaded once per process, written when changed."""

    path: Path
    key: str
    records: dict[str, dict[str, Any]]
    dirty: bool = False

    @classmethod
    def load(cls) -> Store:
        """The store for the current sources; empty when the file is missing, stale or damaged."""
        key = source_key()
        path = cache_dir() / f"theorems-{key[:16]}.json"
        return cls(path, key, _read(path, key))

    def get(self, name: str, print_: str) -> dict[str, Any] | None:
        """The record of ``name`` if it was made from a derivation with fingerprint ``print_``."""
        record = self.records.get(name)
        if record is None or record.get("fingerprint") != print_:
            return None
        return record

    def put(self, name: str, record: dict[str, Any]) -> None:
        """Keep ``record`` (it must hold only JSON data)."""
        self.records[name] = record
        self.dirty = True

    def save(self) -> None:
        """Write the records if they changed: atomically, and not at all to a read-only folder."""
        if not self.dirty:
            return
        body = {"format": FORMAT, "key": self.key, "records": self.records}
        body["digest"] = _digest(self.key, self.records)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".theorems-", suffix=".tmp")
        except OSError:
            return
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(body, out, ensure_ascii=False)
            os.replace(tmp, self.path)
        except OSError:
            Path(tmp).unlink(missing_ok=True)
            return
        self.dirty = False


def _digest(key: str, records: dict[str, Any]) -> str:
    text = json.dumps(records, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(f"{key}\0{text}".encode()).hexdigest()


def _read(path: Path, key: str) -> dict[str, dict[str, Any]]:
    """The records of ``path``, or {} if it is missing, unreadable, stale or tampered with."""
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    if not isinstance(body, dict) or body.get("format") != FORMAT or body.get("key") != key:
        return {}
    records = body.get("records")
    if not isinstance(records, dict) or body.get("digest") != _digest(key, records):
        return {}
    if not all(isinstance(r, dict) for r in records.values()):
        return {}
    return records


_STORE: list[Store] = []


def store() -> Store | None:
    """The process's store (None when the cache is off)."""
    if not enabled():
        return None
    if not _STORE or _STORE[0].path.parent != cache_dir():
        _STORE[:] = [Store.load()]
    return _STORE[0]


def reset() -> None:
    """Forget the loaded store and the source key (tests that edit the sources call this)."""
    _STORE.clear()
    source_key.cache_clear()
    source_files.cache_clear()


# ------------------------------------------------------------------ what is kept


@dataclass(frozen=True)
class Checked:
    """What ``check`` shows of one derivation: the kernel's verdict and the numeric witnesses."""

    verified: bool
    witness: dict[str, Any]
    lines: tuple[str, ...]
    agrees: bool
    refuted: bool
    tested: bool
    #: The measurement method of each evaluated setting that measured its statement.
    methods: tuple[str, ...]
    #: Evaluated settings (not refused as unsupported) and their step comparisons.
    settings: int
    comparisons: int
    #: The axioms (unchecked rules, ``axiom(...)``) the theorem rests on; empty if none.
    axioms: tuple[str, ...] = ()
    #: The kernel's certificate (``scaledattn.certificate``), or why none could be
    #: written: kept, and re-checked by the checker every time it is read (``second``).
    certificate: Any = None
    unwritten: str = ""
    #: The gate (scaledattn.gate), for a derivation the kernel verified: the line of a
    #: model of its assumptions ("" with none to model), why no verdict stands when the
    #: search found none (both searched again when read, never kept: ``_known``), and a
    #: soundness alarm when a step is false in a model (kept).
    model: str = ""
    withheld: str = ""
    alarm: str = ""

    def as_record(self) -> dict[str, Any]:
        """JSON data (the inverse of :meth:`from_record`)."""
        return {
            "verified": self.verified,
            "witness": self.witness,
            "lines": list(self.lines),
            "agrees": self.agrees,
            "refuted": self.refuted,
            "tested": self.tested,
            "methods": list(self.methods),
            "settings": self.settings,
            "comparisons": self.comparisons,
            "axioms": list(self.axioms),
            "certificate": self.certificate,
            "unwritten": self.unwritten,
            "alarm": self.alarm,
        }

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> Checked:
        """The Checked that :meth:`as_record` wrote (KeyError/TypeError if malformed)."""
        return cls(
            bool(data["verified"]),
            dict(data["witness"]),
            tuple(str(x) for x in data["lines"]),
            bool(data["agrees"]),
            bool(data["refuted"]),
            bool(data["tested"]),
            tuple(str(x) for x in data["methods"]),
            int(data["settings"]),
            int(data["comparisons"]),
            tuple(str(x) for x in data["axioms"]),
            data["certificate"],
            str(data["unwritten"]),
            alarm=str(data["alarm"]),
        )


_WITNESSES: dict[tuple[int, int], tuple[Any, Any, Any]] = {}
_CHECKED: dict[tuple[int, int], tuple[Any, Any, Checked]] = {}


def witness_of(module: Any, derivation: Any) -> Any:
    """``module_evidence(module, derivation)``, computed once per process (by identity).

    The witnesses are deterministic (fixed seeds), so a second computation would give
    the same result; ``scaledattn docs`` and the test session ask for each many times.
    """
    from scaledattn.numeric.evidence import module_evidence

    key = (id(module.module), id(derivation))
    hit = _WITNESSES.get(key)
    if hit is not None and hit[0] is module.module and hit[1] is derivation:
        return hit[2]
    witness = module_evidence(module, derivation)
    _WITNESSES[key] = (module.module, derivation, witness)
    return witness


def _compute(module: Any, derivation: Any) -> Checked:
    from scaledattn.derive import audit_of
    from scaledattn.numeric.evidence import evidence_line
    from scaledattn.render import to_json

    result = audit_of(derivation)
    cert, unwritten = _certificate_of(result)
    model, withheld, alarm = _gate_of(result, derivation)
    w = witness_of(module, derivation)
    evaluated = [s for s in w.settings if not s.unsupported]
    # The audit as data (``check --json``) is the json rendering, made when asked
    # for (``rendered``): printing every step's terms is a sixth of a cold check.
    return Checked(
        verified=result.verified,
        witness=json.loads(to_json(w.as_json())),
        lines=tuple(evidence_line(derivation, s) for s in w.settings),
        agrees=w.agrees,
        refuted=w.refuted,
        tested=w.tested,
        methods=tuple(s.measurement.method for s in evaluated if s.measurement),
        settings=len(evaluated),
        comparisons=sum(len(s.steps) for s in evaluated),
        axioms=tuple(sorted(result.theorem.axioms)) if result.theorem else (),
        certificate=cert,
        unwritten=unwritten,
        model=model,
        withheld=withheld,
        alarm=alarm,
    )


def second(derivation: Any, result: Checked) -> str:
    """The checker's word on a kernel verdict: "checked", "unread: why" or "refused: why".

    The certificate (computed now or kept) is checked by the checker, and its statement
    must be the derivation's own: a kept record is trusted no further than that. No
    word is kept by identity (the certificate is a mutable dict): the checker keeps its
    verdicts by the certificate's text.
    """
    from scaledattn.certificate import judge
    from scaledattn.checker import check_certificate

    if result.certificate is None:
        return f"unread: {result.unwritten or 'no certificate'}"
    # the kept certificate must be of this derivation, assumptions included
    return judge(derivation, check_certificate(result.certificate))


def _known(module: Any, derivation: Any) -> Checked | None:
    """The Checked of ``derivation`` computed earlier in this process, or kept; else None."""
    hit = _CHECKED.get((id(module.module), id(derivation)))
    if hit is not None and hit[0] is module.module and hit[1] is derivation:
        return hit[2]
    kept = store() if cacheable(module) else None
    if kept is None:
        return None
    record = kept.get(derivation.name, fingerprint(derivation))
    if record is None or "check" not in record:
        return None
    try:
        found = Checked.from_record(record["check"])
    except (KeyError, TypeError, ValueError):
        return None
    if found.verified and second(derivation, found) == "checked":
        # The kept certificate, re-checked now: no kept verdict is read. Nor a kept model:
        # a record whose "withheld" was cleared would turn an UNDECIDED (no model of the
        # assumptions, from which 1 = 0 follows) into a VERIFIED, so the model search runs
        # again (a few milliseconds a theorem). The kept step alarm is read: the checker
        # has just confirmed every step, and the alarm only doubles that.
        from scaledattn.gate.models import context_model

        model, withheld = context_model(derivation)
        return replace(found, model=model, withheld=withheld)
    # A kept kernel verdict the checker does not confirm (a certificate it cannot read,
    # or one it refuses: a tampered entry) is not trusted: the kernel proves it again,
    # and only its numeric witnesses are read from the record.
    return _reproved(derivation, found)


def _reproved(derivation: Any, kept: Checked) -> Checked:
    """``kept`` with the kernel's verdict and certificate computed now (its witnesses kept)."""
    from scaledattn.derive import audit_of

    result = audit_of(derivation)
    cert, unwritten = _certificate_of(result)
    model, withheld, alarm = _gate_of(result, derivation)
    axioms = tuple(sorted(result.theorem.axioms)) if result.theorem else ()
    return replace(
        kept,
        verified=result.verified,
        axioms=axioms,
        certificate=cert,
        unwritten=unwritten,
        model=model,
        withheld=withheld,
        alarm=alarm,
    )


def _gate_of(result: Any, derivation: Any) -> tuple[str, str, str]:
    """The gate's model line, why no verdict stands, and its alarm, for a verified audit."""
    if not result.verified:  # the gate: a model of the assumptions, every step true on models
        return "", "", ""
    from scaledattn.gate import theorem_gate

    model, withheld, alarm = theorem_gate(derivation)
    return model, withheld, alarm


def _certificate_of(result: Any) -> tuple[Any, str]:
    """The certificate of a verified audit and "", or None and why none is written."""
    from scaledattn.certificate import certificate
    from scaledattn.errors import CannotCertify

    if not result.verified:
        return None, ""
    try:
        return certificate(result), ""
    except CannotCertify as err:
        return None, str(err)


def checked(module: Any, derivation: Any) -> Checked:
    """The verdict and witnesses of ``derivation``: kept from an earlier run, or computed now."""
    result = _known(module, derivation)
    if result is None:
        result = _compute(module, derivation)
        kept = store() if cacheable(module) else None
        if kept is not None:
            print_ = fingerprint(derivation)
            record = kept.get(derivation.name, print_) or {"fingerprint": print_}
            kept.put(
                derivation.name,
                {**record, "verified": result.verified, "check": result.as_record()},
            )
    _CHECKED[(id(module.module), id(derivation))] = (module.module, derivation, result)
    return result


def checked_all(
    pairs: Sequence[tuple[Any, Any]], progress: Callable[[int, int], None] | None = None
) -> list[Checked]:
    """:func:`checked` of each (module, derivation), in order, the kernel's work done first.

    What is not kept is audited first, every derivation, then its witnesses are
    computed, then the lines that show them. The result is the same as calling
    :func:`checked` on each pair in turn (the audit and the witnesses are computed
    once per process either way); only the order of the work changes. Why: showing
    a term (a witness line, a derivative's name) switches SymPy's evaluation off and
    on, which empties SymPy's whole cache (``sympy.core.parameters``). Between two
    audits that emptying made the second one start cold; here the audits run one
    after another, and the showing comes after them.

    ``progress(done, total)`` is told after each audit and each witness of what was
    not kept (2 × their number in all).
    """
    from scaledattn.derive import audit_of

    todo = [(m, d) for m, d in pairs if _known(m, d) is None]
    for n, (_, d) in enumerate(todo, 1):
        audit_of(d)
        if progress is not None:
            progress(n, 2 * len(todo))
    for n, (m, d) in enumerate(todo, len(todo) + 1):
        witness_of(m, d)
        if progress is not None:
            progress(n, 2 * len(todo))
    return [checked(m, d) for m, d in pairs]


def rendered(
    module: Any, derivation: Any, fmt: str, heading: str = ""
) -> tuple[str, bool, tuple[str, ...]]:
    """``derivation`` rendered in ``fmt``, whether the kernel verified it, and its axioms.

    Rendered now from the kernel's audit (made once per process), never read from the
    cache: a kept rendering is a verdict in text, which nothing could re-check, so a
    forged one would print whatever it says (issue 26). Every verdict line in it passes
    the checker (:func:`scaledattn.certificate.confirm`, SoundnessAlarm otherwise). The
    axioms are the unchecked rules (``axiom(...)``) the theorem rests on. ``module`` is
    the derivation's proof module, or None (kept for the callers; nothing is kept).

    ``heading`` (Markdown only) is the heading level of the docs pages, e.g. "##".
    """
    from scaledattn.derive import audit_of
    from scaledattn.render import render
    from scaledattn.render.markdown import audit_markdown

    result = audit_of(derivation)
    text = audit_markdown(result, heading) if heading else render(result, fmt)
    axioms = tuple(sorted(result.theorem.axioms)) if result.theorem else ()
    return text, result.verified, axioms


def forget() -> None:
    """Drop the in-process results (mutation runs call this before every test)."""
    _WITNESSES.clear()
    _CHECKED.clear()
    _FINGERPRINTS.clear()
    reset()
