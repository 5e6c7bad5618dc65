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
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass

#: Functions whose only effect is how things look.
DISPLAY_FUNCTIONS = {"__str__", "__repr__", "_sympystr", "_show", "_pairs"}
#: Functions that run only at import time (they fill the rule table).
IMPORT_TIME_FUNCTIONS = {"_rule"}
#: A changed line whose only difference is inside one of these is display-only.
DISPLAY_WORDS = ("note=", "title=", "label", "InvalidArgument(", "pretty(", "provenance")
#: Single mutants argued equivalent, by name, with the reason.
ARGUED: dict[str, str] = {}


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
    return re.sub(r"""(f?"[^"]*"|f?'[^']*'|None)""", "S", line[1:]).strip()


def equivalence(m: Mutant) -> str | None:
    """Why a surviving mutant is equivalent, or None."""
    function = _function(m.name)
    if m.name in ARGUED:
        return ARGUED[m.name]
    if function in DISPLAY_FUNCTIONS:
        return "display"
    if function in IMPORT_TIME_FUNCTIONS:
        return "import time"
    lines = diff(m.name)
    old = [x for x in lines if x.startswith("-")]
    new = [x for x in lines if x.startswith("+")]
    if old and any(w in "".join(old) for w in DISPLAY_WORDS):
        if [_without_strings(x) for x in old] == [_without_strings(x) for x in new]:
            return "display"
        if all(re.search(r"(note|title)=", x) for x in old) and not any(
            re.search(r"\bby=", x) for x in old + new
        ):
            return "display"  # a note or title dropped or replaced
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
    if "--survivors" in argv:
        for m in survivors:
            print(f"\n== {m.name} ({m.status})")
            print("\n".join(diff(m.name)))
    return 0


def _line(name: str, row: Counter[str], columns: list[str], width: int) -> str:
    judged = row["mutants"] - row["equivalent"] - row["not checked"]
    detected = row["killed"] + row["timed out"]
    score = f"{100 * detected / judged:5.1f}%" if judged else "    -"
    return f"{name:<{width}}  " + "  ".join(f"{row[c]:>10}" for c in columns) + f"  {score}"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
