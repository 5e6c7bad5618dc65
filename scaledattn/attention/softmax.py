"""Numerically stable softmax and its companions, along the last axis of an array.

Every function subtracts the row maximum before exponentiating (softmax(s) =
softmax(s − max s), proved as ``shift_invariance``), so scores of ±1e4 are fine in
float32 and float64. Scores may be −inf (a masked key, weight 0); a row with every
score −inf, a NaN, or +inf is refused with :class:`~scaledattn.errors.InvalidArgument`.

float32 and float64 inputs keep their dtype; integers and booleans become float64.

Examples
--------
>>> import numpy as np
>>> softmax(np.array([3.2, 0.1, -2.5, 0.4])).round(3)
array([0.902, 0.041, 0.003, 0.055])
>>> softmax(np.array([1e4, -1e4], dtype=np.float32))
array([1., 0.], dtype=float32)
>>> entropy(softmax(np.zeros(64))).round(4)  # ln 64
np.float64(4.1589)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from scaledattn.errors import InvalidArgument

__all__ = [
    "as_scores",
    "cross_entropy",
    "cross_entropy_grad",
    "entropy",
    "log_softmax",
    "mask_scores",
    "one_hot",
    "softmax",
    "softmax_jacobian",
]

Floats = NDArray[np.floating[Any]]


def _where(bad: NDArray[np.bool_]) -> str:
    first = tuple(int(x) for x in np.argwhere(bad)[0])
    return str(first[0]) if len(first) == 1 else str(first)


def as_scores(scores: ArrayLike) -> Floats:
    """Scores as a float array (float32 kept, else float64), validated.

    Refuses an empty last axis, NaN, +inf, and a row whose scores are all −inf.
    """
    arr = np.asarray(scores)
    if arr.dtype.kind == "c":
        raise InvalidArgument("scores must be real, got complex numbers")
    if arr.dtype.kind not in "biuf":
        raise InvalidArgument(f"scores must be numbers, got dtype {arr.dtype}")
    if arr.dtype not in (np.float32, np.float64):
        arr = arr.astype(np.float64)
    if arr.ndim == 0 or arr.shape[-1] == 0:
        raise InvalidArgument("scores need at least one entry along the last axis")
    nan = np.isnan(arr)
    if nan.any():
        raise InvalidArgument(f"scores contain NaN (first at index {_where(nan)})")
    plus = np.isposinf(arr)
    if plus.any():
        raise InvalidArgument(f"scores contain +inf (first at index {_where(plus)})")
    masked = np.isneginf(arr).all(axis=-1)
    if masked.any():
        row = "the only row" if arr.ndim == 1 else f"row {_where(np.atleast_1d(masked))}"
        raise InvalidArgument(f"{row} is fully masked (every score is -inf): softmax undefined")
    return arr


def mask_scores(scores: ArrayLike, keep: ArrayLike) -> Floats:
    """The scores with −inf wherever ``keep`` is False (those keys get weight 0).

    >>> mask_scores([1.0, 2.0, 3.0], [True, False, True])
    array([  1., -inf,   3.])
    """
    arr = np.asarray(scores)
    if arr.dtype not in (np.float32, np.float64):
        arr = arr.astype(np.float64)
    mask = np.asarray(keep)
    if mask.dtype != np.bool_:
        raise InvalidArgument(f"a mask must be boolean (True = keep), got dtype {mask.dtype}")
    try:
        out = np.where(mask, arr, -np.inf).astype(arr.dtype)
    except ValueError as err:
        raise InvalidArgument(
            f"mask of shape {mask.shape} does not fit scores {arr.shape}"
        ) from err
    return as_scores(out)


def _shifted(scores: ArrayLike) -> Floats:
    s = as_scores(scores)
    shifted: Floats = s - s.max(axis=-1, keepdims=True)
    return shifted


def softmax(scores: ArrayLike) -> Floats:
    """pᵢ = e^{sᵢ − max s} / Σⱼ e^{sⱼ − max s} along the last axis."""
    z = _shifted(scores)
    e = np.exp(z)
    p: Floats = e / e.sum(axis=-1, keepdims=True)
    return p


def log_softmax(scores: ArrayLike) -> Floats:
    """Log-weights log pᵢ = (sᵢ − max s) − log Σⱼ e^{sⱼ − max s}; −inf where masked."""
    z = _shifted(scores)
    out: Floats = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    return out


def entropy(p: ArrayLike) -> Floats:
    """H(p) = −Σᵢ pᵢ ln pᵢ in nats along the last axis (0·ln 0 = 0).

    ``p`` must be finite and non-negative; it is not renormalised.
    """
    arr = np.asarray(p, dtype=np.result_type(np.asarray(p).dtype, np.float32))
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise InvalidArgument("entropy needs finite, non-negative probabilities")
    logs = np.zeros_like(arr)
    np.log(arr, out=logs, where=arr > 0)
    h: Floats = -(arr * logs).sum(axis=-1)
    return h


def softmax_jacobian(p: ArrayLike) -> Floats:
    """∂pᵢ/∂sₘ = pᵢδᵢₘ − pᵢpₘ, i.e. diag(p) − ppᵀ, for each row of ``p``.

    >>> softmax_jacobian(np.array([0.5, 0.5]))
    array([[ 0.25, -0.25],
           [-0.25,  0.25]])
    """
    arr = np.asarray(p, dtype=np.result_type(np.asarray(p).dtype, np.float32))
    if arr.ndim == 0:
        raise InvalidArgument("the Jacobian needs a vector of probabilities")
    diag = arr[..., :, None] * np.eye(arr.shape[-1], dtype=arr.dtype)
    jac: Floats = diag - arr[..., :, None] * arr[..., None, :]
    return jac


def _targets(target: ArrayLike, shape: tuple[int, ...]) -> NDArray[np.intp]:
    t = np.asarray(target)
    if t.dtype.kind not in "iu":
        raise InvalidArgument(f"targets must be integer indices, got dtype {t.dtype}")
    if t.shape != shape[:-1]:
        raise InvalidArgument(f"targets of shape {t.shape} do not fit scores of shape {shape}")
    n = shape[-1]
    if np.any(t < 0) or np.any(t >= n):
        raise InvalidArgument(f"a target index is outside 0..{n - 1}")
    return t.astype(np.intp)


def one_hot(target: ArrayLike, n: int, dtype: Any = np.float64) -> Floats:
    """The one-hot vectors y = e_t for integer targets t in 0..n−1."""
    t = _targets(target, (*np.shape(target), n))
    y: Floats = (np.arange(n) == t[..., None]).astype(dtype)
    return y


def cross_entropy(scores: ArrayLike, target: ArrayLike) -> Floats:
    """L = −log softmax(s)ₜ for the target index t of each row."""
    logp = log_softmax(scores)
    t = _targets(target, logp.shape)
    loss: Floats = -np.take_along_axis(logp, t[..., None], axis=-1)[..., 0]
    return loss


def cross_entropy_grad(scores: ArrayLike, target: ArrayLike) -> Floats:
    """∂L/∂s = p − y with y = e_t (theorem ``cross_entropy_gradient``)."""
    p = softmax(scores)
    grad: Floats = p - one_hot(target, p.shape[-1], p.dtype)
    return grad
