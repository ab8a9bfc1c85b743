"""System checks for ``DjonyResource`` classes (registered by :mod:`tastypie_djony.apps`).

``tastypie_djony.E001``: ``Meta.writes`` has a value DjonyResource does not know.
``tastypie_djony.E002``: the resource's model cannot be served (a composite primary key);
the same message as a request to it would raise.
``tastypie_djony.W002``: ``Meta.writes = "pony"`` is set; it has no effect any more
(writes go through the Django model: its ``save()``, ``delete()`` and signals run).
``tastypie_djony.W003``: a to-many field lists related objects its manager does not
order: the order is the database's choice for each query, and a page's related objects
are read in one query where ``ModelResource`` runs one per object.
``tastypie_djony.I001`` (info): no plan serves the resource's JSON lists or details: they
take Tastypie's general path (the same answers, at ``ModelResource``'s speed), and why.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.core import checks
from django.core.exceptions import ImproperlyConfigured
from django.db import models
from tastypie.fields import ToManyField

from djony.serving import has_composite_key
from tastypie_djony.related import Relation

#: Every concrete DjonyResource class, recorded by its metaclass.
RESOURCE_CLASSES: list[type] = []

#: ``Meta.writes`` values: both write through the Django model.
WRITES_VALUES = ("django", "pony")


def unservable_reason(resource_name: str, model: type[models.Model]) -> str | None:
    """Why DjonyResource cannot serve ``model``, or ``None``: told at startup and per request."""
    if has_composite_key(model):
        return (
            f"DjonyResource {resource_name} serves {model._meta.label}, whose primary key is "
            f"a CompositePrimaryKey ({model._meta.pk.name}): djony maps no entity for it. "
            "Use ModelResource for this resource, or give the model a one-column primary "
            "key and keep the composite key as a UniqueConstraint."
        )
    return None


def check_servable(resource: type) -> None:
    """Raise the :func:`unservable_reason` of ``resource`` as ``ImproperlyConfigured``."""
    model = getattr(resource._meta, "object_class", None)
    reason = model is not None and unservable_reason(resource.__name__, model)
    if reason:
        raise ImproperlyConfigured(reason)


def check_resources(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    from django.urls import get_resolver

    _ = get_resolver().url_patterns  # import the URLconf, where resources are declared
    messages: list[checks.CheckMessage] = []
    for resource in RESOURCE_CLASSES:
        meta = resource._meta
        name = f"{resource.__module__}.{resource.__name__}"
        writes = getattr(meta, "writes", "django")
        if writes not in WRITES_VALUES:
            messages.append(
                checks.Error(
                    f"{name}: Meta.writes = {writes!r} is not a value DjonyResource knows.",
                    hint='Remove Meta.writes (writes go through the Django model) or set "django".',
                    obj=resource,
                    id="tastypie_djony.E001",
                )
            )
        elif writes == "pony":
            messages.append(
                checks.Warning(
                    f'{name} sets Meta.writes = "pony": it has no effect; writes go through '
                    "the Django model (its save(), delete() and signals run).",
                    hint="Remove Meta.writes from the resource.",
                    obj=resource,
                    id="tastypie_djony.W002",
                )
            )
        model = getattr(meta, "object_class", None)
        reason = model is not None and unservable_reason(resource.__name__, model)
        if reason:
            messages.append(checks.Error(reason, obj=resource, id="tastypie_djony.E002"))
        if model is not None and not reason:
            messages.extend(unordered_to_many(resource, name, model))
            messages.extend(general_path(resource, name))
    return messages


def general_path(resource: type, name: str) -> list[checks.CheckMessage]:
    """``tastypie_djony.I001`` for each page kind of ``resource`` no plan serves."""
    try:
        paths = resource().served_by()
    except Exception as error:  # noqa: BLE001 - a resource that cannot be built is reported
        return [
            checks.Info(
                f"{name}: which path serves it could not be told: building the resource "
                f"raised {type(error).__name__}: {error}",
                obj=resource,
                id="tastypie_djony.I001",
            )
        ]
    found = []
    for page, path in paths.items():
        if path.startswith("Tastypie's general path"):
            why = path.split(": ", 1)[1]
            found.append(
                checks.Info(
                    f"{name}: its JSON {page}s take Tastypie's general path (the same "
                    f"answers, at ModelResource's speed): {why}.",
                    hint="The row-built plan serves fields read from columns without hooks; "
                    "the bundle plan serves hooks, object fields and full=True; see the "
                    "fast path page of the documentation for what each declines.",
                    obj=resource,
                    id="tastypie_djony.I001",
                )
            )
    return found


def unordered_to_many(resource: type, name: str, model: type) -> list[checks.CheckMessage]:
    """``tastypie_djony.W003`` for each to-many field over a relation with no order."""
    found = []
    for field_name, field in resource.base_fields.items():
        if not isinstance(field, ToManyField):
            continue
        relation = Relation.find(model, field.attribute)
        if relation is None or relation.ordered:
            continue
        target = relation.target._meta
        found.append(
            checks.Warning(
                f"{name}.{field_name} lists {target.label} objects in no defined order (their "
                f"model has no Meta.ordering and {model._meta.object_name}.{field.attribute} "
                "orders nothing): each query's order is the database's choice, and "
                "DjonyResource reads a page's related objects in one query where "
                "ModelResource runs one per object, so on PostgreSQL and MariaDB the lists "
                "may come in another order.",
                hint=f"Give {target.object_name} a Meta.ordering (or its default manager an "
                "order_by()) to make the order the same on every request and both bases.",
                obj=resource,
                id="tastypie_djony.W003",
            )
        )
    return found


def register_resource(resource: type) -> None:
    """Record a resource class; refuse it when ``tastypie_djony`` is not an installed app."""
    if apps.ready and not apps.is_installed("tastypie_djony"):
        raise ImproperlyConfigured(
            f'DjonyResource {resource.__name__}: add "tastypie_djony" to INSTALLED_APPS '
            '(next to "djony"); its system checks run from there.'
        )
    RESOURCE_CLASSES.append(resource)
