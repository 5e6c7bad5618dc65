"""Every step of every derivation keeps its meaning in random worlds of its context.

The registered theorems (proofs/), the soundness corpus's accepted derivations, and
the derivations the calculator and the verifier write.
"""

from __future__ import annotations

import re

import pytest
import sympy

from scaledattn.automation.rewrite import derivation_of, normalize
from scaledattn.claims.setup import prepare
from scaledattn.claims.syntax import parse_assumption, parse_claim
from scaledattn.fuzz.campaign import derivation_disagreements
from scaledattn.kernel import Derivation
from scaledattn.moments.build import mean_derivation, variance_derivation
from scaledattn.moments.setting import AttentionSetting
from scaledattn.numeric.worlds import RandomChooser
from scaledattn.registry import all_derivations
from tests.kernel.corpus import RIGHT

#: Theorems at a fixed large dimension (q of dimension 64) have no enumerable world.
TOO_LARGE = {"exercise2_std_at_64"}


def _verifier_derivation(claim: str, assume: list[str]) -> Derivation:
    setup = prepare(parse_claim(claim), [parse_assumption(a) for a in assume])
    lhs, rhs = setup.sides[0], setup.sides[1]
    left, right = normalize(lhs, setup.env), normalize(rhs, setup.env)
    return derivation_of("claim", lhs, rhs, left, right, setup.env)


def _derivations() -> list[tuple[str, Derivation]]:
    found = [(f"theorem {d.name}", d) for d in all_derivations() if d.name not in TOO_LARGE]
    # the corpus's own derivations (its copies of the registered ones are checked above)
    found += [(f"corpus {r.name}", r.build()) for r in RIGHT if "registered" not in r.name]
    d_k = sympy.Symbol("d_k", integer=True, positive=True)
    s = AttentionSetting(d=d_k, mean_q=sympy.S.One, var_q=sympy.Integer(2))
    found += [
        ("calculator mean", mean_derivation(s)),
        ("calculator variance", variance_derivation(s)),
    ]
    found += [
        (
            "verifier Var(X+Y)",
            _verifier_derivation("Var(X + Y) = Var(X) + Var(Y)", ["independent(X, Y)"]),
        ),
        ("verifier Var(q·k)", _verifier_derivation("Var(dot(q, k)) = d_k", [])),
    ]
    return found


def _test_id(label: str) -> str:
    """An ASCII id without brackets or slashes, which pytest finds again when given it.

    >>> _test_id("corpus E[XY] = E[X]E[Y] with X ⊥ Y")
    'corpus E_XY_ = E_X_E_Y_ with X _ Y'
    """
    return re.sub(r"[^\w ()+=,.<>'-]", "_", label, flags=re.ASCII)


@pytest.mark.parametrize(
    ("label", "derivation"),
    [pytest.param(label, d, id=_test_id(label)) for label, d in _derivations()],
)
def test_every_step_keeps_its_meaning(label: str, derivation: Derivation) -> None:
    problems, decided = derivation_disagreements(derivation, RandomChooser(len(label)), worlds=1)
    assert problems == []
    assert decided > 0, f"{label}: no world of its context was drawn or no step decided"
