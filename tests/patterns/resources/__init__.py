"""The corpus's resources, one module per topic.

Each module has ``build(base)``, returning its resource classes built on
``base`` (``ModelResource`` or ``DjonyResource``) from one class body, in
the order :mod:`tests.patterns.api` registers them.
"""
