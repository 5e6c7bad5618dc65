"""A JSON certificate's header must say what its certificate proves.

The JSON rendering of a derivation (:func:`scaledattn.render.json.audit_json`) writes a
header (``theorem``, ``statement``, ``assumptions``, the steps, ``verified``, …) beside
the ``certificate`` that ``check-proof`` re-checks. Only the certificate is checked, so
the header is compared, field by field, with the header the tool writes for what was
checked:

- for a built-in theorem's name (``scaledattn list``): the certificate's theorem must
  be the built-in one word for word, and the header the built-in's own rendering
  (its ``title`` and step ``note``s included);
- for any other name: the rendering of the kernel's audit of the certificate's theorem
  as checked (by the same :func:`~scaledattn.render.json.audit_json`).

A field that differs, is missing, or is one the tool does not write is refused with
one line naming it (exit 2). The header of a theorem the kernel rejects is not
compared: the report rejects it already (exit 1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scaledattn.derive import audit_of
from scaledattn.errors import ProofFileError
from scaledattn.prooffile.check import TheoremVerdict, builtin_derivations
from scaledattn.render.json import audit_json
from scaledattn.render.proof import certificate

__all__ = ["check_headers", "compare_header"]


def _expected(verdict: TheoremVerdict, entry: Mapping[str, Any] | None) -> dict[str, Any]:
    """The header the tool writes for what was checked.

    For a built-in derivation's name: its own rendering, when the certificate's theorem
    is the built-in one word for word (the JSON the tool writes for it); else the
    rendering of the kernel's audit of the certificate as checked.
    """
    name = verdict.block.name
    derivation = builtin_derivations().get(name)
    if derivation is not None:
        audit = audit_of(derivation)
        own = next((t for t in certificate(audit)["theorems"] if t.get("name") == name), None)
        if entry != own:
            raise ProofFileError(
                f"the certificate's theorem {name} is not the built-in theorem of that name"
                " (scaledattn derive {name} --format json writes it)",
                1,
                1,
            )
        return audit_json(audit)
    assert verdict.audit is not None
    return audit_json(verdict.audit)


def _differ(field: str, written: Any, checked: Any) -> ProofFileError:
    return ProofFileError(
        f"the certificate's header field {field!r} does not match what is checked"
        f" (it says {_short(written)}; the checked certificate gives {_short(checked)})",
        1,
        1,
    )


def _unknown(field: str) -> ProofFileError:
    return ProofFileError(
        f"the certificate's header field {field!r} is not one the tool writes (nothing checks it)",
        1,
        1,
    )


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _compare_steps(written: Any, checked: list[dict[str, Any]]) -> None:
    if not isinstance(written, list) or len(written) != len(checked):
        count = len(written) if isinstance(written, list) else written
        raise _differ("steps", count, len(checked))
    for n, (mine, theirs) in enumerate(zip(written, checked, strict=True), start=1):
        if not isinstance(mine, Mapping):
            raise _differ(f"steps[{n}]", mine, theirs)
        for field in (*mine, *(f for f in theirs if f not in mine)):
            if field not in theirs:
                raise _unknown(f"steps[{n}].{field}")
            if mine.get(field) != theirs[field]:
                raise _differ(f"steps[{n}].{field}", mine.get(field), theirs[field])


def compare_header(
    header: Mapping[str, Any], verdict: TheoremVerdict, entry: Mapping[str, Any] | None = None
) -> None:
    """ProofFileError naming the first field of ``header`` that the checked ``verdict`` contradicts.

    ``entry`` is the certificate's theorem of that name, as written in the JSON.
    """
    checked = _expected(verdict, entry)
    for field in (*header, *(f for f in checked if f not in header)):
        if field == "certificate":
            continue
        if field not in checked:
            raise _unknown(field)
        if field == "steps":
            _compare_steps(header.get(field), checked["steps"])
        elif header.get(field) != checked[field]:
            raise _differ(field, header.get(field), checked[field])


def check_headers(headers: Sequence[Mapping[str, Any]], verdicts: Sequence[TheoremVerdict]) -> None:
    """Every header against the verdict on the theorem it names; ProofFileError if one differs.

    A header of a theorem the kernel did not verify is not compared: the report already
    rejects it (exit 1), and what its header says is moot.
    """
    by_name = {v.block.name: v for v in verdicts}
    for header in headers:
        if set(header) <= {"certificate"}:  # a bare certificate states nothing else
            continue
        name = header.get("theorem")
        if not isinstance(name, str):
            raise ProofFileError(
                "a certificate's header has no 'theorem' naming what it proves", 1, 1
            )
        verdict = by_name.get(name)
        if verdict is None:
            raise ProofFileError(
                f"the certificate's header names theorem {name!r}, which its certificate"
                " does not prove",
                1,
                1,
            )
        if verdict.verified:
            cert = header.get("certificate")
            theorems = cert.get("theorems", []) if isinstance(cert, Mapping) else []
            entry = next(
                (t for t in theorems if isinstance(t, Mapping) and t.get("name") == name), None
            )
            compare_header(header, verdict, entry)
