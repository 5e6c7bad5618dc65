r"""The surface syntax: the spellings a learner types, read into the canonical tokens.

One home for every spelling that is not the canonical one, shared by the calculator
(:mod:`scaledattn.language.parse`) and the claim language (:mod:`scaledattn.claims`).
It runs in two passes, neither of which evaluates anything:

1. :func:`normalise` rewrites characters: subscripts (``dₖ`` → ``d_k``, ``q₁`` →
   ``q_1``), superscripts (``σ²`` → ``sigma**2``), Greek letters (``σ`` → ``sigma``),
   the operator signs SymPy and Unicode print (``·`` ``⋅`` ``×`` ``−``), and a bounded
   set of LaTeX forms (``\mathrm{Var}``, ``\cdot``, ``\sqrt{x}``, ``\frac{a}{b}``,
   ``d_{k}``, ``x^{2}``, ``\left( … \right)``). Each output character remembers its
   position in the text as typed, so messages point at what the user wrote.
2. :func:`rewrite_tokens` works on tokens: ``E[X]`` is ``E(X)``, ``q·k`` (or
   ``q*k``, ``qᵀk``) is ``dot(q, k)``, and a product is implicit where nothing else
   can be meant: a number or a closing parenthesis directly before a name, a call,
   ``(`` or ``√``, or a name before a name (``2Cov(X, Y)``, ``16 d_k``, ``q_1 k_1``).
   After ``/`` such a product is ambiguous (``1/2d_k``), and after ``**`` when nothing
   separates it (``2^3x``, but ``x^2 y`` is x²·y): both are refused with both readings.

Examples
--------
>>> normalise("Var(q·k) = dₖ")[0]
'Var(q*k) = d_k'
>>> normalise(r"\mathrm{Var}(q\cdot k) = \frac{d_k}{2}")[0]
'Var(q* k) = ((d_k)/(2))'
>>> normalise("σ² + μ_q")[0]
'sigma**2 + mu_q'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from scaledattn.errors import InvalidArgument

__all__ = [
    "BRACKET_CALLS",
    "GREEK",
    "LATEX_WORDS",
    "SYNONYMS",
    "closest",
    "did_you_mean",
    "normalise",
    "quote",
    "rewrite_tokens",
    "unbracketed_equivalence",
]

#: A token: (kind, canonical text, 1-based position); kind is 'number', 'name' or 'op'.
Token = tuple[str, str, int]

#: Greek letters and their names in the language (δ is Kronecker's delta, Σ a sum).
_GREEK_NAMES = (
    "sigma rho mu lambda alpha beta gamma epsilon theta tau phi omega eta kappa nu xi psi chi zeta"
)
GREEK = dict(zip("σρμλαβγεθτφωηκνξψχζ", _GREEK_NAMES.split(), strict=True))

_SUBSCRIPTS = dict(zip("₀₁₂₃₄₅₆₇₈₉ₐₑₒₓₕₖₗₘₙₚₛₜᵢⱼᵣᵤᵥ", "0123456789aeoxhklmnpstijruv", strict=True))
_SUPERSCRIPTS = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-", strict=True))
_SIGNS = {"·": "*", "⋅": "*", "∙": "*", "×": "*", "−": "-", "–": "-", "ᵀ": "ᵀ"}

#: LaTeX commands that stand for one word or sign (``\\cdot`` is ``*``).
LATEX_WORDS = {
    "cdot": "*",
    "times": "*",
    "approx": "≈",
    "le": "<=",
    "leq": "<=",
    "ge": ">=",
    "geq": ">=",
    "lt": "<",
    "gt": ">",
    "iff": "<=>",
    "Leftrightarrow": "<=>",
    **{name: name for name in GREEK.values()},
    "delta": "delta",
    "Sigma": "sum",
    "sum": "sum",
    "partial": "∂",
    "lVert": "‖",
    "rVert": "‖",
    "|": "‖",
    "lvert": "|",
    "rvert": "|",
    "exp": "exp",
    "log": "log",
    "ln": "log",
    "top": "ᵀ",
    "intercal": "ᵀ",
    "E": "E",
}
#: LaTeX commands whose braced argument is a word in the language (``\\mathrm{Var}``).
_FONT_COMMANDS = {
    "mathrm", "operatorname", "text", "textrm", "mathit", "mathbf", "mathbb", "mathsf",
    "rm", "textnormal", "mathop",
}  # fmt: skip
#: Spacing and sizing commands, read as nothing.
_SILENT = {
    "left",
    "right",
    "big",
    "Big",
    "bigg",
    "Bigg",
    "bigl",
    "bigr",
    "Bigl",
    "Bigr",
    "displaystyle",
}
_SPACES = {",", ";", ":", "!", " ", "quad", "qquad"}
_FRACTIONS = {"frac", "dfrac", "tfrac"}

#: The functions that may be written with square brackets, as E[X].
BRACKET_CALLS = ("E", "Var", "Cov", "std")

_COMMAND = re.compile(r"\\([A-Za-z]+|.)")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class _Out:
    """Characters written with the 1-based position each one came from."""

    def __init__(self) -> None:
        self.chars: list[str] = []
        self.where: list[int] = []

    def put(self, text: str, at: int) -> None:
        self.chars.extend(text)
        self.where.extend([at] * len(text))


def normalise(text: str) -> tuple[str, list[int]]:
    r"""``text`` in canonical characters, and the 1-based position each one was typed at.

    Unknown LaTeX commands are refused by name (``\neq``); everything else the
    tokenizer judges.

    >>> normalise("q₁ + k_{2}")
    ('q_1 + k_2', [1, 2, 2, 3, 4, 5, 6, 7, 9])
    """
    out = _Out()
    _normalise(text, 0, len(text), out, text)
    return "".join(out.chars), out.where


def _normalise(text: str, start: int, end: int, out: _Out, whole: str) -> None:
    i = start
    while i < end:
        ch = text[i]
        if ch == "\\":
            i = _command(text, i, end, out, whole)
            continue
        if ch == "$":
            i += 1
            continue
        if ch in _SUBSCRIPTS:
            j = i
            while j < end and text[j] in _SUBSCRIPTS:
                j += 1
            if not out.chars or out.chars[-1] != "_":
                out.put("_", i + 1)
            for k in range(i, j):
                out.put(_SUBSCRIPTS[text[k]], k + 1)
            i = j
            continue
        if ch in _SUPERSCRIPTS:
            j = i
            while j < end and text[j] in _SUPERSCRIPTS:
                j += 1
            digits = "".join(_SUPERSCRIPTS[c] for c in text[i:j])
            out.put("**" + (f"({digits})" if digits.startswith("-") else digits), i + 1)
            i = j
            continue
        if (
            ch == "e"
            and text.startswith("^{", i + 1)
            and not (i > start and (text[i - 1].isalnum() or text[i - 1] in "_\\"))
        ):  # LaTeX's e^{x} is exp(x) (e alone is no name of the language)
            close = _closing(text, i + 2, end, whole)
            out.put("exp(", i + 1)
            _normalise(text, i + 3, close, out, whole)
            out.put(")", close + 1)
            i = close + 1
            continue
        if ch == "δ":  # Kronecker's δᵢₘ or δ_iw, as the printers write it
            pair = re.compile(r"([ᵢⱼₗₘₜᵤᵥₐₙₖ])([ᵢⱼₗₘₜᵤᵥₐₙₖ])|_([a-z])([a-z])(?![A-Za-z0-9_])")
            found = pair.match(text, i + 1, end)
            if found is not None:
                a, b = (
                    (_SUBSCRIPTS[found.group(1)], _SUBSCRIPTS[found.group(2)])
                    if found.group(1)
                    else (found.group(3), found.group(4))
                )
                out.put(f"delta({a}, {b})", i + 1)
                i = found.end()
                continue
        if ch == "Σ" and text.startswith("_{", i + 1):
            i = _ranged_sum(text, i, i + 1, end, out, whole, latex=False)
            continue
        if ch == "∂":
            i = _derivative(text, i, end, out, whole)
            continue
        if text.startswith("lim_{", i) and not (
            i > start and (text[i - 1].isalnum() or text[i - 1] in "_\\")
        ):
            i = _limit(text, i, i + 3, end, out, whole, latex=False)
            continue
        if ch in GREEK:
            out.put(GREEK[ch], i + 1)
            i += 1
            continue
        if ch == "'" and out.chars and (out.chars[-1].isalnum() or out.chars[-1] == "_"):
            out.put("_", i + 1)  # a prime: k'_i is the name k__i (primes_as_underscores)
            i += 1
            continue
        if ch in _BARS:
            out.put(_bar(out, _BARS[ch]), i + 1)
            i += 1
            continue
        if ch in _SIGNS:
            out.put(_SIGNS[ch], i + 1)
            i += 1
            continue
        if ch == "_" and i + 1 < end and text[i + 1] == "{":
            close = _closing(text, i + 1, end, whole)
            inner = text[i + 2 : close]
            if re.fullmatch(r"[A-Za-z0-9]+", inner):
                out.put("_", i + 1)
                out.put(inner, i + 3)
                i = close + 1
                continue
        if ch == "{":
            out.put("(", i + 1)
        elif ch == "}":
            out.put(")", i + 1)
        else:
            out.put(ch, i + 1)
        i += 1


#: Delimiters written in pairs, and the function each pair reads as: ‖x‖, |x|.
_BARS = {"‖": "norm", "|": "abs"}


def _bar(out: _Out, function: str) -> str:
    """``norm(`` or ``abs(`` where a bar opens (at the start, after an operator), else ``)``."""
    before = "".join(out.chars).rstrip()
    opens = not before or before[-1] in "(+-*/=<>,[^√" or before.endswith("**")
    return f"{function}(" if opens else ")"


def _closing(text: str, at: int, end: int, whole: str) -> int:
    """The index of the '}' matching the '{' at ``at``."""
    depth = 0
    for j in range(at, end):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    raise InvalidArgument(f"missing '}}' for the '{{' at position {at + 1} in {_quote(whole)}")


def _braced(text: str, at: int, end: int, command: str, whole: str) -> int:
    """The index after leading spaces where a braced argument must start."""
    while at < end and text[at] == " ":
        at += 1
    if at >= end or text[at] != "{":
        raise InvalidArgument(
            f"\\{command} takes a braced argument, as \\{command}{{…}}, in {_quote(whole)}"
        )
    return at


def _command(text: str, i: int, end: int, out: _Out, whole: str) -> int:
    match = _COMMAND.match(text, i, end)
    if match is None:  # a lone backslash at the end
        raise InvalidArgument(f"a lone '\\' at position {i + 1} in {_quote(whole)}")
    name, after = match.group(1), match.end()
    if name in _SPACES:
        out.put(" ", i + 1)
        return after
    if name == "delta":  # \delta_{i m}: Kronecker's delta of two indices
        found = re.compile(r"_\{\s*([a-z])\s*,?\s*([a-z])\s*\}").match(text, after, end)
        if found is not None:
            out.put(f"delta({found.group(1)}, {found.group(2)})", i + 1)
            return found.end()
    if name == "left" and i > 0 and text[i - 1] == " ":
        before = "".join(out.chars).rstrip()
        if before and (before[-1].isalnum() or before[-1] == "_"):
            out.put(
                "*", i + 1
            )  # d_{k} \left(…\right) is a product; \operatorname{Var}\left( a call
        return after
    if name in _SILENT:
        return after
    if name in ("{", "}"):
        out.put("(" if name == "{" else ")", i + 1)
        return after
    if name in ("sum", "Sigma") and text.startswith("_{", after):
        return _ranged_sum(text, i, after, end, out, whole, latex=True)
    if name == "lim" and text.startswith("_{", after):
        return _limit(text, i, after, end, out, whole, latex=True)
    if name in LATEX_WORDS:
        word = LATEX_WORDS[name]
        out.put(_bar(out, _BARS[word]) if word in _BARS else word, i + 1)
        return after
    if name in _FONT_COMMANDS:
        at = _braced(text, after, end, name, whole)
        close = _closing(text, at, end, whole)
        _normalise(text, at + 1, close, out, whole)
        return close + 1
    if name == "sqrt":
        if after < end and text[after] == "[":
            raise InvalidArgument(f"only square roots are read: \\sqrt{{…}}, in {_quote(whole)}")
        if after < end and text[after] == "{":
            close = _closing(text, after, end, whole)
            out.put("sqrt(", i + 1)
            _normalise(text, after + 1, close, out, whole)
            out.put(")", close + 1)
            return close + 1
        out.put("√", i + 1)
        return after
    if name in _FRACTIONS:
        first = _braced(text, after, end, name, whole)
        first_end = _closing(text, first, end, whole)
        second = _braced(text, first_end + 1, end, name, whole)
        second_end = _closing(text, second, end, whole)
        partial = _PARTIAL.match(text, first + 1, first_end)
        if partial is not None and _PARTIAL.match(text, second + 1, second_end):
            return _latex_derivative(
                text, i, (partial.end(), first_end), (second, second_end), end, out, whole
            )
        out.put("((", i + 1)
        _normalise(text, first + 1, first_end, out, whole)
        out.put(")/(", first_end + 1)
        _normalise(text, second + 1, second_end, out, whole)
        out.put("))", second_end + 1)
        return second_end + 1
    better = closest(name, sorted({*LATEX_WORDS, *_FONT_COMMANDS, "sqrt", "frac"}))
    hint = f"; did you mean \\{better}?" if better else " (see 'scaledattn verify --help')"
    if name in ("ne", "neq"):
        hint = " (there is no ≠: state the equation, and a false one is REFUTED)"
    raise InvalidArgument(
        f"unknown LaTeX command \\{name} at position {i + 1} in {_quote(whole)}{hint}"
    )


#: What may follow a factor: its subscripts, superscripts, primes and a call's parentheses.
_FACTOR_CHARS = set("_'") | set(_SUBSCRIPTS) | set(GREEK)


def _ranged_sum(
    text: str, start: int, at: int, end: int, out: _Out, whole: str, latex: bool
) -> int:
    r"""``Σ_{i=1..n} BODY`` or ``\sum_{i=1}^{n} BODY``, written as ``sum(BODY, i, 1, n)``.

    The body is what the printers put there: in Unicode one factor (a name, a call or
    a parenthesised term, with its power: a product is parenthesised), in LaTeX a
    product (a sum is parenthesised), ending at a top-level ``+``, ``-`` or relation.
    """
    parts = _sum_range(text, at + 1, end)
    if parts is None:
        raise InvalidArgument(
            f"a sum is written Σ_{{i=1..N}} BODY or sum(BODY, i, 1, N), in {_quote(whole)}"
        )
    body_start, spans = parts
    body_end = (_product_end if latex else _factor_end_text)(text, body_start, end)
    if body_end <= body_start or not text[body_start:body_end].strip():
        raise InvalidArgument(f"a sum without a body at position {start + 1} in {_quote(whole)}")
    out.put("sum(", start + 1)
    _normalise(text, body_start, body_end, out, whole)
    out.put(", ", body_end)
    for n, (lo, hi) in enumerate(spans):
        _normalise(text, lo, hi, out, whole)
        out.put(", " if n < 2 else ")", hi + 1)
    return body_end


_PARTIAL = re.compile(r"\s*\\partial(?![A-Za-z])\s*")
_LIMIT_RANGE = re.compile(
    r"_\{\s*(?P<var>[^{}]*?)\s*(?:→|\\to(?![A-Za-z])|\\rightarrow(?![A-Za-z]))\s*"
    r"(?:∞|\\infty(?![A-Za-z])|\+\s*\\infty(?![A-Za-z]))\s*\}"
)


def _name_end(text: str, at: int, end: int) -> int:
    """The end of the name (with its subscripts, primes, braces) starting at ``at``."""
    j = at
    while j < end and (text[j].isalnum() or text[j] in _FACTOR_CHARS):
        if text[j] == "_" and j + 1 < end and text[j + 1] == "{":
            j = _matching(text, j + 1, end)
            continue
        j += 1
    return j


def _derivative(text: str, start: int, end: int, out: _Out, whole: str) -> int:
    """``∂f/∂sₘ`` or ``∂/∂sₘ(BODY)``, written as ``deriv(f, s_m)``.

    As the printers write it: after ``∂`` a factor (an entry or a weight), ``/∂`` and the
    entry differentiated against; or ``∂/∂`` and the entry, then the parenthesised body.
    """
    refusal = InvalidArgument(
        f"a derivative is written ∂pᵢ/∂sₘ, ∂/∂sₘ(BODY) or deriv(f, s_m), in {_quote(whole)}"
    )
    if text.startswith("/∂", start + 1):
        var = start + 3
        var_end = _name_end(text, var, end)
        if var_end == var or var_end >= end or text[var_end] != "(":
            raise refusal
        body_end = _matching(text, var_end, end)
        out.put("deriv(", start + 1)
        _normalise(text, var_end, body_end, out, whole)
        out.put(", ", body_end)
        _normalise(text, var, var_end, out, whole)
        out.put(")", body_end)
        return body_end
    body_end = _factor_end_text(text, start + 1, end)
    if body_end == start + 1 or not text.startswith("/∂", body_end):
        raise refusal
    var = body_end + 2
    var_end = _name_end(text, var, end)
    if var_end == var:
        raise refusal
    out.put("deriv(", start + 1)
    _normalise(text, start + 1, body_end, out, whole)
    out.put(", ", body_end + 1)
    _normalise(text, var, var_end, out, whole)
    out.put(")", var_end)
    return var_end


def _latex_derivative(
    text: str,
    start: int,
    numerator: tuple[int, int],
    denominator: tuple[int, int],
    end: int,
    out: _Out,
    whole: str,
) -> int:
    r"""``\frac{\partial f}{\partial s_{m}}``, or ``\frac{\partial}{\partial s_{m}}`` and its body.

    The body of the second is ``\left(BODY\right)``, as the LaTeX printer writes it.
    """
    top, top_end = numerator
    below, below_end = denominator
    var = _PARTIAL.match(text, below + 1, below_end)
    assert var is not None
    if text[top:top_end].strip():
        body, body_end, after = top, top_end, below_end + 1
    else:
        body, body_end, after = _latex_parenthesised(text, below_end + 1, end, whole)
    out.put("deriv(", start + 1)
    _normalise(text, body, body_end, out, whole)
    out.put(", ", body_end + 1)
    _normalise(text, var.end(), below_end, out, whole)
    out.put(")", below_end + 1)
    return after


def _latex_parenthesised(text: str, at: int, end: int, whole: str) -> tuple[int, int, int]:
    r"""(start, end) of what ``\left( … \right)`` or ``( … )`` at ``at`` holds, and the end."""
    j = at
    while j < end and text[j] == " ":
        j += 1
    if text.startswith("\\left(", j):
        inner, depth, k = j + 6, 1, j + 6
        while k < end:
            if text.startswith("\\left", k):
                depth += 1
                k += 5
            elif text.startswith("\\right", k):
                depth -= 1
                if depth == 0:
                    return inner, k, min(k + 7, end)
                k += 6
            k += 1
        raise InvalidArgument(f"a \\left( without its \\right) in {_quote(whole)}")
    if j < end and text[j] == "(":
        close = _matching(text, j, end)
        return j + 1, close - 1, close
    raise InvalidArgument(
        f"a derivative ∂/∂x or a limit is followed by its parenthesised body, in {_quote(whole)}"
    )


def _limit(text: str, start: int, at: int, end: int, out: _Out, whole: str, latex: bool) -> int:
    r"""``lim_{λ→∞} BODY`` or ``\lim_{\lambda \to \infty} \left(BODY\right)``: ``lim(BODY, λ)``.

    The body is what the printers put there: in Unicode one factor (a name, a call or a
    parenthesised term), in LaTeX a parenthesised term.
    """
    found = _LIMIT_RANGE.match(text, at, end)
    if found is None or not found.group("var"):
        raise InvalidArgument(
            f"a limit is written lim_{{λ→∞}} BODY or lim(f, lambda), in {_quote(whole)}"
        )
    if latex:
        body, body_end, after = _latex_parenthesised(text, found.end(), end, whole)
    else:
        body, after = found.end(), _factor_end_text(text, found.end(), end)
        body_end = after
        if not text[body:body_end].strip():
            raise InvalidArgument(
                f"a limit without a body at position {start + 1} in {_quote(whole)}"
            )
    out.put("lim(", start + 1)
    _normalise(text, body, body_end, out, whole)
    out.put(", ", body_end)
    _normalise(text, found.start("var"), found.end("var"), out, whole)
    out.put(")", body_end)
    return after


def _sum_range(text: str, at: int, end: int) -> tuple[int, list[tuple[int, int]]] | None:
    """The end of ``{i=1..n}`` or ``{i=1}^{n}`` at ``at``, and the index, lower, upper spans."""
    close = _matching(text, at, end)
    inner = text[at + 1 : close - 1]
    if "=" not in inner:
        return None
    eq = at + 1 + inner.index("=")
    index = (at + 1, eq)
    if ".." in inner:
        dots = at + 1 + inner.index("..")
        return close, [index, (eq + 1, dots), (dots + 2, close - 1)]
    if not text.startswith("^{", close):
        return None
    upper_end = _matching(text, close + 1, end)
    return upper_end, [index, (eq + 1, close - 1), (close + 2, upper_end - 1)]


def _matching(text: str, at: int, end: int) -> int:
    """The index after the bracket that closes the one at ``at`` (or ``end``)."""
    depth = 0
    for j in range(at, end):
        if text[j] in "([{":
            depth += 1
        elif text[j] in ")]}":
            depth -= 1
            if depth == 0:
                return j + 1
    return end


def _factor_end_text(text: str, at: int, end: int) -> int:
    """The end of the factor of a Unicode line starting at ``at`` (spaces skipped)."""
    j = at
    while j < end and text[j] == " ":
        j += 1
    if j < end and text[j] == "Σ":
        return _factor_end_text(text, _matching(text, j + 1, end), end)
    if j < end and text[j] == "√":
        j += 1
    if j < end and text[j] in "([":
        j = _matching(text, j, end)
    else:
        while j < end and (text[j].isalnum() or text[j] in _FACTOR_CHARS):
            j += 1
        if j < end and text[j] in "([":
            j = _matching(text, j, end)
    while j < end and text[j] in _SUPERSCRIPTS:
        j += 1
    return j


def _product_end(text: str, at: int, end: int) -> int:
    """The end of a LaTeX product starting at ``at``: a top-level + - = or a closing bracket."""
    depth, j = 0, at
    while j < end:
        ch = text[j]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                return j
            depth -= 1
        elif (
            depth == 0 and j > at and (ch in "+-=<>,≈" or text.startswith(("\\right", "\\iff"), j))
        ):
            return j
        j += 1
    return end


def quote(text: str) -> str:
    r"""``text`` in double quotes for a one-line message: shortened, control characters escaped.

    >>> quote("0\n= 1")
    '"0\\n= 1"'
    """
    shown = text if len(text) <= 60 else text[:57] + "..."
    shown = _CONTROL.sub(lambda m: repr(m.group())[1:-1], shown)
    return '"' + shown.replace('"', "'") + '"'


_quote = quote


#: The spellings of ⇔ between the two equations of an equivalence.
_EQUIVALENCES = ("<=>", "⇔", "\\iff", "\\Leftrightarrow")


def unbracketed_equivalence(text: str) -> str:
    """``(A = a) ⇔ (B = b)``, as ``list`` prints it, with the two outer pairs blanked out.

    Every door reads a statement's equivalence so. Positions are kept (each bracket
    becomes a space), so messages point at the text as typed. Anything else is returned
    as it is.

    >>> unbracketed_equivalence("(Var(q·k/c) = 1) ⇔ (c = √dₖ)")
    ' Var(q·k/c) = 1  ⇔  c = √dₖ '
    """
    depth, found = 0, None
    for at, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif depth == 0:
            sign = next((e for e in _EQUIVALENCES if text.startswith(e, at)), None)
            if sign is not None:
                found = (at, at + len(sign))
                break
    if found is None:
        return text
    chars = list(text)
    for lo, hi in ((0, found[0]), (found[1], len(text))):
        side = text[lo:hi]
        first = lo + len(side) - len(side.lstrip())
        last = lo + len(side.rstrip()) - 1
        if first < last and text[first] == "(" and text[last] == ")":
            depth = 0
            for at in range(first, last + 1):
                depth += {"(": 1, ")": -1}.get(text[at], 0)
                if depth == 0 and at < last:
                    break
            else:
                chars[first] = chars[last] = " "
    return "".join(chars)


# ------------------------------------------------------------------- tokens


def rewrite_tokens(
    tokens: Sequence[Token], functions: Sequence[str], text: str, *, dot: bool, lists: bool
) -> list[Token]:
    """Canonical tokens: bracket calls, ``q·k`` as ``dot(q, k)``, implicit products.

    ``functions`` are the names the syntax calls; ``dot`` is True when it knows
    ``dot(q, k)`` and ``lists`` when ``[`` opens a list.
    """
    out = list(tokens)
    if lists:
        out = _bracket_calls(out, functions)
    if dot:
        out = _dot_products(out)
    return _implicit_products(out, functions, text)


def _is(token: Token | None, kind: str, *values: str) -> bool:
    return token is not None and token[0] == kind and (not values or token[1] in values)


def _bracket_calls(tokens: list[Token], functions: Sequence[str]) -> list[Token]:
    """``E[X]`` → ``E(X)`` for the moment functions (the brackets matched by nesting)."""
    out = list(tokens)
    for n in range(len(out) - 1):
        name, opening = out[n], out[n + 1]
        if not (_is(name, "name", *BRACKET_CALLS) and name[1] in functions):
            continue
        if not _is(opening, "op", "["):
            continue
        depth = 0
        for m in range(n + 1, len(out)):
            if _is(out[m], "op", "["):
                depth += 1
            elif _is(out[m], "op", "]"):
                depth -= 1
                if depth == 0:
                    out[n + 1] = ("op", "(", opening[2])
                    out[m] = ("op", ")", out[m][2])
                    break
    return out


def _dot_products(tokens: list[Token]) -> list[Token]:
    r"""``q * k`` (typed ``q·k``, ``q⋅k``, ``q\cdot k``), ``qᵀk`` and ``q^T k`` → ``dot(q, k)``."""
    out: list[Token] = []
    n = 0
    while n < len(tokens):
        end = _transpose_product(tokens, n)
        if end and not (out and _is(out[-1], "op", "**")):
            at, k_at = tokens[n][2], tokens[end - 1][2]
            q, k = tokens[n][1], tokens[end - 1][1]
            out += [("name", "dot", at), ("op", "(", at), ("name", q, at), ("op", ",", at)]
            out += [("name", k, k_at), ("op", ")", k_at)]
            n = end
            continue
        out.append(tokens[n])
        n += 1
    return out


_TRANSPOSED = (
    (("op", "*"),),
    (("op", "ᵀ"),),
    (("op", "**"), ("name", "T")),
    (("op", "**"), ("op", "ᵀ")),
    (("op", "**"), ("op", "("), ("name", "T"), ("op", ")")),
    (("op", "**"), ("op", "("), ("op", "ᵀ"), ("op", ")")),
)


#: q or k, primed (a prime is read as an underscore: k' is k_).
_Q = re.compile(r"q_*")
_K = re.compile(r"k_*")


def _transpose_product(tokens: Sequence[Token], n: int) -> int:
    """The index after ``q <product> k`` starting at ``n``, or 0 if none starts there."""
    if not (tokens[n][0] == "name" and _Q.fullmatch(tokens[n][1])):
        return 0
    for middle in _TRANSPOSED:
        end = n + 1 + len(middle)
        if end >= len(tokens) or not (tokens[end][0] == "name" and _K.fullmatch(tokens[end][1])):
            continue
        if all(_is(tokens[n + 1 + m], kind, text) for m, (kind, text) in enumerate(middle)):
            if end + 1 < len(tokens) and _is(tokens[end + 1], "op", "**"):
                return 0  # q·k**2 would square k: left to the grammar
            return end + 1
    return 0


def _implicit_products(tokens: list[Token], functions: Sequence[str], text: str) -> list[Token]:
    """A '*' between a number or ')' and a name, call, '(' or '√' that follows it directly."""
    out: list[Token] = []
    for n, token in enumerate(tokens):
        if out and _implicit(out[-1], token, functions):
            start = _factor_start(out)
            before = out[start - 1] if start > 0 else None
            left = out[-1]
            touching = left[0] != "op" and left[2] + len(left[1]) == token[2]
            if before is not None and (
                _is(before, "op", "/") or (_is(before, "op", "**") and touching)
            ):
                _ambiguous(out, start, tokens, n, text, before)
            out.append(("op", "*", token[2]))
        out.append(token)
    return out


#: Words that join propositions; never a factor of an implicit product.
CONNECTIVES = ("or", "and", "not")


def _implicit(left: Token, right: Token, functions: Sequence[str]) -> bool:
    """True when ``left right`` is a product: ``2X``, ``16 d_k``, ``(a)(b)``, ``q_1 k_1``.

    A name before ``(`` is not one (it would read as a call), nor a function's name,
    nor a connective (``c = 2 or c = -2``).
    """
    if _is(left, "name", *CONNECTIVES) or _is(right, "name", *CONNECTIVES):
        return False
    if left[0] == "name":
        return left[1] not in functions and (right[0] == "name" or _is(right, "op", "√"))
    left_ends = left[0] == "number" or _is(left, "op", ")")
    right_starts = right[0] == "name" or _is(right, "op", "(", "√")
    return left_ends and right_starts


def _factor_start(out: list[Token]) -> int:
    """Where the factor that ends ``out`` starts: the number or name, or the matching '('."""
    if out[-1][0] in ("number", "name"):
        return len(out) - 1
    depth = 0
    for m in range(len(out) - 1, -1, -1):
        if _is(out[m], "op", ")"):
            depth += 1
        elif _is(out[m], "op", "("):
            depth -= 1
            if depth == 0:
                # a call's name belongs to the factor
                return m - 1 if m > 0 and out[m - 1][0] == "name" else m
    return 0


def _ambiguous(
    out: list[Token], start: int, tokens: Sequence[Token], n: int, text: str, before: Token
) -> None:
    sign = "/" if before[1] == "/" else "**"
    right_end = _factor_end(tokens, n)
    first, split = out[start][2] - 1, tokens[n][2] - 1
    last = tokens[right_end][2] - 1 + len(tokens[right_end][1])
    left, right = text[first:split].strip(), text[split:last].strip()
    grouped = text[:first] + f"({left}*{right})" + text[last:]
    product = text[:first] + f"{left}*{right}" + text[last:]
    raise InvalidArgument(
        f"the implicit product {text[first:last]!r} after {sign!r} is ambiguous in"
        f" {_quote(text)};"
        f" did you mean {_quote(grouped)} or {_quote(product)}?"
    )


def _factor_end(tokens: Sequence[Token], n: int) -> int:
    """The index of the last token of the factor that starts at ``n``."""
    m = n + 1 if tokens[n][0] == "name" and _is(_at(tokens, n + 1), "op", "(") else n
    if m == n and not _is(tokens[n], "op", "("):
        return n
    depth = 0
    for j in range(m, len(tokens)):
        if _is(tokens[j], "op", "("):
            depth += 1
        elif _is(tokens[j], "op", ")"):
            depth -= 1
            if depth == 0:
                return j
    return len(tokens) - 1


def _at(tokens: Sequence[Token], n: int) -> Token | None:
    return tokens[n] if n < len(tokens) else None


# -------------------------------------------------------------- suggestions

#: Words a learner may type for a function, and the function they mean.
SYNONYMS = {
    "variance": "Var",
    "expectation": "E",
    "expected": "E",
    "mean": "E",
    "covariance": "Cov",
    "stddev": "std",
    "stdev": "std",
    "sd": "std",
    "ln": "log",
    "root": "sqrt",
    "product": "dot",
    "inner": "dot",
}


def closest(word: str, known: Sequence[str]) -> str | None:
    """The known word closest to ``word`` (case ignored, synonyms first), or None.

    >>> closest("Sigma", ["sigma", "rho"]), closest("variance", ["Var", "E"])
    ('sigma', 'Var')
    """
    import difflib

    if word.lower() in SYNONYMS and SYNONYMS[word.lower()] in known:
        return SYNONYMS[word.lower()]
    lowered = {k.lower(): k for k in known}
    if word.lower() in lowered:
        return lowered[word.lower()]
    found = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=0.6)
    return lowered[found[0]] if found else None


def did_you_mean(
    text: str, position: int, old: str, new: str, accepts: Callable[[str], bool]
) -> str:
    """``; did you mean "…"?`` with ``old`` (at ``position``, and as a word everywhere) replaced.

    The whole corrected text is offered only when ``accepts`` reads it, so that it
    works when pasted back; otherwise the replacement alone is named.

    >>> did_you_mean("Var(dk) = 1", 5, "dk", "d_k", lambda t: True)
    '; did you mean "Var(d_k) = 1"?'
    """
    start = position - 1
    if text[start : start + len(old)] == old:
        word = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(old)}(?![A-Za-z0-9_])")
        candidate = (
            word.sub(new, text)
            if old[:1].isalpha()
            else text[:start] + new + text[start + len(old) :]
        )
        if accepts(candidate):
            return f"; did you mean {_quote(candidate)}?"
    return f"; did you mean {new}?"
