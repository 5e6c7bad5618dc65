"""The assumptions of a claim: the lesson's defaults, and what ``--assume`` adds or changes.

Defaults (the lesson's, and Vaswani et al.'s footnote): the components of q and k
are independent, with mean 0 and variance 1; the scale c is positive. X, Y, Z are
arbitrary random variables: nothing is assumed about them. An assumption is

- ``independent(X, Y)``: the listed random variables are independent;
- ``E(q_i) = m``, ``Var(k_i) = v``: the components' moments (every i alike), which
  replace the defaults; ``E(X) = 0``, ``Var(X) = d_k``, ``Cov(X, Y) = 0``: moments of
  other terms;
- ``d_k = 64``, ``c = 8``, ``sigma = 2``: a value for a constant;
- ``Y = X``, ``Z = (dot(q, k) + d_k)/2``: a definition of a random variable;
- ``c > 0``: a constant is positive.

Examples
--------
>>> from scaledattn.claims.syntax import parse_assumption, parse_claim
>>> claim = parse_claim("Var(X + Y) = Var(X) + Var(Y)")
>>> setup = prepare(claim, [parse_assumption("independent(X, Y)")])
>>> setup.described
['Independent(X, Y)']
>>> prepare(parse_claim("Var(dot(q, k)) = d_k"), []).described[0]
'IndependentComponents(q, k) (default)'
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import sympy
from sympy import Symbol

from scaledattn.automation.rewrite import Environment, Lemmas
from scaledattn.claims.syntax import Assumed, Claim, unparse
from scaledattn.claims.terms import (
    CONSTANTS,
    MAX_DIMENSION,
    SCALARS,
    ClaimScope,
    Value,
    components_of,
)
from scaledattn.errors import InvalidArgument
from scaledattn.kernel import (
    Assumption,
    Context,
    Cov,
    E,
    Entry,
    Independent,
    IndependentComponents,
    IndexSum,
    Moment,
    Positive,
    RandomVariable,
    RandomVector,
    Softmax,
    Std,
    Var,
)
from scaledattn.kernel.expr import Component, is_random
from scaledattn.language.definedness import declared_nonzero, first_unmet
from scaledattn.language.laws import law_moments
from scaledattn.language.names import Names
from scaledattn.language.parse import quote
from scaledattn.moments.build import per_index, provenance, variance_assumptions, vectors
from scaledattn.moments.setting import AttentionSetting
from scaledattn.render.display import assumption_text

__all__ = ["Setup", "prepare"]


@dataclass
class Setup:
    """Everything a claim is verified under: names, kernel assumptions, lemmas, built sides."""

    claim: Claim
    scope: ClaimScope
    assumptions: list[Assumption] = field(default_factory=list)
    described: list[str] = field(default_factory=list)
    sides: list[Value] = field(default_factory=list)
    qk: AttentionSetting | None = None
    env: Environment = field(default_factory=lambda: Environment(()))

    @property
    def positives(self) -> list[Symbol]:
        """The constants declared positive."""
        return [a.symbol for a in self.assumptions if isinstance(a, Positive)]

    def add(self, assumption: Assumption, default: bool = False, note: str = "") -> None:
        """Declare an assumption (once) and describe it."""
        if assumption in self.assumptions:
            return
        self.assumptions.append(assumption)
        text = assumption_text(assumption) + (" (default)" if default else "") + note
        self.described.append(text)


#: Constants the lesson takes as positive scales: stated whenever a claim uses one.
SCALES = ("c", "sigma", "sigma_q", "sigma_k")

_QK_FIELDS = {
    ("E", "q"): "mean_q",
    ("E", "k"): "mean_k",
    ("Var", "q"): "var_q",
    ("Var", "k"): "var_k",
}


def _constant(setup: Setup, name: str, assumed: Assumed) -> None:
    assert assumed.right is not None
    value = setup.scope.scalar(assumed.right, f"the value of {name}")
    if value.free_symbols or not value.is_real:
        raise InvalidArgument(f"{name} must be given a number, got {sympy.sstr(value)}")
    if name == "d_k" and not (value.is_Integer and 1 <= value <= MAX_DIMENSION):
        raise InvalidArgument(f"d_k must be a whole number from 1 to {MAX_DIMENSION}, got {value}")
    if CONSTANTS[name]().is_positive and not value.is_positive:
        raise InvalidArgument(f"{name} is positive, got {sympy.sstr(value)}")
    if name in setup.scope.constants:
        raise InvalidArgument(f"{name} is given a value twice")
    setup.scope.constants[name] = value
    setup.described.append(f"{name} = {sympy.sstr(value)}")


def _definition(setup: Setup, name: str, assumed: Assumed) -> None:
    assert assumed.right is not None
    if name in setup.scope.definitions:
        raise InvalidArgument(f"{name} is defined twice")
    setup.scope.definitions[name] = assumed.right
    value = setup.scope.scalar(assumed.right, f"the definition of {name}")
    if name in {s.name for s in value.atoms(RandomVariable)}:
        raise InvalidArgument(f"{name} is defined in terms of itself")
    setup.described.append(f"{name} = {sympy.sstr(value)}")


def _moment(setup: Setup, assumed: Assumed, qk: dict[str, Any], given: set[str]) -> None:
    assert assumed.left is not None
    assert assumed.right is not None
    lhs = setup.scope.scalar(assumed.left, "an assumption")
    value = setup.scope.scalar(assumed.right, "an assumption's value")
    if not isinstance(lhs, (E, Var, Cov)):
        raise InvalidArgument(
            f"cannot assume {assumed.text!r}: an assumption is independent(…), E(…) = v,"
            " Var(…) = v, Cov(…) = v, a constant's value, a definition X = …, or c > 0"
        )
    if is_random(value):
        raise InvalidArgument(f"a moment's value must not be random: {assumed.text!r}")
    atom = lhs.args[0] if isinstance(lhs, (E, Var)) else None
    touches_qk = bool(components_of([lhs]))
    if _paired_covariance(lhs):  # Cov(q_i, k_i) = rho: q and k correlated index by index
        if "cov" in given:
            raise InvalidArgument(f"{assumed.text!r} repeats an assumption about {lhs}")
        qk["cov"] = value
        given.add("cov")
        return
    if isinstance(atom, Component) and isinstance(atom.index, Symbol):
        key = _QK_FIELDS[(type(lhs).__name__, atom.label.name)]
        if key in given:
            raise InvalidArgument(f"{assumed.text!r} repeats an assumption about {atom}")
        qk[key] = value
        given.add(key)
        return
    if touches_qk:
        raise InvalidArgument(
            f"cannot assume {assumed.text!r}: for q and k, give E(q_i), Var(q_i), E(k_i),"
            " Var(k_i), Cov(q_i, k_i) or a law q_i ~ N(0, sigma^2) (every component alike)"
        )
    setup.add(Moment(lhs, value))


def _law(setup: Setup, assumed: Assumed, qk: dict[str, Any], given: set[str]) -> None:
    """``q_i ~ N(0, sigma^2)``: the law's mean, variance, third and fourth moments, stated.

    For a component of q or k they are the setting's (every component alike); for a
    random variable X, moments of X. Each is an assumption of its own in the output,
    marked with the law it comes from (:mod:`scaledattn.language.laws`).
    """
    assert assumed.left is not None
    assert assumed.right is not None
    atom = setup.scope.scalar(assumed.left, "a law's variable")
    args = [setup.scope.scalar(n, "a law's parameter") for n in assumed.right.children]
    moments = law_moments(assumed.names[0], args)
    note = f" (from {assumed.text.strip()})"
    component = isinstance(atom, Component) and isinstance(atom.index, Symbol)
    if component and atom.label.name in ("q", "k"):
        for op, value in (("E", moments.mean), ("Var", moments.variance)):
            key = _QK_FIELDS[(op, atom.label.name)]
            if key in given:
                raise InvalidArgument(f"{assumed.text!r} repeats an assumption about {atom}")
            qk[key] = value
            given.add(key)
    elif isinstance(atom, RandomVariable):
        setup.add(Moment(E(atom), moments.mean), note=note)
        setup.add(Moment(Var(atom), moments.variance), note=note)
    else:
        raise InvalidArgument(
            f"a law is declared for a component q_i, k_i or a random variable X, not {atom}"
        )
    setup.add(Moment(E(atom**3), moments.third), note=note)
    fourth = " by Isserlis" if assumed.names[0] not in ("coin", "rademacher", "Rademacher") else ""
    setup.add(Moment(E(atom**4), moments.fourth), note=f"{note[:-1]}{fourth})")


def _paired_covariance(lhs: Any) -> bool:
    """Whether ``lhs`` is Cov(q_i, k_i) (or Cov(k_i, q_i)): one index, every component alike."""
    if not isinstance(lhs, Cov) or not all(isinstance(a, Component) for a in lhs.args):
        return False
    first, second = lhs.args
    names = {first.label.name, second.label.name}
    return names == {"q", "k"} and first.index == second.index and isinstance(first.index, Symbol)


def _correlation(qk: dict[str, Any]) -> None:
    """Cov(qᵢ, kᵢ) given: the setting's correlation, the covariance over σ_q·σ_k."""
    cov = qk.pop("cov", None)
    if cov is not None:
        spread = sympy.sqrt(qk.get("var_q", sympy.S.One) * qk.get("var_k", sympy.S.One))
        corr = sympy.simplify(cov / spread)
        if corr.is_number and corr.is_real and bool(abs(corr) > 1):  # Cauchy–Schwarz
            raise InvalidArgument(
                f"Cov(q_i, k_i) = {sympy.sstr(cov)} gives the correlation Cov/(σ_q·σ_k) ="
                f" {sympy.sstr(corr)}, and a correlation lies in [-1, 1] (Cauchy–Schwarz)"
            )
        qk["corr"] = corr


