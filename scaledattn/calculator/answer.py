"""Answers on demand: E[q·k], Var(q·k) and the scale c, each the right side of a checked Theorem.

:func:`variance`, :func:`mean` and :func:`scale` read a setting, let the automation of
:mod:`scaledattn.moments.build` write the derivation, hand it to the kernel
(:func:`scaledattn.derive.prove`) and return an :class:`Answer`: the closed form,
taken from the statement of the Theorem the kernel returned, with the Theorem and
every derivation it rests on attached.

Examples
--------
>>> variance(var_q=4, var_k=4)
16*d_k
>>> scale(var_q=4, var_k=4)
4*sqrt(d_k)
>>> mean(corr="rho")
d_k*rho
>>> variance(d_k=64).theorem.name
'variance(d_k=64)'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy
from sympy import Expr

from scaledattn.certificate import confirm
from scaledattn.derive import audit_of, prove
from scaledattn.errors import CannotDerive, InvalidArgument
from scaledattn.kernel import Derivation, Dot, E, Equation, Equivalence, RandomVector, Theorem, Var
from scaledattn.kernel.expr import rebuild
from scaledattn.language.parse import parse_expression
from scaledattn.moments.build import (
    SCALE,
    mean_derivation,
    provenance,
    scale_derivation,
    sums_lemma,
    variance_derivation,
)
from scaledattn.moments.setting import AttentionSetting, setting
from scaledattn.render.printers import decimal, latex

__all__ = ["QUANTITIES", "Answer", "answer", "mean", "scale", "variance"]

QUANTITIES = ("mean", "variance", "scale")
APPROX = r"\approx"


@dataclass(frozen=True, eq=False)
class Answer:
    """A closed form and the kernel-checked derivation it is the right side of.

    It behaves as its SymPy expression ``expr``: it prints as it, ``sympify`` gives it,
    arithmetic (``a*2``, ``a/64``, ``a**2``, ``-a``) returns the plain SymPy result, and
    any attribute SymPy has (``free_symbols``, ``evalf``, …) is the expression's. Two
    things go beyond a bare SymPy expression, because the answer's symbols carry the
    kernel's assumptions (d_k is a positive integer) that a symbol the user types does
    not: ``subs`` takes a symbol by its name (``a.subs("d_k", 64)``, or a plain
    ``Symbol("d_k")``), and ``==`` matches symbols by name, so ``a ==
    sympify("16*d_k")``; text is never sympified (``a == "16*d_k"`` is False).

    It carries ``theorem`` (the checked statement), ``derivation`` (its steps),
    ``derivations`` (every derivation it rests on, the main one last), ``setting``
    and ``provenance`` (where declared joint moments come from).

    Why a wrapper and not the SymPy expression with these attached: SymPy caches and
    shares its expressions (``16*d_k`` built twice is often the same object), so an
    attribute set on one, or an entry keyed by it in a registry, would attach this
    derivation to every equal expression anywhere, including one the user typed. The
    wrapper keeps the derivation on the answer alone and hands SymPy only ``expr``.
    """

    quantity: str
    expr: Expr
    theorem: Theorem
    derivations: tuple[Derivation, ...]
    setting: AttentionSetting
    provenance: tuple[str, ...] = ()

    @property
    def derivation(self) -> Derivation:
        """The main derivation (the Theorem holds it with cited derivations resolved)."""
        return self.derivations[-1]

    @property
    def lhs(self) -> Expr:
        """What the closed form is the value of: E[q·k], Var(q·k) or c."""
        q, k = RandomVector("q", self.setting.d), RandomVector("k", self.setting.d)
        if self.quantity == "mean":
            return E(Dot(q, k))
        if self.quantity == "variance":
            return Var(Dot(q, k))
        return SCALE

    @property
    def symbols(self) -> dict[str, Expr]:
        """The closed form's symbols by name (with the kernel's assumptions)."""
        return {str(s): s for s in sorted(self.expr.free_symbols, key=str)}

    def _sympy_(self) -> Expr:
        return self.expr

    @property
    def decimal(self) -> str:
        """The closed form with its numbers as decimals (15 significant digits): ``2.4576``."""
        return decimal(self.expr).text

    @property
    def decimal_exact(self) -> bool:
        """True when :attr:`decimal` is the closed form exactly (not rounded)."""
        return decimal(self.expr).exact

    @property
    def value(self) -> float | None:
        """The closed form as a float when it is a number (no symbols), else None."""
        return float(self.expr) if self.expr.is_number else None

    def line(self) -> str:
        """The closed form and, when it says more, its decimal value: ``1536/625 = 2.4576``.

        ``=`` when the decimal is exact, ``≈`` when it is rounded; the closed form alone
        when its decimals add nothing (``16*d_k``).
        """
        shown = decimal(self.expr)
        if shown.text == str(self):
            return str(self)
        return f"{self} {'=' if shown.exact else '≈'} {shown.text}"

    def __str__(self) -> str:
        return str(sympy.sstr(self.expr))

    def __repr__(self) -> str:
        return self.line()

    # ------------------------------------------------------ SymPy behaviour
    def _symbol(self, key: Any) -> Any:
        """The answer's own symbol for a name or a same-named Symbol; other keys unchanged."""
        if isinstance(key, str):
            if key not in self.symbols:
                known = ", ".join(self.symbols) or "none"
                raise InvalidArgument(f"{key!r} is not a symbol of {self} (its symbols: {known})")
            return self.symbols[key]
        if isinstance(key, sympy.Symbol) and key.name in self.symbols:
            return self.symbols[key.name]
        return key

    def _value(self, value: Any) -> Any:
        """A substituted value: text is read by the bounded parser, never sympified."""
        if isinstance(value, str):
            return parse_expression(value, self.symbols)
        return _plain(value)

    def subs(self, *args: Any, **kwargs: Any) -> Expr:
        """SymPy's ``subs``, with symbols also given by name: ``a.subs("d_k", 64)``."""
        if len(args) == 2:
            pairs = [(args[0], args[1])]
        elif len(args) == 1:
            given = args[0]
            pairs = list(given.items() if isinstance(given, dict) else given)
        else:
            raise InvalidArgument("subs takes (old, new), a dict or a list of pairs")
        resolved = [(self._symbol(old), self._value(new)) for old, new in pairs]
        result: Expr = self.expr.subs(resolved, **kwargs)
        return result

    def _same_names(self, other: Any) -> Any:
        """``other`` with each symbol named as one of the answer's replaced by the answer's."""
        value = sympy.sympify(_plain(other), strict=True)
        swap = {s: self.symbols[s.name] for s in value.free_symbols if s.name in self.symbols}
        return value.xreplace(swap)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return False  # text is never sympified
        try:
            value = self._same_names(other)
        except (sympy.SympifyError, TypeError, AttributeError):
            return NotImplemented
        return bool(sympy.expand(self.expr - value) == 0)

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(self.expr)

    def __add__(self, other: Any) -> Expr:
        return self.expr + _plain(other)

    def __radd__(self, other: Any) -> Expr:
        return _plain(other) + self.expr

    def __sub__(self, other: Any) -> Expr:
        return self.expr - _plain(other)

    def __rsub__(self, other: Any) -> Expr:
        return _plain(other) - self.expr

    def __mul__(self, other: Any) -> Expr:
        return self.expr * _plain(other)

    def __rmul__(self, other: Any) -> Expr:
        return _plain(other) * self.expr

    def __truediv__(self, other: Any) -> Expr:
        return self.expr / _plain(other)

    def __rtruediv__(self, other: Any) -> Expr:
        return _plain(other) / self.expr

    def __pow__(self, other: Any) -> Expr:
        return self.expr ** _plain(other)

    def __rpow__(self, other: Any) -> Expr:
        return _plain(other) ** self.expr

    def __neg__(self) -> Expr:
        return -self.expr

    def __pos__(self) -> Expr:
        return self.expr

    def __abs__(self) -> Expr:
        return abs(self.expr)

    def __lt__(self, other: Any) -> Any:
        return self.expr < _plain(other)

    def __le__(self, other: Any) -> Any:
        return self.expr <= _plain(other)

    def __gt__(self, other: Any) -> Any:
        return self.expr > _plain(other)

    def __ge__(self, other: Any) -> Any:
        return self.expr >= _plain(other)

    def __float__(self) -> float:
        return float(self.expr)

    def __int__(self) -> int:
        return int(self.expr)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.expr, name)

    def latex_line(self) -> str:
        """``lhs = closed form`` in LaTeX, with the decimal value when it says more."""
        shown = decimal(self.expr)
        line = f"{latex(self.lhs)} = {latex(self.expr)}"
        if shown.text == str(self):
            return line
        return f"{line} {'=' if shown.exact else APPROX} {shown.latex}"

    def _repr_latex_(self) -> str:
        return f"$\\displaystyle {self.latex_line()}$"

    def _repr_markdown_(self) -> str:
        lines = [f"$${self.latex_line()}$$", ""]
        lines.append(
            f"The right side of `{self.theorem.name}`, which the kernel checked"
            f' ({len(self.derivation.steps)} steps; `scaledattn derive "{self.theorem.name}"`'
            " shows them)."
        )
        return "\n".join(lines)


