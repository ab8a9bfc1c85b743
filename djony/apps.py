"""App config: hands the registry its builder, attaches ``Model.p``, registers the checks.

Nothing is built here (the mapping is built on first use); djony's modules are
imported in :meth:`DjonyConfig.ready`, once every app's models are loaded.
"""

from __future__ import annotations

from typing import Any

from django.apps import AppConfig, apps
from django.core import checks


def _own_p(model: type) -> Any:
    """What ``p`` is on ``model`` before djony touches it (without calling it)."""
    for klass in model.__mro__:
        if "p" in klass.__dict__:
            return klass.__dict__["p"]
    return None


class DjonyConfig(AppConfig):
    name = "djony"
    verbose_name = "djony (Pony ORM over Django models)"
    default_auto_field = "django.db.models.AutoField"

    def ready(self) -> None:
        from djony import checks as djony_checks
        from djony import registry
        from djony.build import build
        from djony.objects.descriptor import EntityDescriptor

        registry.use_builder(build)
        descriptor = EntityDescriptor()
        for model in apps.get_models(include_auto_created=True):
            existing = _own_p(model)
            if existing is None or isinstance(existing, EntityDescriptor):
                model.p = descriptor
        checks.register(djony_checks.check_mapping, "djony")
        checks.register(djony_checks.check_databases, "djony")
