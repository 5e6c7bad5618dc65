"""``python -m scaledattn``: the command line."""

from scaledattn.cli import main

raise SystemExit(main())
