"""Shared Hypothesis strategies (plural nouns)."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

#: The largest score magnitude the softmax must handle in both precisions.
BOUND = 1e4
DTYPES = (np.float32, np.float64)


def dtypes() -> st.SearchStrategy[Any]:
    """float32 or float64."""
    return st.sampled_from(DTYPES)


def logit_vectors(
    dtype: Any = np.float64, bound: float = BOUND, max_len: int = 64
) -> st.SearchStrategy[np.ndarray]:
    """Score vectors of length 1..max_len with entries in [−bound, bound], ±bound included."""
    elements = st.one_of(
        st.floats(-bound, bound, width=np.dtype(dtype).itemsize * 8),
        st.sampled_from([-bound, bound, 0.0]),
    )
    return hnp.arrays(dtype, st.integers(1, max_len), elements=elements)


def integer_logit_vectors(
    dtype: Any = np.float32, bound: int = 2**20
) -> st.SearchStrategy[np.ndarray]:
    """Integer-valued score vectors, exactly representable in float32 and after shifts."""
    return hnp.arrays(dtype, st.integers(1, 64), elements=st.integers(-bound, bound))


def shifts(bound: float = 1e3) -> st.SearchStrategy[float]:
    """A constant added to every score."""
    return st.floats(-bound, bound)


def score_batches() -> st.SearchStrategy[np.ndarray]:
    """Moderate float64 score matrices (rows × keys) for gradient checks."""
    return hnp.arrays(
        np.float64,
        st.tuples(st.integers(1, 4), st.integers(2, 12)),
        elements=st.floats(-5, 5),
    )
