"""What a bare name means, in every door alike: the one table of the language's names.

- ``X``, ``Y``, ``Z``: random variables with no distribution;
- ``q``, ``k`` (primed too: ``k'``): random vectors of dimension ``d_k``, written by
  their components ``q_i``, ``k'_2`` and in ``dot(q, k)``; ``assume: w random vector``
  declares another one;
- ``i j l m t w u v``: indices (positive integers); a primed index ``i'`` is one too;
- ``d_k``, ``d_model``, ``n``, ``N``: dimensions (positive integers); ``d`` is read as
  ``d_k``, the dimension of q and k (as d2l and the 2017 paper write it);
- ``sigma``, ``sigma_q``, ``sigma_k``: positive constants;
- ``s_i``, ``r_i``, ``y_i``, ``g_i``: entries of real vectors of dimension n; ``p_i`` is
  softmax(s)ᵢ; inside a sum over a from 1 to N (whose index may be any letter), ``x_a``
  is the a-th entry of a real vector x of dimension N, ``entry(x, a, N)``;
- any other constant is real: a single letter (``a``, ``b_1``), a Greek letter's name
  (``rho``, ``lambda``, ``mu_q``) or a declared name; ``assume: c positive`` and the like
  change a name's kind. Any other word (``aX``, ``when``) is no name: the message says
  what it may have meant.

Examples
--------
>>> default_kind("i"), default_kind("d_k"), default_kind("sigma_q"), default_kind("c")
('integer', 'integer', 'positive', 'real')
>>> split_name("k__i_"), split_name("d_k")
(Name(base='k', primes=1, subscript="i'"), Name(base='d', primes=0, subscript='k'))
>>> is_constant_name("b_1"), is_constant_name("mu_q"), is_constant_name("aX")
(True, True, False)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sympy import Expr, Symbol

__all__ = [
    "ALIASED",
    "DIMENSIONS",
    "ENTRY_VECTORS",
    "GREEK_NAMES",
    "INDEX_LETTERS",
    "KINDS",
    "MEANINGS",
    "POSITIVE_NAMES",
    "RANDOM_VARIABLES",
    "RANDOM_VECTORS",
    "SOFTMAX_WEIGHTS",
    "Name",
    "Names",
    "default_kind",
    "is_constant_name",
    "primes_as_underscores",
    "split_name",
    "unprimed",
]

#: Random variables with no distribution.
RANDOM_VARIABLES = ("X", "Y", "Z")
#: The random vectors known without a declaration (and their primed names).
RANDOM_VECTORS = frozenset("qk")
#: One-letter names that are indices (positive integers) unless declared otherwise.
INDEX_LETTERS = frozenset("ijlmtwuv")
#: Names of dimensions (positive integers).
DIMENSIONS = frozenset({"d_k", "d_model", "n", "N"})
#: Other names of a dimension, and the name each is read as (stated where it is used).
ALIASED = {"d": "d_k"}
#: Names that are positive constants.
POSITIVE_NAMES = frozenset({"sigma", "sigma_q", "sigma_k"})
#: Vectors of real entries (dimension n): s_i, r_i, y_i, g_i.
ENTRY_VECTORS = frozenset("sryg")
#: The softmax weights of the scores s: p_i.
SOFTMAX_WEIGHTS = "p"
#: The Greek letters' names a constant may have (``delta`` is Kronecker's δ, a function).
GREEK_NAMES = frozenset({
    "alpha", "beta", "gamma", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda",
    "mu", "nu", "xi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega",
})  # fmt: skip
#: The kinds a constant may be declared to have, and the facts of the symbol each makes.
KINDS: dict[str, dict[str, bool]] = {
    "real": {"real": True},
    "positive": {"positive": True},
    "integer": {"integer": True, "positive": True},
}
#: What each name of the table means, for the docs and ``--help`` (and stated in output).
MEANINGS: tuple[tuple[str, str], ...] = (
    ("X, Y, Z", "random variables (nothing assumed about them)"),
    ("q_i, k_j, k'_2", "components of the random vectors q, k, k' (of dimension d_k)"),
    ("i, j, l, m, t, w, u, v", "indices (positive integers); i', i'' too"),
    (
        "d_k, d_model, n, N",
        "dimensions (positive integers); d is read as d_k, the dimension of q and k, and so"
        " is n in a claim about q and k with no scores (n counts a softmax's scores)",
    ),
    ("sigma, sigma_q, sigma_k", "positive constants"),
    ("s_i, r_i, y_i, g_i", "entries of real vectors of dimension n; p_i = softmax(s)_i"),
    (
        "x_a in sum(…, a, 1, N)",
        "the a-th entry of a real vector x of dimension N (entry(x, a, N)); a sum's index"
        " may be any letter",
    ),
    ("c, a, b_1, rho, mu, mu_q, mu_k", "real constants: a letter, or a Greek letter's name"),
)

_PRIME = re.compile(r"(?<=[A-Za-z0-9_])'+")
_NAME = re.compile(r"([A-Za-z]+)(_*)(?:_([A-Za-z0-9]+)(_*))?")
#: A constant's name: letters, digits (c0), a subscript (b_q), primes.
_CONSTANT = re.compile(r"([A-Za-z]+)[0-9]*(?:_[A-Za-z0-9]+)?'*")


def primes_as_underscores(text: str) -> str:
    """``k'_i`` → ``k__i``: the same length (columns stay), a name the tokenizer reads.

    >>> primes_as_underscores("Var(k'_i) + p' + i''")
    'Var(k__i) + p_ + i__'
    """
    return _PRIME.sub(lambda primes: "_" * len(primes.group()), text)


@dataclass(frozen=True)
class Name:
    """A name split into its letters, primes and subscript: ``k'_i'`` → ('k', 1, "i'")."""

    base: str
    primes: int
    subscript: str

    @property
    def label(self) -> str:
        """The vector's name with its primes: ``k'``."""
        return self.base + "'" * self.primes

    @property
    def written(self) -> str:
        """The whole name as written, primes as primes: ``k'_i'``, ``b_q``."""
        return self.label + (f"_{self.subscript}" if self.subscript else "")


def split_name(word: str) -> Name | None:
    """The parts of a name written with primes as underscores, or None."""
    match = _NAME.fullmatch(word)
    if match is None:
        return None
    base, bars, sub, sub_bars = (match.group(n) or "" for n in range(1, 5))
    return Name(base, len(bars), sub + "'" * len(sub_bars))


def unprimed(name: str) -> str:
    """A name without its trailing primes: ``i''`` → ``i``."""
    return name.rstrip("'")


def default_kind(name: str) -> str:
    """The kind a bare constant name has: 'integer', 'positive' or 'real'.

    A primed name has the kind of its unprimed name (the kernel names the inner index
    of Σᵢ Σᵢ ``i'``).

    >>> default_kind("i''")
    'integer'
    """
    name = unprimed(name)
    if name in INDEX_LETTERS or name in DIMENSIONS:
        return "integer"
    if name in POSITIVE_NAMES:
        return "positive"
    return "real"


def is_constant_name(written: str) -> bool:
    """Whether ``written`` may name a constant undeclared: a letter or a Greek name, subscripted.

    ``e`` is not one (Euler's number is written ``exp(1)``).
    """
    match = _CONSTANT.fullmatch(written)
    if match is None or written == "e":
        return False
    base = match.group(1)
    return len(base) == 1 or base in GREEK_NAMES or unprimed(written) in DIMENSIONS


@dataclass
class Names:
    """What bare names mean in one text: declared kinds, random vectors, values, definitions.

    ``kinds`` and ``vectors`` are what ``assume:`` lines declare (``a integer``, ``w random
    vector``); ``values`` gives a constant a value (``--assume "d_k = 64"``) and
    ``definitions`` a random variable a definition (``--assume "Y = X + 1"``).
    """

    kinds: dict[str, str] = field(default_factory=dict)
    vectors: set[str] = field(default_factory=set)
    values: dict[str, Expr] = field(default_factory=dict)
    definitions: dict[str, object] = field(default_factory=dict)

    def kind(self, name: str) -> str:
        """A name's declared kind, else its unprimed name's (i' is an index as i is)."""
        if name in self.kinds:
            return self.kinds[name]
        base = unprimed(name)
        return self.kinds.get(base, default_kind(base))

    def constant(self, name: str) -> Symbol:
        """The symbol of a constant: its declared kind, or the default kind of its name."""
        return Symbol(name, **KINDS[self.kind(name)])

    def is_vector(self, label: str) -> bool:
        """Whether ``label`` names a random vector: q, k (primed or not) or a declared one."""
        if label in self.vectors:
            return True
        return unprimed(label) in RANDOM_VECTORS and label not in self.kinds

    def is_declared(self, name: str) -> bool:
        """Whether ``name`` (or, for a primed name, its unprimed name) was declared."""
        return name in self.kinds or unprimed(name) in self.kinds or name in self.vectors

    def dimension(self) -> Expr:
        """d_k: its value (``d_k = 64``), or the positive-integer symbol."""
        return self.values.get("d_k", self.constant("d_k"))
