"""Summarise a mutmut run per module: mutants, killed, timed out, survived, equivalent.

Run by ``scripts/mutation.sh`` after ``mutmut run``; reads ``mutmut results``. A
surviving mutant counts as *equivalent* only when it falls in one of the groups
below, each with its reason (the same groups are explained in docs/soundness.md):

- display: the mutant changes only how something is shown (``__str__``, printers,
  the text of a message, a derivation's title or note, an assumption's label);
- import time: the mutant is in code that runs only while a module is imported
  (the rule table's registration), before mutmut can switch a mutant on;
- argued: single mutants listed in ``ARGUED`` with the reason they cannot change
  any result.

The score is (killed + timed out) / (mutants − equivalent).

    python scripts/mutation_report.py            # the table
    python scripts/mutation_report.py --survivors  # also list each survivor and its diff
    python scripts/mutation_report.py --retest   # mark the survivors "not checked", so
                                                 # the next `mutmut run` tries them again
                                                 # (after tests were added)
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass

#: Functions whose only effect is how things look.
DISPLAY_FUNCTIONS = {"__str__", "__repr__", "_sympystr", "_show", "_pairs", "provenance"}
#: Functions that run only at import time (they fill the rule table).
IMPORT_TIME_FUNCTIONS = {"_rule"}
#: A changed line whose only difference is inside one of these is display-only.
DISPLAY_WORDS = (
    "note=",
    "title=",
    "title: str",
    "label",
    "InvalidArgument(",
    "pretty(",
    "provenance",
    "leads by",
    "shifted by",
    "one-hot at",
    "note = ",
    "vanish",
)
#: Functions whose every mutant is argued equivalent, with the reason.
ARGUED_FUNCTIONS = {
    "_sample_points": "which rational points same() samples: they never make a step pass"
    " (equality is decided by normal forms), only tell a mismatch from an undecided step,"
    " and two families of points back each other up",
    "fresh_index": "a fresh index's name: any name not taken is as good (the numbered"
    " fallback is reached only when eleven usual names are all taken)",
}
#: Single mutants argued equivalent, by name (mutmut's number), with the reason.
_SHOWN = "the kernel and the answer rebuild (evaluate) every expression before use"
_NAME = "the name a softmax vector is shown with"
_ZIP = "a node and its rebuilt arguments always have the same length"
_EVALUATED = "every comparison rebuilds the expression with evaluation on"
_WRITTEN = "display: a factor 1 or a divisor 1 kept as written (t = 1)"
_ORDER = "display: how a disjunction is written (the kernel compares disjuncts as a set)"
_BOUND_NAME = "the name of a bound index (the kernel renames bound indices canonically)"
_VAR_CONST = "Var(a) = a²·Var(1) for a constant a: both are 0, the rewrite stays an equality"
ARGUED: dict[str, str] = {
    "scaledattn.kernel.expr.xǁRandomVectorǁ__hash____mutmut_1": "a constant hash keeps the "
    "hash contract (equal vectors, equal hashes); only speed changes",
    "scaledattn.calculator.gaussian.x_standard_normal_moment__mutmut_4": "(0 − 1)!! = 1 = E[z⁰]",
    "scaledattn.calculator.build.x_closed_mean__mutmut_1": _SHOWN,
    "scaledattn.calculator.build.x_closed_mean__mutmut_2": _SHOWN,
    "scaledattn.calculator.build.x_scaled_std_derivation__mutmut_6": _SHOWN,
    "scaledattn.calculator.build.x_scaled_std_derivation__mutmut_7": _SHOWN,
    "scaledattn.calculator.build.x_scaled_std_derivation__mutmut_29": "a derivation's name",
    "scaledattn.calculator.build.x_scaled_mean_derivation__mutmut_20": "a derivation's name",
    "scaledattn.calculator.build.x_all_steps__mutmut_1": "a count for the CLI's summary line,"
    " reached only by tests/cli (not selected)",
    "scaledattn.kernel.vectors.xǁSoftmaxVectorǁ__init____mutmut_1": _NAME,
    "scaledattn.kernel.vectors.xǁSoftmaxVectorǁ__init____mutmut_2": _NAME,
    "scaledattn.kernel.vectors.xǁSoftmaxVectorǁ__init____mutmut_6": _NAME,
    "scaledattn.kernel.vectors.x_Lead__mutmut_16": "an assumption's label",
    "scaledattn.kernel.calculus.x__scoped__mutmut_9": "with no arguments the loop does nothing",
    "scaledattn.kernel.calculus.x__scoped__mutmut_20": _ZIP,
    "scaledattn.kernel.calculus.x__scoped__mutmut_23": _ZIP,
    "scaledattn.kernel.calculus.x__scoped__mutmut_24": _ZIP,
    "scaledattn.kernel.calculus.x__scoped__mutmut_45": _EVALUATED,
    "scaledattn.kernel.calculus.x__scoped__mutmut_46": _EVALUATED,
    "scaledattn.kernel.vectors.xǁSoftmaxVectorǁ__getitem____mutmut_8": _NAME,
    "scaledattn.kernel.calculus.x__deriv_chain__mutmut_39": "SymPy evaluates f⁰ to 1: no power 0",
    "scaledattn.kernel.calculus.x__deriv_chain__mutmut_40": "SymPy evaluates f¹ to f: no power 1",
    "scaledattn.kernel.rules.x__sqrt_mul__mutmut_9": "sympy.factor is exact: its product"
    " always expands back to the radicand (the check is defensive)",
    "scaledattn.calculator.build.x_closed_variance__mutmut_1": _SHOWN,
    "scaledattn.calculator.build.x_closed_variance__mutmut_2": _SHOWN,
    "scaledattn.calculator.build.x__covariance__mutmut_2": _SHOWN,
    "scaledattn.calculator.build.x__covariance__mutmut_3": _SHOWN,
    "scaledattn.calculator.build.x__variance_to_sums__mutmut_251": "a step's note",
    "scaledattn.calculator.build.x__variance_to_sums__mutmut_254": "a step's note",
    "scaledattn.calculator.build.x_scale_derivation__mutmut_9": "a derivation's name",
    "scaledattn.calculator.build.x_scale_derivation__mutmut_11": "a derivation's name",
    "scaledattn.calculator.build.x_scale_derivation__mutmut_22": "Positive(x) for symbols the"
    " setting already makes positive to SymPy: the sign facts are the same",
    "scaledattn.calculator.build.x_scale_derivation__mutmut_49": _WRITTEN,
    "scaledattn.calculator.build.x_scale_derivation__mutmut_59": _WRITTEN,
    **{
        f"scaledattn.calculator.build.x_scale_derivation__mutmut_{n}": _ORDER
        for n in (70, 73, 83, 196, 199, 209)
    },
    **{
        f"scaledattn.kernel.rules.x__square_roots__mutmut_{n}": "Eq(x, ±√w) of a symbol x never"
        " evaluates to True/False, and prop_key compares a disjunction as a set"
        for n in (47, 50, 53, 56, 57, 60, 63, 65, 66)
    },
    "scaledattn.kernel.rules.x__square_roots__mutmut_29": "the coefficients of a polynomial in x"
    " never contain x (the check is defensive)",
    **{
        f"scaledattn.kernel.rules.x__exclude_by_sign__mutmut_{n}": _ORDER
        for n in (22, 23, 25, 26, 27)
    },
    **{f"scaledattn.kernel.rules.x__lift__mutmut_{n}": _ORDER for n in (18, 20, 21)},
    "scaledattn.kernel.expr.x_as_written__mutmut_1": "evaluate(None) is falsy like False",
    "scaledattn.kernel.assumptions.x_sign_facts__mutmut_5": "the name of a positive dummy",
    "scaledattn.kernel.assumptions.x_sign_facts__mutmut_7": "the name of a positive dummy",
    "scaledattn.calculator.build.x__times__mutmut_6": "display: the order of a product as written",
    "scaledattn.calculator.build.x__times__mutmut_7": "display: the order of a product as written",
    "scaledattn.calculator.build.x__variance_to_sums__mutmut_338": "a step's note",
    "scaledattn.kernel.rules.x__variance_const_mul__mutmut_5": _VAR_CONST,
    "scaledattn.kernel.rules.x__variance_const_mul__mutmut_9": _VAR_CONST,
    **{
        f"scaledattn.kernel.rules.x_prop_key__mutmut_{n}": "a tag inside the comparison key,"
        " renamed alike for both sides"
        for n in (8, 9, 14, 15, 16, 17, 21, 22)
    },
    **{f"scaledattn.kernel.expr.x__canon_cross__mutmut_{n}": _ZIP for n in (9, 12, 13)},
    "scaledattn.kernel.expr.x__canon_cross__mutmut_25": "one canonical dummy skipped, alike"
    " for both sides",
    "scaledattn.kernel.rules.x__dot_def__mutmut_4": _BOUND_NAME,
    "scaledattn.kernel.rules.x__dot_def__mutmut_5": _BOUND_NAME,
    "scaledattn.calculator.build.x__variance_to_sums__mutmut_339": "a step's note",
    "scaledattn.calculator.build.x__variance_to_sums__mutmut_340": "a step's note",
    "scaledattn.calculator.build.x__count_and_close__mutmut_23": "a step's note",
    **{
        f"scaledattn.kernel.rules.x__independent_groups__mutmut_{n}": "union-find over every"
        " pair, in either order or twice, gives the same groups"
        for n in (13, 14, 15)
    },
    "scaledattn.kernel.rules.x__expectation_mul_of_indep__mutmut_19": "one group is the"
    " product itself: E[UV] = E[UV], no change",
    "scaledattn.kernel.rules.x__provably_distinct__mutmut_9": "the keys of one family have"
    " indices on all blocks or on none",
    "scaledattn.kernel.rules.x__monomial__mutmut_5": "as_base_exp of a non-power is (f, 1)",
    "scaledattn.kernel.rules.x__monomial__mutmut_9": "SymPy evaluates f⁰ to 1: no power 0",
    **{
        f"scaledattn.kernel.rules.x__rename__mutmut_{n}": "a fresh index's name"
        for n in (11, 12, 13)
    },
    "scaledattn.kernel.calculus.x__delta_eq__mutmut_6": "SymPy orders a delta's arguments"
    " numbers first, so its second argument is never the number",
    **{
        f"scaledattn.kernel.theorem.x__constrained__mutmut_{n}": "the fallback for assumption"
        " kinds no rule can use (every kind the rules use has its own branch)"
        for n in range(8, 20)
    },
    # Argued after the run of 2026-11-30 (docs/soundness.md, "Mutation testing").
    **{
        f"scaledattn.kernel.rules.x__{f}__mutmut_{n}": "Eq(a, b) evaluated to true or false"
        " has the same prop_key as Eq(a, b) unevaluated"
        for f, ns in (("lift", (6, 9, 10)), ("clear_denominator", (15, 18, 21)))
        for n in ns
    },
    **{
        f"scaledattn.kernel.rules.x__rename__mutmut_{n}": "_rename only meets single-index"
        " sums, whose one index is renamed: the mapping covers every index"
        for n in (14, 26, 27, 28)
    },
    "scaledattn.kernel.rules.x__monomial__mutmut_8": "independence gives E[XᵃYᵇ] = E[Xᵃ]E[Yᵇ]"
    " for any powers; the restriction to positive integer powers is conservative",
    "scaledattn.kernel.rules.x__expectation_mul_of_indep__mutmut_23": "of two groupings with"
    " as many groups, either is licensed by the declared independence",
    "scaledattn.kernel.rules.x__square_roots__mutmut_11": "an unknown x that is random makes"
    " the polynomial random (refused by is_random(p)); x² = w ⇔ x = ±√w holds over the"
    " complex numbers too",
    "scaledattn.kernel.theorem.x__rejection__mutmut_34": "a rule maps an expression to an"
    " expression and a proposition to a proposition: both sides are Expr or neither",
    **{
        f"scaledattn.kernel.theorem.x__missing_assumption__mutmut_{n}": "every rule, and every"
        " theorem cited as a rule, has a name"
        for n in (4, 7, 10)
    },
    **{
        f"scaledattn.kernel.theorem.x__missing_assumption__mutmut_{n}": "decides only whether"
        " a rejection carries a hint; the step is rejected either way"
        for n in (21, 27, 28)
    },
    "scaledattn.kernel.theorem.x__sign_relevant__mutmut_14": "chooses only which symbols a"
    " missing-positivity hint names; the step is rejected either way",
    **{
        f"scaledattn.kernel.calculus.x__rational_limit__mutmut_{n}": "u is only the generator"
        " of the polynomials: its name and sign play no part"
        for n in range(2, 9)
    },
    **{
        f"scaledattn.kernel.calculus.x__exp_to_power__mutmut_{n}": "SymPy merges e^a·e^b and"
        " (e^a)^k itself: writing e^x of a real x as a positive unknown is a normalisation"
        " the limit does not need"
        for n in (13, 14, 15, 16, 18)
    },
    **{
        f"scaledattn.kernel.calculus.x__exp_to_power__mutmut_{n}": "the name of a positive dummy"
        for n in (27, 29)
    },
    **{
        f"scaledattn.kernel.calculus.x__exp_to_power__mutmut_{n}": "an atom has no arguments,"
        " and the terms kept whole (sums, entries) are free of λ, checked by _admissible"
        for n in (35, 36)
    },
    **{
        f"scaledattn.kernel.calculus.x__admissible__mutmut_{n}": "no vector is named '',"
        " 'XXXX' or None: only λ is looked for"
        for n in (3, 10, 16, 23)
    },
    "scaledattn.kernel.calculus.x__sift__mutmut_12": "δ_jj evaluates to 1, and an index m"
    " containing j can never be shown in range (IndexRange names a symbol)",
    "scaledattn.kernel.theorem.xǁ_TheoremRuleǁapply__mutmut_15": "a node without arguments"
    " is an atom",
    **{f"scaledattn.kernel.theorem.xǁ_TheoremRuleǁapply__mutmut_{n}": _EVALUATED for n in (38, 39)},
    "scaledattn.kernel.rules.xǁRuleǁ_apply_prop__mutmut_4": "no rule on propositions reads"
    " the sum environment (they walk their own scopes)",
    **{f"scaledattn.kernel.expr.x__rebind__mutmut_{n}": _ZIP for n in (11, 14, 15)},
    "scaledattn.kernel.expr.x__opaque__mutmut_2": "the dict is an ordered set: its values are"
    " never read",
    **{
        f"scaledattn.kernel.theorem.x__kind__mutmut_{n}": "_equal tells only 'iff' apart: every"
        " other kind is compared as an equation"
        for n in (5, 6)
    },
    **{
        f"scaledattn.kernel.expr.x_same__mutmut_{n}": "the precision at a rational point: a"
        " lower one can only turn a mismatch into 'undecided', and the step is refused either"
        " way"
        for n in (21, 23)
    },
    **{
        f"scaledattn.kernel.expr.x_same__mutmut_{n}": "a ring expression evaluated at rational"
        " points gives a number or zoo, never ±∞ (the check is defensive)"
        for n in (27, 28, 31, 32, 33)
    },
    "scaledattn.kernel.expr.x_same__mutmut_40": "a difference of exactly 1e-25 is the only"
    " case that tells > from ≥",
    "scaledattn.kernel.expr.x__canon__mutmut_12": "permuting more binders finds the same"
    " minimum, only slower",
    "scaledattn.kernel.expr.x_canonical_indices__mutmut_5": "the canonical names start one"
    " later, alike for both sides",
    **{
        f"scaledattn.kernel.expr.x__{f}__mutmut_{n}": "every SymPy object has args, and a node"
        " without arguments is an atom"
        for f, ns in (("canon", (47, 51, 54)), ("rebuild", (3, 7, 10)))
        for n in ns
    },
    "scaledattn.kernel.rules.x__everywhere__mutmut_17": "a node without arguments is an atom",
    **{f"scaledattn.kernel.rules.x__everywhere__mutmut_{n}": _ZIP for n in (28, 31, 32)},
    "scaledattn.kernel.theorem.xǁ_TheoremRuleǁapply__mutmut_13": "None is falsy like False",
    **{
        f"scaledattn.kernel.theorem.x__missing_assumption__mutmut_{n}": "decides only whether"
        " a rejection carries a hint; the step is rejected either way"
        for n in (51, 53, 54)
    },
    **{
        f"scaledattn.kernel.rules.x_prop_key__mutmut_{n}": "a tag inside the comparison key,"
        " renamed alike for both sides"
        for n in (24, 25)
    },
    "scaledattn.kernel.vectors.x_Lead__mutmut_25": "an assumption's label",
}


@dataclass(frozen=True)
class Mutant:
    """One mutant: its mutmut name and status."""

    name: str
    status: str

    @property
    def module(self) -> str:
        """The mutated module's dotted name."""
        return re.split(r"\.x[_ǁ]", self.name, maxsplit=1)[0]


