"""The ``exercises`` command: the lesson's three exercises, each derived, witnessed, judged."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    """Add ``exercises`` to the subparsers ``sub``."""
    p = sub.add_parser(
        "exercises", help="the lesson's three exercises, answered by checked derivations"
    )
    p.add_argument("--format", choices=("text", "latex", "json"), default="text")
    p.add_argument("--brief", action="store_true", help="answers and verdicts only")
    p.set_defaults(func=cmd_exercises)


def cmd_exercises(args: argparse.Namespace) -> int:
    """Print each exercise: question, enumeration, derivations, verdict; exit 1 on a failure.

    A verdict says whether the checker checked its derivations too; a derivation the
    kernel accepts and the checker refuses is the alarm (SoundnessAlarm, exit 70).
    """
    from scaledattn.certificate import confirm
    from scaledattn.derive import audit_of
    from scaledattn.grading import verdicts as exercise_verdicts
    from scaledattn.render import audit_json, render, to_json

    verdicts = exercise_verdicts()
    if args.format == "json":
        print(
            to_json(
                {
                    "verified": all(v.ok for v in verdicts),
                    "exercises": [
                        {
                            "number": v.number,
                            "question": v.question,
                            "answer": v.answer,
                            "witness": list(v.witness),
                            "verified": v.ok,
                            "derivations": [audit_json(audit_of(d)) for d in v.derivations],
                        }
                        for v in verdicts
                    ],
                }
            )
        )
        return 0 if all(v.ok for v in verdicts) else 1
    doubly = True
    for n, v in enumerate(verdicts):
        if n:
            print()
        print(f"Exercise {v.number}: {v.question}")
        print("\n".join("  " + line for line in v.witness))
        if not args.brief:
            for d in v.derivations:
                print()
                print(render(audit_of(d), args.format))
        print()
        verdict = "REJECTED"
        if v.ok:
            unread = [d.name for d in v.derivations if confirm(audit_of(d)) != "checked"]
            verdict = "VERIFIED (kernel + checker)" if not unread else "VERIFIED (kernel only)"
            doubly &= not unread
        print(f"Verdict: {verdict} — {v.answer}")
    ok = sum(v.ok for v in verdicts)
    steps = sum(len(d.steps) for v in verdicts for d in v.derivations)
    by = "the kernel and the checker" if doubly and ok else "the kernel"
    print()
    print(
        f"{ok} of {len(verdicts)} exercises verified: {steps} steps checked by {by},"
        " each answer compared with an exact enumeration."
    )
    return 0 if ok == len(verdicts) else 1
