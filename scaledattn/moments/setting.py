"""A user's attention setting, parsed and validated: d_k, moments, correlation, heads.

Every option is a number, a fraction or a symbolic expression, read by the bounded
parser of :mod:`scaledattn.language.parse` (never ``eval``). A name's type comes
from where it is used: a name inside a variance or the target variance is a
positive real symbol (σ in ``sigma**2``), any other name a real symbol (μ, ρ), and
``d_k`` (or the name given to ``--d-k``) is the dimension, a positive integer.

Not a numeric model's *setting*: that is the data of :mod:`scaledattn.numeric.model`
(laws by variable name), a different thing with its own name there.

Examples
--------
>>> s = setting(var_q="sigma**2", mean_k="mu")
>>> s.d, s.var_q, s.mean_k
(d_k, sigma**2, mu)
>>> s.symbols["sigma"].is_positive, s.symbols["mu"].is_real
(True, True)
>>> setting(heads=8, d_model=512).d
64
"""

from __future__ import annotations

import keyword
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import sympy
from sympy import Expr, Integer, Symbol

from scaledattn.errors import InvalidArgument
from scaledattn.kernel import dimension
from scaledattn.language.parse import Node, build, names_in, parse

__all__ = ["OPTIONS", "RESERVED", "AttentionSetting", "setting"]

#: Names the derivations use for their own objects (the scale c, the vectors q and
#: k, the summation indices i and j, the expectation E).
RESERVED = ("c", "q", "k", "i", "j", "E")
DIMENSION_NAME = "d_k"

#: Options whose names denote positive quantities (variances, the target variance).
_POSITIVE_OPTIONS = ("var_q", "var_k", "target_var", "init_std", "init_std_k", "input_norm")
_REAL_OPTIONS = ("mean_q", "mean_k", "corr")


