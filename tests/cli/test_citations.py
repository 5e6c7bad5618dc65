"""Issue 18: every name a derivation cites (after "by", beside a ✓) opens with ``derive``."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

import scaledattn
from scaledattn.citations import open_name
from scaledattn.claims import verify
from scaledattn.cli import main
from scaledattn.derive import audit_of
from scaledattn.kernel import Derivation
from scaledattn.registry import all_derivations, cited_lemmas


def _cited(d: Derivation) -> set[str]:
    return {r.rule_name for r in audit_of(d).steps}


def _opens(names: set[str]) -> None:
    for name in sorted(names):
        open_name(name)  # raises InvalidArgument for a name that does not open


def test_every_name_the_theorems_of_check_cite_opens() -> None:
    names = {d.name for d in (*all_derivations(), *cited_lemmas())}
    for d in (*all_derivations(), *cited_lemmas()):
        names |= _cited(d)
    assert {"exercise2_variance", "exercise3_variance_as_sums"} <= names
    _opens(names)


@pytest.mark.parametrize(
    "options",
    [{}, {"var_q": 4, "var_k": 4}, {"corr": "rho"}, {"d_k": 64, "mean_q": "mu"}],
)
def test_every_name_the_calculator_cites_opens_to_the_same_statement(
    options: dict[str, object],
) -> None:
    for answer in (scaledattn.variance(**options), scaledattn.scale(**options)):
        for d in answer.derivations:
            for name in {d.name} | _cited(d):
                opened = open_name(name)
                if isinstance(opened, Derivation) and name == d.name:
                    assert str(opened.statement) == str(d.statement)
            _opens(_cited(d))


@pytest.mark.parametrize(
    ("claim", "assume"),
    [
        ("Var(dot(q, k)) = 16*d_k", ["Var(q_i) = 4", "Var(k_i) = 4"]),
        ("E[dot(q, k)] = 3*d_k", ["E(q_i) = 1", "E(k_i) = 3"]),
        ("Var(dot(q, k, 3)) = 3", []),
        ("Var(dot(q, k)/sqrt(d_k)) = 1", []),
    ],
)
def test_every_name_the_verifier_cites_opens(claim: str, assume: list[str]) -> None:
    result = verify(claim, assume=assume)
    names = {
        s["rule"]
        for e in result.evidence
        if "derivation" in e.data
        for s in e.data["derivation"]["steps"]
    }
    assert names
    _opens(names)


#: Runs ``scaledattn derive NAME`` for each name given, in one fresh interpreter, and
#: prints each exit code and name (the derivations themselves are not shown).
DERIVE_EACH = """\
import contextlib, io, sys
from scaledattn.cli import main
for name in sys.argv[1:]:
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(["derive", name])
    print(code, name)
"""


def test_the_names_printed_beside_a_tick_and_after_by_open_with_the_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The command's output is the same in this process; the names must open in a new
    # process that never ran `scale` (one process for all of them: issue 13, speed).
    assert main(["scale", "--var-q", "4", "--var-k", "4", "--explain"]) == 0
    out = capsys.readouterr().out
    names = set(re.findall(r"✓ ([A-Za-z0-9_·]+(?:\([^)]*\))?)", out))
    assert "variance_as_sums(var_q=4, var_k=4)" in names
    done = subprocess.run(
        [sys.executable, "-c", DERIVE_EACH, *sorted(names)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    opened = [line.split(" ", 1) for line in done.stdout.splitlines()]
    assert [name for _, name in opened] == sorted(names), done.stdout
    assert all(code == "0" for code, _ in opened), (done.stdout, done.stderr)


def _cited_in(text: str) -> set[str]:
    """Names beside a ✓, in a Markdown step table, and listed after 'checked by the kernel'."""
    # a ✓ that starts a bullet marks a numeric witness ("- ✓ q ~ coin …"), not a rule
    names = set(re.findall(r"(?<!- )✓ (?!step \d)([A-Za-z0-9_·]+(?:\([^)]*\))?)", text))
    # check-proof's lines: "✓ step 1  by dot_def, sum_unroll  (a chain found by the search)"
    for found in re.findall(r"✓ step \d+ +by ([^\n]+?)(?: {2}\(|$)", text, re.M):
        names |= {n.strip() for n in found.split(", ")}
    names |= set(re.findall(r"^\| \d+ \| `([^`]+)` \|", text, re.M))
    marker = "checked by the kernel ("
    at = text.find(marker)
    while at >= 0:
        depth, start, n = 0, at + len(marker), at + len(marker)
        while n < len(text) and not (text[n] == ")" and depth == 0):
            depth += {"(": 1, ")": -1}.get(text[n], 0)
            if text[n] == "," and depth == 0:
                names.add(text[start:n].strip())
                start = n + 1
            n += 1
        names.add(text[start:n].strip())
        at = text.find(marker, n)
    # prose in parentheses ("the kernel checks the listing: …") names nothing
    return {n for n in names if re.fullmatch(r"[A-Za-z_][\w·]*(\([^()]*\))?", n)}


def test_every_name_cited_in_the_readme_and_the_generated_pages_opens() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    names: set[str] = set()
    for page in [root / "README.md", *sorted((root / "docs").rglob("*.md"))]:
        names |= _cited_in(page.read_text(encoding="utf-8"))
    assert {"exercise2_variance", "variance_def", "dot_product_variance"} <= names
    _opens(names)
