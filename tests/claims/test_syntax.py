"""The claim language: what it reads, what it refuses, and the bounds on its work."""

from __future__ import annotations

import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scaledattn.claims.syntax import (
    MAX_DEPTH,
    MAX_LENGTH,
    MAX_LIST,
    parse_assumption,
    parse_claim,
    unparse,
)
from scaledattn.errors import InvalidArgument
from tests.strategies import claim_expressions, claim_texts


@pytest.mark.parametrize(
    ("text", "kind", "relations"),
    [
        ("Var(X + Y) = Var(X) + Var(Y) + 2*Cov(X, Y)", "chain", ("=",)),
        ("softmax([2.0, 1.0, 0.1]) ≈ [0.659, 0.242, 0.099]", "chain", ("≈",)),
        ("softmax([2.0, 1.0, 0.1]) ~= [0.659, 0.242, 0.099]", "chain", ("≈",)),
        ("sqrt(64)/sqrt(4) = sqrt(16) = 4", "chain", ("=", "=")),
        ("10 <= std(dot(q, k, 1536)) < 100", "chain", ("<=", "<")),
        ("exp(14)/exp(10) ≥ 1000", "chain", (">=",)),
        ("√64 == 8", "chain", ("=",)),
        ("2^3 − 1 = 7", "chain", ("=",)),
        ("Var(dot(q, k)/c) = 1 <=> c = sqrt(d_k)", "equivalence", ("=", "<=>", "=")),
        ("Var(dot(q, k)/c) = 1 ⇔ c = √d_k", "equivalence", ("=", "<=>", "=")),
        ("theorem(p_minus_y_limit)", "theorem", ()),
    ],
)
def test_the_claim_language_reads_chains_equivalences_and_theorem_references(
    text: str, kind: str, relations: tuple[str, ...]
) -> None:
    claim = parse_claim(text)
    assert claim.kind == kind
    assert claim.relations == relations


def test_greek_letters_percentages_and_unicode_operators_are_aliases() -> None:
    claim = parse_claim("σ·ρ × 2 = 65.9%")
    assert unparse(claim.sides[0]) == "sigma * rho * 2"
    assert claim.sides[1].kind == "percent"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Var(X)", "needs a relation"),
        ("1 = ", "unexpected end"),
        ("1 = 2 <=> 3", "each side of <=> must be one equation"),
        ("1 < 2 <=> c = 1", "each side of <=> must be one equation"),
        ("theorem(1 + 2)", "takes a name"),
        ("Cov(X) = 1", "Cov takes 2 arguments, got 1"),
        ("dot(q, k, 3, 4) = 1", "dot takes 2 to 3 arguments"),
        ("foo(1) = 1", "unknown function 'foo'"),
        ("[1, 2 = 1", "missing ']'"),
        ("% = 1", "unexpected '%'"),
        ("X ~ coin", "unexpected character '~'"),
    ],
)
def test_malformed_claims_are_refused_in_one_line(text: str, message: str) -> None:
    with pytest.raises(InvalidArgument) as err:
        parse_claim(text)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


