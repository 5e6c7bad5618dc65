from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scaledattn.cache import witness_of
from scaledattn.derive import audit_of, calc
from scaledattn.errors import InvalidArgument
from scaledattn.kernel import (
    E,
    IndependentComponents,
    IndependentPairs,
    RandomVector,
    Rule,
    Var,
    ZeroMean,
    axiom,
    dimension,
    random_variables,
)
from scaledattn.kernel.expr import Dot
from scaledattn.numeric.distributions import Distribution
from scaledattn.numeric.evaluate import Evaluator
from scaledattn.numeric.evidence import derivation_evidence
from scaledattn.numeric.model import build_model, signature
from scaledattn.numeric.settings import default_settings
from scaledattn.registry import all_derivations, find_derivation, theorem_modules
from tests.strategies import finite_distributions, rationals

X, Y = random_variables("X Y")


def test_every_theorem_agrees_with_numbers_on_its_modules_evidence() -> None:
    # witness_of is derivation_evidence(d, module.evidence()[d.name]), computed once per
    # process: `check` and the docs (run on the same worker, tests/conftest.py) share it.
    for module in theorem_modules():
        if not hasattr(module.module, "evidence"):
            continue  # covered by the settings built from the assumptions, below
        for d in module.derivations:
            w = witness_of(module, d)
            assert w.agrees, [s.as_json() for s in w.settings]
            assert all(s.measurement is not None for s in w.settings)


def test_every_theorem_agrees_with_numbers_on_settings_built_from_its_assumptions() -> None:
    for d in all_derivations():
        w = derivation_evidence(d)
        assert w.source == "assumptions"
        assert w.tested, d.name
        assert w.agrees, [s.as_json() for s in w.settings]


def test_default_settings_make_undeclared_pairs_dependent() -> None:
    (setting, _) = default_settings(find_derivation("variance_of_sum"))
    assert isinstance(setting["Y"], dict)
    assert "X" in setting["Y"]
    (setting, _) = default_settings(find_derivation("variance_of_sum_of_indep"))
    assert isinstance(setting["Y"], str)


# A rule that is not a law: Var(Z) = E[Z²] (it forgets −E[Z]²). Declared an axiom, the
# kernel accepts the step unchecked; the numbers must not.
def _forget_mean(e: Any, ctx: Any, env: Any) -> Any:
    if isinstance(e, Var):
        return E(e.args[0] ** 2), frozenset()
    return None


UNSOUND = axiom(Rule("variance_is_second_moment", "Var(Z) = E[Z²] (false)", _forget_mean))
WRONG = calc("wrong_variance", Var(X), E(X**2)).eq(E(X**2), by=UNSOUND).qed()


def test_a_kernel_accepted_step_that_is_false_fails_its_numeric_witness() -> None:
    assert audit_of(WRONG).verified
    w = derivation_evidence(WRONG, [{"X": "coin"}, {"X": "bernoulli:p=1/2"}])
    assert w.settings[0].agrees  # mean 0: the error is invisible here
    assert not w.settings[1].agrees
    (step,) = w.settings[1].disagreements()
    assert (step.number, step.label) == (1, "variance_is_second_moment")
    assert (step.before, step.after) == (Fraction(1, 4), Fraction(1, 2))
    assert not w.agrees


