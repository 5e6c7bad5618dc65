"""Hostile certificates for the checker, and an evaluator of its terms that does not use it.

The project's fuzzer (``scaledattn/fuzz/``) draws only what the kernel rewrites, so it
never hands the checker a certificate nobody honest would write. This module draws
those: the families a hostile review of the checker found (its reproducers are the
``@example``s of ``tests/checker/test_hostile_certificates.py``), and random mutations
of the built-in theorems' true certificates.

Whether a statement is true is decided here, never by the checker: :func:`evaluate`
computes a checker term (the nested lists of a certificate, not the checker's tuples) at
a point, exactly over ``Fraction`` where it can and in floats where it must (roots,
``exp``, ``log``). At a point a term is

- a number (``Fraction`` or ``float``);
- :class:`Undefined` (raised): a division by zero (0/0 included, 0·(0+0)⁻¹ included:
  a product with an undefined factor is undefined), the logarithm of 0, a sum up to a
  non-integer. A negative base to a non-whole power and the logarithm of a negative
  number are their principal complex values, the checker's own semantics (it asks
  only divisors and logarithms' arguments to be non-zero, docs/trust.md): so
  (x²)^{1/2} = x is false at x = −1 and √−1·√−1 = −1 is true;
- :class:`Skip` (raised): what this evaluator does not compute (a derivative, a float
  past 10³⁰⁰, a sum of more than 400 terms, a limit that has not settled).

Bound variables take their values from their binder, whatever their letters say: a
sum's index runs over 1..n, a limit's variable is large and positive (λ = 60 and
λ = 120; the limit is their common value when they agree to 10⁻³, else skipped). Free
symbols take values their letters allow (``p`` positive, ``g`` negative, ``n``
non-negative, ``i`` integer, ``z`` non-zero), and declared ``range``, ``positive`` and
``define`` facts are respected. Random variables live on a sample space of three
equally likely outcomes: E is the average, Var(X) = E[X²] − E[X]², Cov and Std from it
(no independence is modelled, so a statement that needs it is false here: the
mutation property compares with the unmutated certificate at each point and skips the
points where that one is not true).
"""

from __future__ import annotations

import cmath
import copy
import json
import math
import random
from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

Value = Fraction | float | complex
Data = Any

OUTCOMES = 3
LAMBDAS = (60, 120)
MAX_TERMS = 400
HUGE = 1e300


class Undefined(ArithmeticError):
    """The term has no value at the point (a division by zero, a root of a negative)."""


class Skip(Exception):
    """The evaluator does not compute this term at this point."""


def _check(v: Value) -> Value:
    if isinstance(v, complex):
        if not (cmath.isfinite(v) and abs(v) <= HUGE):
            raise Skip("a complex number out of range")
    elif isinstance(v, float):
        if math.isnan(v) or math.isinf(v) or abs(v) > HUGE:
            raise Skip("a float out of range")
    elif abs(v.numerator) > 10**300 or v.denominator > 10**300:
        raise Skip("a number too large")
    return v


def close(a: Value, b: Value) -> bool:
    """Equal: exactly for two Fractions, else to a relative 10⁻⁷ (absolute 10⁻⁹)."""
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a == b
    if isinstance(a, complex) or isinstance(b, complex):
        ca, cb = complex(a), complex(b)
        return bool(abs(ca - cb) <= 1e-9 + 1e-7 * max(abs(ca), abs(cb)))
    return math.isclose(float(a), float(b), rel_tol=1e-7, abs_tol=1e-9)


def _int(v: Value) -> int | None:
    if isinstance(v, complex):
        return None
    if isinstance(v, Fraction):
        return int(v) if v.denominator == 1 else None
    return int(v) if float(v).is_integer() else None


