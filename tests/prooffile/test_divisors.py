"""check-proof refuses a term whose divisor, logarithm or root SymPy rewrote away unchecked.

SymPy evaluates as it builds: c·(c−1)/(c−1) reads as c, exp(log(−c)) as −c, √a² as a.
What the written term needs (c ≠ 1, −c > 0, a ≥ 0) must follow from the declared
assumptions and the symbols' facts, or the file is malformed: one line
``file:line:column: message``, exit 2. A divisor the built term still carries is the
kernel's to see, and a divisor the assumptions keep nonzero may cancel.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import example, given

from scaledattn.cli import main
from scaledattn.derive import audit_of
from scaledattn.errors import InvalidArgument, ProofFileError
from scaledattn.kernel import Context
from scaledattn.language.names import Names
from scaledattn.language.parse import names_in
from scaledattn.language.terms import TermBuilder
from scaledattn.prooffile.files import check_file, check_text
from scaledattn.prooffile.parse import parse_text
from scaledattn.registry import all_derivations
from scaledattn.render import render
from tests.written import VALUES, assert_same_where_defined, written_terms

Capture = pytest.CaptureFixture[str]

#: Each attack: the proof text, the place of the refusal, and what the refusal says.
REFUSED = {
    "a cancelled divisor in the statement": (
        "theorem t: c*(c - 1)/(c - 1) = c\n  = c  by ring\n",
        (1, 12),
        "division by c - 1, which may be 0",
    ),
    "a cancelled divisor in an equivalence": (
        "theorem t: c*(c - 1)/(c - 1) = 1 <=> c = 1\n  <=> c = 1  by ring\n",
        (1, 12),
        "division by c - 1, which may be 0",
    ),
    "a cancelled divisor in a step": (
        "theorem t: E(X) = E(X)\n  = E(X)*(c - 1)/(c - 1)  by ring\n  = E(X)  by ring\n",
        (2, 5),
        "division by c - 1, which may be 0",
    ),
    "a cancelled divisor in an assumption": (
        "theorem t: E(X) = 1\nassume: E(X) = (c - 1)/(c - 1)\n  = 1  by ring\n",
        (2, 16),
        "division by c - 1, which may be 0",
    ),
    "the log of a term the assumptions make negative": (
        "theorem t: exp(log(-c)) = -c\nassume: c > 0\n  = -c  by ring\n",
        (1, 16),
        "log of -c, which is never positive under the declared assumptions",
    ),
    "the log of a term of unknown sign": (
        "theorem t: exp(log(a)) = a\n  = a  by ring\n",
        (1, 16),
        'log of a, which may not be positive; declare "assume: a > 0"',
    ),
    "an algebraic number that is 0": (
        "theorem t: E(X)*((1 + sqrt(2))**2 - 3 - 2*sqrt(2))/((1 + sqrt(2))**2 - 3 - 2*sqrt(2))"
        " = E(X)\n  = E(X)  by ring\n",
        (1, 12),
        "division by zero (-3 - 2*sqrt(2) + (1 + sqrt(2))**2 is 0)",
    ),
    "a root squared away": (
        "theorem t: sqrt(a)**2 = a\n  = a  by ring\n",
        (1, 12),
        "square root of a, which may be negative (the term as read squares it away);"
        ' declare "assume: a > 0"',
    ),
    "a negative power cancelled": (
        "theorem t: (c - 1)**-1*(c - 1) = 1\n  = 1  by ring\n",
        (1, 12),
        "division by c - 1, which may be 0",
    ),
    "a zero numerator": (
        "theorem t: 0/b = 0\n  = 0  by ring\n",
        (1, 12),
        'division by b, which may be 0 (the term as read cancels it); declare "assume: b > 0"',
    ),
    "a divisor with a sum's index": (
        "theorem t: sum(q_i*(i - 1)/(i - 1), i, 1, n) = sum(q_i, i, 1, n)\n"
        "  = sum(q_i, i, 1, n)  by ring\n",
        (1, 16),
        "division by i - 1, which may be 0",
    ),
    "a fact about the variable a limit binds": (
        "theorem t: lim(lambda/lambda, lambda) = 1\nassume: lambda > 0\n  = 1  by ring\n",
        (1, 16),
        "division by lambda, which may be 0",
    ),
    "c without its default": (
        "theorem t: X*c/c = X\nassume: no defaults\n  = X  by ring\n",
        (1, 12),
        'division by c, which may be 0 (the term as read cancels it); declare "assume: c > 0"',
    ),
    "the square root of a negative number": (
        "theorem t: ((-4)**(1/2))**2 = -4\n  = -4  by ring\n",
        (1, 12),
        "square root of a negative number (-4)",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_term_sympy_rewrites_under_a_hidden_condition_is_one_located_error(
    case: str, tmp_path: Path, capsys: Capture
) -> None:
    text, (line, column), message = REFUSED[case]
    path = tmp_path / "attack.proof"
    path.write_text(text, encoding="utf-8")
    assert main(["check-proof", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"{path}:{line}:{column}: {message}"), err
    assert len(err.strip().splitlines()) == 1


def test_a_certificate_with_a_cancelled_divisor_names_its_line_in_the_json(tmp_path: Path) -> None:
    derivation = next(d for d in all_derivations() if d.name == "scaled_variance")
    data = json.loads(render(audit_of(derivation), "json"))
    steps = data["certificate"]["theorems"][-1]["steps"]
    steps[-1]["expr"] = "d_k*(c - 1)/((c - 1)*c**2)"
    path = tmp_path / "cancelled.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    with pytest.raises(ProofFileError) as caught:
        check_file(path)
    line = (
        path.read_text(encoding="utf-8")
        .splitlines()
        .index('            "expr": "d_k*(c - 1)/((c - 1)*c**2)",')
    )
    assert str(caught.value).startswith(f"{path}:{line + 1}:"), str(caught.value)
    assert "division by c - 1, which may be 0" in str(caught.value)


def test_a_markdown_lesson_with_a_cancelled_divisor_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "lesson.md"
    path.write_text(
        "# Lesson\n\n```proof\ntheorem t: E(X) = E(X)\n  = E(X)*(c - 1)/(c - 1)\n```\n",
        encoding="utf-8",
    )
    assert main(["check-proof", str(path)]) == 2


#: What keeps working: a divisor the assumptions or the symbols keep nonzero may cancel,
#: a log of a positive term is read, and a divisor the built term keeps is the kernel's.
ACCEPTED = {
    "c > 0 by default": "theorem t: X*c/c = X\n  = X  by ring\n",
    "a declared positive": "theorem t: a*b/b = a\nassume: b > 0\n  = a  by ring\n",
    "a positive kind": "theorem t: a*b/b = a\nassume: b positive\n  = a  by ring\n",
    "sigma is positive": "theorem t: X*sigma/sigma = X\n  = X  by ring\n",
    "a dimension": "theorem t: d_k*X/d_k = X\n  = X  by ring\n",
    "the log of a positive term": "theorem t: exp(log(c)) = c\n  = c  by ring\n",
    "a root of a declared positive": "theorem t: sqrt(a)**2 = a\nassume: a > 0\n  = a  by ring\n",
    "a root of a square": "theorem t: sqrt(a**2) = sqrt(a**2)\n  = sqrt(a**2)  by ring\n",
    "a softmax weight": "theorem t: p_i*X/p_i = X\n  = X  by ring\n",
    "a divisor kept, positive": (
        "theorem t: (c + 1)/(c + 1)**2 = 1/(c + 1)\n  = 1/(c + 1)  by ring\n"
    ),
    "a root of a variance": "theorem t: sqrt(Var(X))**2 = Var(X)\n  = Var(X)  by ring\n",
}


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_a_divisor_the_assumptions_keep_nonzero_or_the_term_keeps_is_accepted(case: str) -> None:
    (verdict,) = check_text(ACCEPTED[case], "good.proof").verdicts
    assert verdict.verified, case


@pytest.mark.parametrize("name", ["unique_scale", "scaled_variance", "saturation_limits"])
def test_a_built_in_certificate_with_c_declared_positive_is_accepted(
    name: str, tmp_path: Path, capsys: Capture
) -> None:
    # Every built-in theorem is checked both ways by test_check_proof.py's round trips;
    # these carry divisions by c (declared positive), by Σ exp(s_j) and limits over λ.
    assert main(["derive", name, "--format", "json"]) == 0
    path = tmp_path / f"{name}.json"
    path.write_text(capsys.readouterr().out, encoding="utf-8")
    assert main(["check-proof", str(path)]) == 0


@given(written_terms(("a", "b", "sigma"), functions=True))
@example("(a) / (a)")
@example("sqrt((a) - (b)) * sqrt((a) - (b))")
@example("(1) / (((a)**(-1)) * (a))")
@example("log(exp((a)))")
def test_a_term_the_proof_reader_accepts_is_undefined_wherever_the_written_one_is(
    text: str,
) -> None:
    builder, node = TermBuilder(Names(), text), parse_text(text).parse()
    try:
        built = builder.term(node)
    except InvalidArgument:
        return  # refused as read: nothing is claimed about it
    if any(not c.holds(Context()) for c in builder.conditions):
        return  # refused by check-proof (no assumptions declared)
    symbols = {n: Names().constant(n) for n in names_in(node)}
    ranges = {"a": VALUES, "b": VALUES, "sigma": (1, 2)}
    assert_same_where_defined(node, built, symbols, ranges)


#: Divisors the read term keeps, which a kernel rule then drops: the parsers hand them to
#: the kernel as written (1/a, E(X/(c - 1))), and the kernel refuses them: a claim must be
#: defined wherever the assumptions hold (a ≠ 0 and c ≠ 1 are not assumed).
DROPPED_BY_A_RULE = {
    "ring expands a·(1/a + 1) to 1 + a": "theorem t: a*(1/a + 1) = 1 + a\n  = 1 + a  by ring\n",
    "expectation_linear pulls c - 1 out and SymPy cancels it": (
        "theorem t: E(X/(c - 1))*(c - 1) = E(X)\n  = E(X)  by expectation_linear\n"
    ),
}


@pytest.mark.parametrize("case", sorted(DROPPED_BY_A_RULE))
def test_a_step_whose_rule_drops_a_divisor_the_term_keeps_is_not_verified(case: str) -> None:
    try:
        checked = check_text(DROPPED_BY_A_RULE[case], "dropped.proof")
    except ProofFileError:
        return
    assert not checked.verified
