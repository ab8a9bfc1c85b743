"""App config: refuses to start without ``djony`` and registers the resource checks.

``INSTALLED_APPS`` needs both ``"djony"`` (the mapping, its checks) and
``"tastypie_djony"`` (these checks); the order does not matter.  The checks
are registered here, in ``ready()``, so ``manage.py check`` reports them
whatever the order in which the project's modules are imported.
"""

from __future__ import annotations

from django.apps import AppConfig, apps
from django.core import checks
from django.core.exceptions import ImproperlyConfigured


class TastypieDjonyConfig(AppConfig):
    name = "tastypie_djony"
    verbose_name = "tastypie_djony (Tastypie resources served by djony)"

    def ready(self) -> None:
        if not apps.is_installed("djony"):
            raise ImproperlyConfigured(
                "'tastypie_djony' is in INSTALLED_APPS without 'djony': add \"djony\" to "
                "INSTALLED_APPS (it maps the models DjonyResource reads and checks the databases)."
            )
        from tastypie_djony import checks as resource_checks

        checks.register(resource_checks.check_resources, "tastypie_djony")
