"""``scaledattn verify CLAIM`` and ``scaledattn claims``: one claim, or all claims of the texts."""

from __future__ import annotations

import argparse
from typing import Any

EXAMPLES = """\
examples:
  scaledattn verify "Var(X + Y) = Var(X) + Var(Y)" --assume "independent(X, Y)"
  scaledattn verify "Var(dot(q, k)/d_k) = 1"
  scaledattn verify "softmax([60, 65, 70]) ≈ [0.25, 0.30, 0.35]"
  scaledattn verify "measured(max_weight_unscaled) ≈ 0.787"
"""


def language_epilog() -> str:
    """What a claim may say, generated from the one language's tables.

    The names, the functions (their forms and meanings), the relations and the other
    notations every door reads (:mod:`scaledattn.language.table`).
    """
    from scaledattn.claims.statistics import MEASUREMENTS
    from scaledattn.claims.theorems import LIMITS
    from scaledattn.language.table import language_lines

    lines = ["the language (verify, --assume and proof files read a term alike):"]
    lines += [f"  {line}" for line in language_lines()]
    lines.append(f"  measured(NAME)    NAME one of {', '.join(MEASUREMENTS)}")
    lines.append(f"  lim(NAME)         NAME one of {', '.join(LIMITS)}")
    lines.append("  a whole claim     theorem(NAME): a theorem of 'scaledattn list'")
    lines.append("  relations         = ≈ < <= > >=, and A = a <=> c = r")
    lines.append(
        "  assumptions       independent(X, Y) (proof files: independent_pairs(q, k) too),"
        " E(X) = 0, Var(q_i) = sigma**2 or d_k = 64, a definition Y = X + 1, c > 0"
        " (a law such as q_i ~ N(0, 1) is not read: give its moments)"
    )
    return "\n".join(lines) + "\n\n" + EXAMPLES


def register(sub: Any) -> None:
    """Add ``verify`` and ``claims`` to the subparsers ``sub``."""
    p = sub.add_parser(
        "verify",
        help="decide a claim (exit 0 verified, computed or consistent; 1 refuted; 3 undecided)",
        description="Decide a claim in the claim language: = is an identity (a derivation"
        " the kernel checks), ≈ or ~= compares numbers to the tolerance their written digits"
        " imply, < <= > >= compare numbers, A = a <=> c = r is an equivalence.",
        lazy_epilog=language_epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("claim", metavar="CLAIM", help="e.g. 'Var(dot(q, k)) = d_k'")
    p.add_argument(
        "--assume",
        action="append",
        default=[],
        metavar="ASSUMPTION",
        help="independent(X, Y), an equation such as 'E(X) = 0' or 'd_k = 64', or 'c > 0'",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the experiments (measured)")
    p.add_argument(
        "--trials", type=int, default=None, help="trials of experiments P1–P3 (measured)"
    )
    p.add_argument("--brief", action="store_true", help="leave out the derivations' steps")
    p.add_argument("--json", action="store_true", help="machine-readable result")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("claims", help="check every claim of the four source texts; print the table")
    p.add_argument("--source", metavar="FILE", help="one source: its file name or number (000)")
    p.add_argument("--seed", type=int, default=0, help="seed of the experiments (measured)")
    p.add_argument("--json", action="store_true", help="a list of {source, quote, claim, …}")
    p.add_argument(
        "--closing",
        action="store_true",
        help="only the claims refuted, undecided, or true under a condition or a meaning,"
        " each with its value and the meaning it was judged under",
    )
    p.set_defaults(func=cmd_claims)


def _trials(value: int | None) -> dict[str, int]:
    """The same size for P1–P3; the training experiment keeps its 20 runs."""
    from scaledattn.attention.experiments import check_trials

    if value is None:
        return {}
    n = check_trials(value, 20)
    return dict.fromkeys(("scores", "saturation", "gradient"), n)


def cmd_verify(args: argparse.Namespace) -> int:
    """Print the verdict and its evidence; the exit code is the verdict's."""
    # Imported here: the claim language pulls in numpy, which `--help` does not need.
    from scaledattn.attention.experiments import check_int
    from scaledattn.claims.report import result_text
    from scaledattn.claims.verify import verify
    from scaledattn.render import to_json

    seed = check_int(args.seed, "--seed", 0, 2**63 - 1)
    result = verify(args.claim, args.assume, seed=seed, trials=_trials(args.trials))
    if args.json:
        print(to_json(result.as_json()))
    else:
        print(result_text(result, detail=not args.brief))
    return result.exit_code


def cmd_claims(args: argparse.Namespace) -> int:
    """Check the ledger (or one source's part of it); exit 0 whatever the verdicts."""
    from scaledattn.attention.experiments import check_int
    from scaledattn.claims.ledger import check, select
    from scaledattn.claims.report import closing_list, ledger_json, ledger_text
    from scaledattn.progress import Bar
    from scaledattn.render import to_json

    seed = check_int(args.seed, "--seed", 0, 2**63 - 1)
    with Bar("claims", "claim") as bar:
        rows = check(select(args.source), seed=seed, progress=bar)
    if args.closing and not args.json:
        print(closing_list(rows))
        return 0
    if args.closing:
        rows = tuple(r for r in rows if not r.result.verdict.holds or r.conditional)
    if args.json:
        print(to_json(ledger_json(rows)))
    else:
        print(ledger_text(rows))
    return 0
