"""The kinds of state tastypie_djony keeps between requests (see :mod:`djony.objects.kept`).

Each is registered with what its key holds and why an entry serves every request
with that key alike; tests/test_kept_state.py walks them, and fails for state that
grows during requests without being registered here.
"""

from __future__ import annotations

from djony.serving import register

# -- on each resource instance (DjonyResource.BUILT_ON_USE) ---------------------
register(
    "DjonyResource._djony_uris",
    "the resource's DetailUris: whether its URIs are a function of the key (its class's "
    "URI methods), and URI templates per script prefix, URLconf, active language, API "
    "name, resource name, URL namespace and detail_uri_name: everything reverse() reads",
    "one per resource; templates: a BoundedCache of DJONY_CACHE_SIZE",
)
register(
    "DjonyResource._djony_plans",
    "(plan kind, list or detail) -> the row-built or bundle plan, or None: built from the "
    "resource's class, fields and Meta only (what a request changes, URI prefixes and "
    "language, is read for each page)",
    "at most four per resource",
)
register(
    "DjonyResource._djony_loaders",
    "the resource's page loaders (DjonyResource's own page_loaders()): made from its "
    "fields only; each loader reads what it needs for each page when called",
    "one tuple per resource",
)
register(
    "DjonyResource._djony_detail_lists",
    "a database alias -> (Meta.queryset, that queryset filtered by an earlier detail's "
    "key): only for a resource reading Meta.queryset as it is (get_object_list and "
    "apply_filters not overridden); a Django query tree, compiled again by each request "
    "(expressions reading request state, a thread-local tenant, are read then), the key's "
    "condition made again by Django's lookup for each value; a replaced Meta.queryset "
    "is not reused",
    "a BoundedCache of DJONY_CACHE_SIZE (one per alias in practice)",
)
register(
    "DjonyResource._djony_detail_sql",
    "(alias, columns) -> (Meta.queryset, its detail SQL compiled once, or None): kept "
    "only when djony.objects.independent.request_independent proves from the query tree that "
    "compiling it again gives the same SQL and parameters; the key is a parameter "
    "prepared by Django's lookup per request",
    "a BoundedCache of DJONY_CACHE_SIZE",
)
# -- on each field instance -----------------------------------------------------
register(
    "Field._djony_relations",
    "relation kind -> the Relation/ToOneRelation behind the field's attribute (the "
    "model's fields); a Relation keeps one-owner SQL (Relation._compiled)",
    "two per field",
)
register(
    "Relation._compiled",
    "(alias, columns) -> the one-owner related keys' SQL compiled once, or None: only for "
    "a related model whose default manager is Django's plain one and a query "
    "request_independent proves the same for every request; the owner is a parameter",
    "a BoundedCache of DJONY_CACHE_SIZE",
)
# -- module state -----------------------------------------------------------------
register(
    "tastypie_djony.fields._MIXED_CLASSES",
    "(a declared field class, djony's behaviour) -> their mixed class",
    "one per field class used by a resource",
)
register(
    "tastypie_djony.stock._STOCK_URI_METHODS",
    "URI method name -> Tastypie's methods and those marked stock_uri_method at import",
    "one per decorated method",
)
register(
    "tastypie_djony.checks.RESOURCE_CLASSES",
    "every DjonyResource class, recorded when the class is created (for the checks)",
    "one per resource class",
)
register(
    "tastypie_djony.verify.twins._METACLASSES",
    "a resource metaclass -> its twin metaclass (djony_verify)",
    "one per metaclass",
)
