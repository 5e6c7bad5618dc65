"""The checker on its own: its imports and size, and accept/reject pairs per schema.

Each refusal names the step and the rule, with the checker's reason.
"""

from __future__ import annotations

import ast
import copy
import sys
from pathlib import Path
from typing import Any

import pytest

from scaledattn.certificate import certificate
from scaledattn.checker import check_certificate
from scaledattn.derive import audit_of
from scaledattn.registry import find_derivation

CHECKER = Path(__file__).resolve().parents[2] / "scaledattn" / "checker"
CHECKER_LINE_BUDGET = 1500

# the checker's term syntax, written by hand
X, Y = ["rv", "X"], ["rv", "Y"]
D = ["sym", "d_k", "inprz"]
II, JJ = ["sym", "i", "inprz"], ["sym", "j", "inprz"]
C = ["sym", "c", "r"]


def n(x: int | str) -> list[str]:
    return ["num", str(x)]


def E(x: Any) -> list[Any]:  # noqa: N802
    return ["E", x]


def cert(lhs: Any, rhs: Any, steps: list[tuple[str, Any, list[Any]]], facts: Any = ()) -> Any:
    return {
        "format": 1,
        "name": "t",
        "kind": "calc",
        "facts": list(facts),
        "lhs": lhs,
        "rhs": rhs,
        "steps": [
            {
                "rule": r,
                "claim": c,
                "forward": [{"lhs": a, "rhs": b, "facts": f} for a, b, f in inst],
            }
            for r, c, inst in steps
        ],
    }


def one(rule: str, lhs: Any, rhs: Any, facts: Any = (), cited: Any = ()) -> Any:
    return cert(lhs, rhs, [(rule, rhs, [(lhs, rhs, list(cited))])], facts)


def test_the_checker_imports_only_the_standard_library() -> None:
    for path in CHECKER.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            for name in names:
                top = name.split(".")[0]
                ours = name == "scaledattn.checker" or name.startswith("scaledattn.checker.")
                ok = top in sys.stdlib_module_names or ours  # never scaledattn.checkerX
                assert ok, f"{path.name} imports {name}"


