"""The gate every verdict passes: a model of the assumptions, and every step true on models.

:mod:`.models` finds a model of the assumptions in force (or says none was found);
:mod:`.steps` evaluates each accepted step of a derivation on both sides in a few random
models of its context, and raises :class:`~scaledattn.errors.SoundnessAlarm` when the two
sides differ in one. The gate imports the kernel, the language and the numeric semantics;
the doors (claims, proof files, the command line) import the gate.
"""

from __future__ import annotations

from scaledattn.gate.models import (
    NO_MODEL,
    confirmed_counterexample,
    context_model,
    context_withheld,
    counterexample_world,
    describe,
    model_found,
    model_line,
    model_of,
    withheld,
)
from scaledattn.gate.steps import check_steps, kept_alarm, step_alarm, theorem_gate
from scaledattn.render.text import install_withheld

# The renderers lie below the gate: they call the check the gate installs here (the
# package loads the gate with the kernel, scaledattn/__init__.py).
install_withheld(context_withheld)

__all__ = [
    "NO_MODEL",
    "check_steps",
    "confirmed_counterexample",
    "context_model",
    "context_withheld",
    "counterexample_world",
    "describe",
    "model_found",
    "model_line",
    "model_of",
    "kept_alarm",
    "step_alarm",
    "theorem_gate",
    "withheld",
]