class Point:
    """Values of the free symbols, entries, components and random variables."""

    def __init__(self, rng: random.Random, facts: list[Data]) -> None:
        self.rng = rng
        self.symbols: dict[str, Value] = {}
        self.cells: dict[Any, Value] = {}  # (kind, name, index[, outcome]) -> value
        self.defines = {f[1]: f for f in facts if isinstance(f, list) and f and f[0] == "define"}
        self.positive = {f[1][1] for f in facts if f and f[0] == "positive"}
        self.ranges = [f for f in facts if f and f[0] == "range"]
        self.outcome = 0
        self.resolving: set[str] = set()

    def _small(self) -> Fraction:
        return Fraction(self.rng.randint(-12, 12), self.rng.choice((1, 2, 3)))

    def symbol(self, name: str, letters: str) -> Value:
        """The value of a free symbol, drawn once, as its letters allow."""
        if name in self.symbols:
            return self.symbols[name]
        if name in self.resolving:
            raise Skip("a range declared through itself")
        self.resolving.add(name)
        for f in self.ranges:  # ("range", i, n): 1 <= i <= n
            if f[1][0] == "sym" and f[1][1] == name:
                top = _int(evaluate(f[2], self, {}))
                if top is None or top < 1:
                    raise Skip("a declared range that is empty here")
                self.symbols[name] = Fraction(self.rng.randint(1, top))
                return self.symbols[name]
        integer = "i" in letters
        v = Fraction(self.rng.randint(-4, 4)) if integer else self._small()
        if "p" in letters or name in self.positive:
            v = abs(v) or Fraction(1)
            v = Fraction(self.rng.randint(1, 4)) if integer else v
        elif "n" in letters:
            v = abs(v)
        elif "g" in letters:
            v = -abs(v) or Fraction(-1)
        if "z" in letters and v == 0:
            v = Fraction(1)
        self.symbols[name] = v
        return v

    def cell(self, key: Any) -> Value:
        """An entry of a vector, a component of a random vector, a random variable, fn."""
        if key not in self.cells:
            self.cells[key] = self._small()
        return self.cells[key]


def evaluate(t: Data, at: Point, bound: dict[str, Value]) -> Value:
    """The value of the checker term ``t`` at ``at`` (bound variables in ``bound``)."""
    return _check(_eval(t, at, bound))


def _eval(t: Data, at: Point, bound: dict[str, Value]) -> Value:
    tag = t[0]

    def ev(u: Data) -> Value:
        return evaluate(u, at, bound)

    if tag == "num":
        return Fraction(t[1])
    if tag == "sym":
        return bound[t[1]] if t[1] in bound else at.symbol(t[1], t[2])
    if tag == "add":
        total: Value = Fraction(0)
        for v in [ev(a) for a in t[1:]]:  # every term evaluated: an undefined one is undefined
            total = _check(total + v)
        return total
    if tag == "mul":
        prod: Value = Fraction(1)
        for v in [ev(a) for a in t[1:]]:  # 0·undefined is undefined
            prod = _check(prod * v)
        return prod
    if tag == "pow":
        return _power(ev(t[1]), ev(t[2]))
    if tag == "exp":
        x = ev(t[1])
        if x == 0:
            return Fraction(1)
        if isinstance(x, complex):
            return cmath.exp(x) if x.real < 690 else _skip("exp out of range")
        if float(x) > 690:
            raise Skip("exp out of range")
        return math.exp(float(x))
    if tag == "log":
        x = ev(t[1])
        if x == 0:
            raise Undefined("log of zero")
        if x == 1:
            return Fraction(0)
        return cmath.log(x) if isinstance(x, complex) or x < 0 else math.log(float(x))
    if tag == "abs":
        x = ev(t[1])
        return abs(x) if isinstance(x, complex) else -x if x < 0 else x
    if tag == "delta":
        return Fraction(1) if close(ev(t[1]), ev(t[2])) else Fraction(0)
    if tag in ("sum", "cross"):
        top = _int(ev(t[-1]))
        if top is None or top < 0:
            raise Undefined("a sum up to what is not a non-negative integer")
        if top > MAX_TERMS:
            raise Skip("a long sum")
        names = [t[2][1]] if tag == "sum" else [t[2][1], t[3][1]]
        total = Fraction(0)
        for i in range(1, top + 1):
            for j in range(1, top + 1) if tag == "cross" else (0,):
                if j == i:
                    continue
                inner = dict(bound)
                inner[names[0]] = Fraction(i)
                if j:
                    inner[names[1]] = Fraction(j)
                total = _check(total + evaluate(t[1], at, inner))
        return total
    if tag == "lim":
        vals = []
        for lam in LAMBDAS:
            inner = dict(bound)
            inner[t[2][1]] = Fraction(lam)
            vals.append(evaluate(t[1], at, inner))
        a, b = vals
        if close(a, b) or math.isclose(_real(a), _real(b), rel_tol=1e-3, abs_tol=1e-6):
            return b
        raise Skip("a limit not settled at the sampled λ")
    if tag == "rv":
        return at.cell(("rv", t[1], at.outcome))
    if tag == "comp":
        return at.cell(("comp", t[1], ev(t[2]), at.outcome))
    if tag == "dot":
        n = _int(ev(t[3]))
        if n is None or n < 0 or n > MAX_TERMS:
            raise Skip("a dot product of no natural dimension")
        acc: Value = Fraction(0)
        for i in range(1, n + 1):
            q = at.cell(("comp", t[1], Fraction(i), at.outcome))
            k = at.cell(("comp", t[2], Fraction(i), at.outcome))
            acc = _check(acc + q * k)
        return acc
    if tag in ("E", "Var", "Cov", "Std"):
        return _moment(t, at, bound)
    if tag == "entry":
        idx = ev(t[2])
        d = at.defines.get(t[1])
        if d is not None:  # ("define", name, body, j, n): x_i = body(i)
            inner = dict(bound)
            inner[d[3][1]] = idx
            return evaluate(d[2], at, inner)
        return at.cell(("entry", t[1], idx))
    if tag == "softmax":  # e^{s_i} / Σ_j e^{s_j}
        n = _int(ev(t[3]))
        if n is None or n < 1 or n > MAX_TERMS:
            raise Undefined("a softmax over no entries")
        weight = _eval(["exp", ["entry", t[1], t[2], t[3]]], at, bound)
        den = sum(
            _real(_eval(["exp", ["entry", t[1], ["num", str(j)], t[3]]], at, bound))
            for j in range(1, n + 1)
        )
        return _real(weight) / den
    if tag == "fn":
        return at.cell(("fn", t[1], tuple(ev(a) for a in t[2:])))
    raise Skip(f"the evaluator does not compute {tag}")


