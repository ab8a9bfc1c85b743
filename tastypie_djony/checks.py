"""System checks for ``DjonyResource`` classes.

``tastypie_djony.W001``: a resource writes through Pony (the default) but its
model overrides ``save()``/``delete()`` or has receivers for its save, delete
or many-to-many signals.  Pony writes do not call them; set
``Meta.writes = "django"`` on the resource (reads stay on Pony), or silence
the warning when skipping them is what you want.
"""

from __future__ import annotations

from typing import Any

from django.core import checks
from django.db import models
from django.db.models import signals

#: Every concrete DjonyResource class, recorded by its metaclass.
RESOURCE_CLASSES: list[type] = []


def model_hooks(model: type[models.Model]) -> list[str]:
    """What Django would run on a save or delete of ``model`` that Pony does not."""
    hooks = []
    for method in ("save", "delete"):
        for klass in model.__mro__:
            if klass is models.Model or not issubclass(klass, models.Model):
                break
            if method in klass.__dict__:
                hooks.append(f"{klass.__name__}.{method}()")
                break
    for name in ("pre_save", "post_save", "pre_delete", "post_delete"):
        if getattr(signals, name).has_listeners(model):
            hooks.append(f"{name} receivers")
    for field in model._meta.many_to_many:
        through = field.remote_field.through
        if isinstance(through, type) and signals.m2m_changed.has_listeners(through):
            hooks.append(f"m2m_changed receivers on {field.name}")
    return hooks


def check_resources(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    from django.urls import get_resolver

    _ = get_resolver().url_patterns  # import the URLconf, where resources are declared
    messages = []
    for resource in RESOURCE_CLASSES:
        meta = resource._meta
        model = getattr(meta, "object_class", None)
        if model is None or getattr(meta, "writes", "pony") == "django":
            continue
        if not (meta.list_allowed_methods or meta.detail_allowed_methods) or set(
            meta.list_allowed_methods + meta.detail_allowed_methods
        ) <= {"get"}:
            continue
        hooks = model_hooks(model)
        if hooks:
            messages.append(
                checks.Warning(
                    f"{resource.__module__}.{resource.__name__} writes {model._meta.label} "
                    f"through Pony, which skips {', '.join(hooks)}.",
                    hint='Set Meta.writes = "django" on the resource to save through the '
                    "Django model (reads stay on Pony).",
                    obj=resource,
                    id="tastypie_djony.W001",
                )
            )
    return messages


_registered = False


def register_resource(resource: type) -> None:
    """Record a resource class and make sure the check is registered."""
    global _registered
    RESOURCE_CLASSES.append(resource)
    if not _registered:
        checks.register(check_resources, "tastypie_djony")
        _registered = True
