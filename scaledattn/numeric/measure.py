"""Measure a statement's left side on a model: exactly where the law is finite, else by sampling.

The measured quantity is E(Z), Var(Z) or Std(Z) for a random expression Z, the
left side of an equation (or, for an equivalence ``(Op(Z) = b) ⇔ P``, the Op(Z)
of its left proposition). The measurement takes a route independent of the
step evaluator's moment algebra:

- exact, when every latent law is finite: if Z is a polynomial in one dot product
  q·k, the law of q·k is the convolution power of the law of one product qᵢkᵢ
  (:mod:`scaledattn.numeric.exact`); otherwise the joint pmf of the latent draws is
  enumerated outcome by outcome (at most :data:`MAX_OUTCOMES`);
- Monte Carlo otherwise (:mod:`scaledattn.numeric.montecarlo`): seeded, chunked,
  with the interval from the estimated fourth moment.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import sympy
from numpy.typing import NDArray

from scaledattn.errors import InvalidArgument
from scaledattn.kernel import Derivation, Dot, E, Equation, Group, Std, Var
from scaledattn.kernel.expr import Component, VectorLabel, random_atoms, rebuild
from scaledattn.numeric.evaluate import (
    Evaluator,
    Num,
    Poly,
    add,
    equal,
    mul,
    power,
    show,
)
from scaledattn.numeric.exact import lattice_law
from scaledattn.numeric.exact import power as law_power
from scaledattn.numeric.model import LatentKey, Model
from scaledattn.numeric.montecarlo import Z95, Z_AGREE, Estimate, estimate

__all__ = ["MAX_OUTCOMES", "StatementMeasurement", "measure_statement"]

Array = NDArray[np.float64]

#: The most joint outcomes the exact enumeration visits.
MAX_OUTCOMES = 200_000
OPERATORS: dict[type, str] = {E: "E", Var: "Var", Std: "Std"}


@dataclass(frozen=True)
class StatementMeasurement:
    """A statement's left side measured on a model, the value it should have, the verdict.

    For an equivalence ``(Op(Z) = b) ⇔ P``, ``target`` is b and ``expected`` is the
    truth of P: they agree when "Op(Z) = b" holds exactly when P does.
    """

    quantity: str
    method: str
    expected: Num | bool
    measured: Num | float
    agrees: bool
    expr: Any = None
    target: Num | None = None
    interval: tuple[float, float] | None = None
    ci95: tuple[float, float] | None = None
    samples: int | None = None
    seed: int | None = None
    trusted: bool = True
    warning: str = ""
    detail: str = ""

    @property
    def half_width(self) -> float | None:
        """Half the agreement interval (Monte Carlo only)."""
        if self.interval is None:
            return None
        return (self.interval[1] - self.interval[0]) / 2

    def as_json(self) -> dict[str, Any]:
        """The measurement as JSON-ready data (exact numbers as strings)."""
        out: dict[str, Any] = {
            "quantity": self.quantity,
            "method": self.method,
            "expected": show(self.expected),
            "measured": show(self.measured) if self.method == "exact" else float(self.measured),
            "agrees": self.agrees,
        }
        if self.target is not None:
            out["target"] = show(self.target)
        if self.interval is not None:
            out["agreement_interval"] = list(self.interval)
            out["agreement_z"] = Z_AGREE
        if self.ci95 is not None:
            out["ci95"] = list(self.ci95)
        if self.samples is not None:
            out.update(samples=self.samples, seed=self.seed, trusted=self.trusted)
        if self.warning:
            out["warning"] = self.warning
        if self.detail:
            out["detail"] = self.detail
        return out


def _operator(expr: Any) -> tuple[type, Any] | None:
    """(E, Var or Std, its argument) when ``expr`` is such a moment, else None."""
    while isinstance(expr, Group):
        expr = expr.args[0]
    if isinstance(expr, (E, Var, Std)):
        return type(expr), expr.args[0]
    return None


def measure_statement(
    derivation: Derivation, model: Model, ev: Evaluator, seed: int, samples: int
) -> StatementMeasurement | None:
    """Measure the statement's left side on ``model``; None when it has no such form."""
    st = derivation.statement
    if isinstance(st, Equation):
        form = _operator(st.lhs)
        if form is None:
            return None
        expected: Num | bool = ev.value(st.rhs)
        target = None
    else:
        if not isinstance(st.lhs, sympy.Equality):
            return None
        form = _operator(st.lhs.lhs)
        if form is None:
            return None
        target = ev.value(st.lhs.rhs)
        expected = ev.truth(st.rhs)
    op, z = form
    quantity = f"{OPERATORS[op]}({sympy.sstr(rebuild(z))})"
    moments = _exact_moments(model, ev, z)
    if moments is not None:
        value = _apply(op, moments)
        agrees = equal(value, expected) if target is None else equal(value, target) == expected
        return StatementMeasurement(quantity, "exact", expected, value, agrees, op(z), target)
    est = _sample(model, ev, z, op, samples, seed)
    return _from_estimate(quantity, op(z), est, expected, target)


