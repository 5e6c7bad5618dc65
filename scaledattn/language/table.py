"""The one table of the language: its functions, operators and other spellings.

Every door reads a term with :data:`LANGUAGE` (``verify`` and ``--assume``, proof files,
the API); the calculator reads a number with :data:`NUMBERS`, the same table with the
functions of a number only. The doors differ in their limits (how long a text may be)
and in what a whole line means (a claim, an assumption, a step), never in how a term is
read. ``verify --help`` and docs/your_own_derivation.md print this table
(:func:`language_lines`).

Examples
--------
>>> LANGUAGE.arity("sum")
(1, 4)
>>> FUNCTIONS["sum"].forms
('sum([a, b, …])', 'sum(BODY, i, 1, N)')
"""

from __future__ import annotations

from dataclasses import dataclass, replace

#: The limits of a syntax that gives none: a number of the calculator's.
MAX_LENGTH = 200
MAX_DEPTH = 20


__all__ = [
    "ALIASES",
    "EQUIVALENCE",
    "EXAMPLES",
    "LINE_FUNCTIONS",
    "FUNCTIONS",
    "LANGUAGE",
    "NOTATIONS",
    "NUMBERS",
    "OPERATORS",
    "RELATIONS",
    "Function",
    "Syntax",
    "Notation",
    "language_lines",
    "with_limits",
]


@dataclass(frozen=True)
class Syntax:
    """What a parser accepts: its functions, operators, lists and resource limits.

    ``functions`` maps each function name to its (fewest, most) arguments;
    ``operators`` are the operator tokens (an operator the expression grammar does not
    use, such as a relation, ends an expression and is left to the caller);
    ``aliases`` maps other spellings of operators and names to the canonical ones
    (``^`` to ``**``, ``σ`` to ``sigma``); ``max_list`` > 0 allows ``[a, b, …]``;
    ``percent`` allows ``65.9%``; ``root_prefix`` reads ``√x`` as ``sqrt(x)``.
    """

    functions: tuple[tuple[str, int, int], ...] = (("sqrt", 1, 1),)
    operators: tuple[str, ...] = ("**", "-", "+", "*", "/", "(", ")")
    aliases: tuple[tuple[str, str], ...] = ()
    max_length: int = MAX_LENGTH
    max_depth: int = MAX_DEPTH
    max_tokens: int = MAX_LENGTH
    max_list: int = 0
    percent: bool = False
    root_prefix: bool = False

    def arity(self, name: str) -> tuple[int, int] | None:
        """(fewest, most) arguments of a function, or None if it is not one."""
        for fn, low, high in self.functions:
            if fn == name:
                return low, high
        return None

    @property
    def function_names(self) -> tuple[str, ...]:
        """The names of the functions, in order."""
        return tuple(fn for fn, _, _ in self.functions)


@dataclass(frozen=True)
class Function:
    """A function of the language: its name, the forms it is written in, what it means.

    ``arities`` are the numbers of arguments its forms take.
    """

    name: str
    arities: tuple[int, ...]
    forms: tuple[str, ...]
    meaning: str


_TABLE = (
    Function("sqrt", (1,), ("sqrt(x)",), "√x (also √x); x ≥ 0"),
    Function("exp", (1,), ("exp(x)",), "eˣ, of a number or of each item of a list"),
    Function("log", (1,), ("log(x)",), "ln x (also ln); x > 0"),
    Function("abs", (1,), ("abs(x)",), "|x| (also |x|)"),
    Function("E", (1,), ("E(X)",), "the expectation (also E[X])"),
    Function("Var", (1,), ("Var(X)",), "the variance (also Var[X], var)"),
    Function("Cov", (2,), ("Cov(X, Y)",), "the covariance"),
    Function("std", (1,), ("std(X)",), "the standard deviation √Var(X) (also Std)"),
    Function(
        "dot", (2, 3), ("dot(q, k)", "dot(q, k, N)"), "q·k of dimension d_k, or N (also q·k, qᵀk)"
    ),
    Function(
        "norm", (1,), ("norm(q - k)",), "‖x‖ = √(Σᵢ xᵢ²) of a vector (also ‖x‖); ‖x‖² is Σᵢ xᵢ²"
    ),
    Function(
        "sum", (1, 4), ("sum([a, b, …])", "sum(BODY, i, 1, N)"), "a list's sum; Σᵢ₌₁ᴺ BODY (also Σ)"
    ),
    Function("cross_sum", (5,), ("cross_sum(BODY, i, j, 1, N)",), "Σ over i ≠ j in 1..N"),
    Function("delta", (2,), ("delta(i, j)",), "Kronecker's δᵢⱼ (also δ)"),
    Function("deriv", (2,), ("deriv(f, s_m)",), "∂f/∂sₘ"),
    Function(
        "lim",
        (1, 2),
        ("lim(f, lambda)", "lim(NAME)"),
        "the limit as λ → ∞; a limit the kernel proved",
    ),
    Function(
        "softmax",
        (1, 2, 3, 4),
        ("softmax([a, b, …])", "softmax(s, i, n, p)"),
        "the weights of a list; the weight pᵢ of scores s",
    ),
    Function(
        "entry", (3,), ("entry(s, i, N)",), "the i-th entry of the real vector s of dimension N"
    ),
    Function("entropy", (1,), ("entropy([p, …])",), "−Σ pᵢ ln pᵢ of a list of weights"),
    Function("jacobian_norm", (1,), ("jacobian_norm([p, …])",), "‖diag(p) − ppᵀ‖_F at weights p"),
    Function("max", (1,), ("max([a, b, …])",), "the largest item of a list"),
    Function("min", (1,), ("min([a, b, …])",), "the smallest item of a list"),
    Function("uniform", (1,), ("uniform(n)",), "n weights 1/n"),
    Function("rounded", (1,), ("rounded(2.95)",), "a number known only to its written digits"),
    Function("measured", (1,), ("measured(NAME)",), "a measurement of the lesson's experiments"),
    Function("theorem", (1,), ("theorem(NAME)",), "a whole claim: a theorem of 'scaledattn list'"),
    Function(
        "independent", tuple(range(1, 9)), ("independent(X, Y)",), "an assumption: independence"
    ),
    Function(
        "independent_pairs",
        tuple(range(2, 9)),
        ("independent_pairs(q, k)",),
        "an assumption: (qᵢ, kᵢ) independent across i",
    ),
)

