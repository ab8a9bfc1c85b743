"""Reads: which requests the fast path serves and its answers (over the zoo,
:mod:`tests.zoo`), hooks on the bundle plan, SQL compiled once, lists, details, filters,
formats and errors, and a whole API switching to DjonyResource; and the unit tests of the
pieces a read is served with: each field's source (``sources/``), the null rule
(``test_nulls.py``), detail URIs (``test_uris.py``) and a page's related data
(``test_related.py``), over the resources of :mod:`tests.serve.unit_api`."""
