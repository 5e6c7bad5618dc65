"""Review 30, finding 5 (03): a trial value is admitted only in a model that keeps it.

``Var(X) = c`` and ``Var(X) = 1`` force c = 1; the drawer used to overwrite the trial
c = 2 with the value the moment names, so ``admissible`` saw a model and the true
``c = 1`` was REFUTED "at c = 2". A constant the caller fixed is never overwritten,
and the trial world must keep every fixed value and pass the semantics' check.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

from scaledattn.claims.outcome import Verdict
from scaledattn.claims.verify import verify
from scaledattn.gate import model_of
from scaledattn.kernel import Moment, Var, random_variables


@pytest.mark.parametrize(
    ("claim", "assume"),
    [
        ("c = 1", ["Var(X) = c", "Var(X) = 1"]),
        ("Var(X) = 1", ["Var(X) = c", "Var(X) = 1"]),
        ("a = b", ["E(X) = a", "E(X) = b"]),
        ("Cov(X, Y) = Cov(Y, X)", ["Cov(X, Y) = a", "Cov(Y, X) = b"]),
        ("rho = 1", ["Cov(X, X) = rho", "Var(X) = 1"]),
    ],
)
def test_a_true_claim_is_never_refuted_at_values_no_model_has(
    claim: str, assume: list[str]
) -> None:
    result = verify(claim, assume, remedies=False)
    assert result.verdict is not Verdict.REFUTED, result.evidence


def test_a_fixed_value_is_kept_so_the_check_fails_honestly() -> None:
    (x,) = random_variables("X")
    c = sympy.Symbol("c", positive=True)
    facts = [Moment(Var(x), c), Moment(Var(x), 1)]
    assert model_of([Var(x)], facts, fixed={c: Fraction(2)}) is None
    world = model_of([Var(x)], facts, fixed={c: Fraction(1)})
    assert world is not None
    assert world.values[c] == 1


def test_a_false_claim_is_still_refuted_at_a_value_a_model_has() -> None:
    assert verify("Var(c*X) = c*Var(X)").verdict is Verdict.REFUTED
