"""``python -m scaledattn.fuzz [--applications N] [--seed S] [--seconds T] [--aimed K] [--jobs J]``.

Prints the count per rule (applied, rewrote the term, agreed, undecided, differed,
crashed), the wall time and the rate, and the first disagreement shrunk to a
minimal term. Exit 0 when no rule changed a meaning, 1 otherwise. On a terminal a
progress bar counts the applications (scaledattn.progress).
"""

from __future__ import annotations

import argparse

from scaledattn.fuzz.campaign import Stats, run
from scaledattn.progress import Bar


def main(argv: list[str] | None = None) -> int:
    """Run a campaign and print its figures."""
    parser = argparse.ArgumentParser(prog="python -m scaledattn.fuzz", description=__doc__)
    parser.add_argument("--applications", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--all", action="store_true", help="go on after a disagreement")
    parser.add_argument(
        "--aimed",
        type=int,
        default=0,
        metavar="K",
        help="after each drawn case, K cases aimed at one rule each, the rules in turn",
    )
    parser.add_argument(
        "--checker",
        action="store_true",
        help="a third party: each rewrite audited as a one-step derivation and its"
        " certificate checked by the independent checker",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="J",
        help="run the cases in J worker processes (the counts are those of one process)",
    )
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")

    with Bar("fuzz campaign", "application") as bar:

        def progress(stats: Stats) -> None:
            bar(min(stats.applications, args.applications), args.applications)

        stats, found = run(
            args.applications,
            args.seed,
            args.seconds,
            progress,
            not args.all,
            args.aimed,
            args.checker,
            args.jobs,
        )
    aimed = f" --aimed {args.aimed}" if args.aimed else ""
    aimed += " --checker" if args.checker else ""
    aimed += " --all" if args.all else ""
    aimed += f" --jobs {args.jobs}" if args.jobs > 1 else ""
    print(f"python -m scaledattn.fuzz --applications {args.applications} --seed {args.seed}{aimed}")
    print(stats.table())
    for choices, disagreement in found:
        print(f"\n{disagreement}\n  choices:   {choices}")
    for rule, case, rewritten in stats.refusals:
        print(f"\nthe kernel accepts and the checker refuses {rule}\n  term:      {case}")
        print(f"  rewritten: {rewritten}")
    refused = sum(c.refused for c in stats.rules.values())
    return 1 if found or refused else 0


if __name__ == "__main__":
    raise SystemExit(main())
