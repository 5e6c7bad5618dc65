"""``scaledattn plot saturation|training -o FILE``: the lesson's figures, as PNG/PDF/SVG."""

from __future__ import annotations

import argparse
from typing import Any

from scaledattn.cli.experiment import training_runs
from scaledattn.errors import InvalidArgument

PLOTS = {"saturation": 400, "training": 20}


def register(sub: Any) -> None:
    """Add ``plot`` to the subparsers ``sub``."""
    p = sub.add_parser(
        "plot",
        help="draw saturation against d_k, or training losses (needs the 'plot' extra)",
        description="Draw a figure with matplotlib (pip install 'scaledattn[plot]').",
    )
    p.add_argument("name", metavar="NAME", choices=sorted(PLOTS), help="saturation or training")
    p.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="FILE",
        help="where to write the figure (.png, .pdf or .svg)",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument(
        "--trials",
        type=int,
        default=None,
        help="trials per d_k (saturation, 400) or runs per setting (training, 20)",
    )
    p.add_argument("--lr", type=float, default=None, help="training only: learning rate (0.7)")
    p.set_defaults(func=cmd_plot)


def cmd_plot(args: argparse.Namespace) -> int:
    """Compute the data, draw the figure, print where it went."""
    # Imported here: numpy and matplotlib stay out of `scaledattn --help`.
    from scaledattn.attention.experiments import check_int, check_trials
    from scaledattn.attention.plots import (
        check_output,
        plot_saturation,
        plot_training,
        require_matplotlib,
        saturation_curves,
    )
    from scaledattn.attention.training import check_lr

    out = check_output(args.output)
    if out.is_dir():
        raise InvalidArgument(f"{str(out)!r} is a folder, not a file")
    trials = check_trials(PLOTS[args.name] if args.trials is None else args.trials, 2)
    check_int(args.seed, "seed", 0, 2**63 - 1)
    if args.name == "saturation" and args.lr is not None:
        raise InvalidArgument("--lr applies to the training plot only")
    lr = 0.7 if args.lr is None else check_lr(args.lr)
    require_matplotlib()  # after the checks above: bad input is refused without importing it
    from scaledattn.progress import Bar

    try:
        with Bar(f"plot {args.name}", "d_k" if args.name == "saturation" else "run") as bar:
            if args.name == "saturation":
                curves = saturation_curves(args.seed, trials, progress=bar)
                written = plot_saturation(curves, out)
            else:
                result = training_runs(args.seed, trials, lr, progress=bar)
                written = plot_training(result, out)
    except OSError as err:
        raise InvalidArgument(f"cannot write {str(out)!r}: {err.strerror or err}") from None
    print(f"wrote {written}")
    return 0
