"""The calculator commands: ``variance``, ``mean`` and ``scale`` for a user's setting.

The last line of standard output (text and LaTeX formats) is the closed form as a
SymPy expression string, the right side of a kernel-checked Theorem; ``--explain``
prints the setting, declared joint moments and the checked derivations above it.
``--format json`` prints one JSON document instead (the closed form in
``closed_form``, the derivations as certificates).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scaledattn.calculator import Answer
    from scaledattn.moments.setting import AttentionSetting

# SymPy and the calculator are imported by the functions that use them, so that
# `scaledattn --help` and usage errors stay fast (tests/cli/test_lazy.py).

FORMATS = ("text", "latex", "json")

HELP = {
    "variance": "Var(q·k) for your setting, derived and checked",
    "mean": "E[q·k] for your setting, derived and checked (why correlation means 1/d_k)",
    "scale": "the unique c > 0 with Var(q·k / c) = target, derived and checked",
}


#: What each option of a setting means, by its name in the calculator's OPTIONS
#: (scaledattn.moments.setting; tests/calculator/test_options.py checks the two
#: agree), repeated here so that the parser needs no SymPy (tests/cli/test_lazy.py).
OPTION_HELP = {
    "d_k": "the key dimension (default: a symbolic positive integer d_k)",
    "var_q": "Var(q_i) (default 1)",
    "var_k": "Var(k_i) (default 1)",
    "mean_q": "E[q_i] (default 0)",
    "mean_k": "E[k_i] (default 0)",
    "corr": "the correlation of q_i and k_i, each pair jointly Gaussian"
    " (default: q independent of k)",
    "heads": "the number of heads, with --d-model: d_k = d_model/heads",
    "d_model": "the model width, the width of the tokens projected: with --init-std it"
    " sets their norm √d_model, with --heads it sets d_k = d_model/heads",
    "init_std": "projected scores q = W_q x, k = W_k y: the std of W_q's entries at init"
    " (and of W_k's unless --init-std-k); sets Var(q_i) = init_std²·input_norm²",
    "init_std_k": "the std of W_k's entries (default: --init-std)",
    "input_norm": "with --init-std: the norm ‖x‖ = ‖y‖ of the tokens projected"
    " (default √d_model, a LayerNorm'd token)",
    "target_var": "the variance wanted of q·k / c (default 1)",
}
#: The option only ``scale`` takes.
SCALE_ONLY = ("target_var",)


def flag(option: str) -> str:
    """The command line's spelling of a setting's option: ``--d-k`` for ``d_k``."""
    return "--" + option.replace("_", "-")


def add_setting_options(p: argparse.ArgumentParser, target: bool = False) -> None:
    """The options that describe a setting, one for each of the calculator's OPTIONS.

    Every default is None, which the setting reads as its own default, so that the
    command and the Python functions share one set of defaults.
    """
    g = p.add_argument_group("setting (numbers, fractions or expressions such as sigma**2)")
    for option, meaning in OPTION_HELP.items():
        if option in SCALE_ONLY and not target:
            continue
        g.add_argument(flag(option), metavar="EXPR", help=meaning)


def register(sub: Any) -> None:
    """Add ``variance``, ``mean`` and ``scale`` to the subparsers ``sub``."""
    for quantity in ("variance", "mean", "scale"):
        p = sub.add_parser(quantity, help=HELP[quantity], description=HELP[quantity])
        add_setting_options(p, target=quantity == "scale")
        p.add_argument("--explain", action="store_true", help="print the checked derivation")
        p.add_argument("--format", choices=FORMATS, default="text")
        p.set_defaults(func=cmd_quantity, quantity=quantity)


def setting_of(args: argparse.Namespace) -> AttentionSetting:
    """The setting the options describe (InvalidArgument names a bad option)."""
    from scaledattn.moments.setting import setting

    given = {
        option: getattr(args, option)
        for option in OPTION_HELP
        if getattr(args, option, None) is not None
    }
    return setting(**given, option_names={option: flag(option) for option in OPTION_HELP})


def cmd_quantity(args: argparse.Namespace) -> int:
    """Derive the quantity, print the explanation if asked, the closed form last."""
    from scaledattn.calculator import answer
    from scaledattn.render import to_json

    setting = setting_of(args)
    result = answer(args.quantity, setting)
    from scaledattn.cli.exits import EXIT_UNDECIDED
    from scaledattn.gate import check_steps, context_withheld

    for derivation in result.derivations:  # the gate: each step true on models (else exit 70)
        check_steps(derivation)
        why = context_withheld(derivation)  # and a model of its assumptions, or no answer
        if why:
            print(f"UNDECIDED {derivation.name}: {why}, so no answer is given")
            return EXIT_UNDECIDED
    if args.format == "json":
        print(to_json(answer_json(result)))
        return 0
    if args.explain:
        print(explanation(result, args.format))
        print()
    else:  # the explanation lists them; a bare answer still states every sign it assumed
        for note in setting.notes:
            print(f"note: {note}", file=sys.stderr)
    if args.format == "latex":
        print(f"\\[ {result.latex_line()} \\]")
    print(result.line())
    return 0


def answer_json(result: Answer) -> dict[str, Any]:
    """The answer as data: closed form, setting, provenance, every derivation's audit."""
    import sympy

    from scaledattn.derive import audit_of
    from scaledattn.render import audit_json
    from scaledattn.render.printers import latex

    s = result.setting
    return {
        "quantity": result.quantity,
        "closed_form": str(result),
        "decimal": result.decimal,
        "decimal_exact": result.decimal_exact,
        "value": result.value,
        "latex": latex(result.expr),
        "verified": True,
        "theorem": result.theorem.name,
        "setting": {
            "d_k": sympy.sstr(s.d),
            "var_q": sympy.sstr(s.var_q),
            "var_k": sympy.sstr(s.var_k),
            "mean_q": sympy.sstr(s.mean_q),
            "mean_k": sympy.sstr(s.mean_k),
            "corr": None if s.corr is None else sympy.sstr(s.corr),
            "heads": s.heads,
            "d_model": s.d_model,
            **{
                key: None if value is None else sympy.sstr(value)
                for key, value in (
                    ("init_std", s.init_std),
                    ("init_std_k", s.init_std_k),
                    ("input_norm", s.input_norm),
                )
            },
            **({"target_var": sympy.sstr(s.target_var)} if result.quantity == "scale" else {}),
        },
        "notes": list(s.notes),
        "provenance": list(result.provenance),
        "derivations": [audit_json(audit_of(d)) for d in result.derivations],
    }


def explanation(result: Answer, fmt: str = "text") -> str:
    """The setting, declared joint moments and checked derivations, as text or LaTeX."""
    from scaledattn.derive import audit_of
    from scaledattn.render import audit_latex, render

    lines = [*result.setting.describe()]
    if result.provenance:
        lines += ["Joint moments, computed here and declared to the kernel as assumptions:"]
        lines += [f"  {p}" for p in result.provenance]
    for d in result.derivations:
        lines += ["", render(audit_of(d), "text") if fmt == "text" else audit_latex(audit_of(d))]
    if result.quantity == "mean":
        from scaledattn.calculator.width import width_argument

        lines += ["", *width_argument(result.setting)]
    return "\n".join(lines)
