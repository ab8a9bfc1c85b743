"""The model zoo of the fast-path tests: one model per configuration that once made the
row-built JSON path (``tastypie_djony.serve.plans``) answer differently from ModelResource."""