def _apply(op: type, moments: tuple[Num, Num]) -> Num:
    m1, m2 = moments
    if op is E:
        return m1
    variance = add(m2, mul(-1, mul(m1, m1)))
    return variance if op is Var else power(variance, Fraction(1, 2))


# ------------------------------------------------------------------ exact


def _dot_of(z: Any) -> Dot | None:
    atoms = random_atoms(rebuild(z))
    if len(atoms) == 1:
        (atom,) = atoms
        if isinstance(atom, Dot):
            return atom
    return None


def _coefficients(model: Model, z: Any, dot: Dot) -> list[Num] | None:
    """[c₀, c₁, …] with Z = Σ cₙ Sⁿ for S = ``dot``; None if Z is not such a polynomial."""
    s = sympy.Dummy("s")
    expr = rebuild(z).xreplace({dot: s})
    expr = expr.xreplace(
        {sym: sympy.Rational(*_pq(model.values[sym.name])) for sym in expr.free_symbols if sym != s}
    )
    try:
        poly = sympy.Poly(expr, s)
    except sympy.PolynomialError:
        return None
    coeffs = poly.all_coeffs()[::-1]
    if any(not c.is_number for c in coeffs):
        return None
    return [_as_num(c) for c in coeffs]


def _pq(x: Fraction) -> tuple[int, int]:
    x = Fraction(x)
    return x.numerator, x.denominator


def _as_num(c: Any) -> Num:
    if c.is_Integer:
        return int(c)
    if c.is_Rational:
        return Fraction(int(c.p), int(c.q))
    return c


def _latent_pmfs(
    model: Model, keys: set[LatentKey]
) -> list[tuple[LatentKey, list[tuple[Fraction, Fraction]]]] | None:
    out = []
    count = 1
    for key in sorted(keys):
        dist = model.group(key[0]).distribution
        if not dist.finite:
            return None
        items = list(dist.pmf().items())
        count *= len(items)
        if count > MAX_OUTCOMES:
            return None
        out.append((key, items))
    return out


def _enumerate(model: Model, poly: Poly) -> dict[Num, Fraction] | None:
    """The law of a polynomial in latents, by enumerating their joint outcomes."""
    keys = {key for mono in poly for key, _ in mono}
    pmfs = _latent_pmfs(model, keys)
    if pmfs is None:
        return None
    if all(isinstance(c, (int, Fraction)) for c in poly.values()):
        return _enumerate_rational(pmfs, poly)
    names = [key for key, _ in pmfs]
    law: dict[Num, Fraction] = {}
    for outcome in itertools.product(*(items for _, items in pmfs)):
        point = dict(zip(names, (v for v, _ in outcome), strict=True))
        probability = math.prod((p for _, p in outcome), start=Fraction(1))
        value: Num = 0
        for mono, c in poly.items():
            term = c
            for key, n in mono:
                term = mul(term, point[key] ** n)
            value = add(value, term)
        law[value] = law.get(value, Fraction(0)) + probability
    return law