def _function(name: str) -> str:
    """The mutated function's own name (``_rule``, ``__str__``, ``apply`` …)."""
    tail = re.split(r"\.x(?=[_ǁ])", name, maxsplit=1)[1]
    tail = re.sub(r"__mutmut_\d+$", "", tail)
    if tail.startswith("ǁ"):
        return tail.split("ǁ")[-1]
    return tail[1:]  # x_NAME: drop the underscore mutmut adds


def results() -> list[Mutant]:
    """Every mutant mutmut knows, with its status."""
    out = subprocess.run(
        ["mutmut", "results", "--all", "true"], capture_output=True, text=True, check=True
    ).stdout
    found = []
    for line in out.splitlines():
        name, _, status = line.strip().rpartition(": ")
        if name:
            found.append(Mutant(name, status))
    return found


def diff(name: str) -> list[str]:
    """The changed lines of a mutant (``-`` old, ``+`` new)."""
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    try:
        out = get_diff_for_mutant(name)
    except Exception as err:  # a meta file being written by a running mutmut
        return [f"? no diff: {err}"]
    lines = out.splitlines()
    return [x for x in lines if x[:1] in "-+" and not x.startswith(("---", "+++"))]


def _without_strings(line: str) -> str:
    return re.sub(r"""(f?"[^"]*"|f?'[^']*'|None)""", "S", line).strip()


