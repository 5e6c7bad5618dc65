"""The ``docs`` command: regenerate the documentation pages, or check they are current."""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from scaledattn.errors import InvalidArgument


def register(sub: Any, run: Callable[[Sequence[str]], int]) -> None:
    """Add ``docs`` to the subparsers ``sub``; ``run`` runs the commands the docs show."""
    p = sub.add_parser("docs", help="regenerate the generated documentation pages")
    p.add_argument("-o", "--output", default="docs", help="the docs folder (default: docs)")
    p.add_argument("--check", action="store_true", help="only report stale pages; exit 1 if any")
    p.add_argument("--plots", action="store_true", help="also redraw the figures (matplotlib)")
    p.set_defaults(func=functools.partial(cmd_docs, run=run))


def cmd_docs(args: argparse.Namespace, run: Callable[[Sequence[str]], int]) -> int:
    """Write (or check) the generated pages and the output blocks of the Markdown files."""
    if not args.output.strip():
        raise InvalidArgument("-o/--output is empty: name the docs folder")
    docs = Path(args.output)
    if docs.exists() and not docs.is_dir():
        raise InvalidArgument(f"{docs} exists and is not a folder")
    root = docs.resolve().parent
    if not root.is_dir():
        raise InvalidArgument(f"the folder {str(root)!r} does not exist")
    if args.plots and args.check:
        raise InvalidArgument("--plots draws figures; it cannot be combined with --check")
    from scaledattn.docgen import write_docs, write_plots  # the proofs, numpy, the ledger

    try:
        if not args.check:  # a folder that cannot be written is refused before any work
            docs.mkdir(exist_ok=True)
        changed = write_docs(root, docs, run, check=args.check)
        if args.plots:
            changed += write_plots(docs, run)
    except OSError as err:
        raise InvalidArgument(
            f"cannot write the docs to {str(docs)!r}: {err.strerror or err}"
        ) from None
    if args.check:
        if changed:
            print("stale: " + ", ".join(changed) + " (run: scaledattn docs)")
            return 1
        print("docs are current")
        return 0
    print("wrote: " + ", ".join(changed) if changed else "docs were already current")
    return 0
