"""Progress on long runs, shown on a terminal only, and the refusal of runs that cannot finish.

A long computation (``check``, ``witness``, ``experiment``, ``audit``, a fuzz campaign)
reports how far it has come through a callback ``progress(done, total)``. :class:`Bar`
is such a callback: a `tqdm <https://tqdm.github.io>`_ bar on standard error when
standard error is a terminal, and nothing at all otherwise, so that a pipe, a file, the
JSON on standard output and a test's captured streams never see it (tqdm is not even
imported then). The bar clears itself when the run ends (tqdm's ``leave=False``), so
what remains on the screen is the command's output. ``TQDM_DISABLE=1`` switches it off
on a terminal too.

Why tqdm: one small package with no dependencies of its own, maintained for a decade,
already installed with transformers (rich's progress would bring its own console and
some twenty modules for the same bar).

A run that would take too long is refused before it starts: :func:`too_long` is the
one-line refusal that gives the estimate and the limit, and :func:`duration` writes a
number of seconds for a reader.

Examples
--------
>>> import io
>>> bar = Bar("check", stream=io.StringIO())  # not a terminal: nothing is shown
>>> bar.active
False
>>> bar(1, 40)
>>> duration(0.25), duration(75), duration(4000), duration(3e5)
('0.25 s', '75 s', '67 min', '3.5 days')
"""

from __future__ import annotations

import io
import os
import sys
from typing import Any, TextIO

from scaledattn.errors import InvalidArgument

__all__ = ["Bar", "duration", "on_terminal", "too_long"]


def on_terminal(stream: Any) -> bool:
    """True when ``stream`` is a terminal (and progress is not switched off by TQDM_DISABLE)."""
    if os.environ.get("TQDM_DISABLE", "").lower() in ("1", "true", "yes"):
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty is not None and isatty())
    except ValueError:  # a closed stream
        return False


def _columns(stream: Any) -> int:
    """The terminal's width, 0 when it does not say (a pseudo-terminal never sized)."""
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return 0


class Bar:
    """A progress callback ``bar(done, total)``: a tqdm bar on a terminal, else nothing.

    ``unit`` names what is counted (``derivation``, ``trial``); ``label`` is shown
    before the bar and may be changed between calls (``bar.label = "check: numbers"``).
    The bar closes itself when ``done`` reaches ``total``, or with :meth:`close` (also
    on leaving a ``with`` block).
    """

    def __init__(self, label: str, unit: str = "it", stream: TextIO | None = None) -> None:
        self.label, self.unit = label, unit
        self.stream = stream if stream is not None else sys.stderr
        self.active = on_terminal(self.stream)
        self._bar: Any = None

    def _show(self, **options: Any) -> Any:
        from tqdm import tqdm

        self.close()
        # a terminal that does not say its size (0 × 0, a pseudo-terminal never sized)
        # would make tqdm hide the bar: 80 × 24 then
        sized = _columns(self.stream) > 0
        self._bar = tqdm(
            file=self.stream,
            leave=False,
            mininterval=0.2,
            **({"dynamic_ncols": True} if sized else {"ncols": 80, "nrows": 24}),
            **options,
        )
        return self._bar

    def status(self, text: str) -> None:
        """Show ``text`` alone: a phase that has nothing to count yet (building a model)."""
        if self.active:
            self._show(total=None, desc=text, bar_format="{desc}")

    def __call__(self, done: int, total: int) -> None:
        """Show ``done`` of ``total``."""
        if not self.active:
            return
        bar = self._bar
        if bar is None or bar.total is None:
            if done >= total:  # done in one go: nothing to show, only what was shown to clear
                self.close()
                return
            bar = self._show(total=total, desc=self.label, unit=self.unit)
        if bar.total != total:
            bar.total = total
        if bar.desc != self.label:
            bar.set_description_str(self.label, refresh=False)
        bar.update(done - bar.n)
        if done >= total:
            self.close()

    def close(self) -> None:
        """Clear the bar from the terminal (a no-op when none is shown)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Bar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def duration(seconds: float) -> str:
    """``seconds`` as a reader would say it: 0.25 s, 75 s, 67 min, 5.2 h, 3.5 days."""
    if seconds < 1:
        return f"{seconds:.2g} s"
    if seconds < 100:
        return f"{seconds:.0f} s"
    if seconds < 100 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.2g} h"
    return f"{seconds / 86400:.2g} days"


def too_long(what: str, seconds: float, limit: float, remedy: str) -> InvalidArgument:
    """The refusal of a run estimated to take ``seconds``, past ``limit``: one line.

    >>> print(too_long("the exact law at d_k = 9", 40.0, 3.0, "use --samples instead"))
    the exact law at d_k = 9 would take about 40 s, past the limit of 3 s; use --samples instead
    """
    return InvalidArgument(
        f"{what} would take about {duration(seconds)}, past the limit of {duration(limit)};"
        f" {remedy}"
    )
