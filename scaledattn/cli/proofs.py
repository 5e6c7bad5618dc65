"""``check-proof FILE [--json]``: check a learner's proof file, a Markdown lesson or a certificate.

Exit codes: 0 every theorem verified (gaps bridged by kernel-checked chains
included), 1 a step rejected, 2 a malformed file (one line ``file:line:column: message``),
3 undecided: no theorem rejected, but no model of some theorem's assumptions was found
(or they are inconsistent), so its verdict is withheld.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    """Add ``check-proof`` to the subparsers ``sub``."""
    p = sub.add_parser(
        "check-proof",
        help="check a proof file (.proof, a Markdown lesson's proof blocks, or a JSON certificate)",
    )
    p.add_argument(
        "file", metavar="FILE", help="a proof file, a Markdown file with ```proof blocks, or JSON"
    )
    p.add_argument("--json", action="store_true", help="machine-readable report")
    p.set_defaults(func=cmd_check_proof)


def cmd_check_proof(args: argparse.Namespace) -> int:
    """Read, check and report; 0 all verified, 1 a step rejected, 2 malformed, 3 undecided."""
    from scaledattn.cli.exits import one_line
    from scaledattn.errors import ProofFileError
    from scaledattn.prooffile.files import check_file

    try:
        checked = check_file(Path(args.file))
    except ProofFileError as err:
        print(one_line(str(err)), file=sys.stderr)
        return 2
    if args.json:
        from scaledattn.render import to_json

        print(to_json(checked.as_json()))
    else:
        print(checked.text())
    return 0 if checked.verified else 3 if checked.undecided else 1