def _real(v: Value) -> float:
    """``v`` as a float (a complex value is not computed there)."""
    if isinstance(v, complex):
        raise Skip("a complex value where a real one is needed")
    return float(v)


def _skip(why: str) -> Value:
    raise Skip(why)


def _power(b: Value, e: Value) -> Value:
    k = _int(e)
    if b == 0:
        if _real(e) < 0:
            raise Undefined("a division by zero")
        return Fraction(1) if e == 0 else Fraction(0)
    if k is not None:
        if abs(k) > 600:
            raise Skip("a huge exponent")
        if isinstance(b, Fraction):
            return b**k
        return _check(b**k)
    if isinstance(b, complex) or isinstance(e, complex) or b < 0:  # the principal value
        try:
            return complex(b) ** complex(e)
        except OverflowError as err:
            raise Skip("a power out of range") from err
    try:
        return float(_real(b) ** _real(e))
    except OverflowError as err:
        raise Skip("a power out of range") from err


def _moment(t: Data, at: Point, bound: dict[str, Value]) -> Value:
    def mean(u: Data) -> Value:
        keep = at.outcome
        try:
            total: Value = Fraction(0)
            for w in range(OUTCOMES):
                at.outcome = w
                total = total + evaluate(u, at, bound)
            return total / OUTCOMES
        finally:
            at.outcome = keep

    if t[0] == "E":
        return mean(t[1])
    if t[0] == "Cov":
        return _check(mean(["mul", t[1], t[2]]) - mean(t[1]) * mean(t[2]))
    var = _check(mean(["mul", t[1], t[1]]) - mean(t[1]) ** 2)
    return var if t[0] == "Var" else _power(var, Fraction(1, 2))  # Std


def truth(p: Data, at: Point) -> bool:
    """The truth of a proposition (eq, or, true, false) at the point."""
    if p[0] == "true":
        return True
    if p[0] == "false":
        return False
    if p[0] == "or":
        return any(truth(q, at) for q in p[1:])
    if p[0] == "eq":
        return close(evaluate(p[1], at, {}), evaluate(p[2], at, {}))
    raise Skip(f"not a proposition: {p[0]}")


#: What the evaluator does not compute (a term outside the grammar a mutant may hold too).
NOT_COMPUTED = (
    Skip,
    RecursionError,
    TypeError,
    KeyError,
    IndexError,
    ValueError,
    ZeroDivisionError,
)


def chain(cert: Data) -> list[Data]:
    """The statement's left side, each step's claim and the right side."""
    steps = [s["claim"] for s in cert.get("steps", ()) if isinstance(s, dict) and "claim" in s]
    return [cert["lhs"], *steps, cert["rhs"]]


