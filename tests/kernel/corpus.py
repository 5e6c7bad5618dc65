"""The soundness corpus, as data: wrong derivations to reject, true ones to accept.

Each :class:`Wrong` entry is a mistake a learner or an author could make (several
are made in the source texts): a derivation, the step the kernel must reject (0 for
the statement itself) and the error class it must raise. Most are built by
*tampering* with a registered derivation — one claim replaced, or one assumption
dropped or declared for the wrong variables — so that every theorem of the project
is attacked where it is most delicate. Each :class:`Right` entry is a derivation the
kernel must accept, including true steps that look wrong (a bound index renamed, a
delta absorbed by a range it lies in).

``tests/kernel/test_corpus.py`` runs the whole corpus and checks that it covers
every rule of the kernel (as the rule of a rejected step and of an accepted one) and
every theorem module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from sympy import Abs, Eq, KroneckerDelta, Or, S, Symbol, exp, log, sqrt

from scaledattn.definitions import Lead, OneHot
from scaledattn.derive import calc, equivalence
from scaledattn.errors import (
    CannotDecide,
    IllFormed,
    MissingAssumption,
    ProofError,
    StatementMismatch,
    StepMismatch,
    UnknownRule,
)
from scaledattn.kernel import (
    Assumption,
    Cov,
    CrossSum,
    Deriv,
    Derivation,
    Distinct,
    Dot,
    E,
    Entries,
    Equation,
    Equivalence,
    Independent,
    IndependentComponents,
    IndependentPairs,
    IndexRange,
    IndexSum,
    Lim,
    Mean,
    Moment,
    Positive,
    RandomVector,
    RealVector,
    Rule,
    Std,
    Step,
    UnitVariance,
    Var,
    Variance,
    ZeroMean,
    axiom,
    check,
    dimension,
    index,
    random_variables,
)
from scaledattn.kernel import calculus as C
from scaledattn.kernel import rules as R
from scaledattn.kernel.assumptions import Independence
from scaledattn.proofs import dot_product_variance as dpv
from scaledattn.proofs import projected_scores as ps
from scaledattn.proofs import saturation_limits as sat
from scaledattn.proofs import shift_invariance as shift
from scaledattn.proofs import softmax_gradient as grad
from scaledattn.proofs import unique_scale as uniq
from scaledattn.registry import find_derivation

X, Y, Z = random_variables("X Y Z")
d = dimension("d_k")
q, k = RandomVector("q", d), RandomVector("k", d)
q3, k3 = RandomVector("q", 3), RandomVector("k", 3)
i, j, m, t, w, ell = (index(x) for x in "ijmtwl")
a, c = Symbol("a", real=True), Symbol("c", real=True)
mu_q, mu_k = Symbol("mu_q", real=True), Symbol("mu_k", real=True)
sigma = Symbol("sigma", positive=True)
n, N, M = dimension("n"), dimension("N"), dimension("m")
zc = Symbol("z")  # no assumptions: a complex constant
lam = Symbol("lambda", real=True)
s, y, r = RealVector("s", n), RealVector("y", n), RealVector("r", n)
delta = KroneckerDelta
LESSON = dpv.LESSON


@dataclass(frozen=True)
class Wrong:
    """A wrong derivation, the step that must be rejected (0: the statement) and the error.

    ``theorem`` names the proof module whose mathematics the mistake is about
    (None for a mistake about the checker itself, such as an unknown rule).
    """

    name: str
    theorem: str | None
    build: Callable[[], Derivation]
    step: int
    error: type[ProofError]


@dataclass(frozen=True)
class Right:
    """A derivation the kernel must accept."""

    name: str
    build: Callable[[], Derivation]


# --------------------------------------------------------------------- builders


def one(rule: Any, prev: Any, claim: Any, assuming: Iterable[Assumption] = ()) -> Derivation:
    """The one-step derivation prev = claim (or prev ⇔ claim for propositions) by ``rule``."""
    statement = Equivalence if isinstance(prev, (Eq, Or)) else Equation
    return Derivation("corpus", statement(prev, claim), (Step(rule, claim),), tuple(assuming))


def tamper(name: str, step: int, claim: Any) -> Callable[[], Derivation]:
    """The registered derivation ``name`` with the claim of ``step`` (1-based) replaced."""

    def build() -> Derivation:
        d = find_derivation(name)
        steps = list(d.steps)
        steps[step - 1] = replace(steps[step - 1], claim=claim)
        return replace(d, name=f"{name} (tampered)", steps=tuple(steps))

    return build


def assuming(
    name: str, drop: Iterable[Assumption] = (), add: Iterable[Assumption] = ()
) -> Callable[[], Derivation]:
    """The registered derivation ``name`` with assumptions dropped and others declared."""

    def build() -> Derivation:
        d = find_derivation(name)
        gone = set(drop)
        kept = tuple(x for x in d.assumptions if x not in gone)
        return replace(d, name=f"{name} (assumptions changed)", assumptions=(*kept, *add))

    return build


def _var_sum_prefix(name: str, rhs: Any, assume: Iterable[Assumption] = ()) -> Any:
    return (
        calc(name, Var(X + Y), rhs, assuming=assume)
        .eq(E((X + Y) ** 2) - E(X + Y) ** 2, by=R.variance_def)
        .eq(E(X**2) + 2 * E(X * Y) + E(Y**2) - (E(X) + E(Y)) ** 2, by=R.expectation_linear)
    )


def _scale_chain(name: str, claim_roots: Any, claim: Any) -> Derivation:
    return (
        equivalence(name, Eq(d / c**2, 1), claim, assuming=[*LESSON, Positive(c)])
        .iff(Eq(d - c**2, 0), by=R.clear_denominator)
        .iff(claim_roots, by=R.square_roots)
        .iff(claim, by=R.exclude_by_sign)
        .qed()
    )


def _forget_mean(e: Any, ctx: Any, scope: Any) -> Any:
    return (E(e.args[0] ** 2), frozenset()) if isinstance(e, Var) else None


class _SaysPositive(Symbol):
    """A user's Symbol subclass that declares itself positive, silently."""

    is_positive = True
    is_real = True


