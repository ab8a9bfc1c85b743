"""A multi-tenant app, as real projects write one: a thread-local "current tenant"
set by the API's authentication, and default managers that scope every query by it
(an expression read when the query is compiled).  Its resources exist twice,
``ModelResource`` and ``DjonyResource``, for the differential tests of state kept
between requests (``test_isolation.py`` here, tests/test_kept_state.py), and of the
list queries, rereads and writes that use its models (tests/serve/test_filters.py,
tests/objects/test_rereads.py, tests/write/test_through_the_model.py).
"""
