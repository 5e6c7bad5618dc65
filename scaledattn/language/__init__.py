"""The one language a learner writes: the bounded parser, the surface spellings, definedness.

Shared by every door that reads a term (``verify``, ``--assume``, proof files, the
calculator's expressions, the API); none of them reads a term another way.

- :mod:`~scaledattn.language.surface`: the spellings a learner types (subscripts,
  Greek letters, LaTeX, ``E[X]``, ``q·k``, implicit products), read into canonical tokens;
- :mod:`~scaledattn.language.parse`: the tokenizer and recursive-descent parser (no
  ``eval``), configured by a :class:`~scaledattn.language.parse.Syntax`;
- :mod:`~scaledattn.language.definedness`: where a written term is defined when SymPy
  rewrites a divisor, logarithm or root away.

It imports only the kernel and SymPy.
"""
