"""Writes: the differential write suite (:mod:`tests.write.harness` runs a case on
ModelResource and DjonyResource and compares answers and rows), its write API
(:mod:`tests.write.api`, mounted by :mod:`tests.write.urls`), failures, side effects,
signals, bodies, PATCH, concurrency and writes outside a request."""
