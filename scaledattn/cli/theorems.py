"""Commands on theorems: ``list``, ``derive NAME``, ``check``."""

from __future__ import annotations

import argparse
from typing import Any

from scaledattn.derive import audit_of
from scaledattn.registry import find_derivation, theorem_modules
from scaledattn.render import FORMATS, render, to_json
from scaledattn.render.display import statement_parts, unicode_line
from scaledattn.render.json import audit_json


def register(sub: Any) -> None:
    """Add the theorem commands to the subparsers ``sub``."""
    p = sub.add_parser("list", help="each theorem's name and statement")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("derive", help="print a theorem's checked derivation")
    p.add_argument("name", metavar="NAME", help="a theorem (see 'scaledattn list')")
    p.add_argument("--format", choices=FORMATS, default="text")
    p.set_defaults(func=cmd_derive)

    p = sub.add_parser("check", help="verify every theorem and print a summary")
    p.add_argument("--json", action="store_true", help="machine-readable summary")
    p.set_defaults(func=cmd_check)


def _statement(d: Any) -> str:
    lhs, relation, rhs = statement_parts(d.statement)
    if relation == "⇔":
        return f"({unicode_line(lhs)}) ⇔ ({unicode_line(rhs)})"
    return f"{unicode_line(lhs)} = {unicode_line(rhs)}"


def cmd_list(args: argparse.Namespace) -> int:
    """Print every theorem module and its derivations, one statement per line."""
    for module in theorem_modules():
        print(f"{module.name}: {module.summary}")
        for d in module.derivations:
            print(f"  {d.name:<34} {_statement(d)}")
    return 0


def cmd_derive(args: argparse.Namespace) -> int:
    """Render one derivation; exit 1 if the kernel rejects a step."""
    derivation = find_derivation(args.name)
    result = audit_of(derivation)
    print(render(result, args.format))
    return 0 if result.verified else 1


def cmd_check(args: argparse.Namespace) -> int:
    """Audit every derivation of every theorem; a table and a summary line."""
    rows = []
    for module in theorem_modules():
        for d in module.derivations:
            result = audit_of(d)
            rows.append((module.name, d, result))
    if args.json:
        print(
            to_json(
                {
                    "verified": all(r.verified for _, _, r in rows),
                    "theorems": [{"module": m, **audit_json(r)} for m, _, r in rows],
                }
            )
        )
    else:
        width = max(len(d.name) for _, d, _ in rows)
        print(f"{'theorem':<{width}}  steps  verdict   statement")
        for _, d, r in rows:
            verdict = "VERIFIED" if r.verified else "REJECTED"
            print(f"{d.name:<{width}}  {len(d.steps):>5}  {verdict:<8}  {_statement(d)}")
        failed = [d.name for _, d, r in rows if not r.verified]
        total = sum(len(d.steps) for _, d, _ in rows)
        modules = len({m for m, _, _ in rows})
        if failed:
            print(f"\nREJECTED: {', '.join(failed)}")
        else:
            print(
                f"\nAll {len(rows)} derivations of {modules} theorems verified:"
                f" {total} steps, each checked by the kernel."
            )
    return 0 if all(r.verified for _, _, r in rows) else 1