def falsity(cert: Data, seed: int, points: int = 4, reference: Data = None) -> str | None:
    """Why the chain of ``cert`` is not one truth at some sampled point, else None.

    At each point every term of the chain (the sides and the claims) must be defined
    and have one value (``calc``) or one truth (``iff``). A point where something is
    skipped is passed over; with a ``reference`` certificate (the true one a mutant
    came from), so is a point where the reference's own chain is not one truth there
    (its facts, e.g. independence, do not hold at the point).
    """
    rng = random.Random(seed)
    for _ in range(points):
        state = rng.getstate()
        if reference is not None:
            at = Point(random.Random(rng.random()), reference.get("facts", []))
            try:
                if _one_truth(reference, at) is not None:
                    continue
            except (Undefined, *NOT_COMPUTED):
                continue
            rng.setstate(state)
        at = Point(random.Random(rng.random()), cert.get("facts", []))
        try:
            why = _one_truth(cert, at)
        except NOT_COMPUTED:
            continue
        if why is not None:
            return f"{why} at {at.symbols}"
    return None


def _one_truth(cert: Data, at: Point) -> str | None:
    terms = chain(cert)
    kind = cert.get("kind")
    try:
        first = truth(terms[0], at) if kind == "iff" else evaluate(terms[0], at, {})
    except Undefined as err:
        return f"the left side is undefined ({err})"
    for n, t in enumerate(terms[1:], start=1):
        what = "the right side" if n == len(terms) - 1 else f"the claim of step {n}"
        try:
            v = truth(t, at) if kind == "iff" else evaluate(t, at, {})
        except Undefined as err:
            return f"{what} is undefined ({err})"
        except NOT_COMPUTED:
            continue
        if (v != first) if kind == "iff" else not close(first, v):
            return f"{what} is {v}, the left side {first}"
    return None


# ------------------------------------------------------------------- term helpers


def num(x: Value | int | str) -> Data:
    """A number."""
    if isinstance(x, (complex, float)):
        x = Fraction(_real(x))
    return ["num", str(Fraction(x))]


def neg(t: Data) -> Data:
    """−t."""
    return ["mul", num(-1), t]


def inv(t: Data) -> Data:
    """t⁻¹."""
    return ["pow", t, num(-1)]


def calc(
    name: str, lhs: Data, rhs: Data, steps: list[Data], facts: Any = (), kind: str = "calc"
) -> Data:
    """A certificate."""
    return {"format": 1, "name": name, "kind": kind, "facts": list(facts), "lhs": lhs,
            "rhs": rhs, "steps": steps}  # fmt: skip


def step(rule: str, claim: Data, *inst: Data) -> Data:
    """A step with forward instances."""
    return {"rule": rule, "claim": claim, "forward": list(inst)}


def inst(lhs: Data, rhs: Data, facts: Any = (), by: Any = None) -> Data:
    """An instance lhs → rhs."""
    out = {"lhs": lhs, "rhs": rhs, "facts": list(facts)}
    if by is not None:
        out["by"] = by
    return out


X, Y = ["rv", "X"], ["rv", "Y"]
SX = ["sym", "x", "r"]
NUMBERS = st.sampled_from([num(x) for x in (0, 1, -1, 2, Fraction(1, 2), 3)])

# ------------------------------------------ F1: divisors that are zero in disguise


def _w(a: Data, b: Data) -> Data:
    """E[aX + bY] − aE[X] − bE[Y]: zero, but only after expectation_linear."""
    return ["add", ["E", ["add", ["mul", a, X], ["mul", b, Y]]], neg(["mul", a, ["E", X]]),
            neg(["mul", b, ["E", Y]])]  # fmt: skip


_ATOMS = st.sampled_from([SX, ["sym", "y", "p"], num(2), ["E", X]])
ZEROS: st.SearchStrategy[Data] = st.recursive(
    st.just(num(0)),
    lambda z: st.one_of(
        st.tuples(z, z).map(lambda p: ["add", p[0], p[1]]),
        _ATOMS.map(lambda a: ["add", a, neg(a)]),
        st.tuples(z, _ATOMS).map(lambda p: ["mul", p[0], p[1]]),
        st.tuples(_ATOMS, z).map(lambda p: ["mul", p[0], p[1]]),
        z.map(neg),
    ),
    max_leaves=4,
)
"""Terms whose value is 0 while their form hides it: 0 + 0, x − x, 0·y, −(0 + 0)."""


