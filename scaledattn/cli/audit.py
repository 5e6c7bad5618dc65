"""``scaledattn audit MODEL``: a model's attention at init against the projected-score theorem."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from scaledattn.errors import InvalidArgument


def register(sub: Any) -> None:
    """Add ``audit`` to the subparsers ``sub``."""
    p = sub.add_parser(
        "audit",
        help="measure each attention layer of a model at init against the theorem (torch extra)",
        description="Build MODEL with random init (no download), run random tokens through it"
        " and, per attention layer, measure the scale applied to q·k, the logit std, the"
        " largest weight and the entropy, beside the prediction of projected_score_variance."
        " Exit 0 when every layer agrees, 1 when one does not, 2 on bad input or without"
        " the torch extra.",
    )
    p.add_argument(
        "model",
        metavar="MODEL",
        help="a transformers model type (gpt2, bert, t5, llama, …) or module:callable"
        " returning an nn.Module",
    )
    p.add_argument(
        "--layers",
        type=int,
        default=2,
        help="depth of a model type (default 2; 0 keeps the config's)",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--batch", type=int, default=2, help="sequences (default 2)")
    p.add_argument("--tokens", type=int, default=128, help="tokens per sequence (default 128)")
    p.add_argument("--json", action="store_true", help="machine-readable result")
    p.add_argument(
        "--plot", metavar="FILE", default=None, help="also draw the figure (.png/.pdf/.svg)"
    )
    p.set_defaults(func=cmd_audit)


def cmd_audit(args: argparse.Namespace) -> int:
    """Run the audit; print the table (or JSON); exit 1 when a layer disagrees."""
    from scaledattn.progress import Bar
    from scaledattn.render import to_json
    from scaledattn.torchattn import require_transformers
    from scaledattn.torchattn.audit import check_options, run_audit

    if not 0 <= args.seed < 2**63:
        raise InvalidArgument(f"--seed must be between 0 and 2**63 - 1, got {args.seed}")
    if args.layers < 0:
        raise InvalidArgument(f"--layers must be ≥ 0, got {args.layers}")
    if args.plot is not None:
        from scaledattn.attention.plots import check_output, require_matplotlib

        check_output(args.plot)
        require_matplotlib()
    check_options(args.model, args.layers or None, args.batch, args.tokens)
    require_transformers()
    with Bar(f"audit {args.model}: measuring each attention call", "call") as bar:
        bar.status(f"audit {args.model}: building the model, running random tokens…")
        result = run_audit(args.model, args.layers or None, args.seed, args.batch, args.tokens, bar)
    if args.json:
        print(to_json(result.as_json()))
    else:
        from scaledattn.torchattn.report import report

        print(report(result))
    if args.plot is not None:
        from scaledattn.torchattn.report import plot_audit

        try:
            written = plot_audit(result, args.plot)
        except OSError as err:
            raise InvalidArgument(f"cannot write {args.plot!r}: {err.strerror or err}") from None
        print(f"wrote {written}", file=sys.stderr if args.json else sys.stdout)
    return 0 if result.all_agree else 1
