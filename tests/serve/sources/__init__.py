"""Unit tests of :mod:`tastypie_djony.sources`: the table from a field to its source, and each
source's columns, value from a row, null/default rule and declined reason (the resources of
:mod:`tests.serve.unit_api`, built into sources by :mod:`tests.serve.sources.helpers`)."""