def _unit(setup: Setup, name: str) -> Any:
    if name in SCALARS:
        return RandomVariable(name)
    if name in ("q", "k"):
        return RandomVector(name, setup.scope.dimension())
    raise InvalidArgument(f"independent(…) takes random variables X, Y, Z (or q, k), got {name!r}")


@contextmanager
def quoting(scope: ClaimScope, text: str) -> Iterator[None]:
    """Errors raised while reading one assumption quote that assumption, not the claim."""
    claim_text, scope.text = scope.text, text
    try:
        yield
    finally:
        scope.text = claim_text


def _first_pass(setup: Setup, a: Assumed, later: list[Assumed]) -> None:
    """Constants and positivity now; assumptions about random variables go to ``later``."""
    name = str(a.left.value) if a.left is not None and a.left.kind == "name" else ""
    if a.relation == "=" and name in CONSTANTS:
        _constant(setup, name, a)
    elif a.relation == "=" and name in SCALARS:
        later.insert(0, a)
    elif a.relation == "~":
        later.append(a)
    elif a.relation == ">":
        symbol = setup.scope.scalar(a.left, "an assumption") if a.left else None
        zero = setup.scope.scalar(a.right, "an assumption") if a.right else None
        if not (isinstance(symbol, Symbol) and name in CONSTANTS and zero == 0):
            raise InvalidArgument(f"an inequality assumption is NAME > 0, got {a.text!r}")
        setup.add(Positive(symbol))
    else:
        later.append(a)