@pytest.mark.parametrize(
    ("name", "setting", "words"),
    [
        ("dot_product_variance", {"q": "die", "k": "coin", "d_k": 3}, "Var(q_i) = 1"),
        ("dot_product_variance", {"q": "bernoulli:p=1/2", "k": "coin", "d_k": 3}, "E[q_i] = 0"),
        ("dot_product_variance", {"q": "coin", "k": {"q": 1}, "d_k": 3}, "IndependentComponents"),
        ("variance_of_sum_of_indep", {"X": "die", "Y": {"X": 1, "noise": "coin"}}, "Independent"),
        ("unique_scale", {"q": "coin", "k": "coin", "d_k": 3, "c": -2}, "c > 0"),
        ("dot_product_variance", {"q": "coin", "k": "coin"}, "no value for d_k"),
        ("dot_product_variance", {"q": "coin", "d_k": 2}, "no law for k"),
        ("dot_product_variance", {"q": "coin", "k": "coin", "d_k": 2, "z": 1}, "lacks"),
        ("dot_product_variance", {"q": "coin", "k": "coin", "d_k": "1/2"}, "integer"),
        ("variance_of_sum", {"X": {"Y": 1, "noise": "coin"}, "Y": {"X": 1}}, "cycle"),
        ("variance_of_sum", {"X": "cauchy", "Y": "coin"}, "no finite moment"),
        ("dot_product_variance", {"q": "coin", "k": "coin", "d_k": 2, "samples": 1}, "samples"),
    ],
)
def test_models_that_break_the_assumptions_are_refused(
    name: str, setting: dict[str, Any], words: str
) -> None:
    w = derivation_evidence(find_derivation(name), [setting])
    (s,) = w.settings
    assert not s.agrees
    assert words in s.error


def test_independent_pairs_allow_k_to_depend_on_q_index_by_index() -> None:
    d = dimension("d_k")
    q, k = RandomVector("q", d), RandomVector("k", d)
    deriv = calc("paired", E(Dot(q, k)), E(Dot(q, k)), assuming=[IndependentPairs(q, k)]).qed()
    model = build_model(signature(deriv), {"q": "coin", "k": {"q": 2, "noise": "die"}, "d_k": 4})
    assert Evaluator(model).value(E(Dot(q, k))) == 8  # E[q_i (2 q_i + ε_i)] = 2 per index
    w = derivation_evidence(deriv, [{"q": "coin", "k": {"q": 2, "noise": "die"}, "d_k": 4}])
    assert w.settings[0].error == ""
    broken = calc("indep", E(Dot(q, k)), 0, assuming=[IndependentComponents(q, k), ZeroMean(q)])
    w = derivation_evidence(broken.qed(), [{"q": "coin", "k": {"q": 2}, "d_k": 2}])
    assert "share the latent" in w.settings[0].error


def _two_point(mean: Fraction, sd: Fraction) -> str:
    return f"finite:values={mean - sd}|{mean + sd}"


POSITIVE = st.fractions(Fraction(1, 4), 3, max_denominator=4)


@settings(max_examples=25)
@given(rationals(-2, 2, 4), rationals(-2, 2, 4), POSITIVE, POSITIVE, st.integers(1, 6))
def test_every_step_of_the_general_forms_agrees_on_random_finite_models(
    mu_q: Fraction, mu_k: Fraction, s_q: Fraction, s_k: Fraction, d: int
) -> None:
    setting = {
        "q": _two_point(mu_q, s_q),
        "k": _two_point(mu_k, s_k),
        "d_k": d,
        "sigma_q": s_q,
        "sigma_k": s_k,
        "mu_q": mu_q,
        "mu_k": mu_k,
    }
    w = derivation_evidence(find_derivation("dot_product_variance_with_means"), [setting])
    assert w.agrees, w.as_json()
    general = {k: v for k, v in setting.items() if not k.startswith("mu")}
    general.update(q=_two_point(Fraction(0), s_q), k=_two_point(Fraction(0), s_k))
    w = derivation_evidence(find_derivation("dot_product_variance_general"), [general])
    assert w.agrees, w.as_json()


@settings(max_examples=25)
@given(finite_distributions(), rationals(-2, 2), finite_distributions())
def test_every_step_of_variance_of_sum_agrees_on_random_dependent_pairs(
    x: Distribution, a: Fraction, z: Distribution
) -> None:
    w = derivation_evidence(
        find_derivation("variance_of_sum"), [{"X": x.spec, "Y": {"X": a, "noise": z.spec}}]
    )
    assert w.agrees, w.as_json()
    assert w.settings[0].measurement is not None
    assert w.settings[0].measurement.method == "exact"


def test_random_expressions_have_no_value_outside_an_expectation() -> None:
    model = build_model(signature(WRONG), {"X": "die"})
    with pytest.raises(InvalidArgument, match="random"):
        Evaluator(model).value(X + 1)
