"""Distribution specs and numbers from user text: a small hand parser, never ``eval``.

A spec is ``NAME`` or ``NAME:key=value,key=value``; a list value is written
``a|b|c``. Numbers are exact rationals: integers, decimals (``0.25``), fractions
(``1/3``) and decimal exponents (``1e-3``), each parsed with
:class:`fractions.Fraction`. ``nan``, ``inf`` and anything else are refused with a
one-line :class:`~scaledattn.errors.InvalidArgument`.

Examples
--------
>>> spec = parse_spec("finite:values=-1|1,probs=1/4|3/4")
>>> spec.name, [str(p) for p in spec.params["probs"]]
('finite', ['1/4', '3/4'])
>>> parse_number("0.25")
Fraction(1, 4)
>>> parse_number("nan")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
scaledattn.errors.InvalidArgument: not a number: 'nan' (write an integer, a decimal ...
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass
from fractions import Fraction

from scaledattn.errors import InvalidArgument

__all__ = ["Spec", "Value", "as_fraction", "format_number", "parse_number", "parse_spec"]

#: A parameter value: one number or a list of numbers.
Value = Fraction | tuple[Fraction, ...]

_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?(/\d+)?")
_NAME = re.compile(r"[a-z][a-z0-9-]*")
_KEY = re.compile(r"[a-z][a-z0-9_]*")
MAX_NUMBER_TEXT = 800
MAX_EXPONENT = 60


@dataclass(frozen=True)
class Spec:
    """A parsed spec: the distribution's name and its parameters (numbers or lists)."""

    name: str
    params: dict[str, Value]


def parse_number(text: str) -> Fraction:
    """The exact rational written in ``text``; InvalidArgument for anything else.

    >>> parse_number("-3/6"), parse_number("1e-2")
    (Fraction(-1, 2), Fraction(1, 100))
    """
    t = text.strip()
    hint = "write an integer, a decimal such as 0.25 or a fraction such as 1/3"
    if len(t) > MAX_NUMBER_TEXT or not _NUMBER.fullmatch(t):
        raise InvalidArgument(f"not a number: {text!r} ({hint})")
    exponent = re.search(r"[eE]([+-]?\d+)", t)
    if exponent and abs(int(exponent.group(1))) > MAX_EXPONENT:
        raise InvalidArgument(f"number out of range: {text!r} (exponents up to {MAX_EXPONENT})")
    if "/" in t:
        top, bottom = t.split("/")
        denominator = Fraction(bottom)
        if denominator == 0:
            raise InvalidArgument(f"division by zero in the number {text!r}")
        return Fraction(top) / denominator
    return Fraction(t)


def as_fraction(value: object, what: str) -> Fraction:
    """``value`` (int, Fraction, finite float or number text) as an exact Fraction.

    A float is taken at its exact binary value, so ``0.1`` is not 1/10.

    >>> as_fraction(0.5, "p"), as_fraction("2/4", "p")
    (Fraction(1, 2), Fraction(1, 2))
    """
    if isinstance(value, bool):
        raise InvalidArgument(f"{what} must be a number, got {value!r}")
    if isinstance(value, (int, Fraction)):
        return Fraction(value)
    if isinstance(value, numbers.Rational):  # e.g. a SymPy Rational
        return Fraction(int(value.numerator), int(value.denominator))
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidArgument(f"{what} must be a finite number, got {value!r}")
        return Fraction(value)
    if isinstance(value, str):
        return parse_number(value)
    raise InvalidArgument(f"{what} must be a number, got {value!r}")


def format_number(x: Fraction) -> str:
    """A Fraction as text that :func:`parse_number` reads back: ``-1/2``, ``3``."""
    return str(x)


def parse_spec(text: str) -> Spec:
    """Split ``NAME[:key=value,...]`` into a name and parsed parameters.

    The catalogue (:mod:`scaledattn.numeric.distributions`) checks the name and the
    keys; this function checks only the shape of the text.
    """
    if not isinstance(text, str):
        raise InvalidArgument(f"a distribution spec is text, got {text!r}")
    t = text.strip()
    if not t:
        raise InvalidArgument("empty distribution spec (try 'coin' or 'gaussian:var=2')")
    name, colon, rest = t.partition(":")
    name = name.strip()
    if not _NAME.fullmatch(name):
        raise InvalidArgument(f"bad distribution name {name!r} in spec {text!r}")
    params: dict[str, Value] = {}
    if colon and not rest.strip():
        raise InvalidArgument(f"spec {text!r} has ':' but no parameters")
    if not colon:
        return Spec(name, params)
    for item in rest.split(","):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not _KEY.fullmatch(key):
            raise InvalidArgument(
                f"bad parameter {item.strip()!r} in spec {text!r} (write key=value)"
            )
        if key in params:
            raise InvalidArgument(f"parameter {key!r} given twice in spec {text!r}")
        if not value.strip():
            raise InvalidArgument(f"parameter {key!r} has no value in spec {text!r}")
        if "|" in value:
            params[key] = tuple(parse_number(v) for v in value.split("|"))
        else:
            params[key] = parse_number(value)
    return Spec(name, params)