def _second_pass(setup: Setup, a: Assumed, qk: dict[str, Any], given: set[str]) -> None:
    """Independence, definitions of random variables, and moments."""
    if a.relation == "~":
        _law(setup, a, qk, given)
        return
    if a.relation == "independent":
        units = [_unit(setup, n) for n in a.names]
        if set(a.names) == {"q", "k"}:
            return  # the default already declares every component independent
        setup.add(Independent(*units))
    elif a.left is not None and a.left.kind == "name" and str(a.left.value) in SCALARS:
        _definition(setup, str(a.left.value), a)
    else:
        _moment(setup, a, qk, given)


def prepare(claim: Claim, assumed: Sequence[Assumed]) -> Setup:
    """Read the assumptions, build the claim's sides, and declare what the kernel may use."""
    setup = Setup(claim, ClaimScope(text=claim.text))
    later: list[Assumed] = []
    for a in assumed:
        with quoting(setup.scope, a.text):
            _first_pass(setup, a, later)
    qk: dict[str, Any] = {}
    given: set[str] = set()
    for a in later:
        with quoting(setup.scope, a.text):
            _second_pass(setup, a, qk, given)
    setup.sides = [setup.scope.build(node) for node in claim.sides]
    for node, value in zip(claim.sides, setup.sides, strict=True):
        for x in value if isinstance(value, tuple) else (value,):
            if is_random(x):
                raise InvalidArgument(
                    f"{unparse(node)} is random: a claim compares numbers and moments"
                    " such as E(X), Var(X), std(X); an identity of random terms"
                    " (-norm(q - k)**2/2 = dot(q, k) - …) is a proof file's step"
                    " (scaledattn check-proof)"
                )
    flat = [x for v in setup.sides for x in (v if isinstance(v, tuple) else (v,))]
    if components_of(flat) and _dimension_written_n(flat):
        d_k, n = setup.scope.dimension(), setup.scope.names.constant("n")
        setup.sides = [
            tuple(x.xreplace({n: d_k}) for x in v) if isinstance(v, tuple) else v.xreplace({n: d_k})
            for v in setup.sides
        ]
        flat = [x for v in setup.sides for x in (v if isinstance(v, tuple) else (v,))]
        setup.scope.notes.append("n is read as d_k, the dimension of q and k")
    for note in setup.scope.notes:  # d read as d_k, …: the meaning stated
        setup.described.append(note)
    if components_of(flat) or qk:
        _correlation(qk)
        s = AttentionSetting(d=setup.scope.dimension(), **qk)
        copies = sorted(
            v for v in components_of(flat) if v.rstrip("'") in ("q", "k") and v.endswith("'")
        )
        for assumption in variance_assumptions(s):
            default = not any(k in given for k in _fields_of(assumption))
            setup.add(assumption, default=default)
            if copies and s.corr is None and isinstance(assumption, IndependentComponents):
                family = [RandomVector(v, s.d) for v in ("q", "k", *copies)]
                setup.add(IndependentComponents(*family), default=default)
        for copy in copies if s.corr is None else ():
            _copy_defaults(setup, copy, s)
        if s.corr is not None:  # E[q_i k_i] = Cov(q_i, k_i) + E[q_i]E[k_i], declared with it
            q, k = vectors(s)
            index = sympy.Symbol("i", integer=True, positive=True)
            product = Moment(E(q[index] * k[index]), per_index(s).product)
            setup.add(product, note=" (Cov(q_i, k_i) + E[q_i]·E[k_i])")
        if s.corr is not None:  # the joint law the fourth moments are computed under, stated
            setup.described += [f"{line} (given Cov(q_i, k_i))" for line in provenance(s)]
            setup.described.append(
                "(q_i, k_i) jointly Gaussian, one pair for each i, the pairs independent"
                " (the law E[q_i**2*k_i**2] is computed under, by Isserlis)"
            )
        setup.qk = s
    # The scales c, σ, σ_q, σ_k are positive symbols: each one the claim uses is stated
    # as an assumption (a default), never taken positive silently.
    written = [*flat, *(c.term for c in setup.scope.needs)]  # c in c·E(X)/c, read as E(X)
    for name in SCALES:
        scale = CONSTANTS[name]()
        if name not in setup.scope.constants and any(scale in x.free_symbols for x in written):
            setup.add(Positive(scale), default=True)
    _refuse_undefined(setup)
    setup.env = Environment(tuple(setup.assumptions), Lemmas(setup.qk))
    return setup


