"""The ``witness`` command: the mean and variance of q·k, measured, against the theorem."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from scaledattn.cli.exits import EXIT_FAILED, EXIT_OK, EXIT_UNDECIDED
from scaledattn.errors import InvalidArgument

if TYPE_CHECKING:
    from scaledattn.numeric.witness import ScoreWitness

# SymPy, numpy and the theorems are imported by the functions that use them, so that
# `scaledattn --help` and usage errors stay fast (tests/cli/test_lazy.py).

#: The theorem whose closed form the witness checks.
THEOREM = "dot_product_variance_with_means"

#: At most this many products qᵢkᵢ (samples × d_k) per Monte Carlo run: a few minutes.
MAX_PRODUCTS = 10**10


def register(sub: Any) -> None:
    """Add the ``witness`` command to the subparsers ``sub``."""
    p = sub.add_parser(
        "witness",
        help="measure Var(q·k) exactly or by Monte Carlo and compare it with the theorem",
        description=(
            "q has independent components from --distribution, k from --k-distribution"
            " (default: the same); the measured variance of q·k is compared with"
            f" {THEOREM}: d_k(σ_q²σ_k² + σ_q²μ_k² + μ_q²σ_k²)."
        ),
        lazy_epilog=distributions_epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--distribution", required=True, metavar="SPEC", help="law of q's components")
    p.add_argument("--k-distribution", metavar="SPEC", help="law of k's components")
    p.add_argument("--d-k", required=True, type=int, metavar="N", help="the dimension d_k")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--exact", action="store_true", help="exact law by convolution (finite laws)")
    how.add_argument("--samples", type=int, metavar="N", help="Monte Carlo with N samples of q·k")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="numpy seed (default 0)")
    p.add_argument("--list", action="store_true", help="with --exact: list every combination")
    p.add_argument("--json", action="store_true", help="machine-readable result")
    p.set_defaults(func=cmd_witness)


def distributions_epilog() -> str:
    """The distributions SPEC accepts, from the catalogue (never typed by hand)."""
    from scaledattn.numeric.distributions import catalogue_lines

    lines = ["distributions (SPEC is NAME or NAME:key=value,…; lists as 1|2|3):"]
    lines += [f"  {line}" for line in catalogue_lines()]
    lines.append(
        "example: scaledattn witness --distribution gaussian:var=4 --d-k 8 --samples 20000"
    )
    return "\n".join(lines)


def check_samples(samples: int | None, d: int) -> None:
    """Refuse a Monte Carlo run that cannot give a variance or would not finish soon.

    >>> check_samples(1, 4)
    Traceback (most recent call last):
    ...
    scaledattn.errors.InvalidArgument: --samples must be at least 2, got 1
    """
    if samples is None:
        return
    if samples < 2:
        raise InvalidArgument(f"--samples must be at least 2, got {samples}")
    if d >= 1 and samples * d > MAX_PRODUCTS:
        raise InvalidArgument(
            f"--samples {samples} × --d-k {d} is more than {MAX_PRODUCTS:.0e} products"
            " (hours of work); take fewer samples"
        )


def closed_form() -> Any:
    """The right side of the theorem's statement, evaluated (a SymPy expression).

    The witness checks the statement with numbers; the kernel checks its proof.
    """
    from scaledattn.kernel.expr import rebuild
    from scaledattn.registry import find_derivation

    return rebuild(find_derivation(THEOREM).statement.rhs)


def cmd_witness(args: argparse.Namespace) -> int:
    """Measure and compare; exit 0 if it agrees, 1 if not, 3 if it cannot be trusted."""
    check_samples(args.samples, args.d_k)  # before SymPy and numpy are imported
    from scaledattn.numeric.distributions import distribution
    from scaledattn.numeric.witness import witness_scores
    from scaledattn.progress import Bar
    from scaledattn.render import to_json

    q = distribution(args.distribution)
    k = distribution(args.k_distribution) if args.k_distribution is not None else q
    with Bar("witness: Monte Carlo", "sample") as bar:
        w = witness_scores(
            q,
            k,
            args.d_k,
            closed_form=closed_form(),
            samples=None if args.exact else args.samples,
            seed=args.seed,
            listing=args.list,
            progress=bar,
        )
    if args.json:
        print(to_json({**w.as_json(), "theorem": THEOREM}))
    else:
        print(_text(w))
    if not w.trusted:
        return EXIT_UNDECIDED
    return EXIT_OK if w.agrees else EXIT_FAILED


def _text(w: ScoreWitness) -> str:
    import sympy

    from scaledattn.numeric.exact import BinomialLaw
    from scaledattn.numeric.montecarlo import Z95
    from scaledattn.registry import find_derivation
    from scaledattn.render.display import statement_parts, unicode_line

    lines = [f"q ~ {w.q.spec}, k ~ {w.k.spec}, d_k = {w.d}"]
    if w.listing is not None:
        lines.append("  combinations of the products qᵢkᵢ:")
        for row in w.listing.rows:
            products = ", ".join(f"{v}" for v in row.products)
            lines.append(f"    ({products})  q·k = {row.score}  probability {row.probability}")
        lines.append(f"  from the listing: mean {w.listing.mean}, variance {w.listing.variance}")
    if isinstance(w.law, BinomialLaw):
        lines.append(f"  exact law of q·k, a shifted binomial: {w.law.support_size} values")
        lines.append(f"    {w.law.closed_form('q·k')}")
    elif w.law is not None:
        lines.append(f"  exact law of q·k by convolution: {w.law.support_size} values")
    if w.law is not None:
        lines.append(f"  mean      {w.mean}")
        lines.append(f"  variance  {w.variance}")
    elif w.estimate is not None:
        est = w.estimate
        lo, hi = est.interval(Z95)
        mlo, mhi = est.mean_interval(Z95)
        lines.append(f"  Monte Carlo: {est.n} samples of q·k, seed {est.seed}")
        lines.append(f"  mean      {est.mean:.6g}   95% interval [{mlo:.6g}, {mhi:.6g}]")
        lines.append(f"  variance  {est.variance:.6g}   95% interval [{lo:.6g}, {hi:.6g}]")
    _, _, shown = statement_parts(find_derivation(THEOREM).statement)
    lines.append(f"  theorem   {THEOREM}: Var(q·k) = {unicode_line(shown)}")
    lines.append(f"            = {sympy.sstr(w.expected_variance)} for these laws")
    lines.append("  agrees    " + _verdict(w))
    return "\n".join(lines)


def _verdict(w: ScoreWitness) -> str:
    from scaledattn.numeric.montecarlo import Z_AGREE

    if w.estimate is None:
        return "yes (exact equality)" if w.agrees else "NO: the exact variance differs"
    est = w.estimate
    if not est.trusted:
        return f"UNDECIDED: {est.warning}"
    lo, hi = est.interval(Z_AGREE)
    where = f"[{lo:.6g}, {hi:.6g}] (z = {Z_AGREE:.2f}; false alarm 1e-6 if the theorem holds)"
    if w.agrees:
        return f"yes: the closed form lies in {where}"
    return f"NO: the closed form lies outside {where}"
