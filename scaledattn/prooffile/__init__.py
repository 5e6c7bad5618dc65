"""Proof files a learner writes: parse, search for the rules left out, check, report.

- :mod:`~scaledattn.prooffile.terms`: the terms (the claim language plus index sums,
  cross sums and the softmax calculus), read by the bounded parser.
- :mod:`~scaledattn.prooffile.parse`: the file format (theorem, assume:, the chain).
- :mod:`~scaledattn.prooffile.search`: the rule or short chain behind a step without ``by``.
- :mod:`~scaledattn.prooffile.check`: every step checked by the kernel, the theorem by its audit.
- :mod:`~scaledattn.prooffile.feedback`: the rule's result, the difference, a model, the cause.
- :mod:`~scaledattn.prooffile.report`, :mod:`~scaledattn.prooffile.files`: text and JSON
  reports; proof files, Markdown lessons and JSON certificates.

The writer of the format is :mod:`scaledattn.render.proof`.
"""
