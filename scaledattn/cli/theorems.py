"""Commands on theorems: ``list``, ``derive NAME``, ``check``."""

from __future__ import annotations

import argparse
from collections import Counter
from typing import Any

from scaledattn.derive import audit_of
from scaledattn.numeric.evidence import DerivationWitness, module_witness, witness_line
from scaledattn.numeric.montecarlo import Z_AGREE
from scaledattn.registry import theorem_modules
from scaledattn.render import FORMATS, render, to_json
from scaledattn.render.display import modulo_axioms, statement_parts, unicode_line
from scaledattn.render.json import audit_json


def register(sub: Any) -> None:
    """Add the theorem commands to the subparsers ``sub``."""
    p = sub.add_parser("list", help="each theorem's name and statement")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("derive", help="print a theorem's checked derivation")
    p.add_argument(
        "name",
        metavar="NAME",
        help="a theorem or lemma (see 'scaledattn list'), a calculator derivation such as"
        " 'variance(var_q=4, var_k=4)', or a kernel rule such as variance_def",
    )
    p.add_argument(
        "--format",
        choices=(*FORMATS, "proof"),
        default="text",
        help="text, latex, markdown, json (a certificate check-proof reads back), or proof"
        " (the proof-file format)",
    )
    p.set_defaults(func=cmd_derive)

    p = sub.add_parser(
        "check", help="verify every theorem, evaluate every step on numbers, print a summary"
    )
    p.add_argument("--json", action="store_true", help="machine-readable summary")
    p.add_argument(
        "--brief", action="store_true", help="one line per theorem, without the witness lines"
    )
    p.set_defaults(func=cmd_check)


def _statement(d: Any) -> str:
    lhs, relation, rhs = statement_parts(d.statement)
    if relation == "⇔":
        return f"({unicode_line(lhs)}) ⇔ ({unicode_line(rhs)})"
    return f"{unicode_line(lhs)} = {unicode_line(rhs)}"


def cmd_list(args: argparse.Namespace) -> int:
    """Print every theorem module and its derivations, one statement per line."""
    from scaledattn.calculator.lemmas import CALLS
    from scaledattn.registry import cited_lemmas

    for module in theorem_modules():
        print(f"{module.name}: {module.summary}")
        for d in module.derivations:
            print(f"  {d.name:<34} {_statement(d)}")
    print("lemmas cited by the theorems above:")
    for d in cited_lemmas():
        print(f"  {d.name:<34} {_statement(d)}")
    print("the calculator's derivations, for the lesson's setting or NAME(var_q=4, …):")
    for name, (_, what) in CALLS.items():
        print(f"  {name:<34} {what}")
    return 0


#: The exit code of a theorem verified modulo an axiom (``axiom(...)``): not 0, since a
#: step rests on a rule the kernel did not check, and not 1, since none was refused.
EXIT_MODULO_AXIOM = 4


def _exit(verified: bool, axioms: bool) -> int:
    if not verified:
        return 1
    return EXIT_MODULO_AXIOM if axioms else 0


def cmd_derive(args: argparse.Namespace) -> int:
    """Render a derivation (or a rule's card); exit 1 on a rejected step, 4 on an axiom."""
    from scaledattn.citations import open_name, rule_card
    from scaledattn.kernel import Rule

    derivation = open_name(args.name)
    if isinstance(derivation, Rule):
        print(rule_card(derivation))
        return 0
    result = audit_of(derivation)
    if args.format == "proof":
        from scaledattn.render.proof import proof_document

        print(proof_document(result), end="")
    else:
        print(render(result, args.format))
    return _exit(result.verified, bool(result.theorem and result.theorem.axioms))


def cmd_check(args: argparse.Namespace) -> int:
    """Audit every derivation and evaluate it on its numeric witnesses; table and summary."""
    rows = []
    for module in theorem_modules():
        for d in module.derivations:
            rows.append((module.name, d, audit_of(d), module_witness(module, d)))
    verified = all(r.verified for _, _, r, _ in rows)
    agrees = not any(w.refuted for _, _, _, w in rows)
    axioms = any(r.theorem is not None and r.theorem.axioms for _, _, r, _ in rows)
    if args.json:
        print(
            to_json(
                {
                    "verified": verified,
                    "agrees": agrees,
                    "modulo_axioms": axioms,
                    "theorems": [
                        {"module": m, **audit_json(r), "numeric": w.as_json()}
                        for m, _, r, w in rows
                    ],
                }
            )
        )
    else:
        _check_table(rows, args.brief)
    return _exit(verified and agrees, axioms)


def _check_table(rows: list[tuple[str, Any, Any, DerivationWitness]], brief: bool) -> None:
    width = max(len(d.name) for _, d, _, _ in rows)
    print(f"{'theorem':<{width}}  steps  kernel    numbers  statement")
    for _, d, r, w in rows:
        verdict = "VERIFIED" if r.verified else "REJECTED"
        numbers = "AGREE" if w.agrees else "DIFFER" if w.refuted else "—"
        print(f"{d.name:<{width}}  {len(d.steps):>5}  {verdict:<8}  {numbers:<7}  {_statement(d)}")
        for s in w.settings:
            if not brief:
                print("    " + witness_line(d, s))
    failed = [d.name for _, d, r, _ in rows if not r.verified]
    differ = [d.name for _, d, _, w in rows if w.refuted]
    untested = [d.name for _, d, _, w in rows if not w.tested]
    total = sum(len(d.steps) for _, d, _, _ in rows)
    modules = len({m for m, _, _, _ in rows})
    settings = [s for _, _, _, w in rows for s in w.settings if not s.unsupported]
    methods = Counter(s.measurement.method for s in settings if s.measurement)
    values = sum(len(s.steps) for s in settings)
    print()
    if failed:
        print(f"REJECTED by the kernel: {', '.join(failed)}")
    else:
        print(
            f"All {len(rows)} derivations of {modules} theorems verified:"
            f" {total} steps, each checked by the kernel."
        )
    for _, d, r, _ in rows:
        if r.theorem is not None and r.theorem.axioms:
            print(f"{d.name}: {modulo_axioms(r.theorem.axioms)}, which the kernel did not check.")
    measured = ", ".join(f"{methods[m]} {how}" for m, how in METHODS.items() if methods[m])
    summary = f"{len(settings)} numeric settings ({measured}), {values} step comparisons"
    if differ:
        print(f"Numbers DIFFER for: {', '.join(differ)} ({summary}).")
    else:
        print(f"Numbers agree: {summary}, every step's two sides equal.")
    if untested:
        print(f"No numeric witness yet (terms the evaluator does not know): {', '.join(untested)}.")
    if methods["monte-carlo"]:
        print(
            f"Monte Carlo ± is the z = {Z_AGREE:.2f} interval: a false alarm has probability 1e-6."
        )


#: How each kind of measurement is named in the summary.
METHODS = {
    "exact": "measured exactly",
    "monte-carlo": "by Monte Carlo",
    "direct": "evaluated directly",
    "central-difference": "by central differences",
    "growing-λ": "along growing λ",
}
