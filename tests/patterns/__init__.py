"""A corpus of real-world Tastypie resource patterns, and its tests.

Each pattern is one resource class body built twice, on ``ModelResource``
(``/patterns/v2/``, the reference) and on ``DjonyResource``
(``/patterns/v3/``); the ``test_*.py`` modules here send both the same
requests on the same rows and compare the answers and the rows
(:mod:`tests.patterns.testing` runs them).
"""
