"""A JSON certificate's header must say what its certificate proves (review of issue 12).

The header (``theorem``, ``title``, ``statement``, ``assumptions``, the steps, …) was
not compared with what check-proof checks: a certificate could state in its header a
theorem other than the one proved and pass with exit 0.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scaledattn.cli import main
from scaledattn.derive import audit_of
from scaledattn.errors import ProofFileError
from scaledattn.kernel import Derivation
from scaledattn.prooffile.check import TheoremVerdict
from scaledattn.prooffile.files import CheckedFile, check_file, read_document
from scaledattn.prooffile.header import check_headers
from scaledattn.registry import all_derivations, find_derivation
from scaledattn.render import render

DERIVATIONS = all_derivations()


@pytest.fixture
def verdicts(built_in_proof_file: CheckedFile) -> list[TheoremVerdict]:
    """Every built-in theorem (and every theorem it cites) checked once, from its proof text."""
    return built_in_proof_file.verdicts


def _json(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(render(audit_of(find_derivation(name)), "json"))
    return data


def _headers(data: dict[str, Any], tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "certificate.json"
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    return [header for header, _ in read_document(path).headers]


@pytest.mark.parametrize("derivation", DERIVATIONS, ids=lambda d: d.name)
def test_the_header_of_every_certificate_the_tool_writes_matches_what_is_checked(
    derivation: Derivation, verdicts: list[TheoremVerdict], tmp_path: Path
) -> None:
    data = _json(derivation.name)
    headers = _headers(data, tmp_path)
    assert [h["theorem"] for h in headers] == [derivation.name]
    assert all(v.verified for v in verdicts if v.block.name == derivation.name)
    check_headers(headers, verdicts)  # no ProofFileError


def _edit_statement(data: dict[str, Any]) -> None:
    data["statement"] = "Var((q·k)/c) = 1"


def _edit_theorem(data: dict[str, Any]) -> None:
    data["theorem"] = "dot_product_variance"  # the lemma the certificate also proves


def _edit_assumptions(data: dict[str, Any]) -> None:
    data["assumptions"] = data["assumptions"][:-1]  # c > 0 left out


def _edit_title(data: dict[str, Any]) -> None:
    data["title"] = "the variance does not depend on c"


def _edit_step(data: dict[str, Any]) -> None:
    data["steps"][-1]["expr"] = "1"


def _edit_note(data: dict[str, Any]) -> None:
    data["steps"][0]["note"] = "by a theorem of the author"


def _edit_verified_modulo(data: dict[str, Any]) -> None:
    data["verified_modulo"] = "verified"


def _add_field(data: dict[str, Any]) -> None:
    data["conclusion"] = "attention is all you need"


def _drop_field(data: dict[str, Any]) -> None:
    del data["assumptions_used"]


EDITS = {
    "statement": (_edit_statement, "'statement'"),
    "theorem": (_edit_theorem, "'title'"),
    "assumptions": (_edit_assumptions, "'assumptions'"),
    "title": (_edit_title, "'title'"),
    "step": (_edit_step, "'steps[3].expr'"),
    "note": (_edit_note, "'steps[1].note'"),
    "verified_modulo": (_edit_verified_modulo, "'verified_modulo'"),
    "added field": (_add_field, "'conclusion' is not one the tool writes"),
    "dropped field": (_drop_field, "'assumptions_used'"),
}


@pytest.mark.parametrize("edit", EDITS, ids=list(EDITS))
def test_an_edited_header_is_refused_naming_the_field(
    edit: str, verdicts: list[TheoremVerdict], tmp_path: Path
) -> None:
    change, named = EDITS[edit]
    data = _json("scaled_variance")
    change(data)
    with pytest.raises(ProofFileError, match="header field") as caught:
        check_headers(_headers(data, tmp_path), verdicts)
    assert named in caught.value.message


def test_a_header_naming_a_theorem_its_certificate_does_not_prove_is_refused(
    verdicts: list[TheoremVerdict], tmp_path: Path
) -> None:
    data = _json("scaled_variance")
    data["theorem"] = "unit_variance_scale"
    with pytest.raises(ProofFileError, match="does not prove"):
        check_headers(_headers(data, tmp_path), verdicts)


def test_a_builtin_name_on_other_content_is_refused(
    verdicts: list[TheoremVerdict], tmp_path: Path
) -> None:
    # the certificate's own theorem changed, the header left as the tool wrote it
    data = _json("scaled_variance")
    theorem = data["certificate"]["theorems"][-1]
    assert theorem["name"] == "scaled_variance"
    theorem["statement"] = "Var(dot(q, k)/c) = d_k"
    path = tmp_path / "other.json"
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    document = read_document(path)
    with pytest.raises(ProofFileError, match="not the built-in theorem"):
        check_headers([h for h, _ in document.headers], verdicts)


def test_check_proof_refuses_an_edited_statement_with_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _json("scaled_variance")
    _edit_statement(data)
    path = tmp_path / "claimed.json"
    text = json.dumps(data, indent=2, ensure_ascii=False)
    path.write_text(text, encoding="utf-8")
    assert main(["check-proof", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    line = text.splitlines().index('  "theorem": "scaled_variance",') + 1
    assert err.startswith(f"{path}:{line}:1: the certificate's header field 'statement'")
    assert len(err.splitlines()) == 1


def test_check_proof_accepts_the_certificate_derive_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "scaled_variance.json"
    path.write_text(render(audit_of(find_derivation("scaled_variance")), "json"), "utf-8")
    checked = check_file(path)
    assert checked.verified
    assert main(["check-proof", str(path)]) == 0


def test_a_bare_certificate_states_nothing_else_and_is_checked(tmp_path: Path) -> None:
    data = {"certificate": _json("scaled_variance")["certificate"]}
    path = tmp_path / "bare.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert check_file(path).verified
