from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from scaledattn.errors import InvalidArgument
from scaledattn.numeric.distributions import Coin, Gaussian, StudentT
from scaledattn.numeric.montecarlo import (
    BatchCheck,
    RunningMoments,
    batch_check,
    estimate_scores,
)
from tests.moments import CHECK, CHECKS_PER_EXAMPLE, FAMILIES


@given(
    arrays(np.float64, st.integers(2, 200), elements=st.floats(-1e3, 1e3)),
    st.lists(st.integers(0, 200), max_size=6),
)
def test_streaming_moments_equal_the_moments_of_the_whole_array(
    x: np.ndarray, cuts: list[int]
) -> None:
    rm = RunningMoments()
    for part in np.split(x, sorted(c % (x.size + 1) for c in cuts)):
        rm.add(part)
    whole = RunningMoments.of(x)
    scale = 1 + float(np.abs(x).max())
    n, eps = x.size, float(np.finfo(np.float64).eps)
    # Rounding bounds: the mean of n numbers is off by at most n·eps·scale on either route;
    # a p-th central sum Σ(x − x̄)ᵖ has n terms of size up to (2·scale)ᵖ, each off by
    # (p + 1)·eps relatively, plus the n-term sum's n·eps, and each of the at most 7
    # merges adds terms of the same size: 8·(n + p + 1)·n·eps·(2·scale)ᵖ covers both routes.
    assert rm.n == x.size
    assert rm.mean == pytest.approx(whole.mean, rel=0, abs=2 * n * eps * scale)
    for moment, p in ((rm.m2, 2), (rm.m3, 3), (rm.m4, 4)):
        reference = {2: whole.m2, 3: whole.m3, 4: whole.m4}[p]
        bound = 8 * (n + p + 1) * n * eps * (2 * scale) ** p
        assert moment == pytest.approx(reference, rel=0, abs=bound), p


def test_the_interval_comes_from_the_fourth_moment() -> None:
    x = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    rm = RunningMoments.of(x)
    n, s2 = 5, float(np.var(x, ddof=1))
    m4 = float(np.mean((x - x.mean()) ** 4))
    assert rm.variance_se == pytest.approx(np.sqrt((m4 - (n - 3) / (n - 1) * s2**2) / n))


def test_an_estimate_is_reproducible_from_its_seed() -> None:
    a = estimate_scores(Gaussian(), Coin(), 8, 5000, seed=3)
    b = estimate_scores(Gaussian(), Coin(), 8, 5000, seed=3)
    assert a == b


def test_without_a_fourth_moment_the_interval_is_marked_untrusted_and_never_agrees() -> None:
    est = estimate_scores(StudentT(3), Coin(), 4, 2000, seed=0)
    assert not est.trusted
    assert "cannot be trusted" in est.warning
    assert not est.agrees(est.variance)


def test_memory_stays_flat_as_the_number_of_samples_grows() -> None:
    peaks = []
    for n in (20_000, 200_000):
        tracemalloc.start()
        estimate_scores(Coin(), Coin(), 64, n, seed=0)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    # Ten times the samples, about the same peak (a few chunks of 512 KiB).
    assert peaks[1] < 1.5 * peaks[0] + 1_000_000
    assert peaks[1] < 64 * 2**20


def test_the_batch_check_has_a_false_alarm_below_1e_12_and_the_suite_below_1e_6() -> None:
    alpha = CHECK.false_alarm()
    assert alpha < 1e-12
    # The thorough profile's examples, every statistical family, every check per example.
    from hypothesis import settings

    worst = settings.get_profile("thorough").max_examples * FAMILIES * CHECKS_PER_EXAMPLE
    assert float(alpha) * (worst + 100) < 1e-6


def test_the_batch_check_accepts_the_truth_and_rejects_a_wrong_value() -> None:
    rng = np.random.default_rng(11)
    x = rng.standard_normal(53 * 400) * 2
    assert batch_check(x, "variance", 4.0, 4.0, 48.0).agrees
    assert not batch_check(x, "variance", 6.0, 6.0, 108.0).agrees
    assert batch_check(x, "mean", 0.0, 4.0).agrees
    assert not batch_check(x, "mean", 0.5, 4.0).agrees


def test_a_degenerate_law_is_checked_exactly_with_its_tolerance_of_zero() -> None:
    # A point mass: every draw is 1.3, whose float sample variance is 4.9e-32, not 0.
    x = np.full(53 * 600, 1.3)
    assert float(x[:600].var(ddof=1)) != 0.0  # the rounding noise the check must not see
    exact = batch_check(x, "variance", 0.0, 0.0, 0.0)
    assert exact.tolerance == 0.0
    assert exact.median == 0.0
    assert exact.agrees
    assert not batch_check(x, "variance", 1e-30, 0.0, 0.0).agrees
    assert batch_check(x, "mean", 1.3, 0.0).agrees
    assert not batch_check(x, "mean", 1.3 + 1e-12, 0.0).agrees
    # one draw off the point mass in most batches: a variance, no longer exactly 0
    y = x.copy()
    y[::300] = 1.4
    assert not batch_check(y, "variance", 0.0, 0.0, 0.0).agrees


def test_the_batch_check_needs_two_samples_per_batch_and_a_known_statistic() -> None:
    with pytest.raises(InvalidArgument):
        batch_check(np.zeros(10), "variance", 1, 1, 3)
    with pytest.raises(InvalidArgument):
        batch_check(np.zeros(1000), "median", 1, 1, 3, BatchCheck(5, 3))


def test_monte_carlo_refuses_tiny_samples_and_bad_dimensions() -> None:
    with pytest.raises(InvalidArgument):
        estimate_scores(Coin(), Coin(), 4, 1, seed=0)
    with pytest.raises(InvalidArgument):
        estimate_scores(Coin(), Coin(), 0, 100, seed=0)
