"""The lesson through torch's SDPA: the same figures as numpy, SDPA's default scale confirmed."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

from scaledattn.attention.experiments import saturation_experiment, scores_experiment
from scaledattn.cli import main
from scaledattn.torchattn.sdpa import (
    check_default_scale,
    saturation_via_sdpa,
    scores_via_sdpa,
    sdpa_weights,
)

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None, reason="needs the torch extra (torch)"
)


def _agree(torch_result: object, numpy_result: object) -> None:
    for t, n in zip(torch_result.measurements, numpy_result.measurements, strict=True):  # type: ignore[attr-defined]
        assert t.name == n.name
        assert t.value == pytest.approx(n.value, rel=1e-9)
        lo, hi = n.ci95
        assert lo <= t.value <= hi


def test_saturation_through_sdpa_agrees_with_numpy_within_its_intervals() -> None:
    _agree(saturation_via_sdpa(seed=3, trials=300), saturation_experiment(seed=3, trials=300))


def test_scores_through_sdpa_agree_with_numpy_within_its_intervals() -> None:
    _agree(scores_via_sdpa(seed=4, trials=3000), scores_experiment(seed=4, trials=3000))


def test_sdpa_default_scale_is_one_over_root_e_and_scale_overrides_it() -> None:
    check = check_default_scale()
    assert check.holds, check.line()
    assert check.default_error < 1e-12
    assert check.override_error < 1e-12
    assert check.wrong_error > 0.1  # the check tells 1/√E from no scale


def test_weights_recovered_with_v_identity_are_a_softmax_of_scaled_scores() -> None:
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((3, 4)), rng.standard_normal((3, 5, 4))
    w = sdpa_weights(q, k, 0.7)
    s = 0.7 * np.einsum("bd,bsd->bs", q, k)
    expected = np.exp(s) / np.exp(s).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(w, expected, rtol=1e-12)
    # a wrong scale is visible
    assert np.abs(sdpa_weights(q, k, 1.0) - expected).max() > 1e-3


def test_the_cli_runs_saturation_on_the_torch_backend(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["experiment", "saturation", "--trials", "200", "--json"]
    assert main([*argv, "--backend", "torch"]) == 0
    through_torch = json.loads(capsys.readouterr().out)
    assert main(argv) == 0
    through_numpy = json.loads(capsys.readouterr().out)
    for t, n in zip(through_torch["measurements"], through_numpy["measurements"], strict=True):
        assert t["value"] == pytest.approx(n["value"], rel=1e-9)


def test_the_torch_backend_is_refused_for_the_other_experiments(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["experiment", "gradient", "--backend", "torch"]) == 2
    assert "applies to scores and saturation only" in capsys.readouterr().err
