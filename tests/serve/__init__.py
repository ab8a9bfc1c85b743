"""Reads: which requests the fast path serves and its answers (over the zoo,
:mod:`tests.zoo`), hooks on the bundle plan, SQL compiled once, lists, details, filters,
formats and errors, and a whole API switching to DjonyResource."""