def equivalence(m: Mutant) -> str | None:
    """Why a surviving mutant is equivalent, or None."""
    function = _function(m.name)
    if m.name in ARGUED:
        return ARGUED[m.name]
    if function in DISPLAY_FUNCTIONS:
        return "display"
    if function in IMPORT_TIME_FUNCTIONS:
        return "import time"
    if function in ARGUED_FUNCTIONS:
        return ARGUED_FUNCTIONS[function]
    lines = diff(m.name)
    old = [x[1:].strip() for x in lines if x.startswith("-")]
    new = [x[1:].strip() for x in lines if x.startswith("+")]
    if old and any(w in "".join(old) for w in DISPLAY_WORDS):
        if [_without_strings(x) for x in old] == [_without_strings(x) for x in new]:
            return "display"
        only_old = [x for x in old if x not in new]
        if only_old and all(any(w in x for w in DISPLAY_WORDS) for x in only_old):
            return "display"  # a note, title or label dropped or replaced
    return None


def main(argv: list[str]) -> int:
    """Print the table (and the survivors with --survivors)."""
    mutants = results()
    rows: dict[str, Counter[str]] = defaultdict(Counter)
    survivors: list[Mutant] = []
    reasons: Counter[str] = Counter()
    for m in mutants:
        row = rows[m.module]
        row["mutants"] += 1
        if m.status == "killed":
            row["killed"] += 1
        elif m.status == "timeout":
            row["timed out"] += 1
        elif m.status in ("survived", "no tests"):
            why = equivalence(m)
            if why is None:
                row["survived"] += 1
                survivors.append(m)
            else:
                row["equivalent"] += 1
                reasons[why] += 1
        else:
            row[m.status] += 1
    columns = ["mutants", "killed", "timed out", "survived", "equivalent"]
    others = sorted({k for r in rows.values() for k in r} - set(columns))
    width = max(len(k) for k in rows)
    head = f"{'module':<{width}}  " + "  ".join(f"{c:>10}" for c in [*columns, *others])
    print(head + "  score")
    total: Counter[str] = Counter()
    for module in sorted(rows):
        row = rows[module]
        total.update(row)
        print(_line(module, row, columns + others, width))
    print(_line("total", total, columns + others, width))
    print()
    for why, count in reasons.most_common():
        print(f"equivalent, {why}: {count}")
    if "--retest" in argv:
        retest({m.name for m in survivors})
    if "--survivors" in argv:
        for m in survivors:
            print(f"\n== {m.name} ({m.status})")
            print("\n".join(diff(m.name)))
    return 0


def retest(names: set[str]) -> None:
    """Forget the results of ``names`` in mutmut's meta files."""
    import json
    from pathlib import Path

    count = 0
    for meta in Path("mutants").rglob("*.meta"):
        data = json.loads(meta.read_text())
        for key in data["exit_code_by_key"]:
            if key in names:
                data["exit_code_by_key"][key] = None
                count += 1
        meta.write_text(json.dumps(data))
    print(f"\n{count} survivors marked not checked: run `mutmut run` again")


def _line(name: str, row: Counter[str], columns: list[str], width: int) -> str:
    judged = row["mutants"] - row["equivalent"] - row["not checked"]
    detected = row["killed"] + row["timed out"]
    score = f"{100 * detected / judged:5.1f}%" if judged else "    -"
    return f"{name:<{width}}  " + "  ".join(f"{row[c]:>10}" for c in columns) + f"  {score}"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
