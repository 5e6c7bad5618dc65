from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given

from scaledattn.errors import InvalidArgument
from scaledattn.numeric.distributions import Distribution, distribution
from scaledattn.numeric.spec import parse_number, parse_spec
from tests.strategies import catalogue_distributions


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("3", Fraction(3)),
        ("-0.25", Fraction(-1, 4)),
        ("1/3", Fraction(1, 3)),
        ("2e-3", Fraction(1, 500)),
        (".5", Fraction(1, 2)),
        ("-6/4", Fraction(-3, 2)),
    ],
)
def test_numbers_are_read_exactly(text: str, value: Fraction) -> None:
    assert parse_number(text) == value


@pytest.mark.parametrize(
    "text",
    [
        "nan",
        "inf",
        "-inf",
        "1e999",
        "",
        "1/0",
        "0x10",
        "1,5",
        "sqrt(2)",
        "2**3",
        "__import__('os').system('true')",
        "1/2/3",
        "one",
    ],
)
def test_anything_but_a_plain_number_is_refused(text: str) -> None:
    with pytest.raises(InvalidArgument):
        parse_number(text)


def test_a_spec_splits_into_name_and_parameters_with_lists() -> None:
    spec = parse_spec("finite:values=-1|0|2,probs=1/4|1/2|1/4")
    assert spec.name == "finite"
    assert spec.params["values"] == (Fraction(-1), Fraction(0), Fraction(2))


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty"),
        ("foo", "unknown distribution"),
        ("gaussian:", "no parameters"),
        ("gaussian:var", "key=value"),
        ("gaussian:var=1,var=2", "twice"),
        ("gaussian:sd=2", "no parameter 'sd'"),
        ("gaussian:var=", "no value"),
        ("gaussian:var=-1", "positive"),
        ("gaussian:var=1|2", "one number"),
        ("student-t", "needs nu"),
        ("bernoulli:p=3/2", "[0, 1]"),
        ("uniform:low=2,high=1", "below"),
        ("laplace:scale=0", "positive"),
        ("finite:values=1|2,probs=1/2|1/3", "sum to 5/6"),
        ("finite:values=1|2,probs=1", "2 values but 1"),
        ("finite:values=1|1", "twice"),
        ("finite:values=1|2,probs=3/2|-1/2", "negative"),
        ("coin:p=1/2", "no parameter"),
        ("Gaussian", "bad distribution name"),
        ("gaussian:mean=__import__('os')", "not a number"),
    ],
)
def test_bad_specs_are_refused_with_a_message_naming_the_problem(text: str, words: str) -> None:
    with pytest.raises(InvalidArgument, match=None) as err:
        distribution(text)
    assert words in str(err.value)
    assert "\n" not in str(err.value)


@given(catalogue_distributions())
def test_a_distribution_reads_back_from_its_own_spec(dist: Distribution) -> None:
    assert distribution(dist.spec) == dist
