"""SymPy printers that know the kernel's terms: E[·], Var(·), Σ sums, components.

The kernel's classes carry only their plain SymPy string; how they look in Unicode
and LaTeX is decided here, outside the trusted code.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import mpmath
import sympy
from sympy import Add
from sympy.core.symbol import Str
from sympy.printing.latex import LatexPrinter
from sympy.printing.pretty.pretty import PrettyPrinter
from sympy.printing.pretty.pretty_symbology import pretty_symbol
from sympy.printing.pretty.stringpict import prettyForm, stringPict
from sympy.printing.str import StrPrinter

from scaledattn.kernel.vectors import Entry, Softmax
from scaledattn.render.display import (
    SUBSCRIPTED_LABEL,
    bound_sums,
    delta_text,
    entry_is_named,
    softmax_arguments,
)


def _named_dimension(e: Any) -> bool:
    """Whether a dot product's dimension is d_k, which ``q·k`` means (else it is written)."""
    return bool(e.args[2] == sympy.Symbol("d_k", integer=True, positive=True))


def simple_derivative(e: Any) -> bool:
    """A derivative of a single entry or weight, shown as a fraction ∂pᵢ/∂sₘ."""
    return isinstance(e.args[0], (Entry, Softmax))


def subscripted(name: str, index: Any) -> str:
    """``q_i`` as Unicode with a subscript where Unicode has one (qᵢ, q₁, qⱼ)."""
    return str(pretty_symbol(f"{name}_{sympy.sstr(index)}")).replace("_j", "ⱼ")


class TermPrettyPrinter(PrettyPrinter):
    """SymPy's Unicode pretty printer, extended with the kernel's terms."""

    def _print_E(self, e: Any) -> Any:
        return prettyForm(
            *stringPict.next(prettyForm("E["), self._print(e.args[0]), prettyForm("]"))
        )

    def _operator(self, e: Any) -> Any:
        inner = self._print(e.args[0])
        for a in e.args[1:]:
            inner = prettyForm(*stringPict.next(inner, ", ", self._print(a)))
        return prettyForm(*prettyForm(*inner.parens("(", ")")).left(type(e).__name__))

    _print_Var = _print_Cov = _print_Std = _operator

    def _print_Component(self, e: Any) -> Any:
        return prettyForm(subscripted(e.label.name, e.index))

    def _print_DotProduct(self, e: Any) -> Any:
        shown = f"{e.args[0].name}·{e.args[1].name}"
        if not _named_dimension(e):
            shown = f"dot({e.args[0].name}, {e.args[1].name}, {sympy.sstr(e.args[2])})"
        form = prettyForm(shown)
        form.binding = prettyForm.MUL if _named_dimension(e) else prettyForm.ATOM
        return form

    def _sum(self, e: Any, limits: str) -> Any:
        upper = self._print(e.upper)
        block = prettyForm(*stringPict.stack(upper, prettyForm("Σ"), prettyForm(limits)))
        block.baseline = upper.height()
        body = bound_sums(self).printing(e, lambda: self._print(e.body))
        if isinstance(e.body, Add):
            body = prettyForm(*body.parens())
        result = prettyForm(*block.right(" ", body))
        result.binding = prettyForm.MUL
        return result

    def _print_IndexSum(self, e: Any) -> Any:
        return self._sum(e, f"{sympy.sstr(e.indices[0])}=1")

    def _print_CrossSum(self, e: Any) -> Any:
        i, j = (sympy.sstr(s) for s in e.indices)
        return self._sum(e, f"{i}≠{j}")

    def _print_Group(self, e: Any) -> Any:
        return prettyForm(*self._print(e.args[0]).parens())

    def _call(self, name: str, args: Any) -> Any:
        inner = self._print(args[0])
        for a in args[1:]:
            inner = prettyForm(*stringPict.next(inner, ", ", self._print(a)))
        return prettyForm(*prettyForm(*inner.parens("(", ")")).left(name))

    def _print_Entry(self, e: Any) -> Any:
        if not entry_is_named(e, bound_sums(self).bound):
            return self._call("entry", (sympy.Symbol(e.vector), e.index, e.dim))
        if SUBSCRIPTED_LABEL.fullmatch(e.vector):  # b_q_i: no Unicode double subscript
            return prettyForm(f"{e.vector}_{sympy.sstr(e.index)}")
        return prettyForm(subscripted(e.vector, e.index))

    def _print_Softmax(self, e: Any) -> Any:
        written = softmax_arguments(e)
        if written is not None:
            return self._call(
                "softmax",
                tuple(sympy.Symbol(a.name) if i in (0, 3) else a for i, a in enumerate(written)),
            )
        return prettyForm(subscripted(e.shown, e.index))

    def _print_Deriv(self, e: Any) -> Any:
        den = prettyForm(*prettyForm("∂").right(self._print(e.args[1])))
        if simple_derivative(e):
            num = prettyForm(*prettyForm("∂").right(self._print(e.args[0])))
            return num / den
        body = prettyForm(*self._print(e.args[0]).parens())
        result = prettyForm(*(prettyForm("∂") / den).right(body))
        result.binding = prettyForm.MUL
        return result

    def _print_Lim(self, e: Any) -> Any:
        below = prettyForm(*self._print(e.variable).right("→∞"))
        block = prettyForm(*stringPict.stack(prettyForm("lim"), below))
        block.baseline = 0
        result = prettyForm(*block.right(" ", prettyForm(*self._print(e.args[0]).parens())))
        result.binding = prettyForm.MUL
        return result

    def _print_KroneckerDelta(self, e: Any) -> Any:
        return prettyForm(delta_text(e))


