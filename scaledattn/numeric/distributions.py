"""The distribution catalogue: symbolic moments, a seeded sampler, exact pmfs.

One frozen dataclass per distribution. Each knows its mean, variance, third and
fourth central moments as SymPy values (``sympy.oo`` when infinite, ``sympy.nan``
when undefined), draws samples from a :class:`numpy.random.Generator`, and, when
it is finite, gives its pmf with exact rational probabilities. Parameters are
exact rationals and are validated when the object is made.

========================  ==========================================  =========
spec                      law                                         finite
========================  ==========================================  =========
``gaussian:mean,var``     normal, default mean 0, var 1               no
``coin``                  ±1 with probability 1/2 each                yes
``uniform:low,high``      uniform on [low, high], default [0, 1]      no
``laplace:mean,scale``    Laplace, variance 2·scale², default 0, 1    no
``die``                   a fair die centred at 0: −5/2, …, 5/2       yes
``student-t:nu``          Student's t with nu degrees of freedom      no
``bernoulli:p``           1 with probability p, else 0                yes
``finite:values,probs``   the listed values (probs default: equal)    yes
``cauchy:loc,scale``      Cauchy: no mean, no variance                no
========================  ==========================================  =========

Examples
--------
>>> d = distribution("die")
>>> d.mean(), d.variance()
(0, 35/12)
>>> distribution("student-t:nu=3").fourth_moment()
oo
>>> distribution("cauchy").require_variance()
Traceback (most recent call last):
...
scaledattn.errors.InvalidArgument: cauchy has no mean and no variance: a variance check is refused
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from fractions import Fraction
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar

import sympy

from scaledattn.errors import InvalidArgument
from scaledattn.numeric.spec import Value, as_fraction, format_number, parse_spec

__all__ = [
    "CATALOGUE",
    "Bernoulli",
    "Cauchy",
    "Coin",
    "Die",
    "Distribution",
    "Finite",
    "Gaussian",
    "Laplace",
    "StudentT",
    "Uniform",
    "distribution",
    "to_fraction",
    "to_sympy",
]

# numpy is imported where a sampler is made, not here: the proofs read the coin's
# moments from this module, and `scaledattn list` must not wait for numpy.
if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Array = NDArray[np.float64]
    Sampler = Callable[[np.random.Generator, "Size", "Array | None"], Array]
Size = int | tuple[int, ...]


def to_sympy(x: Fraction) -> sympy.Rational:
    """A Fraction as a SymPy Rational."""
    return sympy.Rational(x.numerator, x.denominator)


def to_fraction(x: Any) -> Fraction:
    """A SymPy rational (or int) as a Fraction; InvalidArgument for anything else."""
    x = sympy.sympify(x)
    if not x.is_Rational:
        raise InvalidArgument(f"not a rational number: {x}")
    return Fraction(int(x.p), int(x.q))


def _raw_from_central(mean: sympy.Expr, central: Callable[[int], sympy.Expr], n: int) -> Any:
    """E[Xⁿ] = Σₖ C(n, k) μₖ mᵏ⁻ⁿ… from the central moments μₖ and the mean m."""
    total: Any = sympy.S.Zero
    for k in range(n + 1):
        mu_k = sympy.S.One if k == 0 else sympy.S.Zero if k == 1 else central(k)
        total += sympy.binomial(n, k) * mu_k * mean ** (n - k)
    return total


class Distribution:
    """Base class: a named law with symbolic moments and a seeded sampler.

    Subclasses are frozen dataclasses whose fields are the spec's keys.
    """

    name: ClassVar[str] = ""
    finite: ClassVar[bool] = False
    defaults: ClassVar[Mapping[str, Fraction]] = {}

    # -- moments ---------------------------------------------------------
    def mean(self) -> Any:
        """E[X] as a SymPy value (nan when undefined)."""
        raise NotImplementedError

    def central_moment(self, n: int) -> Any:
        """E[(X − E X)ⁿ] as a SymPy value; oo when infinite, nan when undefined."""
        raise NotImplementedError

    def variance(self) -> Any:
        """Var X = E[(X − E X)²]."""
        return self.central_moment(2)

    def fourth_moment(self) -> Any:
        """The fourth central moment E[(X − E X)⁴]."""
        return self.central_moment(4)

    def raw_moment(self, n: int) -> Any:
        """E[Xⁿ] from the mean and the central moments (n ≥ 0)."""
        if n < 0:
            raise InvalidArgument(f"moment order must be at least 0, got {n}")
        if n == 0:
            return sympy.S.One
        if n == 1:
            return self.mean()
        mean = self.mean()
        if mean is sympy.nan:
            return sympy.nan
        return _raw_from_central(mean, self.central_moment, n)

    def has_moment(self, n: int) -> bool:
        """True when E[|X|ⁿ] is finite."""
        value = self.raw_moment(n)
        return bool(value.is_finite)

    @property
    def has_variance(self) -> bool:
        """True when the variance is finite."""
        return self.has_moment(2)

    @property
    def has_fourth_moment(self) -> bool:
        """True when the fourth moment is finite (the variance of a sample variance is)."""
        return self.has_moment(4)

    def require_variance(self) -> None:
        """InvalidArgument unless the variance is finite (Cauchy, t with nu ≤ 2 refuse)."""
        if not self.has_variance:
            raise InvalidArgument(
                f"{self.spec} {self.missing_variance}: a variance check is refused"
            )

    @property
    def missing_variance(self) -> str:
        """Why the variance is not finite (for messages)."""
        return "has no finite variance"

    # -- sampling and exact laws -----------------------------------------
    def sample(self, rng: np.random.Generator, size: Size, out: Array | None = None) -> Array:
        """``size`` independent draws as float64, from the generator ``rng``.

        With ``out`` (a float64 array of shape ``size``) the draws are written there,
        without a new allocation where numpy allows it: the Monte Carlo loop reuses
        one buffer per vector instead of allocating per chunk.
        """
        raise NotImplementedError

    def pmf(self) -> dict[Fraction, Fraction]:
        """The exact pmf {value: probability}; InvalidArgument for a non-finite law."""
        raise InvalidArgument(f"{self.spec} is not a finite distribution: no exact pmf")

    # -- text --------------------------------------------------------------
    def params(self) -> dict[str, Value]:
        """The parameters, by spec key."""
        return {f.name: getattr(self, f.name) for f in fields(self)}  # type: ignore[arg-type]

    @property
    def spec(self) -> str:
        """The canonical spec text (defaults left out); parsing it gives this object back."""
        parts = []
        for key, value in self.params().items():
            if key in self.defaults and value == self.defaults[key]:
                continue
            if isinstance(value, tuple):
                parts.append(f"{key}=" + "|".join(format_number(v) for v in value))
            else:
                parts.append(f"{key}={format_number(value)}")
        return self.name + (":" + ",".join(parts) if parts else "")

    def __str__(self) -> str:
        return self.spec


def _positive(value: Fraction, what: str, spec: str) -> None:
    if value <= 0:
        raise InvalidArgument(f"{spec}: {what} must be positive, got {format_number(value)}")


def _set(obj: object, **values: object) -> None:
    for key, value in values.items():
        object.__setattr__(obj, key, value)


# ---------------------------------------------------------------- finite laws


class FiniteLaw(Distribution):
    """Moments of a finite law, computed exactly from its pmf."""

    finite: ClassVar[bool] = True

    def mean(self) -> Any:
        """Σ p·v."""
        return to_sympy(_pmf_mean(self._pmf_items()))

    def central_moment(self, n: int) -> Any:
        """Σ p·(v − m)ⁿ, exactly."""
        items = self._pmf_items()
        m = _pmf_mean(items)
        return to_sympy(sum((p * (v - m) ** n for v, p in items), Fraction(0)))

    def raw_moment(self, n: int) -> Any:
        """Σ p·vⁿ, exactly."""
        return to_sympy(sum((p * v**n for v, p in self._pmf_items()), Fraction(0)))

    def has_moment(self, n: int) -> bool:
        """Every moment of a finite law is finite."""
        return True

    def pmf(self) -> dict[Fraction, Fraction]:
        """{value: probability}, values increasing, probabilities exact and positive."""
        return dict(self._pmf_items())

    def _pmf_items(self) -> tuple[tuple[Fraction, Fraction], ...]:
        raise NotImplementedError

    def sample(self, rng: np.random.Generator, size: Size, out: Array | None = None) -> Array:
        """Draws by index: equal probabilities use integers(), others the inverse CDF.

        The inverse CDF compares float64 uniforms with float64 cumulative
        probabilities, so each probability is met to about 1e-16.
        """
        return _finite_sampler(self._pmf_items())(rng, size, out)


def _pmf_mean(items: tuple[tuple[Fraction, Fraction], ...]) -> Fraction:
    return sum((p * v for v, p in items), Fraction(0))


def _into(values: Array, out: Array | None) -> Array:
    if out is None:
        return values
    out[...] = values
    return out


@cache
def _finite_sampler(items: tuple[tuple[Fraction, Fraction], ...]) -> Sampler:
    import numpy as np

    values = np.array([float(v) for v, _ in items], dtype=np.float64)
    probs = [p for _, p in items]
    m = len(values)
    if all(p == probs[0] for p in probs):
        dtype = np.int8 if m <= 127 else np.int64
        gaps = {b - a for (a, _), (b, _) in itertools.pairwise(items)}
        if len(gaps) <= 1:  # equally spaced: value = first + gap·index, in place
            first, gap = float(items[0][0]), float(gaps.pop()) if gaps else 0.0

            def spaced(rng: np.random.Generator, size: Size, out: Array | None) -> Array:
                index = rng.integers(0, m, size, dtype=dtype)
                if out is None:
                    out = np.empty(index.shape)
                np.multiply(index, gap, out=out)
                out += first
                return out

            return spaced

        def equal(rng: np.random.Generator, size: Size, out: Array | None) -> Array:
            return _into(values[rng.integers(0, m, size, dtype=dtype)], out)

        return equal
    cdf = np.cumsum([float(p) for p in probs])[:-1]

    def weighted(rng: np.random.Generator, size: Size, out: Array | None) -> Array:
        return _into(values[np.searchsorted(cdf, rng.random(size), side="right")], out)

    return weighted


@dataclass(frozen=True)
class Coin(FiniteLaw):
    """A fair coin with faces −1 and +1: mean 0, variance 1 (the lesson's model)."""

    name: ClassVar[str] = "coin"

    def _pmf_items(self) -> tuple[tuple[Fraction, Fraction], ...]:
        half = Fraction(1, 2)
        return ((Fraction(-1), half), (Fraction(1), half))


@dataclass(frozen=True)
class Die(FiniteLaw):
    """A fair six-sided die centred at 0: faces −5/2, −3/2, …, 5/2, variance 35/12."""

    name: ClassVar[str] = "die"

    def _pmf_items(self) -> tuple[tuple[Fraction, Fraction], ...]:
        return tuple((Fraction(2 * f - 7, 2), Fraction(1, 6)) for f in range(1, 7))


@dataclass(frozen=True)
class Bernoulli(FiniteLaw):
    """1 with probability p and 0 otherwise: mean p, variance p(1 − p)."""

    p: Fraction
    name: ClassVar[str] = "bernoulli"

    def __init__(self, p: object) -> None:
        value = as_fraction(p, "bernoulli p")
        if not 0 <= value <= 1:
            raise InvalidArgument(f"bernoulli: p must lie in [0, 1], got {format_number(value)}")
        _set(self, p=value)

    def _pmf_items(self) -> tuple[tuple[Fraction, Fraction], ...]:
        items = ((Fraction(0), 1 - self.p), (Fraction(1), self.p))
        return tuple((v, q) for v, q in items if q > 0)


@dataclass(frozen=True)
class Finite(FiniteLaw):
    """Any finite law: the listed values with the listed probabilities (equal if omitted).

    The probabilities must be non-negative and sum to exactly 1.
    """

    values: tuple[Fraction, ...]
    probs: tuple[Fraction, ...]
    name: ClassVar[str] = "finite"

    def __init__(self, values: object, probs: object = None) -> None:
        vals = _number_list(values, "finite values")
        if probs is None:
            ps = tuple(Fraction(1, len(vals)) for _ in vals)
        else:
            ps = _number_list(probs, "finite probs")
        if len(ps) != len(vals):
            raise InvalidArgument(
                f"finite: {len(vals)} values but {len(ps)} probabilities; give one per value"
            )
        if len(set(vals)) != len(vals):
            raise InvalidArgument("finite: a value is listed twice; list each value once")
        for p in ps:
            if p < 0:
                raise InvalidArgument(f"finite: probability {format_number(p)} is negative")
        total = sum(ps, Fraction(0))
        if total != 1:
            raise InvalidArgument(f"finite: the probabilities sum to {format_number(total)}, not 1")
        _set(self, values=vals, probs=ps)

    def _pmf_items(self) -> tuple[tuple[Fraction, Fraction], ...]:
        return tuple(sorted((v, p) for v, p in zip(self.values, self.probs, strict=True) if p > 0))

    @property
    def spec(self) -> str:
        """``finite:values=a|b,probs=p|q`` (probs left out when they are equal)."""
        text = "finite:values=" + "|".join(format_number(v) for v in self.values)
        if len(set(self.probs)) > 1:
            text += ",probs=" + "|".join(format_number(p) for p in self.probs)
        return text


def _number_list(values: object, what: str) -> tuple[Fraction, ...]:
    if isinstance(values, Fraction) or not isinstance(values, (tuple, list)):
        values = (values,)
    out = tuple(as_fraction(v, what) for v in values)
    if not out:
        raise InvalidArgument(f"{what}: the list is empty")
    return out


# ------------------------------------------------------------ continuous laws


@dataclass(frozen=True)
class Gaussian(Distribution):
    """The normal law N(mean, var): central moments 0, var, 0, 3·var²."""

    mean_: Fraction
    var: Fraction
    name: ClassVar[str] = "gaussian"
    defaults: ClassVar[Mapping[str, Fraction]] = {"mean": Fraction(0), "var": Fraction(1)}

    def __init__(self, mean: object = 0, var: object = 1) -> None:
        m, v = as_fraction(mean, "gaussian mean"), as_fraction(var, "gaussian var")
        _positive(v, "var", "gaussian")
        _set(self, mean_=m, var=v)

    def params(self) -> dict[str, Value]:
        """The mean and var parameters."""
        return {"mean": self.mean_, "var": self.var}

    def mean(self) -> Any:
        """The parameter mean."""
        return to_sympy(self.mean_)

    def central_moment(self, n: int) -> Any:
        """0 for odd n, (n − 1)!!·varⁿᐟ² for even n."""
        if n % 2:
            return sympy.S.Zero
        return sympy.factorial2(n - 1) * to_sympy(self.var) ** (n // 2)

    def sample(self, rng: np.random.Generator, size: Size, out: Array | None = None) -> Array:
        """Draws mean + √var · Z with Z standard normal (in place)."""
        out = rng.standard_normal(size, out=out)
        if self.var != 1:
            out *= math.sqrt(self.var)
        if self.mean_:
            out += float(self.mean_)
        return out


@dataclass(frozen=True)
class Uniform(Distribution):
    """The uniform law on [low, high]: variance (high − low)²/12."""

    low: Fraction
    high: Fraction
    name: ClassVar[str] = "uniform"
    defaults: ClassVar[Mapping[str, Fraction]] = {"low": Fraction(0), "high": Fraction(1)}

    def __init__(self, low: object = 0, high: object = 1) -> None:
        lo, hi = as_fraction(low, "uniform low"), as_fraction(high, "uniform high")
        if not lo < hi:
            raise InvalidArgument(
                f"uniform: low must be below high, got low={format_number(lo)},"
                f" high={format_number(hi)}"
            )
        _set(self, low=lo, high=hi)

    def mean(self) -> Any:
        """(low + high)/2."""
        return to_sympy((self.low + self.high) / 2)

    def central_moment(self, n: int) -> Any:
        """0 for odd n, hⁿ/(n + 1) for even n, with h the half-width."""
        if n % 2:
            return sympy.S.Zero
        half = to_sympy((self.high - self.low) / 2)
        return half**n / (n + 1)

    def sample(self, rng: np.random.Generator, size: Size, out: Array | None = None) -> Array:
        """Draws low + (high − low)·U with U uniform on [0, 1) (in place)."""
        out = rng.random(size, out=out)
        out *= float(self.high - self.low)
        out += float(self.low)
        return out


@dataclass(frozen=True)
class Laplace(Distribution):
    """The Laplace law: density e^(−|x − mean|/scale)/(2·scale), variance 2·scale²."""

    mean_: Fraction
    scale: Fraction
    name: ClassVar[str] = "laplace"
    defaults: ClassVar[Mapping[str, Fraction]] = {"mean": Fraction(0), "scale": Fraction(1)}

    def __init__(self, mean: object = 0, scale: object = 1) -> None:
        m, b = as_fraction(mean, "laplace mean"), as_fraction(scale, "laplace scale")
        _positive(b, "scale", "laplace")
        _set(self, mean_=m, scale=b)

    def params(self) -> dict[str, Value]:
        """The mean and scale parameters."""
        return {"mean": self.mean_, "scale": self.scale}

    def mean(self) -> Any:
        """The parameter mean."""
        return to_sympy(self.mean_)

    def central_moment(self, n: int) -> Any:
        """0 for odd n, n!·scaleⁿ for even n."""
        if n % 2:
            return sympy.S.Zero
        return sympy.factorial(n) * to_sympy(self.scale) ** n

    def sample(self, rng: np.random.Generator, size: Size, out: Array | None = None) -> Array:
        """Draws from numpy's Laplace sampler."""
        return _into(rng.laplace(float(self.mean_), float(self.scale), size), out)


@dataclass(frozen=True)
class StudentT(Distribution):
    """Student's t with nu degrees of freedom: variance nu/(nu − 2) only for nu > 2.

    The n-th moment is finite only for nu > n: nu ≤ 2 has no variance (refused for
    variance checks); 2 < nu ≤ 4 has a variance but no fourth moment, so an
    interval for a sample variance cannot be trusted.
    """

    nu: Fraction
    name: ClassVar[str] = "student-t"

    def __init__(self, nu: object) -> None:
        value = as_fraction(nu, "student-t nu")
        _positive(value, "nu", "student-t")
        _set(self, nu=value)

    def mean(self) -> Any:
        """0 for nu > 1, undefined otherwise."""
        return sympy.S.Zero if self.nu > 1 else sympy.nan

    def central_moment(self, n: int) -> Any:
        """0 for odd n < nu; nuⁿᐟ²(n − 1)!!/Πⱼ(nu − 2j) for even n < nu; else oo or nan."""
        nu = to_sympy(self.nu)
        if self.nu <= 1:
            return sympy.nan
        if n % 2:
            return sympy.S.Zero if n < self.nu else sympy.nan
        if n >= self.nu:
            return sympy.oo
        denominator = sympy.Mul(*(nu - 2 * j for j in range(1, n // 2 + 1)))
        return nu ** (n // 2) * sympy.factorial2(n - 1) / denominator

    def raw_moment(self, n: int) -> Any:
        """E[Xⁿ]: the central moment, since the mean is 0 (undefined for nu ≤ 1)."""
        if n == 0:
            return sympy.S.One
        return self.central_moment(n)

    @property
    def missing_variance(self) -> str:
        """Why: nu must exceed 2."""
        return "has no finite variance (it needs nu > 2)"

    def sample(self, rng: np.random.Generator, size: Size, out: Array | None = None) -> Array:
        """Draws from numpy's standard_t sampler."""
        return _into(rng.standard_t(float(self.nu), size), out)


@dataclass(frozen=True)
class Cauchy(Distribution):
    """The Cauchy law: no mean and no variance, known so that variance checks refuse it."""

    loc: Fraction
    scale: Fraction
    name: ClassVar[str] = "cauchy"
    defaults: ClassVar[Mapping[str, Fraction]] = {"loc": Fraction(0), "scale": Fraction(1)}

    def __init__(self, loc: object = 0, scale: object = 1) -> None:
        m, b = as_fraction(loc, "cauchy loc"), as_fraction(scale, "cauchy scale")
        _positive(b, "scale", "cauchy")
        _set(self, loc=m, scale=b)

    def mean(self) -> Any:
        """Undefined."""
        return sympy.nan

    def central_moment(self, n: int) -> Any:
        """Undefined for every n ≥ 1."""
        return sympy.nan

    @property
    def missing_variance(self) -> str:
        """Why: the Cauchy law has no moments."""
        return "has no mean and no variance"

    def sample(self, rng: np.random.Generator, size: Size, out: Array | None = None) -> Array:
        """Draws loc + scale · C with C standard Cauchy."""
        return _into(rng.standard_cauchy(size) * float(self.scale) + float(self.loc), out)


CATALOGUE: dict[str, type[Distribution]] = {
    cls.name: cls
    for cls in (Gaussian, Coin, Uniform, Laplace, Die, StudentT, Bernoulli, Finite, Cauchy)
}

_KEYS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # name: (required keys, optional keys)
    "gaussian": ((), ("mean", "var")),
    "coin": ((), ()),
    "uniform": ((), ("low", "high")),
    "laplace": ((), ("mean", "scale")),
    "die": ((), ()),
    "student-t": (("nu",), ()),
    "bernoulli": (("p",), ()),
    "finite": (("values",), ("probs",)),
    "cauchy": ((), ("loc", "scale")),
}
_LISTS = {"values", "probs"}


def distribution(spec: str) -> Distribution:
    """The catalogue distribution a spec names, its parameters validated.

    >>> distribution("finite:values=0|1|5,probs=1/2|1/4|1/4").mean()
    3/2
    """
    parsed = parse_spec(spec)
    if parsed.name not in CATALOGUE:
        import difflib

        close = difflib.get_close_matches(parsed.name.lower(), list(CATALOGUE), n=1, cutoff=0.5)
        hint = f"did you mean {close[0]!r}?" if close else f"known: {', '.join(CATALOGUE)}"
        raise InvalidArgument(f"unknown distribution {parsed.name!r}; {hint}")
    required, optional = _KEYS[parsed.name]
    for key in parsed.params:
        if key not in required + optional:
            allowed = ", ".join(required + optional) or "none"
            raise InvalidArgument(f"{parsed.name} has no parameter {key!r} (parameters: {allowed})")
    for key in required:
        if key not in parsed.params:
            raise InvalidArgument(f"{parsed.name} needs {key}=…, e.g. {_EXAMPLES[parsed.name]}")
    for key, value in parsed.params.items():
        if isinstance(value, tuple) and key not in _LISTS:
            raise InvalidArgument(f"{parsed.name}: {key} takes one number, not a list")
    return CATALOGUE[parsed.name](**parsed.params)


def catalogue_lines() -> list[str]:
    """One line per catalogue distribution: its spec with parameters, and what it is.

    >>> catalogue_lines()[0]
    'gaussian[:mean=M,var=V]  The normal law N(mean, var): central moments 0, var, 0, 3·var².'
    """
    lines = []
    for name, cls in CATALOGUE.items():
        required, optional = _KEYS[name]
        need = ",".join(f"{k}={k[0].upper()}" for k in required)
        may = ",".join(f"{k}={k[0].upper()}" for k in optional)
        spec = name + (f":{need}" if need else "")
        if may:
            spec += f"[{',' if need else ':'}{may}]"
        summary = (cls.__doc__ or "").strip().splitlines()[0]
        lines.append(f"{spec}  {summary}")
    return lines


_EXAMPLES = {
    "student-t": "student-t:nu=5",
    "bernoulli": "bernoulli:p=1/3",
    "finite": "finite:values=-1|0|2,probs=1/4|1/2|1/4",
}