SAYS_POSITIVE = _SaysPositive("sigma")


class _EveryAtomAlone(Independence):
    """An independence family of one's own: every atom in a block of its own."""

    def block_key(self, atom: Any) -> Any:
        return (object(), None)


def _forged_theorem() -> Any:
    """E[X] = E[X], checked, then copied with the statement E[X] = 0."""
    proved = check(calc("reflexive", E(X), E(X)).eq(E(X), by=R.ring).qed())
    return replace(proved, statement=Equation(E(X), S.Zero))


#: A rule that is not a law and not registered (Var(Z) = E[Z²] forgets −E[Z]²).
FORGET_MEAN = Rule("forget_mean", "Var(Z) = E[Z²] (false)", _forget_mean)


def _lemma_about_t() -> Derivation:
    """E[X·t] = 1 for the free t, proved from the declared moment."""
    return (
        calc("lemma_about_t", E(X * t), 1, assuming=[Moment(E(X * t), 1)])
        .eq(1, by=R.substitute_moment)
        .qed()
    )


# The softmax Jacobian's steps, as written in proofs/softmax_gradient.py.
Zs = IndexSum(exp(s[j]), j, n)

# ------------------------------------------------------------------ wrong ones

WRONG: list[Wrong] = [
    # ---------------------------------------------------- Var(X + Y) (variance_of_sum)
    Wrong(
        "dropping 2Cov(X, Y) without independence",
        "variance_of_sum",
        lambda: (
            _var_sum_prefix("drop_cov", Var(X) + Var(Y))
            .eq(Var(X) + Var(Y), by=R.variance_def)
            .qed()
        ),
        3,
        StepMismatch,
    ),
    Wrong(
        "using an independence that was not declared",
        "variance_of_sum",
        lambda: (
            _var_sum_prefix("undeclared", Var(X) + Var(Y))
            .eq(
                E(X**2) + 2 * E(X) * E(Y) + E(Y**2) - (E(X) + E(Y)) ** 2,
                by=R.expectation_mul_of_indep,
            )
            .eq(Var(X) + Var(Y), by=R.variance_def)
            .qed()
        ),
        3,
        MissingAssumption,
    ),
    Wrong(
        "independence declared for a different pair: X ⊥ Z used for E[XY]",
        "variance_of_sum",
        lambda: (
            _var_sum_prefix("other_pair", Var(X) + Var(Y), [Independent(X, Z)])
            .eq(
                E(X**2) + 2 * E(X) * E(Y) + E(Y**2) - (E(X) + E(Y)) ** 2,
                by=R.expectation_mul_of_indep,
            )
            .qed()
        ),
        3,
        MissingAssumption,
    ),
    Wrong(
        "a sign error in Var Z = E[Z²] − E[Z]²",
        "variance_of_sum",
        lambda: one(R.variance_def, Var(X + Y), E(X + Y) ** 2 - E((X + Y) ** 2)),
        1,
        StepMismatch,
    ),
    Wrong(
        "(X + Y)² expanded without the cross term, by ring",
        "variance_of_sum",
        tamper("variance_of_sum", 2, E(X**2 + Y**2) - E(X + Y) ** 2),
        2,
        StepMismatch,
    ),
    Wrong(
        "Var(X + Y) = Var X + Var Y without declaring X ⊥ Y",
        "variance_of_sum",
        assuming("variance_of_sum_of_indep", drop=[Independent(X, Y)]),
        3,
        MissingAssumption,
    ),
    Wrong(
        "pairwise independence used for a product of three",
        "variance_of_sum",
        lambda: one(
            R.expectation_mul_of_indep,
            E(X * Y * Z),
            E(X) * E(Y) * E(Z),
            [Independent(X, Y), Independent(Y, Z), Independent(X, Z)],
        ),
        1,
        MissingAssumption,
    ),
    Wrong(
        "Cov(X, X) taken to be 0",
        "variance_of_sum",
        lambda: one(R.covariance_def, Cov(X, X), S.Zero),
        1,
        StepMismatch,
    ),
    Wrong(
        "linearity used to factor a product",
        "variance_of_sum",
        lambda: one(R.expectation_linear, E(X * Y), E(X) * E(Y)),
        1,
        StepMismatch,
    ),
    Wrong(
        "a chain that stops short of its statement",
        "variance_of_sum",
        lambda: (
            calc("short", Var(X + Y), Var(X) + Var(Y) + 2 * Cov(X, Y))
            .eq(E((X + Y) ** 2) - E(X + Y) ** 2, by=R.variance_def)
            .qed()
        ),
        0,
        StatementMismatch,
    ),
    Wrong(
        "a rule that does not exist",
        None,
        lambda: one("variance_add_magic", Var(X + Y), Var(X) + Var(Y)),
        1,
        UnknownRule,
    ),
    Wrong(
        "√(a²) = a, true only for a ≥ 0, is refused as undecided rather than passed",
        None,
        lambda: one(R.ring, sqrt(a**2), a),
        1,
        CannotDecide,
    ),
    # --------------------------------------------------- Var(q·k) (dot_product_variance)
    Wrong(
        "counting d_k² cross terms (means make the count matter)",
        "dot_product_variance",
        tamper(
            "dot_product_variance_with_means",
            9,
            -(d**2) * mu_k**2 * mu_q**2
            + d**2 * mu_k**2 * mu_q**2
            + d * (mu_k**2 + dpv.sigma_k**2) * (mu_q**2 + dpv.sigma_q**2),
        ),
        9,
        StepMismatch,
    ),
    Wrong(
        "an off-by-one in the count of cross terms: d_k(d_k + 1)",
        "dot_product_variance",
        tamper(
            "dot_product_variance_with_means",
            9,
            -(d**2) * mu_k**2 * mu_q**2
            + d * (d + 1) * mu_k**2 * mu_q**2
            + d * (mu_k**2 + dpv.sigma_k**2) * (mu_q**2 + dpv.sigma_q**2),
        ),
        9,
        StepMismatch,
    ),
    Wrong(
        "an off-by-one in the count of cross terms (a constant summand)",
        "dot_product_variance",
        lambda: one(R.count_terms, CrossSum(mu_q, i, j, d), d * (d + 1) * mu_q),
        1,
        StepMismatch,
    ),
    Wrong(
        "a step true only for d_k = 1: no cross terms at all",
        "dot_product_variance",
        lambda: one(R.count_terms, CrossSum(mu_q, i, j, d), S.Zero),
        1,
        StepMismatch,
    ),
    Wrong(
        "a step true only for d_k = 1: Var(q·k) = 1",
        "dot_product_variance",
        tamper("dot_product_variance", 10, S.One),
        10,
        StepMismatch,
    ),
    Wrong(
        "the diagonal dropped when the double sum is split",
        "dot_product_variance",
        tamper(
            "dot_product_variance",
            5,
            CrossSum(E(q[i] * k[i] * q[j] * k[j]), i, j, d) - IndexSum(E(q[i] * k[i]), i, d) ** 2,
        ),
        5,
        StepMismatch,
    ),
    Wrong(
        "q·k = Σᵢ qᵢkⱼ (the wrong index on k)",
        "dot_product_variance",
        tamper("dot_product_mean", 1, E(IndexSum(q[i] * k[j], i, d))),
        1,
        StepMismatch,
    ),
    Wrong(
        "the square of a sum taken as the sum of squares",
        "dot_product_variance",
        lambda: (
            calc("sum_sq", E(Dot(q, k) ** 2), IndexSum(E(q[i] ** 2 * k[i] ** 2), i, d))
            .eq(E(IndexSum(q[i] * k[i], i, d) ** 2), by=R.dot_def)
            .eq(E(IndexSum(q[i] ** 2 * k[i] ** 2, i, d)), by=R.sum_mul_sum)
            .eq(IndexSum(E(q[i] ** 2 * k[i] ** 2), i, d), by=R.expectation_linear)
            .qed()
        ),
        2,
        StepMismatch,
    ),
    Wrong(
        "a term lost when the d_k = 3 sum is unrolled",
        "dot_product_variance",
        tamper("dot_product_second_moment_d3", 2, E((k3[1] * q3[1] + k3[2] * q3[2]) ** 2)),
        2,
        StepMismatch,
    ),
    Wrong(
        "independence declared for the components of q only, used for q and k",
        "dot_product_variance",
        assuming(
            "dot_product_variance",
            drop=[IndependentComponents(dpv.q, dpv.k)],
            add=[IndependentComponents(dpv.q)],
        ),
        6,
        MissingAssumption,
    ),
    Wrong(
        "factoring E[qᵢqⱼ] in a full double sum, where i may equal j",
        "dot_product_variance",
        lambda: one(
            R.expectation_mul_of_indep,
            IndexSum(IndexSum(E(q[i] * q[j]), j, d), i, d),
            IndexSum(IndexSum(E(q[i]) * E(q[j]), j, d), i, d),
            [IndependentComponents(q)],
        ),
        1,
        MissingAssumption,
    ),
    Wrong(
        "an inner sum that rebinds j inside Σ_{i≠j}: i = j is back, E[qᵢqⱼ] cannot factor",
        "dot_product_variance",
        lambda: (
            calc(
                "shadowed_index",
                CrossSum(IndexSum(E(q[i] * q[j]), j, d), i, j, d),
                S.Zero,  # false: the sum is d_k(d_k − 1)·E[qᵢ²] = d_k(d_k − 1)
                assuming=[IndependentComponents(q), ZeroMean(q), UnitVariance(q)],
            )
            .eq(CrossSum(IndexSum(E(q[i]) * E(q[j]), j, d), i, j, d), by=R.expectation_mul_of_indep)
            .eq(CrossSum(IndexSum(S.Zero, j, d), i, j, d), by=R.substitute_moment)
            .eq(S.Zero, by=R.count_terms)
            .qed()
        ),
        1,
        MissingAssumption,
    ),
    Wrong(
        "factoring E[qᵢ²kᵢ²] when only the pairs are independent (qᵢ, kᵢ correlated)",
        "dot_product_variance",
        lambda: one(
            R.expectation_mul_of_indep,
            E(q[i] ** 2 * k[i] ** 2),
            E(q[i] ** 2) * E(k[i] ** 2),
            [IndependentPairs(q, k)],
        ),
        1,
        MissingAssumption,
    ),
    Wrong(
        "E[qᵢ²] = 1 without a variance assumption",
        "dot_product_variance",
        lambda: one(R.substitute_moment, E(q[i] ** 2), S.One, [ZeroMean(q)]),
        1,
        MissingAssumption,
    ),
    Wrong(
        "a moment substituted for the wrong variable: E[kᵢ] = μ_q",
        "dot_product_variance",
        lambda: one(R.substitute_moment, E(k[i]), mu_q, [Mean(q, mu_q), Mean(k, mu_k)]),
        1,
        StepMismatch,
    ),
    Wrong(
        "E[X] = t (the free t) substituted inside Σ_t, where t is the bound index",
        "dot_product_variance",
        lambda: (
            calc("moment_under_sum", IndexSum(E(X), t, n), n * (n + 1) / 2, assuming=[Mean(X, t)])
            .eq(IndexSum(t, t, n), by=R.substitute_moment)
            .eq(n * (n + 1) / 2, by=R.sum_unroll)
            .qed()
        ),
        1,
        MissingAssumption,
    ),
    Wrong(
        "a variance for q used for k",
        "dot_product_variance",
        lambda: one(R.substitute_moment, Var(k[i]), sigma**2, [Variance(q, sigma**2)]),
        1,
        MissingAssumption,
    ),
    Wrong(
        "the means swapped in the general variance: μ_q²σ_q² for μ_k²σ_q²",
        "dot_product_variance",
        tamper(
            "dot_product_variance_with_means",
            10,
            d
            * (
                mu_q**2 * dpv.sigma_q**2
                + mu_q**2 * dpv.sigma_k**2
                + dpv.sigma_k**2 * dpv.sigma_q**2
            ),
        ),
        10,
        StepMismatch,
    ),
    # ----------------------------------------------------- the scale (unique_scale)
    Wrong(
        "Var(q·k/c) = d_k/c (the square forgotten)",
        "unique_scale",
        tamper("scaled_variance", 1, Var(Dot(uniq.q, uniq.k)) / c),
        1,
        StepMismatch,
    ),
    Wrong(
        "a division by c where c could be 0",
        "unique_scale",
        lambda: one(R.variance_const_mul, Var(Dot(q, k) / c), Var(Dot(q, k)) / c**2, LESSON),
        1,
        IllFormed,
    ),
    Wrong(
        "multiplying through by c² without c > 0",
        "unique_scale",
        lambda: one(R.clear_denominator, Eq(d / c**2, 1), Eq(d - c**2, 0), LESSON),
        1,
        IllFormed,
    ),
    Wrong(
        "the unique scale without declaring c > 0 (the cited lemma needs it)",
        "unique_scale",
        assuming("unique_scale", drop=[Positive(uniq.c)]),
        1,
        IllFormed,
    ),
    Wrong(
        "Var(q·k) = d_k cited when the means are not zero",
        "unique_scale",
        lambda: (
            calc(
                "means",
                Var(Dot(q, k) / c),
                d / c**2,
                assuming=[
                    IndependentComponents(q, k),
                    Mean(q, mu_q),
                    ZeroMean(k),
                    UnitVariance(q),
                    UnitVariance(k),
                    Positive(c),
                ],
            )
            .eq(Var(Dot(q, k)) / c**2, by=R.variance_const_mul)
            .eq(d / c**2, by=dpv.dot_product_variance)
            .qed()
        ),
        2,
        MissingAssumption,
    ),
    Wrong(
        "c = d_k as the scale",
        "unique_scale",
        lambda: _scale_chain("c_is_d", Or(Eq(c, d), Eq(c, -d)), Eq(c, d)),
        2,
        StepMismatch,
    ),
    Wrong(
        "the negative root kept: c = −√d_k",
        "unique_scale",
        tamper("unique_scale", 4, Eq(uniq.c, -sqrt(d))),
        4,
        StepMismatch,
    ),
    Wrong(
        "the negative root excluded without declaring c > 0",
        "unique_scale",
        lambda: (
            equivalence("no_domain", Eq(c**2, d), Eq(c, sqrt(d)))
            .iff(Or(Eq(c, sqrt(d)), Eq(c, -sqrt(d))), by=R.square_roots)
            .iff(Eq(c, sqrt(d)), by=R.exclude_by_sign)
            .qed()
        ),
        2,
        MissingAssumption,
    ),
    Wrong(
        "only the positive root of c² = d_k, before c > 0 is used",
        "unique_scale",
        lambda: one(R.square_roots, Eq(d - c**2, 0), Eq(c, sqrt(d)), [Positive(c)]),
        1,
        StepMismatch,
    ),
    Wrong(
        "Std(q·k/d_k) = Var(q·k/d_k) (the root forgotten)",
        "unique_scale",
        tamper("scale_by_d_k", 1, Var(Dot(uniq.q, uniq.k) / uniq.d)),
        1,
        StepMismatch,
    ),
    Wrong(
        "√(c²d_k) = c√d_k for a c that could be negative",
        "unique_scale",
        lambda: one(R.sqrt_mul, sqrt(c**2 * d), c * sqrt(d)),
        1,
        CannotDecide,
    ),
    Wrong(
        "Var(2X) = 2Var(X)",
        "unique_scale",
        lambda: one(R.variance_const_mul, Var(2 * X), 2 * Var(X)),
        1,
        StepMismatch,
    ),
    # ---------------------------------------------------------------- the exercises
    Wrong(
        "exercise 3: component variance 4 gives 4·d_k (σ² instead of σ_q²σ_k²)",
        "exercises",
        tamper("exercise3_variance", 10, 4 * d),
        10,
        StepMismatch,
    ),
    Wrong(
        "exercise 1: d_k = 2 has one cross term, not two",
        "exercises",
        tamper(
            "exercise1_variance",
            9,
            CrossSum(S.Zero, i, j, 2) - IndexSum(S.Zero, i, 2) ** 2 + IndexSum(S.One, i, 1),
        ),
        9,
        StepMismatch,
    ),
    Wrong(
        "exercise 3: the scale 4√d_k taken as 2√d_k",
        "exercises",
        tamper("exercise3_scale", 7, Eq(c, 2 * sqrt(d))),
        7,
        StepMismatch,
    ),
    # ---------------------------------------------------------- shift_invariance
    Wrong(
        "e^a pulled out of the normaliser but left in the numerator",
        "shift_invariance",
        tamper(
            "shift_invariance", 3, exp(shift.a) * exp(shift.s[i]) / IndexSum(exp(shift.s[j]), j, n)
        ),
        3,
        StepMismatch,
    ),
    Wrong(
        "the shifted scores read off a different vector's declaration",
        "shift_invariance",
        tamper(
            "shift_invariance",
            2,
            exp(shift.s[i]) / IndexSum(exp(shift.s[j]), j, n),
        ),
        2,
        StepMismatch,
    ),
    Wrong(
        "the score difference of two keys has variance d_k (the second key forgotten)",
        "shift_invariance",
        tamper("score_difference_variance", 10, d),
        10,
        StepMismatch,
    ),
    Wrong(
        "independence declared for q and k only, used for the second key k'",
        "shift_invariance",
        assuming(
            "score_difference_variance",
            drop=[IndependentComponents(shift.q, shift.k, shift.k2)],
            add=[IndependentComponents(shift.q, shift.k)],
        ),
        7,
        MissingAssumption,
    ),
    # --------------------------------------------------------- softmax_gradient
    Wrong(
        "softmax without the exponential in the numerator",
        "softmax_gradient",
        tamper("softmax_gradient", 1, Deriv(s[i] / Zs, s[m])),
        1,
        StepMismatch,
    ),
    Wrong(
        "the product rule replaced by the product of derivatives",
        "softmax_gradient",
        tamper("softmax_gradient", 2, Deriv(exp(s[i]), s[m]) * Deriv(Zs**-1, s[m])),
        2,
        StepMismatch,
    ),
    Wrong(
        "∂(1/Z) = −∂Z/Z (the square of Z forgotten)",
        "softmax_gradient",
        tamper(
            "softmax_gradient",
            3,
            exp(s[i]) * Deriv(s[i], s[m]) / Zs - exp(s[i]) * Deriv(Zs, s[m]) / Zs,
        ),
        3,
        StepMismatch,
    ),
    Wrong(
        "a dropped Kronecker delta: ∂sᵢ/∂sₘ = 1",
        "softmax_gradient",
        tamper(
            "softmax_gradient",
            6,
            exp(s[i]) / Zs - exp(s[i]) * IndexSum(exp(s[j]), j, n) / Zs**2,
        ),
        6,
        StepMismatch,
    ),
    Wrong(
        "a free index summed against a delta without its range declared",
        "softmax_gradient",
        assuming("softmax_gradient", drop=[IndexRange(m, n)]),
        7,
        StepMismatch,
    ),
    Wrong(
        "a sum over a mixed range: Σ_{m≤N} Σ_{j≤n} δⱼₘ = N",
        "softmax_gradient",
        lambda: one(
            C.sum_delta, IndexSum(IndexSum(delta(j, m), j, n), m, N), IndexSum(S.One, m, N)
        ),
        1,
        StepMismatch,
    ),
    Wrong(
        "a varying factor treated as a constant: ∂(sᵢsⱼ) = sᵢ∂sⱼ",
        "softmax_gradient",
        lambda: one(C.deriv_linear, Deriv(s[i] * s[j], s[m]), s[i] * Deriv(s[j], s[m])),
        1,
        StepMismatch,
    ),
    Wrong(
        "∂ log sᵢ = ∂sᵢ/sᵢ for an sᵢ that may be negative",
        "softmax_gradient",
        lambda: one(C.deriv_chain, Deriv(log(s[i]), s[m]), Deriv(s[i], s[m]) / s[i]),
        1,
        IllFormed,
    ),
    Wrong(
        "the one-hot target read at the wrong index",
        "softmax_gradient",
        tamper(
            "cross_entropy_gradient",
            7,
            -delta(m, w) + grad.p[m] * IndexSum(delta(i, w), i, n),
        ),
        7,
        StepMismatch,
    ),
    Wrong(
        "∂L/∂s = y − p (the sign of the gradient)",
        "softmax_gradient",
        tamper("cross_entropy_gradient", 9, grad.y[m] - grad.p[m]),
        9,
        StepMismatch,
    ),
    # -------------------------------------------------------- saturation_limits
    Wrong(
        "the delta treated as one: every score gets the lead",
        "saturation_limits",
        tamper(
            "lead_power_sum_1",
            2,
            IndexSum(exp(s[j] + lam), j, n),
        ),
        2,
        StepMismatch,
    ),
    Wrong(
        "the limit of p_i taken as 1/n (uniform) under a growing lead",
        "saturation_limits",
        tamper("saturation_limits", 5, 1 / n),
        5,
        StepMismatch,
    ),
    Wrong(
        "the limit of a divergent ratio: e^{2λ}/(1 + e^λ) → 0",
        "saturation_limits",
        lambda: one(C.limit_at_infinity, Lim(exp(2 * lam) / (1 + exp(lam)), lam), S.Zero),
        1,
        IllFormed,
    ),
    Wrong(
        "a limit whose denominator's leading coefficient could be 0",
        "saturation_limits",
        lambda: one(
            C.limit_at_infinity,
            Lim(exp(lam) / (Symbol("x", real=True) * exp(lam) + 1), lam),
            1 / Symbol("x", real=True),
        ),
        1,
        IllFormed,
    ),
    Wrong(
        "‖p − y‖ → 2: the limit of the squared norm given for the norm",
        "saturation_limits",
        tamper("p_minus_y_limit", 8, S(2)),
        8,
        StepMismatch,
    ),
    Wrong(
        "the Jacobian's norm tends to 1, not 0",
        "saturation_limits",
        tamper("jacobian_vanishes", 7, S.One),
        7,
        StepMismatch,
    ),
    Wrong(
        "δₜw = 0 without declaring t ≠ w",
        "saturation_limits",
        assuming("p_minus_y_limit", drop=[Distinct(t, w)]),
        1,  # without t ≠ w, Σpᵢ² − 2pₜ + 1 ≥ 0 is not shown: at t = w its form's
        IllFormed,  # leading coefficients cancel (it is Σ_{i≠w} pᵢ² + (1 − p_w)² ≥ 0)
    ),
    Wrong(
        "t ≠ w used inside Σ_w, where the bound w runs through t: Σ_w δ_tw = 0",
        "saturation_limits",
        lambda: (
            calc(
                "bound_w",
                IndexSum(delta(t, w), w, n),
                S.Zero,
                assuming=[Distinct(t, w), IndexRange(t, n)],
            )
            .eq(IndexSum(S.Zero, w, n), by=C.delta_distinct)
            .eq(S.Zero, by=R.count_terms)
            .qed()
        ),
        1,
        StepMismatch,
    ),
    Wrong(
        "a lemma proved for t ≠ w cited inside Σ_w, where the bound w runs through t",
        "saturation_limits",
        lambda: (
            calc(
                "lemma_under_sum",
                IndexSum(delta(t, w), w, n),
                S.Zero,
                assuming=[Distinct(t, w), IndexRange(t, n)],
            )
            .eq(
                IndexSum(S.Zero, w, n),
                by=calc("lemma", delta(t, w), S.Zero, assuming=[Distinct(t, w)])
                .eq(S.Zero, by=C.delta_distinct)
                .qed(),
            )
            .eq(S.Zero, by=R.count_terms)
            .qed()
        ),
        1,
        StepMismatch,
    ),
    Wrong(
        "the lead at w unfolded inside Σ_w: every score gets it, Σ_w r_w = Σ_w s_w + nλ",
        "saturation_limits",
        lambda: (
            calc(
                "captured_w",
                IndexSum(r[w], w, n),
                IndexSum(s[w], w, n) + n * lam,
                assuming=[Lead(r, s, w, lam), IndexRange(w, n)],
            )
            .eq(IndexSum(s[w] + lam, w, n), by=C.entries_def)
            .eq(IndexSum(s[w], w, n) + IndexSum(lam, w, n), by=R.sum_linear)
            .eq(IndexSum(s[w], w, n) + n * lam, by=R.count_terms)
            .qed()
        ),
        1,
        StepMismatch,
    ),
    Wrong(
        "a lemma r_w = s_w + λ (the lead at w) cited inside Σ_w, where it captures w",
        "saturation_limits",
        lambda: (
            calc(
                "captured_lemma",
                IndexSum(r[w], w, n),
                IndexSum(s[w] + lam, w, n),
                assuming=[Lead(r, s, w, lam), IndexRange(w, n)],
            )
            .eq(
                IndexSum(s[w] + lam, w, n),
                by=calc("lead_here", r[w], s[w] + lam, assuming=[Lead(r, s, w, lam)])
                .eq(s[w] + lam * delta(w, w), by=C.entries_def)
                .qed(),
            )
            .qed()
        ),
        1,
        StepMismatch,
    ),
    Wrong(
        "t ≠ m declared where t ≠ w is needed",
        "saturation_limits",
        assuming("p_minus_y_limit", drop=[Distinct(t, w)], add=[Distinct(t, m)]),
        1,  # without t ≠ w, Σpᵢ² − 2pₜ + 1 ≥ 0 is not shown: at t = w its form's
        IllFormed,  # leading coefficients cancel (it is Σ_{i≠w} pᵢ² + (1 − p_w)² ≥ 0)
    ),
    Wrong(
        "the delta dropped from the limit of p_i",
        "saturation_limits",
        tamper("saturation_limits", 6, exp(sat.s[i] - sat.s[w])),
        6,
        StepMismatch,
    ),
    Wrong(
        "a lead that depends on λ treated as constant in the limit",
        "saturation_limits",
        lambda: one(
            C.limit_at_infinity,
            Lim(sat.p[i], lam),
            sat.p[i],
            [Lead(r, s, w, lam), IndexRange(w, n)],
        ),
        1,
        StepMismatch,
    ),
    # ------------------------------------- the binder discipline (issue 12, kernel half)
    # Each was accepted (or crashed the kernel) before scaledattn/kernel/binders.py;
    # the numbers in the name show it false.
    Wrong(
        "shadowing: Σᵢ₌₁ⁿ Σᵢ₌₁ᵐ i = Σᵢ₌₁ᵐ Σᵢ₌₁ⁿ i (n = 2, m = 1: 2 vs 3)",
        None,
        lambda: one(R.ring, IndexSum(IndexSum(i, i, M), i, n), IndexSum(IndexSum(i, i, n), i, M)),
        1,
        StepMismatch,
    ),
    Wrong(
        "capture: Σᵢ i · Σⱼ i = Σᵢ Σⱼ i·i with the second i free (n = 1, i = 2: 2 vs 1)",
        None,
        lambda: one(
            R.sum_mul_sum,
            IndexSum(i, i, n) * IndexSum(i, j, n),
            IndexSum(IndexSum(i * i, j, n), i, n),
        ),
        1,
        StepMismatch,
    ),
    Wrong(
        "a limit binds: δ_ab·b·lim_b eᵃ/(eᵃ + eᵇ) rewritten b ↦ a inside (0 vs 1/2)",
        None,
        lambda: one(
            C.delta_eq,
            delta(a, c) * c * Lim(exp(a) / (exp(a) + exp(c)), c),
            delta(a, c) * a * Lim(S.Half, a),
        ),
        1,
        CannotDecide,
    ),
    Wrong(
        "a Python int as the claim E[X] = 5 (the kernel crashed with AttributeError)",
        None,
        lambda: one(R.ring, E(X), 5),
        1,
        StepMismatch,
    ),
    Wrong(
        "a float as a claim is not a term: E[X] = 0.5",
        None,
        lambda: one(R.ring, E(X), 0.5),
        1,
        IllFormed,
    ),
    Wrong(
        "a string as a claim is never parsed: E[X] = 'E(X)'",
        None,
        lambda: one(R.ring, E(X), "E(X)"),
        1,
        IllFormed,
    ),
    Wrong(
        "Fubini over a dependent bound: Σᵢ₌₁ⁿ Σⱼ₌₁ⁱ 1 = Σⱼ₌₁ⁱ Σᵢ₌₁ⁿ 1 (n = 2, i = 1: 3 vs 2)",
        None,
        lambda: one(R.ring, IndexSum(IndexSum(1, j, i), i, n), IndexSum(IndexSum(1, i, n), j, i)),
        1,
        StepMismatch,
    ),
    Wrong(
        "the triangle the other way: Σᵢ Σ_{j≤i} i = Σⱼ Σ_{i≤j} i (n = 2: 5 vs 4)",
        None,
        lambda: one(R.ring, IndexSum(IndexSum(i, j, i), i, n), IndexSum(IndexSum(i, i, j), j, n)),
        1,
        StepMismatch,
    ),
    Wrong(
        "a bound's own index: Σ_{i=1}^{i} i = i·i (i = 2: 3 vs 4)",
        None,
        lambda: one(R.count_terms, IndexSum(i, i, i), i * i),
        1,
        StepMismatch,
    ),
    Wrong(
        "a moment about the free t used under Σₜ: Σₜ E[Xt] = n from E[Xt] = 1 (t₀ = 1, n = 2: 3)",
        None,
        lambda: one(
            R.substitute_moment,
            IndexSum(E(X * t), t, n),
            IndexSum(S.One, t, n),
            [Moment(E(X * t), 1)],
        ),
        1,
        MissingAssumption,
    ),
    Wrong(
        "a moment about the free c used under lim_c: lim E[Xc] = 1 (E[X] = 1: lim c = ∞)",
        None,
        lambda: one(R.substitute_moment, Lim(E(X * c), c), Lim(S.One, c), [Moment(E(X * c), 1)]),
        1,
        IllFormed,
    ),
    Wrong(
        "a range of the free m used under lim_m: lim_m Σⱼ₌₁ⁿ δⱼₘ = 1 (it is 0 once m > n)",
        None,
        lambda: (
            calc("corpus", Lim(IndexSum(delta(j, m), j, n), m), 1, assuming=[IndexRange(m, n)])
            .eq(Lim(S.One, m), by=C.sum_delta)
            .eq(1, by=C.limit_at_infinity)
            .qed()
        ),
        1,
        IllFormed,
    ),
    Wrong(
        "E declares itself real: √(E[z]²) = |E[z]| for a complex z (z = i: i vs 1)",
        None,
        lambda: one(R.ring, sqrt(E(zc) ** 2), Abs(E(zc))),
        1,
        CannotDecide,
    ),
    Wrong(
        "a rule of one's own, not registered, forgets −E[X]²: Var(X) = E[X²] (X = 1: 0 vs 1)",
        None,
        lambda: one(FORGET_MEAN, Var(X), E(X**2)),
        1,
        UnknownRule,
    ),
    Wrong(
        "a rule of one's own under a registered name: 'ring' that forgets −E[X]²",
        None,
        lambda: one(Rule("ring", "ring", FORGET_MEAN.local), Var(X), E(X**2)),
        1,
        UnknownRule,
    ),
    Wrong(
        "a lemma from a moment about the free t used under Σₜ: Σₜ E[Xt] = n",
        None,
        lambda: one(_lemma_about_t(), IndexSum(E(X * t), t, n), n, [Moment(E(X * t), 1)]),
        1,
        StepMismatch,
    ),
    Wrong(
        "Σⱼ δⱼₘ Σₘ sₘsⱼ sifted with capture: Σₘ sₘsₘ (the inner m is another m)",
        None,
        lambda: one(
            C.sum_delta,
            IndexSum(delta(j, m) * IndexSum(s[m] * s[j], m, n), j, n),
            IndexSum(s[m] * s[m], m, n),
            [IndexRange(m, n)],
        ),
        1,
        StepMismatch,
    ),
    Wrong(
        "a definition read with capture: r_j = s_j + Σᵢ sᵢsⱼ read at i as s_i + Σᵢ sᵢ²",
        None,
        lambda: one(
            C.entries_def,
            r[i],
            s[i] + IndexSum(s[i] ** 2, i, n),
            [Entries(r, s[j] + IndexSum(s[i] * s[j], i, n), j)],
        ),
        1,
        StepMismatch,
    ),
    Wrong(
        "a user's class that declares itself positive: √(σ²) = σ 'assuming nothing' (σ = −1)",
        None,
        lambda: one(R.ring, sqrt(SAYS_POSITIVE**2), SAYS_POSITIVE),
        1,
        IllFormed,
    ),
    Wrong(
        "a proved theorem copied with another statement: E[X] = 0 from E[X] = E[X]",
        None,
        lambda: one(_forged_theorem(), E(X) + 1, S.One),
        1,
        UnknownRule,
    ),
    Wrong(
        "an independence family of one's own, every atom its own block: E[XY] = E[X]E[Y]",
        None,
        lambda: one(R.expectation_mul_of_indep, E(X * Y), E(X) * E(Y), [_EveryAtomAlone()]),
        1,
        IllFormed,
    ),
    Wrong(
        "split_diagonal on a triangle: Σᵢ Σ_{j≤i} sᵢsⱼ = Σᵢ sᵢ² + Σ_{i≠j} sᵢsⱼ",
        None,
        lambda: one(
            R.split_diagonal,
            IndexSum(IndexSum(s[i] * s[j], j, i), i, n),
            IndexSum(s[i] ** 2, i, n) + CrossSum(s[i] * s[j], i, j, n),
        ),
        1,
        StepMismatch,
    ),
    # ------------------------------------------------ projected scores (projected_scores)
    Wrong(
        "a row of W_q whose entries are not declared independent",
        "projected_scores",
        assuming("projected_component_variance_q", drop=[IndependentComponents(ps.w)]),
        5,
        MissingAssumption,
    ),
    Wrong(
        "the same token's norm counted once, not squared",
        "projected_scores",
        tamper(
            "projected_score_variance_same_token",
            13,
            ps.d * ps.sigma_q**2 * ps.sigma_k**2 * ps.norm_sq(ps.x),
        ),
        13,
        StepMismatch,
    ),
]


