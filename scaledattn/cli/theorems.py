"""Commands on theorems: ``list``, ``derive NAME``, ``check``.

``derive`` and ``check`` answer from the theorem cache (:mod:`scaledattn.cache`)
when the sources are those it was filled with; SymPy, numpy and the proofs are
imported by the commands, not by the parser, so `scaledattn --help` stays fast.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from typing import TYPE_CHECKING, Any

from scaledattn.cli.exits import EXIT_FAILED, EXIT_MODULO_AXIOM, EXIT_OK, EXIT_UNDECIDED
from scaledattn.errors import SoundnessAlarm

if TYPE_CHECKING:
    from scaledattn.cache import Checked
    from scaledattn.registry import TheoremModule

#: The formats of ``derive``; equal to scaledattn.render.FORMATS (tests/cli/test_lazy.py),
#: repeated so that the parser needs no SymPy.
FORMATS = ("text", "latex", "markdown", "json")


def theorem_modules() -> tuple[TheoremModule, ...]:
    """Every proof module, imported (:func:`scaledattn.registry.theorem_modules`)."""
    from scaledattn.registry import theorem_modules as modules

    return modules()


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
    from scaledattn.render.display import statement_parts, unicode_line

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


def _exit(verified: bool, axioms: bool) -> int:
    if not verified:
        return EXIT_FAILED
    return EXIT_MODULO_AXIOM if axioms else EXIT_OK


def cmd_derive(args: argparse.Namespace) -> int:
    """Render a derivation (or a rule's card); exit 1 on a rejected step, 4 on an axiom.

    A derivation the kernel accepts and the checker refuses prints nothing: SoundnessAlarm
    (exit 70).
    """
    from scaledattn.cache import rendered, store
    from scaledattn.citations import open_name, rule_card
    from scaledattn.kernel import Rule

    derivation = open_name(args.name)
    if isinstance(derivation, Rule):
        print(rule_card(derivation))
        return 0
    if args.format == "proof":
        from scaledattn.derive import audit_of
        from scaledattn.render.proof import proof_document

        result = audit_of(derivation)
        if result.verified:  # the gate and the checker, as below
            from scaledattn.certificate import confirm
            from scaledattn.gate import check_steps

            check_steps(result.derivation)
            confirm(result)
        print(proof_document(result), end="")
        return _exit(result.verified, bool(result.theorem and result.theorem.axioms))
    module = next(
        (m for m in theorem_modules() if any(d is derivation for d in m.derivations)), None
    )
    text, verified, axioms = rendered(module, derivation, args.format)
    if verified:  # the gate: each step true on models of its context (else exit 70)
        from scaledattn.certificate import confirm
        from scaledattn.derive import audit_of
        from scaledattn.gate import check_steps

        check_steps(derivation)
        confirm(audit_of(derivation))  # the checker too, whatever the format (else exit 70)
    print(text)
    kept = store()
    if kept is not None:
        kept.save()
    return _exit(verified, bool(axioms))


def cmd_check(args: argparse.Namespace) -> int:
    """Audit every derivation and evaluate it on its numeric witnesses; table and summary."""
    from scaledattn.cache import checked_all, rendered, store
    from scaledattn.progress import Bar
    from scaledattn.render import to_json

    with Bar("check: the kernel, then the numbers", "task") as bar:
        bar.status("check: importing the theorems…")
        pairs = [(module, d) for module in theorem_modules() for d in module.derivations]
        found = checked_all(pairs, bar)
    rows = [(m.name, d, c) for (m, d), c in zip(pairs, found, strict=True)]
    audits = [json.loads(rendered(m, d, "json")[0]) for m, d in pairs] if args.json else []
    kept = store()
    if kept is not None:
        kept.save()
    from scaledattn.cache import second

    alarms = [(d, second(d, c)) for _, d, c in rows if c.verified]
    alarms = [(d, word) for d, word in alarms if word.startswith("refused")]
    if alarms:  # the kernel accepts, the checker refuses: nothing is printed as verified
        from scaledattn.certificate import alarm_text

        more = f" (and {len(alarms) - 3} more)" if len(alarms) > 3 else ""
        raise SoundnessAlarm("; ".join(alarm_text(d.name, w) for d, w in alarms[:3]) + more)
    stepped = [c.alarm for _, _, c in rows if c.alarm]
    if stepped:  # the gate: a step the kernel accepted is false in a model (exit 70)
        raise SoundnessAlarm(stepped[0])
    withheld = [d.name for _, d, c in rows if c.verified and c.withheld]
    verified = all(c.verified for _, _, c in rows)
    agrees = not any(c.refuted for _, _, c in rows)
    axioms = any(c.axioms for _, _, c in rows)
    if args.json:
        print(
            to_json(
                {
                    "verified": verified,
                    "agrees": agrees,
                    "modulo_axioms": axioms,
                    "theorems": [
                        {"module": m, **audit, "numeric": c.witness, "model": c.model}
                        for (m, _, c), audit in zip(rows, audits, strict=True)
                    ],
                }
            )
        )
    else:
        _check_table(rows, args.brief)
    if withheld and verified and agrees:
        return EXIT_UNDECIDED  # no model of some theorem's assumptions: no verdict for it
    return _exit(verified and agrees, axioms)


def _check_table(rows: list[tuple[str, Any, Checked]], brief: bool) -> None:
    from scaledattn.cache import second
    from scaledattn.numeric.montecarlo import Z_AGREE
    from scaledattn.render.display import modulo_axioms

    width = max(len(d.name) for _, d, _ in rows)
    print(f"{'theorem':<{width}}  steps  kernel    checker  numbers  statement")
    doubly = [d.name for _, d, c in rows if c.verified and second(d, c) == "checked"]
    for _, d, c in rows:
        verdict = "VERIFIED" if c.verified and not c.withheld else "UNDECIDED"
        verdict = verdict if c.verified else "REJECTED"
        verdict += "  CHECKED" if d.name in doubly else "  UNREAD " if c.verified else "  —      "
        numbers = "AGREE" if c.agrees else "DIFFER" if c.refuted else "—"
        print(f"{d.name:<{width}}  {len(d.steps):>5}  {verdict:<17}  {numbers:<7}  {_statement(d)}")
        if not brief:
            for line in (*c.lines, c.model):
                if line:
                    print("    " + line)
    failed = [d.name for _, d, c in rows if not c.verified]
    differ = [d.name for _, d, c in rows if c.refuted]
    untested = [d.name for _, d, c in rows if not c.tested]
    total = sum(len(d.steps) for _, d, _ in rows)
    modules = len({m for m, _, _ in rows})
    settings = sum(c.settings for _, _, c in rows)
    methods = Counter(method for _, _, c in rows for method in c.methods)
    values = sum(c.comparisons for _, _, c in rows)
    print()
    if failed:
        print(f"REJECTED by the kernel: {', '.join(failed)}")
    else:
        accepted = "verified" if not any(c.withheld for _, _, c in rows) else "accepted"
        print(
            f"All {len(rows)} derivations of {modules} theorems {accepted}:"
            f" {total} steps, each checked by the kernel."
        )
        unread = [d.name for _, d, _ in rows if d.name not in doubly]
        print(
            f"Checked twice (kernel + checker): {len(doubly)} of them, by the independent"
            " checker (docs/trust.md)"
            + (f"; the checker cannot read yet: {', '.join(unread)}." if unread else ".")
        )
    print(_gate_summary(rows))
    for _, d, c in rows:
        if c.axioms:
            print(
                f"{d.name}: {modulo_axioms(frozenset(c.axioms))}, which the kernel did not check."
            )
    measured = ", ".join(f"{methods[m]} {how}" for m, how in METHODS.items() if methods[m])
    summary = f"{settings} numeric settings ({measured}), {values} step comparisons"
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


def _gate_summary(rows: list[tuple[str, Any, Checked]]) -> str:
    """The gate's line: for how many verified derivations a model of the assumptions was found."""
    from scaledattn.gate import NO_MODEL

    verified = [(d, c) for _, d, c in rows if c.verified]
    modelled = [d for d, c in verified if c.model]
    withheld = [d.name for d, c in verified if c.withheld]
    line = (
        f"A model of the assumptions was found for {len(modelled)} of the"
        f" {len(modelled) + len(withheld)} verified derivations with assumptions (each assumption"
        " checked on it by the semantics); every step of each is true on models of its context."
    )
    if withheld:
        line += f" UNDECIDED, {NO_MODEL}: {', '.join(withheld)}."
    return line


#: How each kind of measurement is named in the summary.
METHODS = {
    "exact": "measured exactly",
    "monte-carlo": "by Monte Carlo",
    "direct": "evaluated directly",
    "central-difference": "by central differences",
    "growing-λ": "along growing λ",
}
