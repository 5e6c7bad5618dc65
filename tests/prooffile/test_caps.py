"""Huge inputs in a proof file are refused when read, in one line (review of issue 12).

``sum(BODY, i, 1, 10**30)``, ``dot(q, k, 10**6)`` on a wrong step, ``exp(10**10)``:
check-proof ran for minutes (the feedback's model drew 10**30 components; SymPy
factored exp(10**10) as a polynomial of that degree). The bounds are in
:mod:`scaledattn.prooffile.caps`; the times are measured by benchmarks/proof_caps.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy

from scaledattn.cli import main
from scaledattn.errors import ProofFileError
from scaledattn.kernel import RULES, Derivation, E, Equation, IndexSum
from scaledattn.kernel.expr import Component, VectorLabel
from scaledattn.prooffile import check
from scaledattn.prooffile.caps import (
    MAX_BITS,
    MAX_DIMENSION,
    MAX_EXP_NUMBER,
    MAX_EXPANSION,
    MAX_FILE_EXPANSION,
    MAX_MODEL_DIMENSION,
    expanded_size,
)
from scaledattn.prooffile.files import check_text
from scaledattn.prooffile.parse import MAX_ASSUMPTIONS, parse_document
from scaledattn.prooffile.search import _FAILED, Search


def _one(expr: str) -> str:
    """A theorem whose statement and only step hold ``expr``."""
    return f"theorem t: {expr} = 1\n  {expr}\n  = 1\n"


#: (file text, what the one-line error must say).
REFUSED = {
    "a sum to 10**30": (
        _one("sum(q_i, i, 1, 10**30)"),
        f"dimension 10**30 too large (at most {MAX_DIMENSION})",
    ),
    "a sum to 10**30 by sum_unroll": (
        "theorem t: sum(q_i, i, 1, 10**30) = 0\n  = 0  by sum_unroll\n",
        "dimension 10**30 too large",
    ),
    "a sum to 2**64": (
        _one("sum(E(X)*i, i, 1, 2**64)"),
        "dimension 18446744073709551616 too large",
    ),
    "a cross sum": (_one("cross_sum(q_i*k_j, i, j, 1, 10**30)"), "dimension 10**30 too large"),
    "a dot product": (_one("Var(dot(q, k, 10**30))"), "dimension 10**30 too large"),
    "an entry": (_one("sum(entry(s, i, 10**30), i, 1, 3)"), "dimension 10**30 too large"),
    "a softmax": (_one("softmax(s, i, 10**30)"), "dimension 10**30 too large"),
    "an index range": (
        "theorem t: sum(q_i, i, 1, m) = 1\nassume: 1 <= m <= 10**30\n  = 1\n",
        f"an index range's bound is at most {MAX_DIMENSION}",
    ),
    "exp(10**10)": (
        _one("exp(10**10)"),
        f"exp(10**10) too large (the numbers in exp(…) are at most {MAX_EXP_NUMBER})",
    ),
    "exp(-10**10)": (_one("exp(-10**10)"), "exp(-10000000000) too large"),
    "exp(exp(exp(100)))": (_one("exp(exp(exp(100)))"), "too large (the numbers in exp(…)"),
    "exp(1/10**10)": (_one("exp(c/10**10)"), "too large (the numbers in exp(…)"),
    "products of exp": (_one("*".join(["exp(60)"] * 3)), "exp(180) too large"),
    "a power of exp": (_one("exp(60)**8"), "exp(480) too large"),
    "a product of huge numbers": (
        _one("*".join(["10**30"] * 40)),
        f"number too large (at most {MAX_BITS} bits)",
    ),
    "a huge rational": (_one("1/" + "*".join(["9" * 30] * 40)), "number too large"),
    "a huge symbolic power": (_one("c**(10**9)"), "exponent 1000000000 too large"),
    "an expansion": (_one("E(dot(q, k, 64)**8)"), f"more than {MAX_EXPANSION} monomials"),
    "an explicit expansion": (
        _one("E((" + "+".join(f"q_{n}*k_{n}" for n in range(1, 41)) + ")**3)"),
        f"more than {MAX_EXPANSION} monomials",
    ),
    "an assumption": (
        "theorem t: Var(q_i) = 1\nassume: Var(q_i) = " + "*".join(["10**30"] * 40) + "\n  = 1\n",
        "number too large",
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", REFUSED, ids=list(REFUSED))
def test_a_huge_input_is_refused_when_read_saying_what_and_the_limit(name: str) -> None:
    text, message = REFUSED[name]
    with pytest.raises(ProofFileError) as caught:
        parse_document(text)
    assert message in caught.value.message


def test_many_large_terms_together_are_refused_at_their_line() -> None:
    term = "E(dot(q, k, 64)**2)"  # 2080 monomials each
    per_line = expanded_size(parse_document(_one(term)).theorems[0].statement.lhs)
    lines = MAX_FILE_EXPANSION // per_line + 2
    text = f"theorem t: {term} = {term}\n  {term}\n" + f"  = {term}\n" * lines
    with pytest.raises(ProofFileError, match="too large together") as caught:
        parse_document(text)
    assert caught.value.line <= lines + 2


@pytest.mark.parametrize("name", ["a sum to 10**30", "exp(10**10)"])
def test_check_proof_refuses_a_huge_input_with_one_line_and_exit_2(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "huge.proof"
    path.write_text(REFUSED[name][0], encoding="utf-8")
    assert main(["check-proof", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"{path}:1:")
    assert REFUSED[name][1] in err
    assert len(err.splitlines()) == 1
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "text",
    [
        _one("Var(dot(q, k, 512))"),
        _one("Var(dot(q, k, 1048576))"),
        _one("sum(q_i*k_i, i, 1, d_k)"),
        _one("E(dot(q, k, 64)**2)"),
        _one("exp(64)*exp(-64)"),
        _one("*".join(["10**60"] * 5)),  # 10**300, 997 bits
        "theorem t: sum(q_i, i, 1, m) = 1\nassume: 1 <= m <= 1048576\n  = 1\n",
    ],
)
def test_the_numbers_a_proof_needs_still_read(text: str) -> None:
    assert parse_document(text).theorems[0].name == "t"


def test_a_wrong_step_of_a_large_dimension_says_no_model_was_searched() -> None:
    dim = MAX_MODEL_DIMENSION * 2
    text = f"theorem t: Var(dot(q, k, {dim})) = 7\n  = 7  by ring\n"
    step = check_text(text).verdicts[0].steps[0]
    assert step.status == "rejected"
    assert step.feedback is not None
    assert step.feedback.model is None
    assert step.feedback.no_model == (
        f"no model searched: the dimension {dim} is above {MAX_MODEL_DIMENSION},"
        " the model search's limit"
    )
    assert step.feedback.as_json()["no_model"] == step.feedback.no_model


def test_a_wrong_step_within_the_bound_still_gets_its_model() -> None:
    text = f"theorem t: Var(dot(q, k, {MAX_MODEL_DIMENSION})) = 7\n  = 7  by ring\n"
    feedback = check_text(text).verdicts[0].steps[0].feedback
    assert feedback is not None
    assert feedback.model is not None
    assert not feedback.no_model


def test_the_search_proposes_no_rule_result_that_would_expand_too_far() -> None:
    i = sympy.Symbol("i", integer=True, positive=True)
    q, k = (Component(VectorLabel(v), i) for v in "qk")
    big = E(IndexSum(q * k, i, 64) ** 3)  # unrolled: (64 terms)**3, 47905 monomials
    small = E(IndexSum(q * k, i, 3) ** 3)
    search = Search(Derivation("t", Equation(big, big), ()), {})
    assert search.applied(big, RULES["sum_unroll"]) is _FAILED
    assert search.applied(small, RULES["sum_unroll"]) is not _FAILED


def test_steps_past_the_files_search_budget_are_not_searched_and_say_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 400 steps each searched took minutes: the file's searches share one budget of
    # kernel checks (here 1, so that only the first step is searched)
    monkeypatch.setattr(check, "MAX_FILE_CHECKS", 1)
    text = "theorem t: Var(2*X) = 4*Var(X)\n  = 2**2*Var(X)\n  = 4*Var(X)\n"
    verdict = check_text(text).verdicts[0]
    first, second = verdict.steps
    assert first.status == "verified"
    assert second.status == "unproved"
    assert second.feedback is not None
    assert second.feedback.skipped == check.SKIPPED
    assert "name the step's rule with by" in check_text(text).text()
    assert not verdict.verified


def test_a_theorem_with_too_many_assumptions_is_refused_at_the_line_past_the_limit() -> None:
    lines = "".join(f"assume: c{n} > 0\n" for n in range(MAX_ASSUMPTIONS + 1))
    with pytest.raises(ProofFileError, match=f"more than {MAX_ASSUMPTIONS} assume: lines") as err:
        parse_document(f"theorem t: X = X\n{lines}  = X\n")
    assert err.value.line == MAX_ASSUMPTIONS + 2