@dataclass(frozen=True)
class AttentionSetting:
    """d_k, the component moments of q and k, their correlation and the target variance.

    ``corr`` is None when q and k are independent; otherwise each pair (qᵢ, kᵢ) is
    jointly Gaussian with correlation ``corr``. ``symbols`` maps each name used to its
    SymPy symbol; ``notes`` are facts about symbols the kernel cannot be told
    (|ρ| ≤ 1 for a symbolic ρ).
    """

    d: Expr
    var_q: Expr = sympy.S.One
    var_k: Expr = sympy.S.One
    mean_q: Expr = sympy.S.Zero
    mean_k: Expr = sympy.S.Zero
    corr: Expr | None = None
    target_var: Expr = sympy.S.One
    heads: int | None = None
    d_model: int | None = None
    init_std: Expr | None = None
    init_std_k: Expr | None = None
    input_norm: Expr | None = None
    symbols: Mapping[str, Symbol] = field(default_factory=dict, compare=False)
    notes: tuple[str, ...] = ()

    @property
    def correlated(self) -> bool:
        """True when a correlation between qᵢ and kᵢ is given."""
        return self.corr is not None

    def positive_symbols(self) -> tuple[Symbol, ...]:
        """The user's symbols known to be positive (those in variances or the target)."""
        return tuple(s for s in self.symbols.values() if s.is_positive and s != self.d)

    def call(self, function: str) -> str:
        """``function`` called with the options that differ from the lesson's setting.

        The name of a derivation the calculator writes for this setting: the same text
        opens it again with ``scaledattn derive`` (and is the Python call that answers).

        >>> setting(var_q=4, var_k=4).call("variance"), setting().call("scale")
        ('variance(var_q=4, var_k=4)', 'scale')
        """
        sstr = sympy.sstr
        options: list[str] = []
        if self.heads is not None:
            options += [f"heads={self.heads}"]
        elif not (isinstance(self.d, Symbol) and self.d.name == DIMENSION_NAME):
            options.append(f"d_k={sstr(self.d)}")
        if self.d_model is not None:
            options.append(f"d_model={self.d_model}")
        if self.init_std is not None:
            options.append(f"init_std={sstr(self.init_std)}")
            if self.init_std_k != self.init_std:
                options.append(f"init_std_k={sstr(self.init_std_k)}")
            if self.d_model is None or self.input_norm != sympy.sqrt(self.d_model):
                options.append(f"input_norm={sstr(self.input_norm)}")
            defaults: tuple[tuple[str, int], ...] = (("mean_q", 0), ("mean_k", 0))
        else:
            defaults = (("var_q", 1), ("var_k", 1), ("mean_q", 0), ("mean_k", 0))
        options += [f"{key}={sstr(getattr(self, key))}" for key, default in defaults
                    if getattr(self, key) != default]  # fmt: skip
        if self.corr is not None:
            options.append(f"corr={sstr(self.corr)}")
        if self.target_var != 1:
            options.append(f"target_var={sstr(self.target_var)}")
        return f"{function}({', '.join(options)})" if options else function

    def describe(self) -> list[str]:
        """The setting in a few lines of text, for the top of an explanation."""
        sstr = sympy.sstr
        dim = f"d_k = {sstr(self.d)}"
        if self.heads is not None:
            dim += f" (d_model {self.d_model} / {self.heads} heads)"
        elif not self.d.is_Integer:
            dim = f"d_k = {sstr(self.d)}, a symbolic positive integer"
        lines = [
            f"Setting: {dim}; components i = 1..d_k, the pairs (q_i, k_i) independent across i",
            f"  E[q_i] = {sstr(self.mean_q)}, Var(q_i) = {sstr(self.var_q)},"
            f" E[k_i] = {sstr(self.mean_k)}, Var(k_i) = {sstr(self.var_k)}",
        ]
        if self.corr is None:
            lines.append("  q independent of k (all 2·d_k components mutually independent)")
        else:
            lines.append(f"  (q_i, k_i) jointly Gaussian with correlation rho = {sstr(self.corr)}")
        if self.init_std is not None:
            norm = sstr(self.input_norm)
            if self.d_model is not None and self.input_norm == sympy.sqrt(self.d_model):
                norm = f"√d_model = {norm}"
            lines += [
                f"  projected scores q = W_q x, k = W_k y: W_q's entries of std"
                f" {sstr(self.init_std)}, W_k's of std {sstr(self.init_std_k)},",
                f"  tokens of norm ‖x‖ = ‖y‖ = {norm}: Var(q_i) = σ_q²‖x‖², Var(k_i) = σ_k²‖y‖²",
                "  (the theorems projected_component_variance_q and _k; Var(q·k) in one"
                " derivation: scaledattn derive projected_score_variance)",
            ]
        lines += [f"  {note}" for note in self.notes]
        return lines


# ------------------------------------------------------------------- reading