class TermLatexPrinter(LatexPrinter):
    """SymPy's LaTeX printer, extended with the kernel's terms."""

    def _print_E(self, e: Any) -> str:
        return rf"\mathbb{{E}}\left[{self._print(e.args[0])}\right]"

    def _operator(self, e: Any) -> str:
        inner = ", ".join(self._print(a) for a in e.args)
        return rf"\operatorname{{{type(e).__name__}}}\left({inner}\right)"

    _print_Var = _print_Cov = _print_Std = _operator

    def _print_Component(self, e: Any) -> str:
        text = f"{e.label.name}_{{{self._print(e.index)}}}"
        # k'ᵢ is already a superscript (the prime): braced, so that k'ᵢ² is no double one
        return f"{{{text}}}" if "'" in e.label.name else text

    def _print_DotProduct(self, e: Any) -> str:
        if not _named_dimension(e):  # dot(q, k, 2): the dimension read back as written
            n = self._print(e.args[2])
            return rf"\operatorname{{dot}}\left({e.args[0].name}, {e.args[1].name}, {n}\right)"
        return rf"{e.args[0].name} \cdot {e.args[1].name}"

    def _sum(self, e: Any, limits: str) -> str:
        body = bound_sums(self).printing(e, lambda: self._print(e.body))
        if isinstance(e.body, Add):
            body = rf"\left({body}\right)"
        return rf"\sum_{{{limits}}}^{{{self._print(e.upper)}}} {body}"

    def _print_IndexSum(self, e: Any) -> str:
        return self._sum(e, f"{self._print(e.indices[0])}=1")

    def _print_CrossSum(self, e: Any) -> str:
        i, j = (self._print(s) for s in e.indices)
        return self._sum(e, rf"{i} \neq {j}")

    def _print_Group(self, e: Any) -> str:
        return rf"\left({self._print(e.args[0])}\right)"

    def _call(self, name: str, args: Any) -> str:
        inner = ", ".join(a.name if isinstance(a, Str) else self._print(a) for a in args)
        return rf"\mathrm{{{name}}}({inner})"

    def _print_Entry(self, e: Any) -> str:
        if not entry_is_named(e, bound_sums(self).bound):
            return self._call("entry", e.args)
        return f"{e.vector}_{{{self._print(e.index)}}}"

    def _print_Softmax(self, e: Any) -> str:
        written = softmax_arguments(e)
        if written is not None:
            return self._call("softmax", written)
        return f"{e.shown}_{{{self._print(e.index)}}}"

    def _print_Deriv(self, e: Any) -> str:
        var = self._print(e.args[1])
        if simple_derivative(e):
            return rf"\frac{{\partial {self._print(e.args[0])}}}{{\partial {var}}}"
        return rf"\frac{{\partial}}{{\partial {var}}}\left({self._print(e.args[0])}\right)"

    def _print_Lim(self, e: Any) -> str:
        lam, body = self._print(e.variable), self._print(e.args[0])
        return rf"\lim_{{{lam} \to \infty}} \left({body}\right)"


def pretty_form(expr: Any) -> Any:
    """The prettyForm of ``expr`` (Unicode, as written, no line wrapping)."""
    settings = {"use_unicode": True, "order": "none", "wrap_line": False}
    return TermPrettyPrinter(settings)._print(expr)


def latex(expr: Any) -> str:
    """LaTeX for ``expr``, as written."""
    return str(TermLatexPrinter({"order": "none"}).doprint(expr))


#: Significant digits of a decimal value.
DECIMAL_DIGITS = 15


def _shortest(value: sympy.Float) -> str:
    """A Float in its shortest form of at most 15 significant digits: ``2.4576``, ``16``."""
    text = str(mpmath.nstr(mpmath.mpf(value._mpf_), DECIMAL_DIGITS))
    return text[:-2] if text.endswith(".0") else text


class DecimalPrinter(StrPrinter):
    """SymPy's string printer with each Float in its shortest form."""

    def _print_Float(self, e: Any) -> str:
        return _shortest(e)


class DecimalLatexPrinter(TermLatexPrinter):
    r"""The LaTeX printer with each Float in its shortest form (``1.5 \cdot 10^{30}``)."""

    def _print_Float(self, e: Any) -> str:
        mantissa, _, exponent = _shortest(e).partition("e")
        return mantissa if not exponent else rf"{mantissa} \cdot 10^{{{int(exponent)}}}"


class Decimal(NamedTuple):
    """An expression with its numbers as decimals: as text, as LaTeX, and whether exact."""

    text: str
    latex: str
    exact: bool


def decimal(expr: Any) -> Decimal:
    """``expr`` with its numbers written as decimals (15 significant digits); exact or not.

    Only numbers become decimals: exponents and symbols stay as they are.

    >>> decimal(sympy.Rational(1536, 625))
    Decimal(text='2.4576', latex='2.4576', exact=True)
    >>> decimal(sympy.Rational(1, 3) * sympy.sqrt(sympy.Symbol("d_k"))).text
    '0.333333333333333*sqrt(d_k)'
    >>> decimal(16 * sympy.Symbol("d_k"))
    Decimal(text='16*d_k', latex='16 d_{k}', exact=True)
    """
    approximate = sympy.nfloat(sympy.sympify(expr), n=DECIMAL_DIGITS, exponent=False)
    as_written = approximate.xreplace(
        {f: sympy.Rational(_shortest(f)) for f in approximate.atoms(sympy.Float)}
    )
    return Decimal(
        str(DecimalPrinter().doprint(approximate)),
        str(DecimalLatexPrinter({"order": "none"}).doprint(approximate)),
        bool(sympy.expand(as_written - expr) == 0),
    )
