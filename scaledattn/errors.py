"""Exception classes for scaledattn: one flat hierarchy, each error carrying fields.

Every exception class of the package lives here (tests/test_repo.py checks), and this
module imports nothing of the package or of SymPy, so any layer, the kernel included,
may raise them. ``InvalidArgument`` is bad input (the command line exits 2);
``ProofError`` and its subclasses are refusals of the kernel (exit 1); ``Undecided``
is numeric evidence that cannot settle a question (never a verdict either way).
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


# ---------------------------------------------------------------- bad input


class UsageError(ScaledAttnError):
    """A command line argparse refused: main() prints it in one line and returns 2."""


class ProofFileError(InvalidArgument):
    """A malformed proof file: ``path:line:column: message`` (one line)."""

    def __init__(self, message: str, line: int, column: int, path: str = "") -> None:
        super().__init__(message)
        self.message, self.line, self.column, self.path = message, line, column, path

    def located(self, path: str) -> ProofFileError:
        """The same error naming ``path``."""
        return ProofFileError(self.message, self.line, self.column, path)

    def __str__(self) -> str:
        return f"{self.path or '<proof>'}:{self.line}:{self.column}: {self.message}"


class Unsupported(InvalidArgument):
    """A term or assumption the numeric evaluator does not know: no witness, not a refutation."""


# ---------------------------------------------------------------- automation


class CannotDerive(ProofError):
    """The kernel refused the calculator's derivation for this setting."""


# ---------------------------------------------------------------- numeric evidence


class Undecided(ScaledAttnError):
    """Numbers cannot settle the question; the message says why.

    Enclosures too wide or a limit not yet converged (:mod:`scaledattn.numeric.enclosure`,
    the oracle :mod:`scaledattn.numeric.semantics`), or a side of a claim that does not
    reduce to a number (:mod:`scaledattn.claims.compare`): undecided, never a verdict.
    """


class OutOfRange(Undecided):
    """An entry or component beyond its vector's dimension: the term is ill-formed here.

    The kernel does not track which indices a vector has, so such a term has no
    meaning to compare; the world is not used for it.
    """


class Undefined(ScaledAttnError, ArithmeticError):
    """The term has no value in this world (0⁻¹, log 0, √−1, q₅ of a 3-vector)."""


class CaseTimeout(ScaledAttnError):
    """A fuzz case took longer than its time limit (a rule or an evaluation blew up)."""


class CannotCertify(ValueError):
    """A derivation holds a term or rule the certificate format does not write."""
