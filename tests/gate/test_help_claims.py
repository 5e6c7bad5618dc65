"""Review 30, findings 12 and 13 (12, 08): what the docs and the help promise exists.

08: ``verify --help`` must list only assumption forms verify reads (a law such as
``q_i ~ N(0, sigma^2)`` is read: its moments, stated). 12: the
step-on-models gate the README and the gate's docstring describe is importable.
"""

from __future__ import annotations

import pytest

from scaledattn.cli import main

Capture = pytest.CaptureFixture[str]


def test_the_help_lists_the_laws_verify_reads(capsys: Capture) -> None:
    with pytest.raises(SystemExit):
        main(["verify", "--help"])
    line = next(x for x in capsys.readouterr().out.splitlines() if "assumptions  " in x)
    assert "~ N(0, sigma^2)" in line  # read by verify: its moments, stated


def test_every_form_the_help_lists_for_verify_is_read() -> None:
    from scaledattn.claims.verify import verify

    forms = ("independent(X, Y)", "E(X) = 0", "Var(q_i) = sigma**2", "Y = X + 1", "c > 0")
    for line in (*forms, "q_i ~ N(0, sigma^2)", "Cov(q_i, k_i) = rho"):
        verify("E(X) = E(X)", [line], remedies=False)  # no InvalidArgument


def test_the_step_gate_exists() -> None:
    from scaledattn.errors import SoundnessAlarm
    from scaledattn.gate import check_steps

    assert callable(check_steps)
    assert issubclass(SoundnessAlarm, Exception)
