"""App config: hands the registry its builder, attaches ``Model.p``, registers the checks.

Nothing is built here (the mapping is built on first use); djony's modules are
imported in :meth:`DjonyConfig.ready`, once every app's models are loaded.
"""

from __future__ import annotations

import inspect

from django.apps import AppConfig, apps
from django.core import checks


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
            existing = inspect.getattr_static(model, "p", None)  # not called
            if existing is None or isinstance(existing, EntityDescriptor):
                model.p = descriptor
        checks.register(djony_checks.check_mapping, "djony")
        checks.register(djony_checks.check_databases, "djony")
