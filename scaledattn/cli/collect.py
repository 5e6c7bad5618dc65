"""Python's cyclic garbage collector, run less often while a command works.

A cold ``scaledattn check`` makes millions of short-lived SymPy objects. With
Python's defaults (a young collection every 700 allocations, and now and then a full
one that walks every object alive) the collector took about 6% of its CPU time
(0.36 s of 5.6 s), 0.26 s of it in four full collections, each walking every object
the imported modules, SymPy's caches and the proofs hold (66 ms each).

While a command runs, the objects alive when it starts (the modules, the proofs'
terms) are frozen, so that no collection walks them again, and a young collection
runs every ``YOUNG`` allocations: the collector then takes about a third of that
time (benchmarks/check_phases.py prints it). Nothing a command computes depends on when garbage is
collected (the kernel's record of the theorems it issued holds weak references and
checks them by identity; the caches keyed by ``id`` hold what they key), and the
peak memory of ``check`` is unchanged (88 MB). The collector's settings are
restored when the command ends (the tests and ``docs`` run commands in one process).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: Allocations (less deallocations) between two young collections; Python's is 700.
YOUNG = 10_000


@contextmanager
def fewer_collections(last: bool = False) -> Iterator[None]:
    """Freeze what is alive now and collect young objects less often; restore on exit.

    Inside another such command (``docs`` runs commands), the outer one unfreezes.
    ``last``: the process ends with this command (the command line's own run, not a
    command run in-process): then everything alive at its end is frozen and stays so,
    and Python's shutdown no longer walks it in its final collections (about 0.2 s of
    a cold check's CPU time; the memory goes back to the system at exit either way).
    """
    threshold, nested = gc.get_threshold(), gc.get_freeze_count() > 0
    gc.freeze()
    gc.set_threshold(max(YOUNG, threshold[0]), *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        if last:
            gc.freeze()
        elif not nested:
            gc.unfreeze()
