"""How a resource's detail URIs are built: decided here, once, for every path.

Tastypie builds a detail URI with ``get_resource_uri(obj)``:
``_build_reverse_url("api_dispatch_detail", resource_uri_kwargs(obj))``, where the key is
``getattr(obj, Meta.detail_uri_name)``.  Each of those methods may be overridden, and
``reverse()`` depends on the URLconf, the script prefix and the active language
(``i18n_patterns``).  :func:`uris_of` answers, for any resource (a ``ModelResource`` too):

* whether the URI is a function of the ``detail_uri_name`` value alone, so the row-built
  paths may build it without an object (:attr:`DetailUris.from_key`): only when every URI
  method is Tastypie's own (or ``NamespacedModelResource``'s ``_build_reverse_url``), a
  ``prepend_urls`` that adds endpoints of other names than Tastypie's detail URL included;
* which model field holds that value (:meth:`DetailUris.key_field`);
* a builder ``value -> URI`` for the current request (:meth:`DetailUris.builder`), which
  reverses once per URLconf, script prefix, language and namespace with a sentinel key and
  puts the value in its place; values that ``reverse()`` would quote go through
  ``reverse()`` itself; the list's own URI (:meth:`DetailUris.list_uri`, what a page's
  ``meta`` links start from) and the links of ``schema/`` to related resources' schemas
  (:meth:`DetailUris.schema_uri`) are reversed once per the same.  The templates are kept in a
  :class:`~djony.objects.kept.BoundedCache` (``DJONY_CACHE_SIZE`` entries per resource: a
  site mounted under many script prefixes reverses again for the least recently used).

Everything else keeps Tastypie's ``get_resource_uri`` on the object.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from uuid import UUID

from django.conf import settings
from django.core.exceptions import FieldDoesNotExist
from django.urls import NoReverseMatch, get_script_prefix, get_urlconf
from django.utils.translation import get_language

from djony.serving import BoundedCache
from tastypie_djony.stock import stock_uris

_SENTINEL = 7919_0000_0000_0000_7919

#: Values ``reverse()`` inserts unchanged (no quoting).
_PLAIN = re.compile(r"[A-Za-z0-9_-]+")


def reverse_environment() -> tuple:
    """What ``reverse()`` depends on besides the resource, now: the script prefix, the
    URLconf and the active language (each read from a context-local: a hook may change
    them, so they are read again for each URI or set of URIs built together)."""
    return (get_script_prefix(), get_urlconf() or settings.ROOT_URLCONF, get_language())


def uris_of(resource: Any) -> DetailUris:
    """The one :class:`DetailUris` of a resource instance."""
    uris = resource.__dict__.get("_djony_uris")
    if uris is None:
        uris = resource.__dict__["_djony_uris"] = DetailUris(resource)
    return uris


class DetailUris:
    """One resource's detail URIs."""

    def __init__(self, resource: Any) -> None:
        self.resource = resource
        #: URIs built from the ``detail_uri_name`` value alone (no object needed).
        self.from_key = stock_uris(resource)
        #: URL prefix and suffix per script prefix, URLconf, language ... (see :meth:`_template`).
        self._parts: BoundedCache = BoundedCache()

    def key_field(self, model: type | None = None) -> str | None:
        """The concrete field of ``model`` (the resource's own) holding the URI's key."""
        model = model or self.resource._meta.object_class
        name = self.resource._meta.detail_uri_name
        if name == "pk":
            return model._meta.pk.name
        try:
            field = model._meta.get_field(name)
        except FieldDoesNotExist:
            return None
        if not field.concrete or field.is_relation or field.name != name:
            return None
        return field.name

    def reverse(self, value: Any) -> str:
        """Tastypie's ``get_resource_uri`` for an object whose key is ``value``."""
        resource = self.resource
        kwargs = resource.resource_uri_kwargs()
        kwargs[resource._meta.detail_uri_name] = value
        try:
            return resource._build_reverse_url("api_dispatch_detail", kwargs=kwargs)
        except NoReverseMatch:
            return ""

    def _key(self, environment: tuple | None = None) -> tuple:
        """What ``reverse()`` of the resource's URLs depends on, for this request
        (``environment``: :func:`reverse_environment`, when read for several resources at once)."""
        meta = self.resource._meta
        return (
            *(environment or reverse_environment()),
            meta.api_name,
            meta.resource_name,
            getattr(meta, "urlconf_namespace", None),
            meta.detail_uri_name,
        )

    def schema_uri(self, resource_name: str) -> str:
        """The URI of ``resource_name``'s ``schema/`` in this resource's API, as Tastypie's
        ``build_schema`` links a related field's (``""`` when no URL matches), reversed
        once per :meth:`_key`; only valid when the resource's ``_build_reverse_url`` is
        Tastypie's own (:func:`~tastypie_djony.stock.stock_reverse`)."""
        key = (*self._key(), "schema", resource_name)
        try:
            return self._parts[key]
        except KeyError:
            pass
        kwargs = {"api_name": self.resource._meta.api_name, "resource_name": resource_name}
        try:
            uri = self.resource._build_reverse_url("api_get_schema", kwargs=kwargs)
        except NoReverseMatch:
            uri = ""
        self._parts[key] = uri
        return uri

    def list_uri(self, reverse: Callable[[], str]) -> str:
        """The list's URI (``get_resource_uri()``), ``reverse()`` once per :meth:`_key`;
        only valid when :attr:`from_key` (then it depends on nothing else)."""
        key = (*self._key(), "list")
        try:
            return self._parts[key]
        except KeyError:
            pass
        uri = self._parts[key] = reverse()
        return uri

    def _template(self, environment: tuple | None = None) -> tuple[str, str] | None:
        key = self._key(environment)
        try:
            return self._parts[key]
        except KeyError:
            pass
        uri = self.reverse(_SENTINEL)
        marker = str(_SENTINEL)
        parts = tuple(uri.split(marker)) if uri.count(marker) == 1 else None
        self._parts[key] = parts
        return parts

    def builder(self, environment: tuple | None = None) -> Callable[[Any], str]:
        """``value -> URI`` for this request; only valid when :attr:`from_key`.

        ``environment``: :func:`reverse_environment` as read just before, for the builders
        of a page's resources made together (no code runs between that could change it);
        read here without it."""
        parts = self._template(environment)
        reverse = self.reverse
        if parts is None:
            return reverse
        prefix, suffix = parts

        def build(value: Any) -> str:
            if type(value) is int or type(value) is UUID:
                return f"{prefix}{value}{suffix}"
            if type(value) is str and _PLAIN.fullmatch(value):
                return f"{prefix}{value}{suffix}"
            return reverse(value)

        return build