def _code_lines(path: Path) -> int:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        value = first.value if isinstance(first, ast.Expr) else None
        if first is not None and isinstance(value, ast.Constant) and isinstance(value.value, str):
            docs |= set(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    lines = path.read_text(encoding="utf-8").splitlines()
    return sum(
        1
        for k, line in enumerate(lines, start=1)
        if line.strip() and not line.strip().startswith("#") and k not in docs
    )


def test_the_checker_stays_within_its_line_budget() -> None:
    total = sum(_code_lines(p) for p in CHECKER.glob("*.py"))
    assert total <= CHECKER_LINE_BUDGET, f"checker: {total} code lines"


ACCEPTED = [
    ("variance_def", ["Var", X], ["add", E(["pow", X, n(2)]), ["mul", n(-1), ["pow", E(X), n(2)]]]),
    ("covariance_def", ["Cov", X, Y], ["add", E(["mul", X, Y]), ["mul", n(-1), E(X), E(Y)]]),
    ("std_def", ["Std", X], ["pow", ["Var", X], n("1/2")]),
    ("expectation_linear", E(["add", X, ["mul", n(2), Y]]), ["add", E(X), ["mul", n(2), E(Y)]]),
    ("variance_const_mul", ["Var", ["mul", n(3), X]], ["mul", n(9), ["Var", X]]),
    (
        "dot_def",
        ["dot", "q", "k", D],
        ["sum", ["mul", ["comp", "q", JJ], ["comp", "k", JJ]], JJ, D],
    ),
    ("count_terms", ["sum", C, II, D], ["mul", D, C]),
    (
        "sum_unroll",
        ["sum", ["comp", "q", II], II, n(2)],
        ["add", ["comp", "q", n(1)], ["comp", "q", n(2)]],
    ),
]


@pytest.mark.parametrize(("rule", "lhs", "rhs"), ACCEPTED, ids=[a[0] for a in ACCEPTED])
def test_the_checker_accepts_an_instance_of_the_rule(rule: str, lhs: Any, rhs: Any) -> None:
    verdict = check_certificate(one(rule, lhs, rhs))
    assert verdict.ok, str(verdict.refusal)


REFUSED = [
    # Var(X + Y) = Var(X) + Var(Y) with the covariance dropped
    ("covariance_def", ["Cov", X, Y], E(["mul", X, Y])),
    ("variance_def", ["Var", X], E(["pow", X, n(2)])),
    ("std_def", ["Std", X], ["Var", X]),
    ("expectation_linear", E(["mul", X, Y]), ["mul", E(X), E(Y)]),
    ("variance_const_mul", ["Var", ["mul", n(3), X]], ["mul", n(3), ["Var", X]]),
    # the cross sum has d_k(d_k − 1) terms, not d_k²
    ("count_terms", ["cross", C, II, JJ, D], ["mul", ["pow", D, n(2)], C]),
    ("sum_unroll", ["sum", ["comp", "q", II], II, n(2)], ["comp", "q", n(1)]),
    ("ring", ["add", X, X], X),
]


@pytest.mark.parametrize(("rule", "lhs", "rhs"), REFUSED, ids=[a[0] for a in REFUSED])
def test_the_checker_refuses_a_replacement_the_rule_does_not_give(
    rule: str, lhs: Any, rhs: Any
) -> None:
    verdict = check_certificate(one(rule, lhs, rhs))
    assert verdict.refusal is not None
    assert (verdict.refusal.step, verdict.refusal.rule) == (1, rule)
    assert "step 1 (" + rule + ")" in str(verdict.refusal)


def test_an_undeclared_independence_is_refused() -> None:
    lhs, rhs = E(["mul", X, Y]), ["mul", E(X), E(Y)]
    assert not check_certificate(one("expectation_mul_of_indep", lhs, rhs)).ok
    facts = [["independent", [["rv", "X"], ["rv", "Y"]]]]
    assert check_certificate(one("expectation_mul_of_indep", lhs, rhs, facts, [0])).ok
    uncited = check_certificate(one("expectation_mul_of_indep", lhs, rhs, facts, []))
    assert not uncited.ok
    assert "independence" in str(uncited.refusal)


def test_a_moment_is_substituted_only_as_declared() -> None:
    facts = [["moment", E(["comp", "q", II]), n(0)]]
    lhs = E(["comp", "q", JJ])
    assert check_certificate(one("substitute_moment", lhs, n(0), facts, [0])).ok
    assert not check_certificate(one("substitute_moment", lhs, n(1), facts, [0])).ok


def test_components_with_one_index_are_not_independent_outside_a_cross_sum() -> None:
    facts = [["components", [["vec", "q"]]]]
    body = E(["mul", ["comp", "q", II], ["comp", "q", JJ]])
    split = ["mul", E(["comp", "q", II]), E(["comp", "q", JJ])]
    inst = [(body, split, [0])]
    cross = cert(
        ["cross", body, II, JJ, D],
        ["cross", split, II, JJ, D],
        [("expectation_mul_of_indep", ["cross", split, II, JJ, D], inst)],
        facts,
    )
    assert check_certificate(cross).ok
    plain = ["sum", ["sum", body, JJ, D], II, D]
    double = ["sum", ["sum", split, JJ, D], II, D]
    wrong = cert(plain, double, [("expectation_mul_of_indep", double, inst)], facts)
    assert not check_certificate(wrong).ok


def _unique_scale() -> Any:
    return certificate(audit_of(find_derivation("unique_scale")))


def test_the_positive_root_is_kept_and_c_equal_d_k_is_refused() -> None:
    good = _unique_scale()
    assert check_certificate(good).ok
    bad = copy.deepcopy(good)
    # c = d_k instead of c = √d_k, at the square roots and after
    for s in bad["steps"][2:]:
        s["claim"] = s["claim"] if s["claim"][0] != "eq" else ["eq", ["sym", "c", "r"], D]
    bad["steps"][-1]["claim"] = ["eq", ["sym", "c", "r"], D]
    bad["rhs"] = ["eq", ["sym", "c", "r"], D]
    verdict = check_certificate(bad)
    assert verdict.refusal is not None
    assert verdict.refusal.step == 4
    assert verdict.refusal.rule == "exclude_by_sign"


def test_a_divisor_not_known_non_zero_is_refused() -> None:
    lhs = ["mul", X, ["pow", C, n(-1)], C]
    verdict = check_certificate(cert(lhs, X, [("ring", X, [])]))
    assert not verdict.ok
    assert "divisor" in str(verdict.refusal)
    declared = cert(lhs, X, [("ring", X, [])], [["positive", C]])
    assert check_certificate(declared).ok


def test_an_axiom_is_never_checked() -> None:
    verdict = check_certificate(cert(["Var", X], n(0), [("axiom:zero", n(0), [])]))
    assert not verdict.ok
    assert "axiom" in str(verdict.refusal)


def test_a_certificate_outside_the_grammar_is_unreadable() -> None:
    verdict = check_certificate(cert(["eval", "1"], n(1), [("ring", n(1), [])]))
    assert not verdict.ok
    assert "cannot read" in str(verdict.refusal)