def _enumerate_rational(
    pmfs: list[tuple[LatentKey, list[tuple[Fraction, Fraction]]]], poly: Poly
) -> dict[Num, Fraction]:
    """:func:`_enumerate` for rational coefficients, in integers: the same law, faster.

    Each latent's values are aₓ/L and probabilities wₓ/T (L, T its common
    denominators), so a monomial c·Π vₖⁿᵏ is (c/Π Lₖⁿᵏ)·Π aₖⁿᵏ, and over a common
    denominator G the polynomial is (Σ Nₘ·Π aₖⁿᵏ)/G with integers Nₘ; the probability
    of an outcome is Π wₖ / Π Tₖ. Outcomes are summed as integers and divided once.
    """
    position = {key: n for n, (key, _) in enumerate(pmfs)}
    values: list[list[int]] = []
    weights: list[list[int]] = []
    scales: list[int] = []
    total = 1
    for _, items in pmfs:
        scale = math.lcm(*(Fraction(v).denominator for v, _ in items))
        denominator = math.lcm(*(Fraction(p).denominator for _, p in items))
        values.append([int(Fraction(v) * scale) for v, _ in items])
        weights.append([int(Fraction(p) * denominator) for _, p in items])
        scales.append(scale)
        total *= denominator
    monomials = []
    for mono, c in poly.items():
        divisor = math.prod((scales[position[key]] ** n for key, n in mono), start=1)
        monomials.append((Fraction(c) / divisor, [(position[key], n) for key, n in mono]))
    common = math.lcm(*(c.denominator for c, _ in monomials)) if monomials else 1
    terms = [(int(c * common), powers) for c, powers in monomials]
    sums: dict[int, int] = {}
    indices = [range(len(v)) for v in values]
    for outcome in itertools.product(*indices):
        numerator = 0
        for c, powers in terms:
            for latent, n in powers:
                c *= values[latent][outcome[latent]] ** n
            numerator += c
        weight = math.prod((weights[k][x] for k, x in enumerate(outcome)), start=1)
        sums[numerator] = sums.get(numerator, 0) + weight
    law: dict[Num, Fraction] = {}
    for numerator, weight in sums.items():
        value = Fraction(numerator, common)
        law[_tidy_num(value)] = Fraction(weight, total)
    return law


def _exact_moments(model: Model, ev: Evaluator, z: Any) -> tuple[Num, Num] | None:
    """(E[Z], E[Z²]) exactly, by convolution or enumeration; None if not finite or too big."""
    if not model.finite:
        return None
    dot = _dot_of(z)
    if dot is not None:
        coeffs = _coefficients(model, z, dot)
        if coeffs is not None:
            q, k = dot.args[0].name, dot.args[1].name
            single = _enumerate(model, ev.poly(_one_product(q, k)))
            if single is not None and all(isinstance(v, (int, Fraction)) for v in single):
                n = ev.index(dot.dim, {})
                score = law_power(lattice_law({Fraction(v): p for v, p in single.items()}), n)
                raw = score.raw_moments(2 * (len(coeffs) - 1))
                return _poly_moments(coeffs, [_tidy_num(r) for r in raw])
    law = _enumerate(model, ev.poly(z))
    if law is None:
        return None
    m1: Num = 0
    m2: Num = 0
    for v, p in law.items():
        m1 = add(m1, mul(p, v))
        m2 = add(m2, mul(p, mul(v, v)))
    return m1, m2


def _tidy_num(x: Fraction) -> Num:
    return x.numerator if x.denominator == 1 else x


def _one_product(q: str, k: str) -> Any:
    """q₁·k₁ as a kernel expression: one term of the dot (all terms are alike in law)."""
    return Component(VectorLabel(q), 1) * Component(VectorLabel(k), 1)


def _poly_moments(coeffs: list[Num], raw: list[Num]) -> tuple[Num, Num]:
    m1: Num = 0
    for n, c in enumerate(coeffs):
        m1 = add(m1, mul(c, raw[n]))
    m2: Num = 0
    for a, ca in enumerate(coeffs):
        for b, cb in enumerate(coeffs):
            m2 = add(m2, mul(mul(ca, cb), raw[a + b]))
    return m1, m2


# -------------------------------------------------------------- Monte Carlo


def _unit_arrays(model: Model, rng: np.random.Generator, rows: int) -> dict[str, Array]:
    latent = {
        g.name: g.distribution.sample(rng, (rows, g.dim) if g.dim else rows) for g in model.groups
    }
    units: dict[str, Array] = {}
    for law in model.units:  # in dependency order
        total: Array | None = None
        for parent, a in law.parents:
            part = float(a) * units[parent]
            total = part if total is None else total + part
        if law.noise is not None:
            name = law.name if not law.parents else f"{law.name}.noise"
            total = latent[name] if total is None else total + latent[name]
        assert total is not None
        units[law.name] = total
    return units