_I, _J, _N = ["sym", "i", "ipr"], ["sym", "j", "ipr"], ["sym", "n", "ipr"]
ZERO_SOMEWHERE = st.sampled_from([
    ["cross", num(1), _I, _J, _N],  # Σ_{i≠j} 1 = n(n − 1): 0 at n = 1
    ["cross", ["exp", SX], _I, _J, _N],
    ["cross", ["delta", _I, _J], _I, _J, _N],  # 0 for every n
    ["sum", num(1), _I, num(0)],  # empty
    ["sum", ["add", _I, num(-1)], _I, num(1)],
    ["add", _N, num(-1)],
    ["delta", num(1), num(2)],
    ["abs", ["add", SX, neg(SX)]],
    ["add", ["exp", num(0)], num(-1)],
    ["pow", ["add", num(0), num(0)], num(Fraction(1, 2))],
    ["log", num(1)],
])  # fmt: skip
"""Terms that are 0 at some point (or every point), their form saying little."""


@st.composite
def zero_divisors(draw: st.DrawFn) -> Data:
    """A false certificate dividing by a zero in disguise (ring alone, or a rewrite first),
    or clearing a denominator that is one (x = c ⇔ (x − c)·b = 0)."""
    z = draw(st.one_of(ZEROS, ZERO_SOMEWHERE))
    if draw(st.integers(0, 3)) == 0:
        c = draw(NUMBERS)
        lhs = ["eq", SX, c]
        rhs = ["eq", ["mul", ["add", SX, neg(c)], z], num(0)]
        return calc("clear_zero", lhs, rhs, [
            step("clear_denominator", rhs, inst(lhs, rhs, by=[z])),
        ], kind="iff")  # fmt: skip
    top = draw(st.one_of(st.just(z), ZEROS, NUMBERS))  # z·z⁻¹, another zero, a number
    rhs = draw(st.one_of(st.just(num(1)), NUMBERS))  # what a zero merged with its inverse gives
    zinv = inv(z)
    if draw(st.booleans()):  # 0·(0+0)⁻¹ = r by ring
        extra = [draw(ZEROS) for _ in range(draw(st.integers(0, 1)))]
        return calc("zero_divisor", ["mul", top, *extra, zinv], rhs, [step("ring", rhs)])
    a, b = draw(st.sampled_from([num(1), num(2), num(-1)])), draw(st.sampled_from([num(1), num(3)]))
    w = _w(a, b)  # W·Z − (W distributed)·Z: normal form 0 before the rewrite
    dist = ["add", ["mul", w[1], zinv], neg(["mul", w[2], zinv]), neg(["mul", w[3], zinv])]
    c1 = ["add", ["mul", w, zinv], neg(dist)]
    lin = ["add", ["mul", a, ["E", X]], ["mul", b, ["E", Y]]]
    w2 = ["add", lin, w[2], w[3]]
    dist2 = ["add", ["mul", lin, zinv], neg(["mul", w[2], zinv]), neg(["mul", w[3], zinv])]
    c2 = ["add", ["mul", w2, zinv], neg(dist2)]
    return calc("zero_is_one", num(0), rhs, [
        step("ring", c1), step("expectation_linear", c2, inst(w[1], lin)), step("ring", rhs),
    ])  # fmt: skip


# -------------------------------- F2: bound variables whose letters contradict the binder

NEG_INDEX = st.sampled_from(["gir", "girz"])


@st.composite
def negative_binders(draw: st.DrawFn) -> Data:
    """A false certificate trusting a sum index or a limit variable typed negative."""
    which = draw(st.sampled_from(["clear", "exclude", "limit"]))
    i = ["sym", "i", draw(NEG_INDEX)]
    top = num(draw(st.integers(1, 3)))
    if which == "limit":
        lam = ["sym", "lam", draw(st.sampled_from(["gr", "grz", "gir"]))]
        k = num(draw(st.integers(1, 3)))
        root = ["pow", ["pow", lam, num(2)], num(Fraction(1, 2))]
        half = ["pow", neg(lam), num(Fraction(1, 2))]
        f, g = ["mul", k, root, inv(lam)], ["mul", k, half, half, inv(lam)]
        rhs = neg(k)
        return calc("lim_neg", ["lim", f, lam], rhs, [
            step("sqrt_mul", ["lim", g, lam], inst(root, ["mul", half, half])),
            step("limit_at_infinity", rhs, inst(["lim", g, lam], rhs)),
        ])  # fmt: skip
    body = draw(st.sampled_from([neg(["add", i, num(-1)]), i, ["mul", num(2), i]]))
    b = ["sum", body, i, top]
    if draw(st.integers(0, 3)) == 0:  # a cross sum, both indices typed negative
        b = ["cross", body, i, ["sym", "j", draw(NEG_INDEX)], top]
    if which == "clear":
        c = draw(NUMBERS)
        lhs = ["eq", SX, c]
        rhs = ["eq", ["mul", ["add", SX, neg(c)], b], num(0)]
        return calc("x_is_c", lhs, rhs, [step("clear_denominator", rhs, inst(lhs, rhs, by=[b]))],
                    kind="iff")  # fmt: skip
    # x = Σ i dropped as "positive = negative"; x the sum's own value, or a positive symbol
    value = evaluate(b, Point(random.Random(0), []), {})  # the sum's own value
    x = draw(st.sampled_from([["sym", "x", "pr"], num(value)]))
    lhs = ["eq", x, b]
    return calc("excl", lhs, ["false"], [step("exclude_by_sign", ["false"], inst(lhs, ["false"]))],
                kind="iff")  # fmt: skip


