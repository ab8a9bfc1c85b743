"""A multi-tenant app, as real projects write one: a thread-local "current tenant"
set by the API's authentication, and default managers that scope every query by it
(an expression read when the query is compiled).  Its resources exist twice,
``ModelResource`` and ``DjonyResource``, for the differential tests of state kept
between requests (tests/test_tenants*.py, tests/test_kept_state*.py).
"""
