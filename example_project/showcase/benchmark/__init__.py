"""The measuring kit: one home for what every benchmark and load script needs.

``manage.py compare``, ``benchmarks/`` (in-process timings) and ``scripts/``
(load, faults) all measure the same thing, the example project, so they share
one set of parts:

* :mod:`.endpoints`: the APIs and endpoints measured;
* :mod:`.identical`: the identical-bytes check (built on
  :mod:`tastypie_djony.verify.differences`, the diff that ``djony_verify`` uses);
* :mod:`.servers`: starting and stopping a real WSGI server on a free port
  (:mod:`.serve` for cheroot, waitress, wsgiref);
* :mod:`.databases`: database URLs (the settings' ``DATABASES`` entry, a plain
  connection, create and drop a database);
* :mod:`.load`, :mod:`.report`: the load clients and the report of ``compare``.

The user/permission API they all serve is built in one place too,
:func:`example_project.showcase.apis.build_api`.

Why here and not a top-level package: everything in it exists to measure the
example project, and this package is importable wherever the example is (from
the repository root, which ``benchmarks/`` and ``scripts/`` already put on
``sys.path``) without installing anything more; none of it ships with the
library.
"""
