"""Every door's VERIFIED passes both the kernel and the checker: when the kernel accepts
and the checker refuses, nothing is printed as VERIFIED, in any format. The command line
exits 70 with "please report", the step and the checker's reason; the API raises
SoundnessAlarm. A derivation the checker cannot read yet is said so, never doubly checked.

The checker is made to refuse in the test alone (every certificate, at step 2, for a
reason of the test's), and a mutant of the kernel (tests/checker/test_mutants.py)
re-opens a hole for the API's doors, where the real checker refuses.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

import scaledattn
import scaledattn.checker
from scaledattn import cache, certificate
from scaledattn.checker import Refusal, Verdict
from scaledattn.claims import compare
from scaledattn.cli import main
from scaledattn.derive import audit_of, calc, prove
from scaledattn.errors import CannotCertify, SoundnessAlarm
from scaledattn.kernel import E, Var, check, random_variables
from scaledattn.kernel.rules import variance_def
from scaledattn.registry import find_derivation, theorem_modules
from scaledattn.render import render, run
from scaledattn.render.notebook import notebook_markdown
from tests.checker.test_mutants import MUTANTS, _fresh_caches

REASON = "the checker refuses this in the test"
(X,) = random_variables("X")


def _refuse(cert: Any) -> Verdict:
    name = str(cert.get("name", "?")) if isinstance(cert, dict) else "?"
    return Verdict(name, Refusal(name, 2, "ring", REASON))


@pytest.fixture
def refusing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The checker refuses every certificate; nothing remembered of an earlier word."""
    monkeypatch.setattr(certificate, "check_certificate", _refuse)
    monkeypatch.setattr(scaledattn.checker, "check_certificate", _refuse)
    monkeypatch.setattr(certificate, "_WORDS", {})
    monkeypatch.setattr(compare, "_SHOWN", {})
    monkeypatch.setenv("SCALEDATTN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_CHECKED", {})
    monkeypatch.setattr(cache, "_STORE", [])
    (module,) = (m for m in theorem_modules() if m.name == "unique_scale")
    monkeypatch.setattr("scaledattn.cli.theorems.theorem_modules", lambda: (module,))


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _assert_alarm(code: int, out: str, err: str) -> None:
    assert code == 70, (code, out, err)
    assert "VERIFIED" not in out + err
    assert "please report" in err
    assert "step 2 (ring)" in err
    assert REASON in err


def _proof_file(tmp_path: Path) -> Path:
    code, out, _ = _run(["derive", "variance_of_sum", "--format", "proof"])
    assert code == 0
    path = tmp_path / "variance_of_sum.proof"
    path.write_text(out, encoding="utf-8")
    return path


DOORS = {
    "check": ["check", "--brief"],
    "check --json": ["check", "--json"],
    "derive text": ["derive", "unique_scale"],
    "derive markdown": ["derive", "unique_scale", "--format", "markdown"],
    "derive json": ["derive", "unique_scale", "--format", "json"],
    "derive latex": ["derive", "unique_scale", "--format", "latex"],
    "derive proof": ["derive", "unique_scale", "--format", "proof"],
    "derive calculator": ["derive", "variance(var_q=5, var_k=3)"],
    "verify": ["verify", "E(X + Y) = E(X) + E(Y)"],
    "verify --brief": ["verify", "E(X + Y) = E(X) + E(Y)", "--brief"],
    "verify --json": ["verify", "E(X + Y) = E(X) + E(Y)", "--json"],
    "exercises": ["exercises"],
    "exercises --brief": ["exercises", "--brief"],
    "exercises json": ["exercises", "--format", "json"],
    "variance": ["variance", "--var-q", "7"],
    "variance json": ["variance", "--var-q", "7", "--format", "json"],
    "mean": ["mean", "--mean-q", "3", "--mean-k", "2"],
    "scale": ["scale", "--var-q", "7"],
}


@pytest.mark.parametrize("door", DOORS, ids=list(DOORS))
def test_a_kernel_verdict_the_checker_refuses_is_an_alarm_at_every_command(
    refusing: None, door: str
) -> None:
    _assert_alarm(*_run(DOORS[door]))


def test_check_proof_raises_the_alarm_on_the_files_own_derivation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _proof_file(tmp_path)  # written while the checker still accepts
    monkeypatch.setattr(certificate, "check_certificate", _refuse)
    monkeypatch.setattr(certificate, "_WORDS", {})
    _assert_alarm(*_run(["check-proof", str(path)]))
    _assert_alarm(*_run(["check-proof", str(path), "--json"]))


def test_check_proof_says_a_theorem_was_checked_twice(tmp_path: Path) -> None:
    code, out, _ = _run(["check-proof", str(_proof_file(tmp_path))])
    assert code == 0
    assert "VERIFIED variance_of_sum: 6 kernel steps; VERIFIED (kernel + checker)" in out


def _fresh() -> Any:
    return (
        calc("doors_variance", Var(X), E(X**2) - E(X) ** 2)
        .eq(E(X**2) - E(X) ** 2, by=variance_def)
        .qed()
    )


def test_the_apis_theorem_and_renderings_raise_the_alarm(refusing: None) -> None:
    d = _fresh()
    with pytest.raises(SoundnessAlarm, match="please report"):
        prove(d)
    with pytest.raises(SoundnessAlarm, match="step 2"):
        d.theorem()
    for fmt in ("text", "markdown", "json"):
        with pytest.raises(SoundnessAlarm, match=REASON):
            render(audit_of(d), fmt)
    with pytest.raises(SoundnessAlarm):
        run([d], "latex")
    with pytest.raises(SoundnessAlarm):
        certificate.confirm_theorem(check(d))  # a Theorem of the kernel's own check
    with pytest.raises(SoundnessAlarm):
        notebook_markdown(audit_of(d).theorem)
    with pytest.raises(SoundnessAlarm):
        scaledattn.variance(var_q=11)
    with pytest.raises(SoundnessAlarm):
        scaledattn.scale(var_q=11)