# ------------------------------------------------------------------- right ones


def _registered(name: str) -> Callable[[], Derivation]:
    return lambda: find_derivation(name)


RIGHT: list[Right] = [
    *(
        Right(f"the registered derivation {name}", _registered(name))
        for name in (
            "variance_of_sum",
            "variance_of_sum_of_indep",
            "dot_product_variance",
            "dot_product_mean",
            "dot_product_variance_general",
            "dot_product_variance_with_means",
            "dot_product_second_moment_d3",
            "unique_scale",
            "scaled_variance",
            "scale_by_d_k",
            "exercise1_variance",
            "exercise3_scale",
            "shift_invariance",
            "score_difference_variance",
            "softmax_gradient",
            "cross_entropy_gradient",
            "saturation_limits",
            "p_minus_y_limit",
        )
    ),
    Right(
        "a bound index may be renamed: e^{sᵢ}/Σᵢ e^{sᵢ} is the softmax (i free in the numerator)",
        lambda: one(C.softmax_def, grad.p[i], exp(s[i]) / IndexSum(exp(s[i]), i, n)),
    ),
    Right(
        "the two indices of a cross sum may be swapped",
        lambda: one(R.ring, CrossSum(q[i] * k[j], i, j, d), CrossSum(q[j] * k[i], i, j, d)),
    ),
    Right(
        "√(d_k(c² + 1)) = √d_k·√(c² + 1): both factors are non-negative",
        lambda: one(R.sqrt_mul, sqrt(d * c**2 + d), sqrt(d) * sqrt(c**2 + 1)),
    ),
    Right(
        "Var(X/c) = Var(X)/c² once c > 0 is declared",
        lambda: one(R.variance_const_mul, Var(X / c), Var(X) / c**2, [Positive(c)]),
    ),
    Right(
        "Std(X) = √Var(X)",
        lambda: one(R.std_def, Std(X), sqrt(Var(X))),
    ),
    Right(
        "the d_k = 3 cross sum unrolled: six terms, in pairs",
        lambda: one(
            R.sum_unroll,
            CrossSum(q3[i] * q3[j], i, j, 3),
            2 * (q3[1] * q3[2] + q3[1] * q3[3] + q3[2] * q3[3]),
        ),
    ),
    Right(
        "a delta summed over the range its index is bound to",
        lambda: one(
            C.sum_delta, IndexSum(IndexSum(delta(j, m), j, n), m, n), IndexSum(S.One, m, n)
        ),
    ),
    Right(
        "the product rule for three factors",
        lambda: one(
            C.deriv_mul,
            Deriv(s[i] * s[j] * exp(s[m]), s[m]),
            Deriv(s[i], s[m]) * s[j] * exp(s[m])
            + s[i] * Deriv(s[j], s[m]) * exp(s[m])
            + s[i] * s[j] * Deriv(exp(s[m]), s[m]),
        ),
    ),
    Right(
        "a declared target is a constant for the derivative",
        lambda: one(
            C.deriv_linear, Deriv(y[i] * s[i], s[m]), y[i] * Deriv(s[i], s[m]), [OneHot(y, t)]
        ),
    ),
    Right(
        "∂sᵢ/∂sₘ = δᵢₘ",
        lambda: one(C.deriv_entry, Deriv(s[i], s[m]), delta(i, m)),
    ),
    Right(
        "δᵢw e^{sᵢ − s_w} = δᵢw",
        lambda: one(C.delta_eq, delta(i, w) * exp(s[i] - s[w]), delta(i, w)),
    ),
    Right(
        "δₜw = 0 once t ≠ w is declared",
        lambda: one(C.delta_distinct, delta(t, w), S.Zero, [Distinct(t, w)]),
    ),
    Right(
        "e^{x + λδ} in its two cases",
        lambda: one(
            C.exp_of_delta,
            exp(s[i] + lam * delta(i, w)),
            exp(s[i]) + (exp(s[i] + lam) - exp(s[i])) * delta(i, w),
        ),
    ),
    Right(
        "the one-hot target's entries",
        lambda: one(C.entries_def, y[i], delta(i, t), [OneHot(y, t)]),
    ),
    Right(
        "lim e^λ/(1 + e^λ) = 1 and the chain rule for e^x",
        lambda: one(C.limit_at_infinity, Lim(exp(lam) / (1 + exp(lam)), lam), S.One),
    ),
    Right(
        "∂e^{sᵢ}/∂sₘ = e^{sᵢ}∂sᵢ/∂sₘ",
        lambda: one(C.deriv_chain, Deriv(exp(s[i]), s[m]), exp(s[i]) * Deriv(s[i], s[m])),
    ),
    Right(
        "E[XY] = E[X]E[Y] with X ⊥ Y",
        lambda: one(R.expectation_mul_of_indep, E(X * Y), E(X) * E(Y), [Independent(X, Y)]),
    ),
    Right(
        "the positive root kept once c > 0 is declared",
        lambda: one(
            R.exclude_by_sign, Or(Eq(c, sqrt(d)), Eq(c, -sqrt(d))), Eq(c, sqrt(d)), [Positive(c)]
        ),
    ),
    Right(
        "shadowing renamed: Σᵢ Σᵢ i is Σⱼ Σₖ k",
        lambda: one(
            R.ring, IndexSum(IndexSum(i, i, M), i, n), IndexSum(IndexSum(ell, ell, M), j, n)
        ),
    ),
    Right(
        "a product of sums with the free i kept free: Σᵢ i · Σⱼ i = Σₖ Σⱼ k·i",
        lambda: one(
            R.sum_mul_sum,
            IndexSum(i, i, n) * IndexSum(i, j, n),
            IndexSum(IndexSum(ell * i, j, n), ell, n),
        ),
    ),
    Right(
        "δ_ab·b·lim_b f(a, b) = δ_ab·a·lim_b f(a, b): the limit's b is not the delta's",
        lambda: one(
            C.delta_eq,
            delta(a, c) * c * Lim(exp(a) / (exp(a) + exp(c)), c),
            delta(a, c) * a * Lim(exp(a) / (exp(a) + exp(c)), c),
        ),
    ),
    Right(
        "sums with independent bounds commute around a dependent one",
        lambda: one(
            R.ring,
            IndexSum(IndexSum(IndexSum(i * ell, ell, M), j, i), i, n),
            IndexSum(IndexSum(IndexSum(i * ell, j, i), i, n), ell, M),
        ),
    ),
    Right(
        "a dependent inner bound unrolled: Σᵢ₌₁² Σⱼ₌₁ⁱ sⱼ = Σⱼ₌₁¹ sⱼ + Σⱼ₌₁² sⱼ",
        lambda: one(
            R.sum_unroll,
            IndexSum(IndexSum(s[j], j, i), i, 2),
            IndexSum(s[j], j, 1) + IndexSum(s[j], j, 2),
        ),
    ),
    Right(
        "a definition with a bound index read at that index, renamed",
        lambda: one(
            C.entries_def,
            r[i],
            s[i] + IndexSum(s[ell] * s[i], ell, n),
            [Entries(r, s[j] + IndexSum(s[i] * s[j], i, n), j)],
        ),
    ),
    Right(
        "an axiom is accepted, marked on its theorem: Var(X) = E[X²] − E[X]² assumed",
        lambda: one(
            axiom("variance_assumed", Var(X), E(X**2) - E(X) ** 2), Var(X), E(X**2) - E(X) ** 2
        ),
    ),
]
