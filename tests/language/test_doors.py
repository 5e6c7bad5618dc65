"""One language: every notation and function of the table reads the same term in each door."""

from __future__ import annotations

import pytest
from sympy import Expr

from scaledattn.claims.syntax import parse_assumption, parse_claim, unparse
from scaledattn.claims.terms import MEANINGS, ClaimScope
from scaledattn.errors import InvalidArgument
from scaledattn.language.parse import Parser
from scaledattn.language.table import (
    EXAMPLES,
    FUNCTIONS,
    LINE_FUNCTIONS,
    NOTATIONS,
    NUMBERS,
    language_lines,
)
from scaledattn.language.terms import read, read_value
from scaledattn.prooffile.parse import parse_document


def _claim(text: str) -> object:
    return ClaimScope(text=text).build(parse_claim(f"{text} = 0").sides[0])


def _assumption(text: str) -> object:
    left = parse_assumption(f"{text} = 0").left
    assert left is not None
    return ClaimScope(text=text).build(left)


def _proof(text: str) -> Expr:
    document = parse_document(f"theorem t: {text} = 0\n  = 0\n")
    return document.theorems[0].statement.lhs


def _api(text: str) -> object:
    return read_value(text, meanings=MEANINGS)


def _doors(text: str) -> dict[str, object]:
    read_in = {"claim": _claim(text), "assumption": _assumption(text), "api": _api(text)}
    if not isinstance(read_in["claim"], tuple):  # a list is a claim's value, never a proof's
        read_in["proof file"] = _proof(text)
    return read_in


@pytest.mark.parametrize("notation", NOTATIONS, ids=lambda n: n.written)
def test_every_notation_reads_as_its_canonical_text_in_every_door(notation: object) -> None:
    written, canonical = notation.written, notation.canonical  # type: ignore[attr-defined]
    expected = _api(canonical)
    for door, value in _doors(written).items():
        assert value == expected, (door, written)


@pytest.mark.parametrize("notation", NOTATIONS, ids=lambda n: n.written)
def test_the_calculator_reads_each_notation_of_a_number_as_the_other_doors_do(
    notation: object,
) -> None:
    written, canonical = notation.written, notation.canonical  # type: ignore[attr-defined]
    try:
        tree = Parser(canonical, NUMBERS).parse()
    except InvalidArgument:
        return  # not a number's notation: the calculator has no such term
    assert unparse(Parser(written, NUMBERS).parse()) == unparse(tree) == unparse(read(canonical))


@pytest.mark.parametrize(
    "example", [e for name in EXAMPLES for e in EXAMPLES[name]], ids=lambda e: e
)
def test_every_function_of_the_table_reads_the_same_term_in_every_door(example: str) -> None:
    values = list(_doors(example).values())
    assert all(v == values[0] for v in values), example


def test_every_function_of_a_term_has_examples_and_every_one_is_in_the_help() -> None:
    shown = "\n".join(language_lines())
    for name, function in FUNCTIONS.items():
        if name not in LINE_FUNCTIONS:
            assert EXAMPLES[name], name
            assert all(f"{name}(" in e for e in EXAMPLES[name]), name
        assert all(form in shown for form in function.forms) or name in LINE_FUNCTIONS, name


@pytest.mark.parametrize(
    ("text", "door"),
    [("E[X]", _proof), ("Var[X + Y]", _proof), ("qᵀk", _proof), ("Var(q·k - q·k')", _claim)],
)
def test_what_one_door_refused_before_reads_in_it_now(text: str, door: object) -> None:
    assert door(text) == _api(text)  # type: ignore[operator]


@pytest.mark.parametrize("door", [_claim, _proof, _api])
def test_a_word_of_two_names_is_refused_in_every_door_with_the_product_as_the_hint(
    door: object,
) -> None:
    with pytest.raises(Exception, match=r"unknown name 'aX'.*did you mean.*a\*X") as err:
        door("Var(aX)")  # type: ignore[operator]
    assert "\n" not in str(err.value)


def test_the_guide_and_verify_help_show_the_one_table() -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    page = Path(__file__).resolve().parents[2] / "docs" / "your_own_derivation.md"
    text = page.read_text(encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "scaledattn", "verify", "--help"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    flat = " ".join(done.stdout.split())
    for line in language_lines():
        assert line in text, line
        assert " ".join(line.split()) in flat, line
