"""Statistical claims: re-run experiments, compare with the published figure's own error."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from scaledattn.claims import Verdict, verify
from scaledattn.claims.statistics import MEASUREMENTS, Z_REFUTE, p_value, z_score

#: Small experiments keep the tests fast; the verdicts below hold at these sizes and seeds.
SMALL = {"scores": 4000, "saturation": 500, "gradient": 500, "training": 8}


def test_the_refutation_threshold_has_a_false_alarm_rate_of_one_in_a_million() -> None:
    assert p_value(Z_REFUTE) == pytest.approx(1e-6, rel=1e-3)


def test_the_z_score_counts_the_published_figures_own_sampling_error_and_its_rounding() -> None:
    # measured 1.0 ± 0.01 from 100 trials; published 1.05 from 100 trials: se√2 combined
    z = z_score(1.0, 0.01, 1.05, Fraction(0), 100, 100)
    assert z == pytest.approx(0.05 / (0.01 * math.sqrt(2)))
    # a published figure inside its own half unit of the measurement is at z = 0
    assert z_score(1.0, 0.01, 1.004, Fraction(1, 200), 100, 100) == 0
    # a figure taken as exact has no sampling error of its own
    assert z_score(1.0, 0.01, 1.05, Fraction(0), 100, None) == pytest.approx(5.0)


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        ("measured(score_std_d64) ≈ 8", Verdict.CONSISTENT),
        ("measured(score_std_d64) ≈ 10", Verdict.REFUTED),
        ("measured(max_weight_unscaled) ≈ 0.787", Verdict.CONSISTENT),
        ("measured(max_weight_scaled) ≈ 0.5", Verdict.REFUTED),
        ("measured(max_weight_unscaled) / measured(max_weight_scaled) < 2", Verdict.REFUTED),
        ("measured(max_weight_unscaled) / measured(max_weight_scaled) > 2", Verdict.CONSISTENT),
        ("measured(gap_ratio) ≈ 7.9", Verdict.CONSISTENT),
    ],
)
def test_statistical_claims_are_decided_with_seeded_experiments(
    claim: str, verdict: Verdict
) -> None:
    result = verify(claim, seed=0, trials=SMALL)
    assert result.verdict is verdict
    assert any(e.kind == "measurement" for e in result.evidence)


def test_a_figure_inconsistent_at_95_percent_but_not_beyond_doubt_is_undecided() -> None:
    # The lesson's ‖p − y‖ = 1.28 against the re-run at its own size (500 rows, seed 0).
    result = verify("measured(p_minus_y_norm) ≈ 1.28", seed=0)
    assert result.verdict is Verdict.UNDECIDED
    assert "inconsistent at 95%" in result.reason


def test_every_measurement_name_belongs_to_an_experiment() -> None:
    assert set(MEASUREMENTS.values()) == {
        "scores",
        "saturation",
        "gradient",
        "training",
        "dynamics",
    }