def test_the_apis_theorem_is_doubly_checked() -> None:
    d = _fresh()
    assert prove(d) is audit_of(d).theorem
    assert certificate.confirm(audit_of(d)) == "checked"
    assert certificate.confirm_theorem(check(d)) == "checked"
    assert "VERIFIED (kernel + checker)" in notebook_markdown(audit_of(d).theorem)
    assert json.loads(render(audit_of(d), "json"))["checker"] == "checked"


def test_a_mutated_kernels_false_theorem_is_an_alarm_in_the_api(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hole, mutant, build = next(m for m in MUTANTS if "diagonal" in m[0])  # Σ_{i≠j} c = n²·c
    _fresh_caches(monkeypatch)
    monkeypatch.setattr(certificate, "_WORDS", {})
    mutant(monkeypatch)
    d = build()
    assert audit_of(d).verified, hole  # the mutated kernel accepts it
    with pytest.raises(SoundnessAlarm, match="please report") as caught:
        prove(d)
    assert "step 1 (count_terms)" in str(caught.value)
    with pytest.raises(SoundnessAlarm):
        render(audit_of(d), "text")


def test_a_derivation_the_checker_cannot_read_is_said_so_never_doubly_checked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Every built-in theorem is read by the checker: the writer is made to fail on one.
    def unwritable(result: Any) -> Any:
        raise CannotCertify("a term the test keeps from the checker's language")

    monkeypatch.setattr(certificate, "certificate", unwritable)
    monkeypatch.setattr(certificate, "_WORDS", {})
    monkeypatch.setenv("SCALEDATTN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_CHECKED", {})
    monkeypatch.setattr(cache, "_STORE", [])
    code, out, _ = _run(["derive", "saturation_limits"])
    assert code == 0
    assert out.rstrip().endswith("; not read by the checker yet (kernel only)")
    assert "kernel + checker" not in out
    data = json.loads(_run(["derive", "saturation_limits", "--format", "json"])[1])
    assert data["verified"] is True
    assert data["checker"].startswith("unread")
    assert certificate.confirm(audit_of(find_derivation("saturation_limits"))).startswith("unread")


def test_a_term_past_the_checkers_bounds_is_refused_the_alarm_never_hidden_as_unread() -> None:
    # F3: a bound met while checking a step is a refusal (a false step could hide there)
    code, out, err = _run(["verify", "Cov(0, (0) + (exp(513))) = 0"])
    assert code == 70, (out, err)
    assert "please report" in err
    assert "step 2 (expectation_linear): an exponent beyond the checker's bounds" in err
    assert "VERIFIED" not in out + err


def test_a_refusal_of_a_step_is_an_alarm_whatever_the_certificates_name() -> None:
    named = certificate.READ_FAILURE + "x"
    refusal = Refusal(named, 1, "ring", "the claim is not what the rule's instances give")
    assert certificate.judge(_fresh(), Verdict(named, refusal)).startswith("refused")
    unread = Refusal("x", 1, "ring", certificate.READ_FAILURE + "an exponent beyond")
    assert certificate.judge(_fresh(), Verdict("x", unread)).startswith("unread")


def test_only_the_drivers_catch_all_begins_a_reason_with_the_read_failure() -> None:
    import ast

    import scaledattn.checker.steps as driver

    tree = ast.parse(Path(driver.__file__).read_text(encoding="utf-8"))
    prefix = certificate.READ_FAILURE.strip()
    catch_all = 0
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.args):
            continue
        name = getattr(node.func, "id", "")
        first = node.args[0]
        if isinstance(first, ast.JoinedStr) and first.values:
            first = first.values[0]
        text = first.value if isinstance(first, ast.Constant) else None
        if name in ("_Refused", "_Unread"):  # a step read: its own fixed text, or a why
            assert not (isinstance(text, str) and text.startswith(prefix)), ast.unparse(node)
            assert isinstance(text, str) or isinstance(first, ast.Name), ast.unparse(node)
        elif name == "Refusal" and len(node.args) >= 4:
            reason = node.args[3]
            if isinstance(reason, ast.JoinedStr) and reason.values:
                head = reason.values[0]
                catch_all += isinstance(head, ast.Constant) and str(head.value).startswith(prefix)
    assert catch_all >= 1  # the driver still writes the prefix the judge reads


#: True claims whose automation's derivation the kernel accepts and the checker refuses:
#: gaps of the checker's normal form (numbers' roots and logarithms), each now the alarm
#: (exit 70), never a VERIFIED. Strict: a closed gap fails here, to be taken off the list.
CHECKER_GAPS = [
    "0 = Cov(sqrt(3), sqrt(2))",  # √2·√3 and √6 are two atoms to the checker
    "0 = Cov(2, log(4))",
    "0.0 = Cov(log(log(6e2)), 0)",  # log 600 ≠ 0 by its form: not read so
    "sqrt(std(sqrt(3.0))) < 3.0",
    "Cov(0, (0) + (exp(513))) = 0",  # e^513: past the checker's bounds, refused (F3)
]


@pytest.mark.parametrize("claim", CHECKER_GAPS)
@pytest.mark.xfail(raises=SoundnessAlarm, strict=True, reason="a gap of the checker (ck)")
def test_a_true_claim_the_checker_cannot_follow_yet_is_the_alarm(claim: str) -> None:
    from scaledattn.claims import verify

    verify(claim)