#: The functions, by name.
FUNCTIONS: dict[str, Function] = {f.name: f for f in _TABLE}
#: The functions whose meaning is a whole line's (a claim, an assumption), not a term's.
LINE_FUNCTIONS = ("measured", "theorem", "independent", "independent_pairs")
#: Terms written with each function of a term, in every form it has.
EXAMPLES: dict[str, tuple[str, ...]] = {
    "sqrt": ("sqrt(d_k)", "sqrt(4)"),
    "exp": ("exp(s_i - s_w)", "exp(2)"),
    "log": ("log(sigma)", "log(p_i)"),
    "abs": ("abs(a - 1)", "abs(-2)"),
    "E": ("E(X + Y)", "E(q_i*k_i)"),
    "Var": ("Var(2*X)", "Var(dot(q, k))"),
    "Cov": ("Cov(X, Y)", "Cov(q_i, k_i)"),
    "std": ("std(dot(q, k)/d_k)",),
    "dot": ("dot(q, k)", "dot(q, k, 3)", "dot(q, k')"),
    "norm": ("norm(q - k)**2", "norm(q)", "norm(s)**2"),
    "sum": ("sum([1, 2, 3])", "sum(q_i*k_i, i, 1, d_k)"),
    "cross_sum": ("cross_sum(E(q_i)*E(q_j), i, j, 1, d_k)",),
    "delta": ("delta(i, m)",),
    "deriv": ("deriv(p_i, s_m)",),
    "lim": ("lim(p_i, lambda)", "lim(p_minus_y)"),
    "softmax": ("softmax([2, 1, 0])", "softmax(s, i, n, p)", "softmax(r, i)"),
    "entry": ("entry(b_q, i, d_k)",),
    "entropy": ("entropy([1/2, 1/2])",),
    "jacobian_norm": ("jacobian_norm([1/2, 1/2])",),
    "max": ("max([1, 2])",),
    "min": ("min([1, 2])",),
    "uniform": ("uniform(4)",),
    "rounded": ("rounded(2.95)",),
}

#: The relations of a claim's chain, in their canonical spelling, and the equivalence;
#: ``!=`` is the relation of an assumption (``t != w``).
RELATIONS = ("=", "≈", "<", "<=", ">", ">=")
EQUIVALENCE = "<=>"
OPERATORS = (
    "**", "-", "+", "*", "/", "(", ")", "[", "]", ",", "%", "√", "ᵀ", *RELATIONS, "!=",
    EQUIVALENCE,
)  # fmt: skip

#: Other spellings of operators and names (characters such as ``·``, ``σ`` and ``dₖ``
#: are read by :mod:`scaledattn.language.surface` first).
ALIASES: tuple[tuple[str, str], ...] = (
    ("^", "**"), ("~=", "≈"), ("==", "="), ("⇔", EQUIVALENCE), ("≤", "<="), ("≥", ">="),
    ("≠", "!="), ("Std", "std"), ("var", "Var"), ("cov", "Cov"), ("VAR", "Var"),
    ("COV", "Cov"), ("ln", "log"), ("Abs", "abs"), ("δ", "delta"), ("Σ", "sum"),
)  # fmt: skip

#: How a term is read, in every door.
LANGUAGE = Syntax(
    functions=tuple((f.name, min(f.arities), max(f.arities)) for f in _TABLE),
    operators=OPERATORS,
    aliases=ALIASES,
    max_length=4000,
    max_depth=40,
    max_tokens=3000,
    max_list=1024,
    percent=True,
    root_prefix=True,
)

#: The calculator's numbers: the same reading, with the functions of a number only.
NUMBERS = replace(
    LANGUAGE,
    functions=(("sqrt", 1, 1),),
    operators=("**", "-", "+", "*", "/", "(", ")", "√"),
    aliases=(("^", "**"),),
    max_length=200,
    max_depth=20,
    max_tokens=200,
    max_list=0,
    percent=False,
)