# ---------------------------- F4: limits whose sums run up to λ; divisors for large λ

LAM, IDX = ["sym", "lam", "ipr"], ["sym", "i", "ipr"]


@st.composite
def growing_ranges(draw: st.DrawFn) -> Data:
    """lim Σ_{i≤λ} B·B⁻¹·e^{−λ} with B = 0 at i = λ (undefined), B ≠ 0 for large λ only
    (the control, true), B zero at an inner index k ≤ i ≤ λ, a cross sum up to λ, or B
    free of λ by its form only (r₁ − e^λ with rⱼ defined as e^{λj}), or B zero for every
    λ at one value of a free symbol (e^{λx} − 1 at x = 0)."""

    def e(t: Data) -> Data:
        return ["exp", t]

    k = num(draw(st.integers(1, 2)))
    shape = draw(st.sampled_from(["grows", "control", "nested", "cross", "definition", "symbol"]))
    facts: list[Data] = []
    kk = ["sym", "k", "ipr"]
    top = draw(st.sampled_from([LAM, ["add", LAM, num(1)], ["mul", num(2), LAM]]))
    decay = e(neg(LAM))
    if shape == "control":  # non-zero only for large λ: a true statement
        c = num(draw(st.integers(1, 3)))
        b, top = ["add", LAM, neg(c)], num(draw(st.integers(1, 3)))
    elif shape == "symbol":  # zero for every λ at some value of a free symbol
        lx = ["mul", LAM, SX]
        b = draw(st.sampled_from([
            ["add", e(lx), num(-1)], ["add", e(LAM), neg(e(lx))], ["add", LAM, neg(lx)],
            ["mul", e(LAM), ["add", num(1), neg(SX)]], ["add", ["pow", LAM, SX], num(-1)],
            ["add", e(LAM), neg(["mul", e(LAM), ["delta", SX, num(1)]])],
        ]))  # fmt: skip
        lhs = ["lim", ["mul", b, inv(b), decay], LAM]
        rhs = ["lim", decay, LAM]
        return calc("lim_symbol", lhs, rhs, [step("ring", rhs)])
    elif shape == "definition":
        j = ["sym", "j", "ir"]
        facts = [["define", "r", e(["mul", LAM, j]), j, ["sym", "n", "ipr"]]]
        b = ["add", ["entry", "r", num(1), ["sym", "n", "ipr"]], neg(e(LAM))]
        lhs = ["lim", ["mul", b, inv(b), decay], LAM]
        rhs = ["lim", decay, LAM]
        return calc("lim_definition", lhs, rhs, [step("ring", rhs)], facts)
    else:
        at = kk if shape == "nested" else IDX
        b = draw(st.sampled_from([
            ["add", e(["mul", k, LAM]), neg(e(["mul", k, at]))],
            ["add", LAM, neg(at)],
            ["add", ["pow", LAM, num(2)], neg(["pow", at, num(2)])],
        ]))  # fmt: skip
    body = ["mul", b, inv(b)]
    if shape == "nested":  # Σ_{i≤λ} Σ_{k≤i} B(k)/B(k): 0/0 at k = i = λ
        body = ["sum", body, kk, IDX]
    if shape == "cross":
        jj = ["sym", "j", "ipr"]
        lhs = ["lim", ["mul", ["cross", body, IDX, jj, top], decay, decay], LAM]
        rhs = ["lim", ["mul", ["cross", num(1), IDX, jj, top], decay, decay], LAM]
        return calc("lim_cross", lhs, rhs, [step("ring", rhs)])
    lhs = ["lim", ["mul", ["sum", body, IDX, top], decay], LAM]
    inner = ["sum", num(1), kk, IDX] if shape == "nested" else num(1)
    one = ["sum", inner, IDX, top]
    mid = ["lim", ["mul", one, decay], LAM]
    if shape == "nested":
        return calc("lim_nested", lhs, mid, [step("ring", mid)])
    rhs = ["lim", ["mul", top, decay], LAM]
    steps = [step("ring", mid), step("count_terms", rhs, inst(one, top))]
    if draw(st.booleans()):
        steps.append(step("limit_at_infinity", num(0), inst(rhs, num(0))))
        rhs = num(0)
    return calc("lim_range", lhs, rhs, steps)


