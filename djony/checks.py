"""System checks for models djony cannot map completely.

``djony.W001``: a field is left out of the entity (unknown field type, or a
relation to a model without an entity).  ``djony.W002``: a relation is only
partly mapped (``to_field`` or an explicit ``through`` model).  ``djony.W003``:
the model has its own ``p`` attribute, so ``Model.p`` is not djony's entity.
``djony.E002``: djony cannot serve a database of ``DATABASES`` (its driver
or settings), found at startup rather than as a 500 on every request;
``djony.W004``: djony has no backend for a database's vendor.
``djony.W005``: the model has a ``CompositePrimaryKey``; it has no entity (the rest are mapped).
``djony.I001``: a to-many field of a class djony does not know (taggit's
``TaggableManager``) is served through its own Django manager.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.core import checks
from django.core.exceptions import ImproperlyConfigured
from django.db import connections

from djony.bridge import backends
from djony.mapping.entities import declare_entities
from djony.mapping.info import DJANGO_SERVED
from djony.meta.models import has_composite_key, mapped_models


def served_by_django(model: Any, name: str, reason: str) -> checks.CheckMessage:
    """``djony.I001``: a to-many field of a third-party class, served through its own manager."""
    field = model._meta.get_field(name)
    through = getattr(field.remote_field, "through", None)
    where = (
        f"query its through model {through._meta.label} (its entity) instead"
        if isinstance(through, type) and hasattr(through, "_meta")
        else "query it through Django"
    )
    return checks.Info(
        f"{model._meta.label}.{name} is not mapped by djony: {reason.removeprefix(DJANGO_SERVED)}.",
        hint=f"Nothing to change for DjonyResource or code reading obj.{name}; in Pony "
        f"queries, {where}.",
        obj=field,
        id="djony.I001",
    )


def check_mapping(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    from pony.orm import Database

    from djony.objects.descriptor import EntityDescriptor

    if app_configs is None:
        models = apps.get_models()
    else:
        models = [m for config in app_configs for m in config.get_models()]
    messages: list[checks.CheckMessage] = [
        checks.Warning(
            f"{model._meta.label} has a composite primary key ({model._meta.pk.name} = "
            f"{', '.join(field.name for field in model._meta.pk_fields)}), which djony cannot "
            "map: the model has no Pony entity.",
            hint="Use the Django model for it (a ModelResource, not a DjonyResource), or give "
            "it a one-column primary key and keep the composite key as a UniqueConstraint.",
            obj=model,
            id="djony.W005",
        )
        for model in models
        if has_composite_key(model)
    ]
    for model in mapped_models(list(models)):
        if not isinstance(model.__dict__.get("p", EntityDescriptor()), EntityDescriptor):
            messages.append(
                checks.Warning(
                    f"{model._meta.label} defines its own attribute 'p', so Model.p is not "
                    "its Pony entity.",
                    hint="Use djony.registry.entity_for(Model) to reach the entity.",
                    obj=model,
                    id="djony.W003",
                )
            )
    try:
        # Declared in a throwaway Database: checks never need a connection.
        entities = declare_entities(Database(), list(apps.get_models()))
    except NotImplementedError as exc:
        return [*messages, checks.Error(f"djony cannot map the models: {exc}", id="djony.E001")]
    for model in mapped_models(list(models)):
        info = entities[model]._djony_info_
        for name, reason in info.unmapped.items():
            if reason.startswith(DJANGO_SERVED):
                messages.append(served_by_django(model, name, reason))
                continue
            partial = reason.startswith(("to_field=", "through="))
            how = "partly mapped" if partial else "not mapped"
            messages.append(
                checks.Warning(
                    f"{model._meta.label}.{name} is {how} by djony: {reason}.",
                    hint=None
                    if partial
                    else "Add its internal type to the DJONY_DATA_TYPES setting.",
                    obj=model._meta.get_field(name),
                    id="djony.W002" if partial else "djony.W001",
                )
            )
    return messages


def check_databases(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Every database alias has a djony backend that can serve it.

    Nothing connects: the backend judges from Django's settings and the
    driver module Django loaded.  A vendor djony has no backend for is a
    warning (the alias may never be used with djony); a driver or setting
    djony's backend cannot serve is an error.
    """
    messages: list[checks.CheckMessage] = []
    for alias in connections:
        django_connection = connections[alias]
        try:
            backend = backends.for_connection(django_connection)
        except ImproperlyConfigured as exc:
            messages.append(
                checks.Warning(
                    str(exc),
                    hint="Model.p and DjonyResource cannot use this database.",
                    id="djony.W004",
                )
            )
            continue
        try:
            problem = backend.problem(django_connection)
            if problem is None:
                backend.provider(django_connection)
        except (ImproperlyConfigured, ImportError) as exc:
            problem = str(exc)
        if problem is not None:
            messages.append(
                checks.Error(
                    f"djony cannot serve database {alias!r}: {problem}",
                    hint="Change the installed driver or the database's settings; otherwise "
                    "every request served by djony on this database fails.",
                    id="djony.E002",
                )
            )
    return messages
