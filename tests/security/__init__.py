"""DjonyResource against ModelResource under hostile clients: a corpus of hostile values
(:mod:`tests.security.corpus`), property-based fuzzing, authorization and authentication
(resources in :mod:`tests.security.urls`), concurrent writes and a load test."""
