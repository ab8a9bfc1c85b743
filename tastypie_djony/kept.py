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
    "URI methods), and URI templates and the list's URI per script prefix, URLconf, "
    "active language, API name, resource name, URL namespace and detail_uri_name: "
    "everything reverse() reads",
    "one per resource; templates and list URIs: a BoundedCache of DJONY_CACHE_SIZE",
)
register(
    "DjonyResource._djony_plans",
    "(plan kind, list or detail) -> the row-built or bundle plan, or why not: built from the "
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
    "DjonyResource._djony_detail_sql",
    "a KeptForValue (tastypie_djony.onevalue), each entry with the Meta.queryset it was "
    'compiled from (a replaced Meta.queryset compiles again): ("row", alias, columns) -> '
    "the detail's SQL compiled once, or None, kept only when "
    "djony.objects.independent.request_independent proves from the query tree that "
    "compiling it again gives the same SQL and parameters, the key a parameter prepared by "
    'Django\'s lookup per request; ("list", alias) -> Meta.queryset filtered by an '
    "earlier detail's key, for a resource reading Meta.queryset as it is (get_object_list "
    "and apply_filters not overridden): a Django query tree, compiled again by each "
    "request (expressions reading request state, a thread-local tenant, are read then), "
    "the key's condition made again by Django's lookup for each value",
    "a BoundedCache of DJONY_CACHE_SIZE",
)
register(
    "DjonyResource._djony_client_tables",
    "the tables a body sent to the resource writes rows of (tastypie_djony.write.blame): "
    "from the resource's fields and their models only",
    "one frozenset per resource",
)
# -- on each field instance -----------------------------------------------------
register(
    "Field._djony_source",
    "the field's key source for the object path (tastypie_djony.sources.object_source): "
    "built from the field, its resource's model and the related resource's URI methods; "
    "its Relation keeps one-owner SQL (Relation._compiled)",
    "one per field",
)
register(
    "Relation._compiled",
    "a KeptForValue: (alias, columns) -> the one-owner related keys' SQL compiled once, "
    "or None: only for a related model whose default manager is Django's plain one and a "
    "query request_independent proves the same for every request; the owner is a "
    "parameter",
    "a BoundedCache of DJONY_CACHE_SIZE",
)
register(
    "NestedSource._kept",
    "a KeptForValue: (lookup, alias, columns) -> a nested plan's one-row SQL compiled "
    "once, or None: only for a related model whose default manager is Django's plain one "
    "and a query request_independent proves the same for every request; the key is a "
    "parameter",
    "a BoundedCache of DJONY_CACHE_SIZE",
)
# -- module state -----------------------------------------------------------------
register(
    "tastypie_djony.apikey._KEPT",
    "(the user model, its username field, a database alias) -> ApiKeyAuthentication's user "
    "lookup compiled once (a OneValueQuery, the username its parameter), or None: only for a "
    "plain default manager, whose SQL no request changes",
    "one per database alias",
)
register(
    "tastypie_djony.permissions._KEPT",
    "(a user model, the databases of its users' own and its groups' permission queries and "
    "of the groups' subquery) -> "
    "the SQL Django's ModelBackend compiles for them, or None: kept only where the user's "
    "key is the one parameter and djony.objects.independent.request_independent proves the "
    "rest the same for every request, over plain default managers of Permission and Group",
    "one per user model and triple of database aliases",
)
register(
    "tastypie_djony.permissions._BACKENDS",
    "AUTHENTICATION_BACKENDS -> whether it is Django's ModelBackend alone: a function of "
    "the setting",
    "one per value of the setting",
)
register(
    "tastypie_djony.stock._STOCK_AUTHORIZED",
    "Tastypie's authorized_read_detail and the overrides marked stock_authorized_method at import",
    "one per decorated method",
)
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
    "tastypie_djony.formats._BEST_MATCH",
    "(a serializer's supported formats, an Accept header) -> mimeparse's best match of "
    "the header among them: a function of the two alone",
    "a BoundedCache of DJONY_CACHE_SIZE",
)
register(
    "tastypie_djony.convert._ZONE",
    "the default time zone (None without USE_TZ) and whether it is UTC at every instant, "
    "read from the settings; forgotten when "
    "TIME_ZONE or USE_TZ change",
    "one entry",
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
