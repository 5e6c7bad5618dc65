"""A Chooser driven by Hypothesis, so that a failing case shrinks."""

from __future__ import annotations

from hypothesis import strategies as st


class HypothesisChooser:
    """Each choice is one ``data.draw(st.integers(lo, hi))``."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def integer(self, lo: int, hi: int) -> int:
        return self.data.draw(st.integers(lo, hi))
