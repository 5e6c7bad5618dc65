"""The calculator's answers: the issue's closed forms, each the right side of a checked Theorem."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
import sympy

import scaledattn
from scaledattn.calculator import Answer, CannotDerive, setting
from scaledattn.cli import main
from scaledattn.derive import audit_of, prove
from scaledattn.errors import StepMismatch
from scaledattn.kernel import Step
from scaledattn.moments.build import scale_derivation, variance_derivation

# (command-line options, quantity, the closed form as SymPy prints it, then its decimal
# value where the decimals say more)
EXPECTED = [
    ([], "variance", "d_k"),
    (["--var-q", "4", "--var-k", "4"], "variance", "16*d_k"),
    (
        ["--mean-q", "mu_q", "--mean-k", "mu_k", "--var-q", "sigma_q**2", "--var-k", "sigma_k**2"],
        "variance",
        "d_k*(mu_k**2*sigma_q**2 + mu_q**2*sigma_k**2 + sigma_k**2*sigma_q**2)",
    ),
    (["--corr", "rho"], "variance", "d_k*(rho**2 + 1)"),
    (["--corr", "rho"], "mean", "d_k*rho"),
    (["--mean-q", "mu_q", "--mean-k", "mu_k"], "mean", "d_k*mu_k*mu_q"),
    ([], "mean", "0"),
    ([], "scale", "sqrt(d_k)"),
    (["--var-q", "4", "--var-k", "4"], "scale", "4*sqrt(d_k)"),
    (["--d-k", "64"], "scale", "8"),
    (["--heads", "8", "--d-model", "512"], "scale", "8"),
    (["--heads", "8", "--d-model", "512", "--var-q", "4"], "variance", "256"),
    (["--d-k", "n"], "variance", "n"),
    (["--var-q", "1/d_k", "--var-k", "1/d_k"], "variance", "1/d_k"),
    (["--var-q", "4", "--target-var", "1/4"], "scale", "4*sqrt(d_k)"),
    (["--target-var", "t"], "scale", "sqrt(d_k)/sqrt(t)"),
    (["--var-q", "sigma**2", "--var-k", "sigma**2"], "scale", "sqrt(d_k)*sigma**2"),
    (["--corr", "1/2"], "variance", "5*d_k/4 = 1.25*d_k"),
    (["--corr", "rho"], "scale", "sqrt(d_k)*sqrt(rho**2 + 1)"),
    (["--corr", "-1", "--d-k", "2"], "variance", "4"),
]


@pytest.mark.parametrize(("options", "quantity", "closed_form"), EXPECTED)
def test_the_last_line_of_output_is_the_checked_closed_form(
    options: list[str], quantity: str, closed_form: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([quantity, *options]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == closed_form


@pytest.mark.parametrize(("options", "quantity", "closed_form"), EXPECTED[:8])
def test_explain_prints_the_verified_derivation_above_the_same_last_line(
    options: list[str], quantity: str, closed_form: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([quantity, *options, "--explain"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == closed_form
    assert any(line.startswith(f"VERIFIED {quantity}") for line in lines)
    assert not any("REJECTED" in line for line in lines)


def test_every_answer_is_the_right_side_of_its_theorem() -> None:
    for answer in (
        scaledattn.variance(var_q=4, var_k=4),
        scaledattn.mean(corr="rho"),
        scaledattn.scale(var_q=4, var_k=4),
    ):
        assert all(audit_of(d).verified for d in answer.derivations)
        assert answer.derivations[-1] is answer.derivation
        statement = answer.theorem.statement
        rhs = statement.rhs.rhs if answer.quantity == "scale" else statement.rhs
        assert sympy.expand(sympy.sympify(rhs) - answer.expr) == 0


def test_an_answer_behaves_as_its_sympy_expression() -> None:
    answer = scaledattn.variance(var_q=4, var_k=4)
    d_k = answer.setting.symbols["d_k"]
    assert answer == 16 * d_k
    assert answer != 15 * d_k
    assert answer != "16*d_k"  # text is never sympified
    assert str(answer) == repr(answer) == "16*d_k"
    assert answer.subs(d_k, 64) == 1024
    assert sympy.sympify(answer) * 2 == 32 * d_k
    assert answer.free_symbols == {d_k}
    assert (
        answer._repr_latex_()
        == r"$\displaystyle \operatorname{Var}\left(q \cdot k\right) = 16 d_{k}$"
    )
    assert scaledattn.scale()._repr_latex_() == r"$\displaystyle c = \sqrt{d_{k}}$"
    assert isinstance(answer, Answer)


def test_a_correlation_of_zero_gives_the_independent_answers() -> None:
    options = {"var_q": "sigma**2", "mean_q": "mu", "mean_k": 2}
    assert scaledattn.variance(**options, corr=0) == scaledattn.variance(**options)
    assert scaledattn.mean(**options, corr=0) == scaledattn.mean(**options)


def test_the_gaussian_fourth_moment_is_declared_with_its_provenance() -> None:
    answer = scaledattn.variance(corr="rho")
    declared = [str(a) for a in answer.derivation.assumptions]
    assert "E[k_i**2*q_i**2] = 2*rho**2 + 1 for every i" in declared
    assert "IndependentPairs(q, k)" in declared
    assert any("Isserlis" in line for line in answer.provenance)
    assert any("|rho| <= 1" in note for note in answer.setting.notes)


def test_independent_answers_declare_no_joint_moment() -> None:
    answer = scaledattn.variance(var_q=4, var_k=4)
    assert answer.provenance == ()
    assert "IndependentComponents(q, k)" in [str(a) for a in answer.derivation.assumptions]


def test_the_kernel_rejects_an_automated_derivation_with_a_wrong_closed_form() -> None:
    derivation = variance_derivation(setting(var_q=4, var_k=4))
    last = derivation.steps[-1]
    d_k = setting().d
    tampered = replace(derivation, steps=(*derivation.steps[:-1], Step(last.rule, 15 * d_k)))
    with pytest.raises(StepMismatch) as err:
        prove(tampered)
    assert err.value.step == len(derivation.steps)


def test_the_kernel_rejects_a_scale_that_keeps_the_negative_root() -> None:
    derivation = scale_derivation(setting(var_q=4, var_k=4))
    tampered = replace(derivation, steps=derivation.steps[:-1])
    assert not audit_of(tampered).verified


def test_a_setting_the_rules_cannot_derive_is_refused_not_computed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(CannotDerive) as err:
        scaledattn.scale(corr="rho", mean_q="mu", mean_k="mu")
    # the roots ±√w need w ≥ 0, which the kernel cannot show (it cannot be told |ρ| ≤ 1)
    assert err.value.rule == "square_roots"
    assert main(["scale", "--corr", "rho", "--mean-q", "mu", "--mean-k", "mu"]) == 1
    out, err_text = capsys.readouterr()
    assert out == ""
    assert "not known to be real, nor the negative one excluded" in err_text
    assert "Traceback" not in err_text


def test_json_output_is_one_document_with_the_closed_form_and_certificates(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["scale", "--var-q", "4", "--var-k", "4", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["closed_form"] == "4*sqrt(d_k)"
    assert data["verified"] is True
    assert [d["theorem"] for d in data["derivations"]] == [
        "variance_as_sums(var_q=4, var_k=4)",
        "scale(var_q=4, var_k=4)",
    ]
    assert all(step["verified"] for d in data["derivations"] for step in d["steps"])
    assert data["setting"]["target_var"] == "1"


def test_latex_output_ends_with_the_closed_form(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["variance", "--var-q", "4", "--format", "latex", "--explain"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "4*d_k"
    assert lines[-2] == r"\[ \operatorname{Var}\left(q \cdot k\right) = 4 d_{k} \]"
    assert r"\begin{aligned}" in lines


def test_mean_explains_why_correlation_calls_for_one_over_d_k(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["mean", "--corr", "rho", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "E[(q·k)/(√dₖ)] = ρ·√dₖ" in out
    assert "E[(q·k)/dₖ] = ρ" in out
    assert "μP" in out
    assert out.splitlines()[-1] == "d_k*rho"


def test_multi_head_settings_use_d_model_over_heads() -> None:
    assert scaledattn.variance(heads=8, d_model=512) == 64
    assert scaledattn.variance(heads=8, d_model=512, d_k=64) == 64
    assert scaledattn.scale(heads=12, d_model=768, var_q=4, var_k=4) == 32


@pytest.mark.parametrize(
    ("options", "root"),
    [
        ({"target_var": 2}, sympy.Rational(1, 2)),  # c = √(d_k/2)
        ({"var_q": 4, "var_k": 4, "target_var": 16}, sympy.S.One),
        ({"var_q": 4, "var_k": 4}, sympy.S(16)),
    ],
)
def test_the_scale_derivation_proves_its_own_lemma_for_any_target(
    options: dict[str, object], root: sympy.Expr
) -> None:
    # Var(q·k / c) = t with Var(q·k) = V gives c = √(V/t); the lemma is built on demand.
    s = setting(**options)  # type: ignore[arg-type]
    theorem = prove(scale_derivation(s))
    assert sympy.simplify(theorem.statement.rhs.rhs - sympy.sqrt(root * s.d)) == 0


@pytest.mark.parametrize("variance", ["(mu+1)**2", "(mu-1)**2"])
def test_a_squared_binomial_variance_is_answered_not_crashed(
    variance: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found by review k18 (issue 12): SymPy's sign deduction raised PolynomialError on it
    # after earlier work (exit 70).
    code = main(["variance", "--var-q", variance])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "d_k*(mu**2" in out
