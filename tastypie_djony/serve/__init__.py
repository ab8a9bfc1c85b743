"""The serving pipeline: two runners over each resource's field sources, for every read path.

``DjonyResource.get_list`` and ``get_detail`` hand a request to the pipeline when a
plan serves the resource (:mod:`~tastypie_djony.serve.choice`); the pipeline declines to
Tastypie's own code otherwise (:mod:`tastypie_djony.declines`)::

    resources.get_list / get_detail
        -> serve.choice                 which plan serves the read, or why none does
        -> serve.lists / serve.detail   Tastypie's order: lookup or page, authorization
        -> serve.plans                  RowPlan and BundlePlan over the fields' sources
           (tastypie_djony.sources)     each field's columns, value, null rule, nested rows
           -> serve.bundles             bundles whose objects are built only when read
        -> serve.verify                 DJONY_VERIFY_FAST_PATH: the general path's answer compared
"""