# --------------------- F3: a false step beside a term past the bounds, junk instances

PAST_BOUNDS = st.sampled_from([
    ["pow", ["add", SX, num(1)], num(513)],
    ["pow", ["add", SX, num(2)], num(Fraction(1025, 2))],
    ["mul", ["exp", num(513)], ["pow", ["add", SX, num(1)], num(513)]],
])  # fmt: skip
"""Terms past the checker's bounds (exponents over 512)."""
JUNK = st.sampled_from([["E", ["rv", "Z"]], ["sym", "nowhere", "r"], ["Var", ["rv", "Q"]]])
"""Instances' left sides that match nothing in the certificates drawn here."""


@st.composite
def bounds_and_junk(draw: st.DrawFn) -> Data:
    """A false count_terms step (Σᵢ c = n²c) beside a term past the bounds or a junk instance.

    The term past the bounds is never in the statement (a statement the checker cannot
    read is not read, before step 1): it is a junk instance of the false step (before
    or after the true one), a claim before the false step, or a part of its claim.
    """
    n, c = ["sym", "n", "ipr"], draw(st.sampled_from([SX, num(2), ["sym", "y", "pr"]]))
    s = ["sum", c, IDX, n]
    wrong = ["mul", n, n, c]
    big = draw(PAST_BOUNDS)
    zero_big = ["mul", num(0), big]
    where = draw(st.sampled_from(["instance_before", "instance_after", "junk", "ring_before",
                                  "claim"]))  # fmt: skip
    insts = [inst(s, wrong)]
    if where == "ring_before":
        steps = [step("ring", ["add", s, zero_big]), step("count_terms", ["add", wrong, zero_big],
                 inst(s, wrong)), step("ring", wrong)]  # fmt: skip
    elif where == "claim":
        steps = [step("count_terms", ["add", wrong, zero_big], *insts), step("ring", wrong)]
    else:
        junk = inst(draw(JUNK), num(0)) if where == "junk" else inst(big, num(0))
        insts.insert(0 if where != "instance_after" else 1, junk)
        steps = [step("count_terms", wrong, *insts)]
    return calc("count_bound", s, wrong, steps)


@st.composite
def gaps_elsewhere(draw: st.DrawFn) -> tuple[Data, int]:
    """(a certificate, the number of its false step): Σᵢ c = n²c beside gaps of other steps.

    The gaps are what the checker does not read: an axiom, a theorem's instance, a step
    the writer could not write, a rule without a schema, a claim the reader cannot read,
    a lemma nobody cites that it cannot read. None may hide the false step (the second
    review's family: each made the whole certificate "not read yet").
    """
    n, c = ["sym", "n", "ipr"], draw(st.sampled_from([SX, num(2), ["sym", "y", "pr"]]))
    s, wrong = ["sum", c, IDX, n], ["mul", n, n, c]
    false = step("count_terms", wrong, inst(s, wrong))
    kinds = ["axiom:lead", "instance:variance_of_sum", "unwritten:ring", "no_such_rule"]
    gap_rule = draw(st.sampled_from([*kinds, "unreadable", "lemma"]))
    before = draw(st.booleans())
    if gap_rule == "unreadable":
        gap = step("ring", ["foo", s])
    elif gap_rule == "unwritten:ring":
        gap = {"rule": gap_rule, "claim": None, "why": "a term it cannot write"}
    else:
        gap = step("ring" if gap_rule == "lemma" else gap_rule, s if before else wrong)
    if gap_rule in ("unreadable", "unwritten:ring") and before:
        steps, false_at = [gap, step("ring", s), false], 3  # a step after a gap restarts
    else:
        steps, false_at = ([gap, false], 2) if before else ([false, gap], 1)
    cert = calc("gapped", s, wrong, steps)
    if gap_rule == "lemma":
        cert["lemmas"] = [calc("junk", ["foo"], num(1), [step("ring", num(1))])]
    return cert, false_at