def with_limits(length: int, depth: int) -> Syntax:
    """The language with other limits (a proof file's longer lines)."""
    return replace(LANGUAGE, max_length=length, max_depth=depth, max_tokens=length)


@dataclass(frozen=True)
class Notation:
    """A way of writing a term besides the canonical one, and the canonical text it reads as."""

    written: str
    canonical: str
    what: str


#: The notations every door reads, each with the canonical text it must read the same as.
NOTATIONS: tuple[Notation, ...] = (
    Notation("E[X + Y]", "E(X + Y)", "bracket calls E[…], Var[…], Cov[…], std[…]"),
    Notation("Var[X]", "Var(X)", "bracket calls"),
    Notation("q·k", "dot(q, k)", "the dot product"),
    Notation("qᵀk", "dot(q, k)", "the dot product"),
    Notation("q^T k", "dot(q, k)", "the dot product"),
    Notation("2X", "2*X", "an implicit product"),
    Notation("16 d_k", "16*d_k", "an implicit product"),
    Notation("q_1 k_1", "q_1*k_1", "an implicit product"),
    Notation("dₖ", "d_k", "a subscript"),
    Notation("q₁", "q_1", "a subscript"),
    Notation("σ_q²", "sigma_q**2", "a Greek letter, a superscript"),
    Notation("σₖ", "sigma_k", "a Greek letter with a subscript"),
    Notation("μ_q", "mu_q", "a Greek letter"),
    Notation("ρ", "rho", "a Greek letter"),
    Notation("x^2", "x**2", "a power"),
    Notation("√d_k", "sqrt(d_k)", "a root"),
    Notation("k'_i", "k'_i", "a prime"),
    Notation("Σ(q_i, i, 1, d_k)", "sum(q_i, i, 1, d_k)", "a sum"),
    Notation("Σ_{i=1..d_k} q_i", "sum(q_i, i, 1, d_k)", "a sum as list prints it"),
    Notation(r"\sum_{i=1}^{d_k} q_i", "sum(q_i, i, 1, d_k)", "a sum in LaTeX"),
    Notation("δ(i, j)", "delta(i, j)", "Kronecker's delta"),
    Notation("δᵢⱼ", "delta(i, j)", "Kronecker's delta as list prints it"),
    Notation(r"\delta_{i j}", "delta(i, j)", "Kronecker's delta in LaTeX"),
    Notation("∂pᵢ/∂sₘ", "deriv(p_i, s_m)", "a derivative as list prints it"),
    Notation("∂/∂sₘ(gᵢ·pᵢ)", "deriv(g_i*p_i, s_m)", "a derivative of a term as list prints it"),
    Notation(r"\frac{\partial p_{i}}{\partial s_{m}}", "deriv(p_i, s_m)", "a derivative in LaTeX"),
    Notation(
        r"\frac{\partial}{\partial s_{m}}\left(g_{i} p_{i}\right)",
        "deriv(g_i*p_i, s_m)",
        "a derivative of a term in LaTeX",
    ),
    Notation("lim_{λ→∞} pᵢ", "lim(p_i, lambda)", "a limit as list prints it"),
    Notation(
        r"\lim_{\lambda \to \infty} \left(p_{i}\right)", "lim(p_i, lambda)", "a limit in LaTeX"
    ),
    Notation("e^{c}", "exp(c)", "LaTeX's exponential"),
    Notation("ln(c)", "log(c)", "the natural logarithm"),
    Notation("var(X)", "Var(X)", "a lower-case moment"),
    Notation("Std(X)", "std(X)", "the standard deviation"),
    Notation("|a - b|", "abs(a - b)", "an absolute value"),
    Notation("‖q - k‖", "norm(q - k)", "a norm"),
    Notation(r"\mathrm{Var}(X)", "Var(X)", "LaTeX"),
    Notation(r"\frac{d_k}{2}", "d_k/2", "LaTeX"),
    Notation(r"\sqrt{d_k}", "sqrt(d_k)", "LaTeX"),
    Notation(r"q^\top k", "dot(q, k)", "LaTeX"),
    Notation("−X", "-X", "a Unicode minus"),
    Notation("2×X", "2*X", "a Unicode times"),
)


def language_lines() -> list[str]:
    """The table as lines: the names, the functions, the notations (``verify --help``, docs)."""
    from scaledattn.language.names import MEANINGS

    lines = ["names:"]
    width = max(len(written) for written, _ in MEANINGS)
    lines += [f"  {written:<{width}}  {meaning}" for written, meaning in MEANINGS]
    lines.append("functions:")
    shown = [f for f in _TABLE if f.name not in ("theorem", "independent", "independent_pairs")]
    width = max(len(", ".join(f.forms)) for f in shown)
    lines += [f"  {', '.join(f.forms):<{width}}  {f.meaning}" for f in shown]
    lines.append("also read:")
    width = max(len(n.written) for n in NOTATIONS)
    lines += [f"  {n.written:<{width}}  as {n.canonical}" for n in NOTATIONS]
    return lines
