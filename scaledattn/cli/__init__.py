"""The ``scaledattn`` command line: argparse, one module per group of subcommands.

Exit codes (:mod:`scaledattn.cli.exits`): 0 success (everything verified, or a claim
computed or consistent), 1 a proof or numeric check failed, 2 bad input or usage (a
one-line message, never a traceback), 3 undecided, 4 verified modulo an axiom, 70 the
soundness alarm or an internal error (a bug: "please report"). Each
command module exposes ``register(subparsers)``; add a module to COMMANDS to add its
commands (``docs``, which runs commands itself, is handed :func:`main` instead of
importing it). A command module
imports SymPy, numpy or matplotlib inside the functions that run a command, never at its
top: the parser is built for every run, and `--help`, `list` and usage errors must not
wait for them (tests/cli/test_lazy.py).
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from scaledattn import __version__
from scaledattn.cli import (
    audit,
    calculator,
    claims,
    docs,
    exercises,
    experiment,
    plot,
    proofs,
    softmax,
    theorems,
    witness,
)
from scaledattn.cli.collect import fewer_collections
from scaledattn.cli.exits import EXIT_FAILED, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, one_line
from scaledattn.errors import InvalidArgument, ProofError, SoundnessAlarm, UsageError

COMMANDS = (
    theorems, witness, calculator, exercises, softmax, experiment, audit, plot, claims, proofs,
)  # fmt: skip


class CommandParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line and never exit the process.

    ``lazy_epilog`` is a function that writes the epilog when help is shown, so that
    building the parser imports nothing heavy (tests/cli/test_lazy.py).
    """

    def __init__(self, *args: Any, lazy_epilog: Callable[[], str] | None = None, **kw: Any):
        super().__init__(*args, **kw)
        self.lazy_epilog = lazy_epilog

    def format_help(self) -> str:
        """The help, with the lazy epilog written now."""
        if self.lazy_epilog is not None:
            self.epilog, self.lazy_epilog = self.lazy_epilog(), None
        return super().format_help()

    def error(self, message: str) -> NoReturn:
        """Report a usage error in one line, with this (sub)command's usage and help."""
        if message.endswith("expected one argument"):
            message += "; a value that starts with '-' is written --option=-1/4"
        choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if choice:
            import difflib

            options = re.findall(r"'([^']*)'", choice.group(2))
            close = difflib.get_close_matches(choice.group(1), options, n=1, cutoff=0.5)
            if close:
                message += f"; did you mean {close[0]!r}?"
        usage = " ".join(self.format_usage().split())
        raise UsageError(f"{self.prog}: {message} ({usage}; try '{self.prog} --help')")


def build_parser() -> CommandParser:
    """The full parser with every subcommand registered."""
    parser = CommandParser(
        prog="scaledattn",
        description="Why attention divides q·k by √d_k: derived step by step, checked.",
    )
    parser.add_argument("--version", action="version", version=f"scaledattn {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=CommandParser)
    for module in COMMANDS:
        module.register(sub)
    docs.register(sub, run=main)  # the docs show commands' output, run in-process
    return parser


@functools.cache
def _parser() -> CommandParser:
    """The parser, built once per process.

    Parsing leaves a parser as it was, and the commands it dispatches to are looked up
    at call time, so a process that runs several commands (the docs' output blocks,
    the tests) builds it once instead of for every command (~4 ms each).
    """
    return build_parser()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    parser = _parser()
    args_list = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args_list
    try:
        args = parser.parse_args(args_list)
        if not getattr(args, "func", None):
            parser.print_help()
            return EXIT_USAGE
        with fewer_collections(last=argv is None):  # None: this process's command line
            code: int = args.func(args)
        return code
    except UsageError as err:
        print(one_line(str(err)), file=sys.stderr)
        return EXIT_USAGE
    except InvalidArgument as err:
        if debug:
            raise
        print(f"scaledattn: error: {one_line(str(err))}", file=sys.stderr)
        return EXIT_USAGE
    except ProofError as err:
        if debug:
            raise
        print(str(err), file=sys.stderr)
        return EXIT_FAILED
    except SoundnessAlarm as err:  # a step the kernel accepted is false in a model
        if debug:
            raise
        print(f"scaledattn: {one_line(str(err))}", file=sys.stderr)
        return EXIT_INTERNAL
    except KeyboardInterrupt:
        print("scaledattn: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as err:  # a bug: say so in one line; --debug shows the traceback
        if debug:
            raise
        print(
            f"scaledattn: internal error: {type(err).__name__}: {err}"
            " (please report it; --debug shows the traceback)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
