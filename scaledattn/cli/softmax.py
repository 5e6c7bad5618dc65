"""``scaledattn softmax SCORES…``: the weights of given scores, their entropy and gradient."""

from __future__ import annotations

import argparse
import math
from typing import Any

from scaledattn.errors import InvalidArgument


def register(sub: Any) -> None:
    """Add ``softmax`` to the subparsers ``sub``."""
    p = sub.add_parser(
        "softmax",
        help="softmax weights, entropy and cross-entropy gradient of given scores",
        description="Weights of the given scores (separate them by spaces or commas; -inf"
        " masks a key; put -- before a first score that starts with -inf).",
    )
    p.add_argument("scores", nargs="+", metavar="SCORE", help="numbers, e.g. 3.2 0.1 -2.5 0.4")
    p.add_argument(
        "--scale",
        type=float,
        default=None,
        help="divide the scores by this positive number first (e.g. 8 = √64)",
    )
    p.add_argument(
        "--target",
        type=int,
        default=None,
        metavar="K",
        help="the target key, numbered from 1 as in the theorems: adds cross-entropy and p − y",
    )
    p.add_argument("--json", action="store_true", help="machine-readable result")
    p.set_defaults(func=cmd_softmax)


def parse_scores(words: list[str]) -> list[float]:
    """Numbers from words that may hold several comma-separated values (never eval)."""
    values: list[float] = []
    for word in words:
        for part in word.split(","):
            text = part.strip()
            if not text:
                continue
            try:
                values.append(float(text))
            except ValueError:
                raise InvalidArgument(f"not a number: {text!r}") from None
    if not values:
        raise InvalidArgument("no scores given")
    return values


def cmd_softmax(args: argparse.Namespace) -> int:
    """Print the weights and what follows from them."""
    # Imported here: numpy stays out of `scaledattn --help` and usage errors.
    import numpy as np

    from scaledattn.attention.softmax import (
        as_scores,
        cross_entropy,
        cross_entropy_grad,
        entropy,
        softmax,
    )

    raw = parse_scores(args.scores)
    scores = as_scores(np.array(raw))
    if args.scale is not None:
        if not (math.isfinite(args.scale) and args.scale > 0):
            raise InvalidArgument(f"--scale must be a positive number, got {args.scale}")
        with np.errstate(over="ignore"):
            scaled = scores / args.scale
        if np.isinf(scaled[np.isfinite(scores)]).any():
            raise InvalidArgument(
                f"--scale {args.scale:g} is too small: a score divided by it overflows"
            )
        scores = scaled
    p = softmax(scores)
    n = len(p)
    data: dict[str, Any] = {
        "scores": raw,
        "scale": args.scale,
        "weights": p.tolist(),
        "max_weight": float(p.max()),
        "largest_key": int(p.argmax()) + 1,  # keys numbered from 1, as in the theorems
        "entropy": float(entropy(p)),
        "uniform_entropy": math.log(n),
    }
    if args.target is not None:
        if not 1 <= args.target <= n:
            raise InvalidArgument(f"--target must be a key from 1 to {n}, got {args.target}")
        at = np.array(args.target - 1)  # the array's index of key K
        grad = cross_entropy_grad(scores, at)
        data["target"] = args.target
        data["cross_entropy"] = float(cross_entropy(scores, at))
        data["gradient"] = grad.tolist()
        data["gradient_norm"] = float(np.linalg.norm(grad))
    if args.json:
        from scaledattn.render import to_json  # (the renderers import SymPy)

        print(to_json(data))
        return 0
    shown = "scores" + (f" / {args.scale:g}" if args.scale is not None else "")
    print(f"{shown:<16}" + "  ".join(f"{x:>8.4g}" for x in scores.tolist()))
    print(f"{'weights p':<16}" + "  ".join(f"{x:>8.4f}" for x in p.tolist()))
    print(f"largest weight  {data['max_weight']:.4f} (key {data['largest_key']} of 1..{n})")
    print(
        f"entropy         {data['entropy']:.4f} nat (uniform over {n}: ln {n} = {math.log(n):.4f})"
    )
    if args.target is not None:
        print(f"cross-entropy   {data['cross_entropy']:.4f} (target key {args.target})")
        print(f"{'p − y':<16}" + "  ".join(f"{x:>8.4f}" for x in data["gradient"]))
        print(f"‖p − y‖         {data['gradient_norm']:.4f} (at most √2 = {math.sqrt(2):.4f})")
    return 0