FloatPoly = dict[tuple[tuple[tuple[str, int], int], ...], float]


def _numeric_poly(poly: FloatPoly, units: dict[str, Array], rows: int) -> Array:
    out: Array = np.zeros(rows)
    for mono, c in poly.items():
        term: Array = np.full(rows, c)
        for (name, index), n in mono:
            column = units[name] if index == 0 else units[name][:, index - 1]
            term = term * column**n
        out += term
    return out


def _atom_poly(ev: Evaluator, z: Any) -> dict[tuple[tuple[tuple[str, int], int], ...], float]:
    """Z as a polynomial in the units' atoms (not latents), float coefficients."""
    identity = Model(
        ev.model.values,
        ev.model.units,
        ev.model.groups,
        {atom: {atom: Fraction(1)} for atom in ev.model.forms},
        ev.model.samples,
        ev.model.reals,
    )
    return {mono: float(_float(c)) for mono, c in Evaluator(identity).poly(z).items()}


def _float(c: Num) -> float:
    return float(c) if isinstance(c, (int, Fraction)) else float(sympy.N(c, 20))


def _sample(model: Model, ev: Evaluator, z: Any, op: type, samples: int, seed: int) -> Estimate:
    dot = _dot_of(z)
    coeffs = _coefficients(model, z, dot) if dot is not None else None
    if dot is not None and coeffs is not None:
        latent_poly = ev.poly(_one_product(dot.args[0].name, dot.args[1].name))
    else:
        latent_poly = ev.poly(z)
    power_of = max((n for mono in latent_poly for _, n in mono), default=1)
    degree = power_of * (len(coeffs) - 1 if coeffs is not None else 1)
    need = 2 * degree if op is E else 4 * degree
    lacking = [g.distribution.spec for g in model.groups if not g.distribution.has_moment(need)]
    for g in model.groups:
        if not g.distribution.has_moment(2 * degree):
            raise InvalidArgument(
                f"{g.distribution.spec} has no finite moment of order {2 * degree}: refused"
            )
    warning = ""
    if lacking:
        warning = (
            f"{', '.join(dict.fromkeys(lacking))} has no finite moment of order {need}:"
            " the interval cannot be trusted"
        )
    width = sum(max(g.dim, 1) for g in model.groups)
    draw: Callable[[np.random.Generator, int], Array]
    if coeffs is not None and dot is not None:
        fc = [_float(c) for c in coeffs]
        q, k = dot.args[0].name, dot.args[1].name

        def draw(rng: np.random.Generator, rows: int) -> Array:
            units = _unit_arrays(model, rng, rows)
            s: Array = np.einsum("ij,ij->i", units[q], units[k])
            out: Array = np.zeros_like(s)
            for c in reversed(fc):
                out = out * s + c
            return out

    else:
        poly = _atom_poly(ev, z)

        def draw(rng: np.random.Generator, rows: int) -> Array:
            return _numeric_poly(poly, _unit_arrays(model, rng, rows), rows)

    return estimate(draw, samples, seed, width=width, trusted=not lacking, warning=warning)


def _from_estimate(
    quantity: str, expr: Any, est: Estimate, expected: Num | bool, target: Num | None
) -> StatementMeasurement:
    op = type(expr)
    if op is E:
        value, interval, ci95 = est.mean, est.mean_interval(Z_AGREE), est.mean_interval(Z95)
    else:
        value, interval, ci95 = est.variance, est.interval(Z_AGREE), est.interval(Z95)
        if op is Std:
            value = math.sqrt(max(value, 0.0))
            interval = _sqrt_interval(interval)
            ci95 = _sqrt_interval(ci95)
    lo, hi = interval
    if target is None:
        agrees = est.trusted and lo <= _float(expected) <= hi
    else:
        agrees = est.trusted and (lo <= _float(target) <= hi) == expected
    return StatementMeasurement(
        quantity,
        "monte-carlo",
        expected,
        value,
        agrees,
        expr,
        target,
        interval,
        ci95,
        est.n,
        est.seed,
        est.trusted,
        est.warning,
    )


def _sqrt_interval(interval: tuple[float, float]) -> tuple[float, float]:
    lo, hi = interval
    return (math.sqrt(max(lo, 0.0)), math.sqrt(max(hi, 0.0)))
