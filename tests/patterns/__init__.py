"""A corpus of real-world Tastypie resource patterns (issue 10).

Each pattern is one resource class body built twice, on ``ModelResource``
(``/patterns/v2/``, the reference) and on ``DjonyResource``
(``/patterns/v3/``); the ``tests/test_patterns_*.py`` modules send both the
same requests on the same rows and compare the answers and the rows.
"""
