"""Exception classes for scaledattn: one flat hierarchy, each error carrying fields.

``InvalidArgument`` is bad input (the command line exits 2); ``ProofError`` and its
subclasses are refusals of the kernel (exit 1); ``NumericCheckFailed`` is numeric
evidence that disagrees with a symbolic claim (exit 1).
"""

from __future__ import annotations

from typing import Any


class ScaledAttnError(Exception):
    """Base class of every error scaledattn raises on purpose."""


class InvalidArgument(ScaledAttnError, ValueError):
    """Bad input to a public function or command: the message says what and why."""


class ProofError(ScaledAttnError):
    """The kernel refused a derivation.

    Fields: ``theorem`` (name), ``step`` (1-based, 0 for the statement), ``rule``,
    ``expected`` (what the rule gives), ``got`` (what was claimed), ``missing``
    (an assumption that was needed), ``context`` (the declared assumptions).
    """

    def __init__(
        self,
        message: str,
        *,
        theorem: str = "",
        step: int = 0,
        rule: str = "",
        expected: Any = None,
        got: Any = None,
        missing: Any = None,
        context: Any = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.theorem = theorem
        self.step = step
        self.rule = rule
        self.expected = expected
        self.got = got
        self.missing = missing
        self.context = context

    def __str__(self) -> str:
        where = self.theorem or "derivation"
        if self.step:
            where += f", step {self.step}"
        if self.rule:
            where += f" (by {self.rule})"
        return f"{type(self).__name__}: {where}\n{self.message}"


class StepMismatch(ProofError):
    """The rule, applied to the previous expression, does not give the claimed one."""


class MissingAssumption(ProofError):
    """A rule's side condition is not among the declared assumptions."""


class UnknownRule(ProofError):
    """A step names something that is neither a rule nor a proved theorem."""


class StatementMismatch(ProofError):
    """The chain does not start at the statement's left side or end at its right."""


class IllFormed(ProofError):
    """A statement or a claim is not a term of the kernel, or cannot be taken apart.

    A float, a string, or a proposition where an expression belongs.
    """


class CannotDecide(ProofError):
    """SymPy could neither show the two sides equal nor find them different."""


class NumericCheckFailed(ScaledAttnError):
    """Numeric evidence disagreed with a symbolic claim (separate from ProofError)."""
