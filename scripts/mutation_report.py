"""Summarise a mutmut run per module: mutants, killed, timed out, survived, equivalent.

Run by ``scripts/mutation.sh`` after ``mutmut run``; reads ``mutmut results``. A
surviving mutant counts as *equivalent* only when it falls in one of the groups
below, each with its reason (the same groups are explained in docs/testing.md):

- display: the mutant is in a function that only shows things (``__str__``, printers),
  or it changes only the text of a message, a note, a title or a label (the code
  around the text is the same: no argument, call or condition changes with it);
- import time: the mutant is in code that runs only while a module is imported
  (the rule table's registration), before mutmut can switch a mutant on;
- argued: single mutants listed in ``ARGUED`` (scripts/mutation_arguments.py, the record
  of the runs) with the reason they cannot change
  any result. mutmut names a mutant by its function and a number, and the numbers
  move when the function changes; so each argument also quotes the mutated text
  (``new``: a fragment of the mutant's ``+`` line, and ``old`` of its ``-`` line when
  given). An argument whose mutant's diff no longer contains its fragments is *stale*:
  it excuses nothing, the mutant counts as a survivor, and the report lists it.

The score is (killed + timed out) / (mutants − equivalent − not checked).

    python scripts/mutation_report.py              # the table
    python scripts/mutation_report.py --survivors  # also each survivor and its diff
    python scripts/mutation_report.py --equivalents  # also each equivalent, its reason, diff
    python scripts/mutation_report.py --names      # only the survivors' names, one a line
    python scripts/mutation_report.py --retest     # mark the survivors "not checked"

After adding tests, run the survivors again by name: ``mutmut run NAME…`` (with
``--names``). A glob such as ``mutmut run "scaledattn.kernel.*"`` reruns *every* mutant
it matches, whatever its result; ``mutmut run`` with no name runs only those not
checked (``--retest`` marks the survivors so), but in every module of ``only_mutate``.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

#: Functions whose only effect is how things look.
DISPLAY_FUNCTIONS = {"__str__", "__repr__", "_sympystr", "_show", "_pairs", "provenance"}
#: Functions that run only at import time (they fill the rule table).
IMPORT_TIME_FUNCTIONS = {"_rule"}
#: A changed line is display-only when it has one of these and, with its string
#: literals (and a string argument dropped) left out, reads the same before and after.
DISPLAY_WORDS = (
    "note=",
    "title=",
    "label",
    "InvalidArgument(",
    "pretty(",
    "leads by",
    "shifted by",
    "one-hot at",
    "note = ",
    "vanish",
)


def _load_arguments() -> ModuleType:
    """scripts/mutation_arguments.py, beside this file (scripts/ is not a package)."""
    name = "mutation_arguments"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


_ARGUMENTS = _load_arguments()
Argument = _ARGUMENTS.Argument
ARGUED: dict[str, Argument] = _ARGUMENTS.ARGUED


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


_STRING = re.compile(r"""[rbfu]*("[^"]*"|'[^']*')""")
_SHOWN_ARGUMENT = re.compile(r"\b(note|title|label)\s*=\s*(None\b)?")


def _code(lines: list[str]) -> str:
    """The lines without their string literals, a dropped or None message, white space."""
    text = _STRING.sub("", " ".join(lines))
    text = _SHOWN_ARGUMENT.sub("", text)
    text = re.sub(r"\b(InvalidArgument|RuntimeError)\(None\)", r"\1()", text)
    return re.sub(r"[\s,]", "", text)


def display_only(lines: list[str]) -> bool:
    """Whether a diff changes only a message, note, title or label (the code is the same)."""
    old = [x[1:] for x in lines if x.startswith("-")]
    new = [x[1:] for x in lines if x.startswith("+")]
    if not old or not any(w in "".join(old) for w in DISPLAY_WORDS):
        return False
    return _code(old) == _code(new)


#: Arguments whose mutant no longer has the argued text (filled by ``equivalence``).
STALE: dict[str, Argument] = {}


def equivalence(m: Mutant) -> str | None:
    """Why a surviving mutant is equivalent, or None (a survivor)."""
    function = _function(m.name)
    if m.name in ARGUED:
        argument = ARGUED[m.name]
        if argument.fits(diff(m.name)):
            return argument.reason
        STALE[m.name] = argument
        return None
    if function in DISPLAY_FUNCTIONS:
        return "display"
    if function in IMPORT_TIME_FUNCTIONS:
        return "import time"
    if display_only(diff(m.name)):
        return "display"
    return None


def main(argv: list[str]) -> int:
    """Print the table (and the survivors with --survivors)."""
    mutants = results()
    rows: dict[str, Counter[str]] = defaultdict(Counter)
    survivors: list[Mutant] = []
    equivalents: list[tuple[Mutant, str]] = []
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
                equivalents.append((m, why))
        else:
            row[m.status] += 1
    if "--names" in argv:
        print("\n".join(m.name for m in survivors))
        return 0
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
    known = {m.name for m in mutants}
    unknown = sorted(set(ARGUED) - known)
    if STALE or unknown:
        print(f"\nstale arguments (counted as survivors): {len(STALE)}")
        for name, argument in STALE.items():
            print(f"  {name}: argued about {argument.new!r}, the mutant is now:")
            print("\n".join("    " + x for x in diff(name)))
        print(f"arguments for mutants this run does not have: {len(unknown)}")
    if "--retest" in argv:
        retest({m.name for m in survivors})
    if "--survivors" in argv:
        for m in survivors:
            print(f"\n== {m.name} ({m.status})")
            print("\n".join(diff(m.name)))
    if "--equivalents" in argv:
        for m, why in equivalents:
            print(f"\n== {m.name} ({m.status}): {why}")
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
    print(f"\n{count} survivors marked not checked: run them again by name (--names)")


def _line(name: str, row: Counter[str], columns: list[str], width: int) -> str:
    judged = row["mutants"] - row["equivalent"] - row["not checked"]
    detected = row["killed"] + row["timed out"]
    score = f"{100 * detected / judged:5.1f}%" if judged else "    -"
    return f"{name:<{width}}  " + "  ".join(f"{row[c]:>10}" for c in columns) + f"  {score}"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