# ----------------------------------- random mutations of the built-in true certificates


def builtin_certificates(small_only: bool = True) -> list[Data]:
    """The built-in theorems' certificates (under 6,000 characters unless ``small_only``)."""
    from scaledattn.certificate import certificate
    from scaledattn.derive import audit_of
    from scaledattn.registry import theorem_modules

    out = []
    for module in theorem_modules():
        for d in module.derivations:
            cert = certificate(audit_of(d))
            if not small_only or len(json.dumps(cert)) < 6000:
                out.append(cert)
    return out


MODELLED = {"define", "range", "positive"}


def evaluable(cert: Data) -> bool:
    """Whether the evaluator models every fact of ``cert`` (no independence, no moment)."""
    return all(f[0] in MODELLED for f in cert.get("facts", ()))


def _paths(t: Data, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths to the subterms of a term (a list starting with a tag)."""
    out = [here]
    if isinstance(t, list) and t and t[0] not in ("num", "sym", "rv"):
        for k, a in enumerate(t[1:], start=1):
            if isinstance(a, list):
                out += _paths(a, (*here, k))
    return out


def _get(t: Data, path: tuple[Any, ...]) -> Data:
    for k in path:
        t = t[k]
    return t


def _set(root: Data, path: tuple[Any, ...], value: Data) -> Data:
    if not path:
        return value
    _get(root, path[:-1])[path[-1]] = value
    return root


SWAPPED = ("pow", "delta", "Cov", "eq")
MUTATIONS = ("number", "drop", "swap_sides", "swap_args", "fact", "replace")


@st.composite
def mutants(draw: st.DrawFn, certs: list[Data]) -> tuple[Data, Data]:
    """(a mutant, the true certificate it came from): one number changed, a term dropped,
    the sides swapped, two arguments swapped, a fact dropped or altered, or a subterm
    replaced by another of the certificate."""
    ref = certs[draw(st.integers(0, len(certs) - 1))]
    cert = copy.deepcopy(ref)
    slots = [("lhs",), ("rhs",)] + [("steps", n, "claim") for n in range(len(cert["steps"]))]
    for _ in range(draw(st.integers(1, 2))):
        kind = draw(st.sampled_from(MUTATIONS))
        if kind == "swap_sides":
            cert["lhs"], cert["rhs"] = cert["rhs"], cert["lhs"]
            continue
        if kind == "fact":
            if not cert["facts"]:
                continue
            k = draw(st.integers(0, len(cert["facts"]) - 1))
            if draw(st.booleans()):
                del cert["facts"][k]
                continue
            slot_root: Data = cert["facts"]
            slot_key: int | str = k
        else:
            slot = draw(st.sampled_from(slots))
            slot_root, slot_key = (
                (cert["steps"][slot[1]], "claim")
                if len(slot) == 3
                else (
                    cert,
                    slot[0],
                )
            )
        term = slot_root[slot_key]
        paths = _paths(term)
        wanted = {"number": ("num",), "drop": ("add", "mul"), "swap_args": SWAPPED}.get(kind)
        if wanted is not None or (kind == "fact" and draw(st.booleans())):
            paths = [p for p in paths if _get(term, p)[0] in (wanted or ("num",))]
            kind = "number" if wanted is None else kind
        if not paths:
            continue
        path = paths[draw(st.integers(0, len(paths) - 1))]
        node = _get(term, path)
        if kind == "number":
            shift: Fraction = draw(st.sampled_from([Fraction(1), Fraction(-1), Fraction(1, 2)]))
            term = _set(term, path, num(Fraction(node[1]) + shift))
        elif kind == "drop":
            k = draw(st.integers(1, len(node) - 1))
            rest = node[:k] + node[k + 1 :]
            term = _set(term, path, rest if len(rest) > 2 else rest[1])
        elif kind == "swap_args":
            term = _set(term, path, [node[0], node[2], node[1], *node[3:]])
        else:  # replace (or alter a fact): a subterm by another subterm of the same term
            other = paths[draw(st.integers(0, len(paths) - 1))]
            if other[: len(path)] != path:  # not a subterm of the node replaced
                term = _set(term, path, copy.deepcopy(_get(term, other)))
        slot_root[slot_key] = term
    return cert, ref