def _text(value: Any, option: str) -> str:
    """The text of an option value: numbers and SymPy expressions are written out."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        raise InvalidArgument(f"{option} must be a number or an expression, got {value!r}")
    if isinstance(value, (int, Fraction)):
        return str(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise InvalidArgument(f"{option} must be finite, got {value!r}")
        return repr(value)
    if isinstance(value, sympy.Basic):
        return str(sympy.sstr(value))
    raise InvalidArgument(f"{option} must be a number or an expression, got {type(value).__name__}")


def _positive_integer(node: Node, option: str, text: str) -> int:
    if names_in(node):
        raise InvalidArgument(f"{option} must be a positive integer, got {text!r}")
    value = build(node, lambda name: Symbol(name), text)
    if not (value.is_Integer and value > 0):
        raise InvalidArgument(f"{option} must be a positive integer, got {sympy.sstr(value)}")
    return int(value)


def _dimension(node: Node | None, option: str, text: str) -> Expr | None:
    if node is None:
        return None
    if node.kind == "name":
        name = str(node.value)
        if name in RESERVED:
            raise InvalidArgument(f"{option}: the name {name!r} is reserved; choose another")
        if name.lower() in _NON_FINITE:
            raise InvalidArgument(f"{option} must be a positive integer or a name, got {name!r}")
        if keyword.iskeyword(name) or hasattr(sympy, name):
            raise InvalidArgument(
                f"{option}: the name {name!r} means something else to SymPy; choose another"
            )
        return dimension(name)
    if names_in(node):
        raise InvalidArgument(f"{option} must be a positive integer or a single name, got {text!r}")
    return Integer(_positive_integer(node, option, text))


#: The options of a setting, as the functions :func:`~scaledattn.calculator.variance`,
#: ``mean`` and ``scale`` take them, and as the commands spell them (``--d-k`` for
#: ``d_k``); tests/calculator/test_options.py checks the functions' signatures and the
#: commands' options against this list.
OPTIONS = (
    "d_k",
    "var_q",
    "var_k",
    "mean_q",
    "mean_k",
    "corr",
    "heads",
    "d_model",
    "init_std",
    "init_std_k",
    "input_norm",
    "target_var",
)


def setting(
    d_k: Any = None,
    var_q: Any = None,
    var_k: Any = None,
    mean_q: Any = 0,
    mean_k: Any = 0,
    corr: Any = None,
    heads: Any = None,
    d_model: Any = None,
    target_var: Any = 1,
    *,
    init_std: Any = None,
    init_std_k: Any = None,
    input_norm: Any = None,
    option_names: Mapping[str, str] | None = None,
) -> AttentionSetting:
    """Read and validate a setting; InvalidArgument (one line) names what is wrong.

    Defaults: d_k the positive-integer symbol ``d_k``, variances 1, means 0, q and k
    independent, target variance 1 (the meaning of each option: :data:`OPTIONS`).
    ``option_names`` maps each parameter to the name shown in messages (the CLI
    passes ``--var-q`` and so on).

    Projected scores: ``init_std`` σ (the std of W_q's entries; W_k's is
    ``init_std_k``, by default σ too) and the token norm ``input_norm`` (by default
    √d_model) set Var(qᵢ) = σ²‖x‖², the lemma ``projected_component_variance_q``.

    >>> setting(d_k=0)
    Traceback (most recent call last):
    ...
    scaledattn.errors.InvalidArgument: d_k must be a positive integer, got 0
    >>> s = setting(d_k=64, d_model=768, init_std=0.02)
    >>> s.var_q, s.var_k, s.input_norm
    (192/625, 192/625, 16*sqrt(3))
    """
    label = {key: key for key in OPTIONS}
    label.update(option_names or {})
    raw = {
        "d_k": d_k,
        "var_q": var_q,
        "var_k": var_k,
        "mean_q": mean_q,
        "mean_k": mean_k,
        "corr": corr,
        "heads": heads,
        "d_model": d_model,
        "target_var": target_var,
        "init_std": init_std,
        "init_std_k": init_std_k,
        "input_norm": input_norm,
    }
    texts = {key: _text(v, label[key]) for key, v in raw.items() if v is not None}
    trees = {key: _parsed(text, label[key]) for key, text in texts.items()}

    d, heads_n, d_model_n = _dimensions(trees, texts, label)
    symbols = _symbol_table(trees, d, label)
    values = {
        key: _value(trees[key], symbols, texts[key], label[key])
        for key in (*_POSITIVE_OPTIONS, *_REAL_OPTIONS)
        if key in trees
    }
    projected = _projected(values, d_model_n, label)
    values.update(projected)
    values.setdefault("var_q", sympy.S.One)
    values.setdefault("var_k", sympy.S.One)
    notes = _validate(values, label) + _signs_assumed(symbols, d)
    return AttentionSetting(
        d=d,
        var_q=values["var_q"],
        var_k=values["var_k"],
        mean_q=values["mean_q"],
        mean_k=values["mean_k"],
        corr=values.get("corr"),
        target_var=values["target_var"],
        heads=heads_n,
        d_model=d_model_n,
        init_std=values.get("init_std"),
        init_std_k=values.get("init_std_k"),
        input_norm=values.get("input_norm"),
        symbols={n: s for n, s in symbols.items() if isinstance(s, Symbol)},
        notes=notes,
    )


def _dimensions(
    trees: Mapping[str, Node], texts: Mapping[str, str], label: Mapping[str, str]
) -> tuple[Expr, int | None, int | None]:
    """d_k, heads and d_model: d_k = d_model/heads when heads are given."""
    d = _dimension(trees.get("d_k"), label["d_k"], texts.get("d_k", ""))
    d_model_n = heads_n = None
    if "d_model" in trees:
        d_model_n = _positive_integer(trees["d_model"], label["d_model"], texts["d_model"])
        if "heads" not in trees and "init_std" not in trees:
            raise InvalidArgument(
                f"{label['d_model']} is the width of the tokens projected: it sets their norm"
                f" with {label['init_std']}, or d_k = d_model/heads with {label['heads']};"
                " alone it changes nothing"
            )
    if "heads" in trees:
        if d_model_n is None:
            raise InvalidArgument(
                f"{label['heads']} needs {label['d_model']} (d_k = d_model/heads)"
            )
        heads_n = _positive_integer(trees["heads"], label["heads"], texts["heads"])
        if d_model_n % heads_n:
            raise InvalidArgument(
                f"{label['heads']} {heads_n} does not divide {label['d_model']} {d_model_n}"
            )
        per_head = Integer(d_model_n // heads_n)
        if d is not None and d != per_head:
            raise InvalidArgument(
                f"{label['d_k']} {sympy.sstr(d)} contradicts {label['d_model']}/{label['heads']}"
                f" = {d_model_n}/{heads_n} = {per_head}"
            )
        d = per_head
    return (dimension(DIMENSION_NAME) if d is None else d), heads_n, d_model_n


def _projected(
    values: Mapping[str, Expr], d_model: int | None, label: Mapping[str, str]
) -> dict[str, Expr]:
    """Var(qᵢ) = σ_q²‖x‖², Var(kᵢ) = σ_k²‖y‖² from the init std and the token norm."""
    std_q, std_k, norm = (values.get(key) for key in ("init_std", "init_std_k", "input_norm"))
    if std_q is None:
        if std_k is not None or norm is not None:
            given = label["init_std_k"] if std_k is not None else label["input_norm"]
            raise InvalidArgument(f"{given} goes with {label['init_std']}")
        return {}
    if "var_q" in values or "var_k" in values:
        raise InvalidArgument(
            f"{label['init_std']} sets Var(q_i) and Var(k_i); leave out"
            f" {label['var_q']} and {label['var_k']}"
        )
    for key, value in (("init_std", std_q), ("init_std_k", std_k), ("input_norm", norm)):
        if value is not None and value.is_nonnegative is not True:
            what = "a standard deviation" if key != "input_norm" else "a norm"
            raise InvalidArgument(
                f"{label[key]} is {what} and must be >= 0, got {sympy.sstr(value)}"
            )
    if norm is None:
        if d_model is None:
            raise InvalidArgument(
                f"{label['init_std']} needs {label['input_norm']}, or {label['d_model']} for"
                " the norm ‖x‖ = √d_model of a LayerNorm'd token"
            )
        norm = sympy.sqrt(d_model)
    std_k = std_q if std_k is None else std_k
    return {
        "var_q": std_q**2 * norm**2,
        "var_k": std_k**2 * norm**2,
        "init_std": std_q,
        "init_std_k": std_k,
        "input_norm": norm,
    }


def _parsed(text: str, option: str) -> Node:
    """The syntax tree of one option's text; a refusal names the option."""
    try:
        return parse(text)
    except InvalidArgument as err:
        raise InvalidArgument(f"{option}: {err}") from None


