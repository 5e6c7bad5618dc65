"""Every name a derivation cites, opened: theorems, their lemmas, the calculator's, the rules.

A step is justified by a primitive rule of the kernel (``variance_def``), a theorem of
the proof modules (``dot_product_variance``), a lemma one of them cites
(``exercise2_variance``) or a derivation the calculator wrote for a setting
(``variance(var_q=4, var_k=4)``). :func:`open_name` finds each of them, so that
``scaledattn derive NAME`` opens every name printed after "by" or beside a ✓.

Examples
--------
>>> open_name("exercise2_variance").name
'exercise2_variance'
>>> open_name("ring").name
'ring'
>>> open_name("varaince_of_sum")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
scaledattn.errors.InvalidArgument: unknown ... 'varaince_of_sum'; did you mean 'variance_of_sum'?
"""

from __future__ import annotations

from scaledattn.calculator.lemmas import CALLS, calculator_derivation
from scaledattn.errors import InvalidArgument
from scaledattn.kernel import RULES, Derivation, Rule
from scaledattn.registry import cited_lemmas, closest_name, theorem_names

__all__ = ["known_names", "open_name", "rule_card"]


def known_names() -> tuple[str, ...]:
    """Every name that opens: theorems, cited lemmas, the calculator's calls, the rules."""
    return (*theorem_names(), *CALLS, *sorted(RULES))


def open_name(name: str) -> Derivation | Rule:
    """The derivation or primitive rule called ``name``; InvalidArgument with the closest.

    An instance, as a proof file's report names it (``variance_of_scaled(c := a)``),
    opens its theorem.
    """
    if ":=" in name and "(" in name:
        name = name[: name.index("(")].strip()
    for d in _derivations():
        if d.name == name:
            return d
    made = calculator_derivation(name)
    if made is not None:
        return made
    if name in RULES:
        return RULES[name]
    from scaledattn.prooffile.library import NAMES as LIBRARY

    if name in LIBRARY:  # the proof files' own lemmas, written and proved in that format
        from scaledattn.prooffile.check import library_theorems

        return library_theorems()[name].derivation
    raise InvalidArgument(f"unknown theorem or rule {name!r}{closest_name(name, known_names())}")


def _derivations() -> tuple[Derivation, ...]:
    from scaledattn.registry import all_derivations

    return (*all_derivations(), *cited_lemmas())


def rule_card(rule: Rule) -> str:
    """A primitive rule shown as what it is: trusted by the kernel, not derived."""
    lines = [f"Rule {rule.name} — a primitive rule of the kernel (checked, not derived)"]
    lines.append(f"  law      {rule.law}")
    from scaledattn.rulebook import RULEBOOK

    doc = RULEBOOK.get(rule.name)
    for label, field in (("figure", "figure"), ("fails", "fails"), ("Mathlib", "mathlib")):
        value = getattr(doc, field, "")
        if value:
            lines.append(f"  {label:<8} {value}")
    return "\n".join(lines)
