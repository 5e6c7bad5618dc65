"""JSON rendering: the derivation as data, also a replayable certificate."""

from __future__ import annotations

import json
import math
from typing import Any

from scaledattn.certificate import confirm
from scaledattn.errors import InvalidArgument
from scaledattn.kernel import Audit
from scaledattn.render.display import (
    carried_assumptions,
    modulo_axioms,
    statement_parts,
    sympy_string,
)
from scaledattn.render.latex import statement_tex, tex
from scaledattn.render.proof import certificate
from scaledattn.render.text import withheld_reason


def audit_json(audit: Audit) -> dict[str, Any]:
    """``{theorem, statement, verified, steps: [{rule, expr, latex, verified, note}], …}``.

    ``checker`` is the independent checker's word on a verified derivation: "checked"
    (doubly checked) or "unread: why" (the kernel's word only); "" when the kernel did
    not verify it. A kernel verdict the checker refuses raises SoundnessAlarm instead.

    ``certificate`` holds the same derivation (and the theorems it cites) in the proof
    format, which ``scaledattn check-proof`` reads back and re-checks.
    """
    d = audit.derivation
    lhs, relation, rhs = statement_parts(d.statement)
    used = audit.theorem.used if audit.theorem is not None else frozenset()
    checker = confirm(audit)  # the checker's word; its refusal is an alarm (SoundnessAlarm)
    undecided = withheld_reason(d) if audit.theorem is not None else ""  # the gate
    return {
        "theorem": d.name,
        "title": d.title,
        "statement": f"{sympy_string(lhs)} {relation} {sympy_string(rhs)}",
        "statement_latex": statement_tex(audit),
        "verified": audit.verified and not undecided,
        "undecided": undecided,
        "checker": checker,
        "assumptions": [str(a) for a in d.assumptions],
        "assumptions_used": [str(a) for a in d.assumptions if a in used],
        "carried_by_symbols": list(carried_assumptions(d)),
        "axioms": sorted(audit.theorem.axioms) if audit.theorem is not None else [],
        "verified_modulo": modulo_axioms(audit.theorem.axioms) if audit.theorem else "",
        "start": sympy_string(d.start),
        "steps": [
            {
                "rule": r.rule_name,
                "expr": sympy_string(r.step.claim),
                "latex": tex(r.step.claim),
                "verified": r.ok,
                "note": r.step.note,
                **({"error": str(r.error)} if r.error is not None else {}),
            }
            for r in audit.steps
        ],
        "errors": [str(e) for e in audit.errors],
        "certificate": _certificate(audit),
    }


def _certificate(audit: Audit) -> dict[str, Any] | None:
    """The certificate, or None for a derivation with a term the proof format cannot write."""
    try:
        return certificate(audit)
    except InvalidArgument:
        return None


def to_json(data: Any) -> str:
    """Serialise as strict JSON (RFC 8259), with stable formatting and UTF-8 kept readable.

    JSON has no number for a float that is not finite (Python would write the
    non-JSON ``Infinity``): such a float is written as the string ``"inf"``, ``"-inf"``
    or ``"nan"``, which ``float()`` reads back.

    >>> print(to_json({"scores": [1.0, float("-inf")]}))
    {
      "scores": [
        1.0,
        "-inf"
      ]
    }
    """
    return json.dumps(finite(data), indent=2, ensure_ascii=False, allow_nan=False)


def finite(data: Any) -> Any:
    """``data`` with every float that is not finite replaced by its name (see to_json)."""
    if isinstance(data, float):
        return data if math.isfinite(data) else str(data)
    if isinstance(data, dict):
        return {key: finite(value) for key, value in data.items()}
    if isinstance(data, (list, tuple)):
        return [finite(value) for value in data]
    return data
