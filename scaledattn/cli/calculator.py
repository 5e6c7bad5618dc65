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
    from scaledattn.calculator import Answer, Setting

# SymPy and the calculator are imported by the functions that use them, so that
# `scaledattn --help` and usage errors stay fast (tests/cli/test_lazy.py).

FORMATS = ("text", "latex", "json")

OPTIONS = {
    "d_k": "--d-k",
    "var_q": "--var-q",
    "var_k": "--var-k",
    "mean_q": "--mean-q",
    "mean_k": "--mean-k",
    "corr": "--corr",
    "heads": "--heads",
    "d_model": "--d-model",
    "target_var": "--target-var",
}

HELP = {
    "variance": "Var(q·k) for your setting, derived and checked",
    "mean": "E[q·k] for your setting, derived and checked (why correlation means 1/d_k)",
    "scale": "the unique c > 0 with Var(q·k / c) = target, derived and checked",
}


def add_setting_options(p: argparse.ArgumentParser, target: bool = False) -> None:
    """The options that describe a setting (each takes a number or an expression)."""
    g = p.add_argument_group("setting (numbers, fractions or expressions such as sigma**2)")
    g.add_argument("--d-k", metavar="EXPR", help="the key dimension (default: symbolic d_k)")
    g.add_argument("--var-q", metavar="EXPR", default="1", help="Var(q_i) (default 1)")
    g.add_argument("--var-k", metavar="EXPR", default="1", help="Var(k_i) (default 1)")
    g.add_argument("--mean-q", metavar="EXPR", default="0", help="E[q_i] (default 0)")
    g.add_argument("--mean-k", metavar="EXPR", default="0", help="E[k_i] (default 0)")
    g.add_argument(
        "--corr",
        metavar="EXPR",
        help="correlation of q_i and k_i (jointly Gaussian pairs); default: q independent of k",
    )
    g.add_argument("--heads", metavar="H", help="number of heads (with --d-model)")
    g.add_argument("--d-model", metavar="D", help="model width; d_k = D/H")
    g.add_argument(
        "--init-std",
        metavar="EXPR",
        help="projected scores q = W_q x, k = W_k y: the init std of W_q's entries (and of W_k's"
        " unless --init-std-k); sets Var(q_i) = σ_q²‖x‖² (projected_component_variance_q)",
    )
    g.add_argument("--init-std-k", metavar="EXPR", help="the init std of W_k (default --init-std)")
    g.add_argument(
        "--input-norm",
        metavar="EXPR",
        help="with --init-std: the norm ‖x‖ = ‖y‖ of the tokens projected (default √d_model,"
        " a LayerNorm'd token, when --d-model is given)",
    )
    if target:
        g.add_argument(
            "--target-var", metavar="EXPR", default="1", help="the variance wanted (default 1)"
        )


def register(sub: Any) -> None:
    """Add ``variance``, ``mean`` and ``scale`` to the subparsers ``sub``."""
    for quantity in ("variance", "mean", "scale"):
        p = sub.add_parser(quantity, help=HELP[quantity], description=HELP[quantity])
        add_setting_options(p, target=quantity == "scale")
        p.add_argument("--explain", action="store_true", help="print the checked derivation")
        p.add_argument("--format", choices=FORMATS, default="text")
        p.set_defaults(func=cmd_quantity, quantity=quantity)


def projected_variances(args: argparse.Namespace) -> tuple[str, str, dict[str, str]]:
    """Var(qᵢ), Var(kᵢ) as text: σ²‖x‖² from --init-std and --input-norm, or --var-q, --var-k.

    The component lemma of scaledattn.proofs.projected_scores: a row w of W with i.i.d. entries
    of variance σ² gives Var(w·x) = σ²‖x‖² for a fixed token x.
    """
    from scaledattn.calculator import parse_expression
    from scaledattn.errors import InvalidArgument

    init_k, norm = getattr(args, "init_std_k", None), getattr(args, "input_norm", None)
    init_q = getattr(args, "init_std", None)
    if init_q is None:
        if init_k is not None or norm is not None:
            raise InvalidArgument("--init-std-k and --input-norm go with --init-std")
        return args.var_q, args.var_k, {}
    for option, text in (("--init-std", init_q), ("--init-std-k", init_k), ("--input-norm", norm)):
        if text is not None:
            try:
                parse_expression(_text_of(text))
            except InvalidArgument as err:
                raise InvalidArgument(f"{option}: {err}") from None
    if (args.var_q, args.var_k) != ("1", "1"):
        raise InvalidArgument("--init-std sets Var(q_i) and Var(k_i); leave out --var-q, --var-k")
    if norm is None:
        if args.d_model is None:
            raise InvalidArgument("--init-std needs --input-norm, or --d-model for ‖x‖ = √d_model")
        norm = f"sqrt({args.d_model})"
    labels = {
        "var_q": "--init-std/--input-norm (Var(q_i) = init_std²·input_norm²)",
        "var_k": "--init-std-k/--input-norm (Var(k_i) = init_std_k²·input_norm²)",
    }
    var_q = f"({init_q})**2*({norm})**2"
    var_k = f"({init_k if init_k is not None else init_q})**2*({norm})**2"
    return var_q, var_k, labels


def _text_of(value: object) -> str:
    return value if isinstance(value, str) else str(value)


PROJECTED = (
    "Projected scores: Var(q_i) = σ_q²‖x‖², Var(k_i) = σ_k²‖y‖² (projected_component_variance_q"
    " and _k), so Var(q·k) = d_k·σ_q²σ_k²‖x‖²‖y‖² (projected_score_variance); both checked by"
    " the kernel: scaledattn derive projected_score_variance."
)


def setting_of(args: argparse.Namespace) -> Setting:
    """The setting the options describe (InvalidArgument names a bad option)."""
    from scaledattn.calculator import setting

    var_q, var_k, labels = projected_variances(args)
    return setting(
        d_k=args.d_k,
        var_q=var_q,
        var_k=var_k,
        mean_q=args.mean_q,
        mean_k=args.mean_k,
        corr=args.corr,
        heads=args.heads,
        d_model=args.d_model,
        target_var=getattr(args, "target_var", "1"),
        option_names={**OPTIONS, **labels},
    )


def cmd_quantity(args: argparse.Namespace) -> int:
    """Derive the quantity, print the explanation if asked, the closed form last."""
    from scaledattn.calculator import answer
    from scaledattn.render import to_json
    from scaledattn.render.printers import latex

    setting = setting_of(args)
    result = answer(args.quantity, setting)
    if args.format == "json":
        print(to_json(answer_json(result)))
        return 0
    if args.explain:
        if getattr(args, "init_std", None) is not None:
            print(PROJECTED)
        print(explanation(result, args.format))
        print()
    else:  # the explanation lists them; a bare answer still states every sign it assumed
        for note in setting.notes:
            print(f"note: {note}", file=sys.stderr)
    if args.format == "latex":
        lhs = latex(result.lhs)
        print(f"\\[ {lhs} = {latex(result.expr)} \\]")
    print(result)
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