def _plain(value: Any) -> Any:
    """An Answer's expression, anything else unchanged."""
    return value.expr if isinstance(value, Answer) else value


def _closed_form(theorem: Theorem) -> Expr:
    statement = theorem.statement
    if isinstance(statement, Equation):
        return rebuild(statement.rhs)
    assert isinstance(statement, Equivalence)
    rhs: Expr = rebuild(statement.rhs.rhs)
    return rhs


def _refusal(derivation: Derivation, s: AttentionSetting) -> CannotDerive:
    first = audit_of(derivation).errors[0]
    hint = ""
    if first.rule in ("exclude_by_sign", "square_roots"):
        hint = (
            "; the kernel cannot show Var(q·k)/target > 0 from the declared assumptions,"
            " so the roots ±√(Var(q·k)/target) are not known to be real, nor the negative"
            " one excluded"
        )
        if s.corr is not None and not s.corr.is_number:
            hint += " (a symbolic rho with non-zero means: try a number for --corr)"
    return CannotDerive(
        f"  no derivation for this setting: step {first.step} ({first.rule}) was refused{hint}",
        theorem=derivation.name,
        step=first.step,
        rule=first.rule,
    )


def answer(quantity: str, s: AttentionSetting) -> Answer:
    """The checked answer for ``quantity`` ('mean', 'variance' or 'scale') in setting ``s``."""
    if quantity in ("mean", "variance"):
        build = mean_derivation if quantity == "mean" else variance_derivation
        derivation = build(s)
        theorem = prove(derivation)
        return Answer(quantity, _closed_form(theorem), theorem, (derivation,), s, provenance(s))
    if quantity != "scale":
        raise InvalidArgument(f"unknown quantity {quantity!r}; choose one of {QUANTITIES}")
    var = answer("variance", s)
    if var.expr == 0:
        raise InvalidArgument(
            "Var(q·k) = 0 in this setting: no scale c > 0 gives the target variance"
        )
    lemma = sums_lemma(s)
    derivation = scale_derivation(s, lemma=lemma)
    result = audit_of(derivation)
    if result.theorem is None:
        raise _refusal(derivation, s)
    confirm(result)  # the kernel's and the checker's (else SoundnessAlarm), as in prove
    return Answer(
        "scale", _closed_form(result.theorem), result.theorem, (lemma, derivation), s,
        provenance(s),
    )  # fmt: skip


