"""The list URI of a resource whose own ``reverse()`` misses the namespace it is mounted under.

Tastypie builds every URI with ``Resource._build_reverse_url(name, kwargs)``:
``reverse("api_dispatch_list", ...)`` by the bare name, unless the resource is a
``NamespacedModelResource`` (``reverse("<Meta.urlconf_namespace>:api_dispatch_list")``,
the namespace a ``NamespacedApi`` gives it).  Django finds a bare name only among
the URLs no namespaced ``include()`` lies above: a namespace's URLs reverse as
``namespace:name`` and nothing else.  So a plain ``Api`` of ``ModelResource`` (or
``DjonyResource``) mounted as ``include((api.urls, "api"), namespace="api")``
(pinry's shape) serves every request, but ``get_resource_uri()`` is ``''`` and so is
every ``resource_uri`` and related URI of it in the answers; ``Meta.urlconf_namespace``
alone changes nothing, only a ``_build_reverse_url`` that uses it does.  The same
``''`` comes from a ``NamespacedModelResource`` whose namespace is not the one it is
mounted under.

Both bases answer alike there (the twins' URLconf mounts each twin under the same
namespace as the original, :mod:`.urlconf`), so such a resource is compared: its list
URI is reversed through the namespace its list URL was found under
(:func:`list_uri`), and :func:`note` tells the report why its URIs are empty.
"""

from __future__ import annotations

from typing import Any

from django.urls import NoReverseMatch, reverse
from tastypie.resources import NamespacedModelResource, Resource

from tastypie_djony.verify.discovery import LIST_URL
from tastypie_djony.verify.trouble import Unverifiable


def list_uri(resource: Any, namespace: str) -> str:
    """``resource``'s list URI reversed through ``namespace`` (``""``: none), where
    :data:`~.discovery.LIST_URL` of it is mounted."""
    name = f"{namespace}:{LIST_URL}" if namespace else LIST_URL
    try:
        return reverse(name, kwargs=resource.resource_uri_kwargs())
    except NoReverseMatch as error:
        raise Unverifiable(
            f"get_resource_uri() is '', and reverse({name!r}) where its list URL is "
            f"mounted finds no URL either ({error})"
        ) from None


def note(resource: Any, uri: str, namespace: str) -> str:
    """Why ``resource``'s URIs are ``''`` on both sides, and what would give them."""
    build = type(resource)._build_reverse_url
    if build is Resource._build_reverse_url:
        tried = f"reverses {LIST_URL!r} without a namespace"
    elif build is NamespacedModelResource._build_reverse_url:
        tried = f"reverses '{resource._meta.urlconf_namespace}:{LIST_URL}' (Meta.urlconf_namespace)"
    else:
        tried = "has a _build_reverse_url() of its own that finds no URL"
    if namespace:
        mounted = f"under the namespace {namespace!r}"
        fix = (
            "a _build_reverse_url that reverses through it, as NamespacedModelResource's "
            f"does with NamespacedApi(urlconf_namespace={namespace!r}), or a mount without "
            "a namespace"
        )
    else:
        mounted = "without a namespace"
        fix = f"reversing the bare {LIST_URL!r}, as ModelResource's _build_reverse_url does,"
    return (
        f"{uri}: {type(resource).__name__} {tried}, but its API is mounted {mounted}: its "
        "get_resource_uri() and every URI of it in the answers are '' on both sides "
        f"(compared at the URI its list URL has there; {fix} would give the URIs)"
    )
