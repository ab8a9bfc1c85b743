"""Reliability scripts: load, concurrency and fault injection against the
example project on a real WSGI server (see docs/reliability.md)."""