def variance(
    d_k: Any = None,
    var_q: Any = None,
    var_k: Any = None,
    mean_q: Any = 0,
    mean_k: Any = 0,
    corr: Any = None,
    heads: Any = None,
    d_model: Any = None,
    *,
    init_std: Any = None,
    init_std_k: Any = None,
    input_norm: Any = None,
) -> Answer:
    """Var(q·k), derived and checked, for d_k i.i.d. component pairs (qᵢ, kᵢ).

    Each argument is a number, a fraction or an expression in text (``"sigma**2"``);
    q and k are independent unless ``corr`` is given, when each pair is jointly
    Gaussian with that correlation. ``heads`` and ``d_model`` set d_k = d_model/heads;
    ``init_std`` (with ``d_model`` or ``input_norm``) sets the variances of projected
    scores. The options and their defaults: :data:`~scaledattn.moments.setting.OPTIONS`,
    the same as the command's (``scaledattn variance --init-std 0.02``).

    >>> variance(mean_q="mu_q", mean_k="mu_k", var_q="sigma_q**2", var_k="sigma_k**2")
    d_k*(mu_k**2*sigma_q**2 + mu_q**2*sigma_k**2 + sigma_k**2*sigma_q**2)
    >>> variance(corr="rho")
    d_k*(rho**2 + 1)
    >>> variance(d_k=64, d_model=768, init_std=0.02)
    2359296/390625 = 6.03979776
    """
    s = setting(
        d_k, var_q, var_k, mean_q, mean_k, corr, heads, d_model,
        init_std=init_std, init_std_k=init_std_k, input_norm=input_norm,
    )  # fmt: skip
    return answer("variance", s)


def mean(
    d_k: Any = None,
    var_q: Any = None,
    var_k: Any = None,
    mean_q: Any = 0,
    mean_k: Any = 0,
    corr: Any = None,
    heads: Any = None,
    d_model: Any = None,
    *,
    init_std: Any = None,
    init_std_k: Any = None,
    input_norm: Any = None,
) -> Answer:
    """E[q·k], derived and checked: d_k·μ_q·μ_k, or d_k(μ_qμ_k + ρσ_qσ_k) under correlation.

    The options are :func:`variance`'s.

    >>> mean(mean_q="mu_q", mean_k="mu_k")
    d_k*mu_k*mu_q
    """
    s = setting(
        d_k, var_q, var_k, mean_q, mean_k, corr, heads, d_model,
        init_std=init_std, init_std_k=init_std_k, input_norm=input_norm,
    )  # fmt: skip
    return answer("mean", s)


def scale(
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
) -> Answer:
    """The unique c > 0 with Var(q·k / c) = target_var, derived and checked.

    The options are :func:`variance`'s, and ``target_var``.

    >>> scale()
    sqrt(d_k)
    >>> scale(heads=8, d_model=512)
    8
    >>> scale(d_k=64, d_model=768, init_std=0.02)
    1536/625 = 2.4576
    """
    s = setting(
        d_k, var_q, var_k, mean_q, mean_k, corr, heads, d_model, target_var,
        init_std=init_std, init_std_k=init_std_k, input_norm=input_norm,
    )  # fmt: skip
    return answer("scale", s)
