"""How a ``DjonyResource`` class is declared: its ``Meta`` and its object list override.

:class:`DjonyDeclarativeMetaclass` accepts ``Meta.object_model`` (the 2013 spelling) as
well as ``Meta.queryset``, refuses at class definition a ``Meta.queryset`` no resource
can serve (:func:`check_queryset`), and wraps a resource's own ``get_object_list`` so
that the Django ``QuerySet`` it returns is served through the object list.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.db.models.query import ModelIterable
from tastypie.resources import ModelDeclarativeMetaclass

from tastypie_djony.checks import register_resource


class DjonyDeclarativeMetaclass(ModelDeclarativeMetaclass):
    """Accepts ``Meta.object_model`` (2013) as well as ``Meta.queryset``.

    A resource without a model (a base other resources inherit from, one kept for its
    ``prepend_urls`` endpoints) is accepted as ``ModelResource`` accepts it, and served
    by Tastypie's own code.
    """

    def __new__(mcs, name: str, bases: tuple, attrs: dict) -> type:
        meta = attrs.get("Meta")
        if meta is not None and not getattr(meta, "abstract", False):
            object_model = getattr(meta, "object_model", None)
            if object_model is not None and not hasattr(meta, "queryset"):
                meta.queryset = object_model._default_manager.all()
        if "get_object_list" in attrs:
            attrs["get_object_list"] = _served_by_pony(attrs["get_object_list"])
        new_class = super().__new__(mcs, name, bases, attrs)
        inherited = getattr(new_class, "get_object_list", None)
        if inherited is not None and not getattr(inherited, "_djony_served", False):
            # An override defined in a mixin or a parent the metaclass did not build.
            new_class.get_object_list = _served_by_pony(inherited)
        if meta is not None and not getattr(meta, "abstract", False):
            queryset = getattr(new_class._meta, "queryset", None)
            if queryset is not None:
                check_queryset(name, queryset)
            register_resource(new_class)
        return new_class


def check_queryset(resource_name: str, queryset: Any, where: str = "Meta.queryset") -> None:
    """Refuse QuerySet features an object list of Pony objects cannot carry.

    ``filter``/``exclude``/``order_by``/``distinct``/``annotate``/``extra`` and the
    combinations (``|``, ``&``, ``union()`` ...) are served (annotations become
    attributes of the objects, as on Django instances); ``select_related``/
    ``prefetch_related`` are not needed (related data is loaded per page).
    """
    if queryset.query.values_select or not issubclass(queryset._iterable_class, ModelIterable):
        raise ImproperlyConfigured(
            f"DjonyResource {resource_name}: {where} uses values()/values_list(), which "
            "no resource can serve (its objects are dicts or tuples, not model instances; "
            "ModelResource answers 500). Return objects (filter()/exclude()/order_by()/"
            "annotate()/union() ...), and compute other values in a dehydrate_<field>() method."
        )


def _served_by_pony(get_object_list: Callable) -> Callable:
    """Wrap a resource's own ``get_object_list`` so a Django QuerySet it returns is served by Pony.

    ``return Note.objects.filter(user=request.user)`` in an override works as
    on ModelResource; what Pony cannot serve is an ``ImproperlyConfigured``
    naming the resource.
    """

    @functools.wraps(get_object_list)
    def wrapper(self: Any, request: Any) -> Any:
        result = get_object_list(self, request)
        if not hasattr(self, "as_object_list"):
            # A ModelResource built from this class (djony_verify's twin): Django serves it.
            return result
        return self.as_object_list(result, request)

    wrapper._djony_served = True
    return wrapper
