"""Build the model an audit measures: a transformers model type, or ``module:callable``.

Nothing is downloaded: a model type is built with ``AutoModel.from_config`` (random
init, the library's own init recipe), shrunk to ``layers`` blocks. Every attention
call is routed through :mod:`scaledattn.torchattn.probe`, which records q, k, the
scale passed and the weights the model's own eager attention computes.

Bad input raises :class:`~scaledattn.errors.InvalidArgument` (one line, exit 2): an
unknown model type, a callable that cannot be imported or raises, a result that is
not an ``nn.Module``.
"""

from __future__ import annotations

import difflib
import importlib
import math
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from scaledattn.errors import InvalidArgument
from scaledattn.torchattn import require_torch, require_transformers

__all__ = ["BuiltModel", "InitStd", "build", "check_spec", "init_std"]

#: The config fields that hold the depth, by family.
DEPTH_FIELDS = (
    "num_hidden_layers",
    "n_layer",
    "n_layers",
    "num_layers",
    "num_decoder_layers",
    "encoder_layers",
    "decoder_layers",
)
#: Families whose W_q, W_k init is T5's (the 1/√d_kv folded into W_q).
T5_FAMILY = ("t5", "mt5", "umt5", "longt5")
_CALLABLE = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")
MAX_LAYERS = 64


@dataclass(frozen=True)
class InitStd:
    """The init std of W_q and W_k, and where it comes from (a formula in the config's fields)."""

    sigma_q: float
    sigma_k: float
    source: str


@dataclass
class BuiltModel:
    """A model ready to run: the module, its config (None for a custom module) and a description."""

    name: str
    module: Any
    config: Any
    description: str
    hf: bool


def init_std(config: Any) -> InitStd | None:
    """σ_q, σ_k of the model's init recipe, read off its config; None when not known.

    T5: W_q ~ N(0, (f·(d_model·d_kv)^-1/2)²), W_k ~ N(0, (f·d_model^-1/2)²), f the
    initializer_factor (the library's _init_weights). GPT-2, BERT, Llama and most
    others: N(0, initializer_range²) for every Linear.
    """
    model_type = getattr(config, "model_type", "")
    if model_type in T5_FAMILY:
        factor = float(config.initializer_factor)
        d_model, d_kv = int(config.d_model), int(config.d_kv)
        return InitStd(
            factor / math.sqrt(d_model * d_kv),
            factor / math.sqrt(d_model),
            f"T5 init: σ_q = f/√(d_model·d_kv) = {factor:g}/√({d_model}·{d_kv}),"
            f" σ_k = f/√d_model = {factor:g}/√{d_model}",
        )
    for name in ("initializer_range", "init_std"):  # init_std: OPT, BART and their kin
        value = getattr(config, name, None)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            r = float(value)
            return InitStd(r, r, f"config.{name} = {r:g} for W_q and W_k")
    return None


def _probe_name() -> str:
    from scaledattn.torchattn.probe import PROBE, register_probe

    register_probe()
    return PROBE


def check_spec(spec: str, layers: int | None) -> None:
    """Refuse a MODEL or depth that cannot name a model, before torch is imported."""
    if not spec or len(spec) > 200:
        raise InvalidArgument(
            f"MODEL must be a model type such as gpt2 or module:callable, got {spec!r}"
        )
    if ":" in spec and not _CALLABLE.fullmatch(spec):
        raise InvalidArgument(f"MODEL {spec!r} is not module:callable (e.g. mypackage.models:tiny)")
    if layers is not None and not 1 <= layers <= MAX_LAYERS:
        raise InvalidArgument(f"--layers must be between 1 and {MAX_LAYERS}, got {layers}")


def build(spec: str, layers: int | None = 2, seed: int = 0) -> BuiltModel:
    """The model named by ``spec`` (a model type, or ``module:callable``), randomly initialised."""
    check_spec(spec, layers)
    torch = require_torch()
    torch.manual_seed(seed)
    if ":" in spec:
        return _from_callable(spec)
    return _from_config(spec, layers)


def _from_config(model_type: str, layers: int | None) -> BuiltModel:
    transformers = require_transformers()
    known = sorted(transformers.CONFIG_MAPPING.keys())
    if model_type not in known:
        close = difflib.get_close_matches(model_type, known, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else " (e.g. gpt2, bert, t5, llama)"
        raise InvalidArgument(f"unknown model type {model_type!r}{hint}")
    config = transformers.AutoConfig.for_model(model_type)
    depth = []
    for name in DEPTH_FIELDS:
        if isinstance(getattr(config, name, None), int) and layers is not None:
            setattr(config, name, layers)
            depth.append(name)
    try:
        model = transformers.AutoModel.from_config(config, attn_implementation=_probe_name())
    except Exception as err:
        raise InvalidArgument(
            f"cannot build {model_type!r} with a recordable attention (its attention may not"
            " go through transformers' AttentionInterface):"
            f" {type(err).__name__}: {_first_line(err)}"
        ) from None
    model.eval()
    shown = f"{layers} layers" if depth else "depth as configured"
    return BuiltModel(model_type, model, model.config, f"{model_type} ({shown}, random init)", True)


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return text[0][:200] if text else "no message"


def _from_callable(spec: str) -> BuiltModel:
    if not _CALLABLE.fullmatch(spec):
        raise InvalidArgument(f"MODEL {spec!r} is not module:callable (e.g. mypackage.models:tiny)")
    module_name, attr = spec.split(":")
    with _current_directory_importable():
        try:
            module = importlib.import_module(module_name)
        except Exception as err:
            where = ""
            if isinstance(err, ModuleNotFoundError) and module_name.startswith(err.name or "?"):
                where = f" (looked in the current directory {os.getcwd()} and on sys.path)"
            raise InvalidArgument(
                f"cannot import {module_name!r} for {spec}: {type(err).__name__}:"
                f" {_first_line(err)}{where}"
            ) from None
        factory = getattr(module, attr, None)
        if not callable(factory):
            raise InvalidArgument(f"{spec}: {module_name} has no callable {attr!r}")
        try:
            built = factory()
        except Exception as err:
            raise InvalidArgument(
                f"{spec} raised {type(err).__name__}: {_first_line(err)}"
            ) from None
    torch = require_torch()
    if not isinstance(built, torch.nn.Module):
        raise InvalidArgument(f"{spec} returned {type(built).__name__}, not a torch.nn.Module")
    built.eval()
    config = getattr(built, "config", None)
    transformers = _maybe_transformers()
    hf = transformers is not None and isinstance(built, transformers.PreTrainedModel)
    if hf:
        try:
            built.set_attn_implementation(_probe_name())
        except Exception as err:
            raise InvalidArgument(
                f"{spec}: cannot record its attention: {type(err).__name__}: {_first_line(err)}"
            ) from None
    return BuiltModel(spec, built, config if hf else None, f"{spec} (as built by the callable)", hf)


@contextmanager
def _current_directory_importable() -> Iterator[None]:
    """The current directory first on sys.path while the callable is imported and called.

    ``python -m`` puts it there; the ``scaledattn`` script, an installed entry point,
    does not, so ``mymodel:build`` beside the user would not be found without it.
    """
    here = os.getcwd()
    added = here not in sys.path and "" not in sys.path
    if added:
        sys.path.insert(0, here)
    try:
        yield
    finally:
        if added and here in sys.path:
            sys.path.remove(here)


def _maybe_transformers() -> Any:
    try:
        return importlib.import_module("transformers")
    except ImportError:
        return None
