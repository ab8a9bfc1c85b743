"""The serving pipeline: one field walk per resource, run by every read path.

``DjonyResource.get_list`` and ``get_detail`` hand a request to the pipeline when a
plan serves the resource (:mod:`~tastypie_djony.serve.plan`); the pipeline declines to
Tastypie's own code otherwise (:mod:`tastypie_djony.declines`)::

    resources.get_list / get_detail
        -> serve.lists / serve.detail   Tastypie's order: lookup or page, authorization
        -> serve.plan                   the field walk: each field's source and conversion
           -> serve.nested              full=True related resources, from rows
           -> serve.bundles             bundles whose objects are built only when read
        -> serve.convert                the one conversion table, to_simple, JSON
        -> serve.verify                 DJONY_VERIFY_FAST_PATH: the general path's answer compared
"""