#: Hostile input, each refused with a one-line InvalidArgument and without running anything.
HOSTILE = [
    ("__import__('os').system('touch /tmp/scaledattn-pwned')", "unexpected character '_'"),
    ("2**2**2**2**2**2**2 = 1", "too large"),
    ("(" * 10_000 + "1" + ")" * 10_000 + " = 1", "too long"),
    ("(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1) + " = 1", "nested too deeply"),
    ("-" * (MAX_DEPTH + 1) + "1 = 1", "nested too deeply"),
    ("1 + " * 30_000 + "1 = 1", "too long"),
    ("X" * 100_000, "too long"),
    ("X.__class__ = 1", "unexpected character '.'"),
    ("().__class__.__bases__ = 1", "unexpected character '.'"),
    ("lambda: 1", "unexpected character ':'"),
    ("(lambda x: x)(1) = 1", "unexpected character ':'"),
    ("exec(1) = 1", "unknown function 'exec'"),
    ("eval = 1", "unknown name 'eval'"),
    ("open('/etc/passwd') = 1", "unexpected character"),
    ("open(passwd) = 1", "unknown function 'open'"),
    ("1 = 1; import os", "unexpected character ';'"),
    ("[" + "1, " * (MAX_LIST + 1) + "1] = 1", "too long"),
    ("exp(exp(exp(exp(10)))) > 1", "out of range"),
    ("9" * 40 + " = 1", "more than 30 digits"),
    ("1e999999 = 1", "number exponent beyond"),
    ("10**64**64 = 1", "too large"),
    ("\x00 = 1", "unexpected character"),
]


@pytest.mark.parametrize(("text", "message"), HOSTILE, ids=lambda x: repr(x)[:40])
def test_hostile_claims_are_refused_quickly_in_one_line(text: str, message: str) -> None:
    from scaledattn.claims import verify

    start = time.process_time()
    with pytest.raises(InvalidArgument) as err:
        verify(text)
    elapsed = time.process_time() - start
    assert message in str(err.value)
    assert "\n" not in str(err.value)
    # The bound: refused within a second (CPU time, immune to a busy machine).
    assert elapsed < 1.0


def test_the_limits_are_inclusive_and_stated() -> None:
    text = "1" + " + 1" * ((MAX_LENGTH - 5) // 4) + " = 1"
    assert len(text) <= MAX_LENGTH
    assert parse_claim(text).kind == "chain"
    items = "[" + ", ".join(["1"] * MAX_LIST) + "]"
    assert len(parse_claim(f"sum({items}) = 1".replace(" ", "")).sides) == 2


@pytest.mark.parametrize(
    ("text", "relation"),
    [
        ("independent(X, Y)", "independent"),
        ("E(X) = 0", "="),
        ("Var(q_i) = 4", "="),
        ("d_k = 64", "="),
        ("c > 0", ">"),
    ],
)
def test_assumptions_are_independence_equations_or_positivity(text: str, relation: str) -> None:
    assert parse_assumption(text).relation == relation


@pytest.mark.parametrize("text", ["X", "X < 0", "independent(X, 1)", "1 = 1 = 1"])
def test_other_assumptions_are_refused(text: str) -> None:
    with pytest.raises(InvalidArgument):
        parse_assumption(text)


@given(st.text(max_size=200))
def test_any_text_is_read_or_refused_with_invalid_argument(text: str) -> None:
    try:
        parse_claim(text)
    except InvalidArgument as err:
        message = str(err)
    else:
        return
    assert "\n" not in message


@given(st.text(alphabet="()[],.+-*/^=<>≈~%√ 0123456789eEXYZqk_idsvartmpxloc", max_size=120))
def test_text_made_of_the_languages_own_symbols_is_read_or_refused(text: str) -> None:
    try:
        parse_claim(text)
    except InvalidArgument as err:
        message = str(err)
    else:
        return
    assert "\n" not in message


@given(claim_texts())
def test_every_claim_the_grammar_makes_parses(text: str) -> None:
    claim = parse_claim(text)
    assert claim.kind == "chain"
    assert len(claim.sides) == len(claim.relations) + 1


@given(claim_expressions())
def test_unparse_writes_a_claim_back_so_that_it_reads_the_same(text: str) -> None:
    first = parse_claim(f"{text} = 0")
    written = unparse(first.sides[0])
    again = parse_claim(f"{written} = 0")
    assert unparse(again.sides[0]) == written


@pytest.mark.parametrize("text", ["0\n", "1 =\n2 +", "\x00", "\u2028", "softmax(\r\n)"])
def test_a_message_quoting_control_characters_stays_on_one_line(text: str) -> None:
    with pytest.raises(InvalidArgument) as err:
        parse_claim(text)
    assert "\n" not in str(err.value)
    assert "\r" not in str(err.value)


@given(st.text(max_size=60), st.lists(st.text(max_size=30), max_size=2))
def test_any_claim_and_assumptions_get_a_verdict_or_a_one_line_refusal(
    text: str, assume: list[str]
) -> None:
    from scaledattn.claims import verify

    try:
        verify(text, assume)
    except InvalidArgument as err:
        message = str(err)
    else:
        return
    assert "\n" not in message