def _dimension_written_n(flat: Sequence[Any]) -> bool:
    """Whether a claim about q and k writes their dimension ``n`` (no scores of its own).

    n counts the scores of a softmax; in a claim about q·k with no softmax weight, entry
    or sum over n, it is the dimension of q and k, as in texts that write Var(q·k) = n.
    """
    n = Names().constant("n")
    if not any(n in x.free_symbols for x in flat):
        return False
    scores = (Entry, Softmax, IndexSum)
    return not any(isinstance(node, scores) for x in flat for node in sympy.preorder_traversal(x))


def _copy_defaults(setup: Setup, copy: str, s: AttentionSetting) -> None:
    """A primed q or k (k') is another draw of its vector: its mean and variance, stated.

    The lesson's k' is an independent copy of k (``q·k − q·k'``): its components have
    the law's mean and variance, unless an assumption gives them.
    """
    base = copy.rstrip("'")
    mean, var = (s.mean_q, s.var_q) if base == "q" else (s.mean_k, s.var_k)
    atom = Component(RandomVector(copy, s.d).label, sympy.Symbol("i", integer=True, positive=True))
    given = [a for a in setup.assumptions if isinstance(a, Moment)]
    for op, value in ((E, mean), (Var, var)):
        if not any(isinstance(a.lhs, op) and a.lhs.args[0] == atom for a in given):
            setup.add(Moment(op(atom), value), default=True, note=f" (as {base})")


def _refuse_undefined(setup: Setup) -> None:
    """InvalidArgument for the first term that needs what the assumptions do not give.

    A divisor SymPy cancelled as the claim was read must be ≠ 0, a logarithm's argument
    > 0, a root squared away ≥ 0 (:mod:`scaledattn.language.definedness`): decided with
    the symbols' facts and the declared or default ``c > 0``-style facts; a rounded
    number written positive (``rounded(2.95)``) is positive.
    """
    boxes = setup.scope.boxes.items()
    positive = [Positive(p) for p, box in boxes if box.low is not None and box.low > 0]
    context = Context((*setup.assumptions, *positive))
    needs = [c for c in setup.scope.needs if not declared_nonzero(c, setup.assumptions)]
    unmet = first_unmet(needs, context)
    if unmet is not None:
        why = unmet.refusal(context, '--assume "{} > 0"', lambda s: s.name in CONSTANTS)
        if unmet.need == "nonzero" and isinstance(unmet.term, (E, Var, Cov, Std)):
            shown = sympy.sstr(unmet.term)  # a moment is kept nonzero by a declared value
            why = why.replace(
                "nothing that can be declared keeps it nonzero",
                f'declare its value (--assume "{shown} = 1") or write the term uncancelled',
            )
        raise InvalidArgument(f"{why} in {quote(unmet.source)}" if unmet.source else why)


def _fields_of(assumption: Assumption) -> tuple[str, ...]:
    if isinstance(assumption, Moment) and isinstance(assumption.lhs, (E, Var)):
        atom = assumption.lhs.args[0]
        if isinstance(atom, Component):
            return (_QK_FIELDS[(type(assumption.lhs).__name__, atom.label.name)],)
    if isinstance(assumption, Moment) and _paired_covariance(assumption.lhs):
        return ("cov",)
    if isinstance(assumption, IndependentComponents):
        return ()
    return ()