def _value(tree: Node, symbols: Mapping[str, Expr], text: str, option: str) -> Expr:
    """The value of one option; a refusal of its text (1/0, √−1, x/x) names the option."""
    try:
        return build(tree, symbols.__getitem__, text)
    except InvalidArgument as err:
        raise InvalidArgument(f"{option} must be real: {err}") from None


def _symbol_table(trees: Mapping[str, Node], d: Expr, label: Mapping[str, str]) -> dict[str, Expr]:
    positive: set[str] = set()
    real: set[str] = set()
    for key, tree in trees.items():
        if key in ("d_k", "heads", "d_model"):
            continue
        names = names_in(tree)
        for name in names:
            if name.lower() in _NON_FINITE:
                raise InvalidArgument(
                    f"{label[key]} must be finite, got {name!r}"
                    " (a name that reads as infinity or not-a-number)"
                )
            if name in RESERVED:
                raise InvalidArgument(
                    f"{label[key]}: the name {name!r} is reserved"
                    f" (it stands for {_RESERVED_MEANING[name]}); choose another"
                )
            if keyword.iskeyword(name) or hasattr(sympy, name):
                raise InvalidArgument(
                    f"{label[key]}: the name {name!r} means something else to SymPy, so the"
                    f" printed closed form could not be read back; choose another ({name}_1?)"
                )
        (positive if key in _POSITIVE_OPTIONS else real).update(names)
    table: dict[str, Expr] = {DIMENSION_NAME: d}
    if isinstance(d, Symbol):
        table[d.name] = d
    for name in sorted(positive | real):
        if name not in table:
            table[name] = (
                Symbol(name, positive=True) if name in positive else Symbol(name, real=True)
            )
    return table


