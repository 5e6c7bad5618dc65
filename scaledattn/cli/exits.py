"""The command line's exit codes and its one-line error messages, shared by every command.

0 success (everything verified), 1 a proof or numeric check failed, 2 bad input or
usage (one line, never a traceback), 3 undecided, 4 verified modulo an axiom, 70 a
bug in scaledattn: the soundness alarm (a step the kernel accepted is false in a model,
or the kernel accepts what the independent checker refuses; "please report") or an
internal error.
"""

from __future__ import annotations

import unicodedata

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNDECIDED = 0, 1, 2, 3
#: A theorem verified modulo an axiom (``axiom(...)``): not 0, since a step rests on a
#: rule the kernel did not check, and not 1, since none was refused.
EXIT_MODULO_AXIOM = 4
EXIT_INTERNAL = 70  # EX_SOFTWARE: a bug in scaledattn, never the user's input


def one_line(message: str) -> str:
    r"""``message`` with line breaks and other control characters escaped, so it is one line.

    Messages quote what the user typed, which may hold a newline or a carriage return.

    >>> one_line("unknown theorem 'a\nb'")
    "unknown theorem 'a\\nb'"
    """
    return "".join(
        ch.encode("unicode_escape").decode("ascii")
        if unicodedata.category(ch) in ("Cc", "Zl", "Zp")
        else ch
        for ch in message
    )