#: Names a user would read as a number that is not finite (lower case).
_NON_FINITE = ("inf", "infinity", "nan")

_RESERVED_MEANING = {
    "c": "the scale",
    "q": "the query vector",
    "k": "the key vector",
    "i": "a summation index",
    "j": "a summation index",
    "E": "the expectation",
}


def _signs_assumed(symbols: Mapping[str, Expr], d: Expr) -> tuple[str, ...]:
    """A note for every user's name taken positive (a name in a variance is a scale)."""
    return tuple(
        f"{name} > 0 is assumed (a name in a variance or the target is read as a positive scale)"
        for name, s in sorted(symbols.items())
        if isinstance(s, Symbol) and s != d and s.is_positive
    )


def _validate(values: Mapping[str, Expr], label: Mapping[str, str]) -> tuple[str, ...]:
    notes: list[str] = []
    for key in ("var_q", "var_k"):
        v = values[key]
        if v.is_extended_real is False or v.has(sympy.I):
            raise InvalidArgument(f"{label[key]} must be real, got {sympy.sstr(v)}")
        if v.is_negative:
            raise InvalidArgument(
                f"{label[key]} is a variance and must be >= 0, got {sympy.sstr(v)}"
            )
        if v.is_nonnegative is not True:
            raise InvalidArgument(
                f"{label[key]} is a variance, but {sympy.sstr(v)} is not evidently >= 0"
            )
    for key in ("mean_q", "mean_k"):
        m = values[key]
        if m.is_real is not True:
            raise InvalidArgument(f"{label[key]} must be real, got {sympy.sstr(m)}")
    t = values["target_var"]
    if t.is_positive is not True:
        raise InvalidArgument(f"{label['target_var']} must be > 0, got {sympy.sstr(t)}")
    rho = values.get("corr")
    if rho is not None:
        if rho.is_real is not True:
            raise InvalidArgument(f"{label['corr']} must be real, got {sympy.sstr(rho)}")
        if rho.is_number:
            if bool(abs(rho) > 1):
                raise InvalidArgument(
                    f"{label['corr']} is a correlation and must lie in [-1, 1],"
                    f" got {sympy.sstr(rho)}"
                )
        else:
            notes.append(
                f"|{sympy.sstr(rho)}| <= 1 is taken for granted (a correlation);"
                " the kernel cannot be told it"
            )
    return tuple(notes)
