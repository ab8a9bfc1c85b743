"""Receivers of the side-effects suite, connected by the app config.

``SIGNALS`` logs every model signal Django sends for this app, in order, with
the arguments a receiver sees; the others do what projects' receivers do.
"""

from __future__ import annotations

from django.db.models import signals

from tests.sideeffects import models as m

#: (signal, sender, key, created, update_fields, raw, using, action, pk_set), in order.
SIGNALS: list[tuple] = []


def _logger(name: str):
    def log(sender, instance=None, **kwargs):
        if sender._meta.app_label != "sideeffects":
            return
        update_fields = kwargs.get("update_fields")
        pk_set = kwargs.get("pk_set")
        SIGNALS.append(
            (
                name,
                sender._meta.label,
                getattr(instance, "pk", None),
                kwargs.get("created"),
                tuple(sorted(update_fields)) if update_fields is not None else None,
                kwargs.get("raw"),
                kwargs.get("using"),
                kwargs.get("action"),
                tuple(sorted(pk_set)) if pk_set is not None else None,
            )
        )

    return log


LOGGERS = {name: _logger(name) for name in ("pre_save", "post_save", "pre_delete", "post_delete")}
LOG_M2M = _logger("m2m_changed")


def strip_title(sender, instance, **kwargs):
    """A pre_save that changes a field."""
    instance.title = instance.title.strip()


def audit_save(sender, instance, created, **kwargs):
    """A post_save that writes another model."""
    m.AuditRecord.objects.create(
        event="created" if created else "updated",
        model=sender._meta.model_name,
        key=str(instance.pk),
        detail=getattr(instance, "title", "") or getattr(instance, "name", ""),
    )


def audit_delete(sender, instance, **kwargs):
    m.AuditRecord.objects.create(
        event="deleted", model=sender._meta.model_name, key=str(instance.pk)
    )


def audit_tags(sender, instance, action, pk_set, **kwargs):
    if action.startswith("post_"):
        keys = ",".join(str(k) for k in sorted(pk_set or ()))
        m.AuditRecord.objects.create(
            event=f"tags {action}", model="post", key=str(instance.pk), detail=keys
        )


def featured(sender, instance, created, **kwargs):
    """A proxy's own receiver."""
    m.AuditRecord.objects.create(event="featured", model="featuredpost", key=str(instance.pk))


def connect() -> None:
    for name, log in LOGGERS.items():
        getattr(signals, name).connect(log, dispatch_uid=f"sideeffects.log.{name}")
    signals.m2m_changed.connect(LOG_M2M, dispatch_uid="sideeffects.log.m2m")
    signals.pre_save.connect(strip_title, sender=m.Story, dispatch_uid="sideeffects.strip")
    for model in (m.Story, m.Eatery, m.Blogger):
        signals.post_save.connect(audit_save, sender=model, dispatch_uid=f"audit.{model.__name__}")
        signals.post_delete.connect(
            audit_delete, sender=model, dispatch_uid=f"audit.del.{model.__name__}"
        )
    signals.m2m_changed.connect(audit_tags, sender=m.Story.tags.through, dispatch_uid="audit.tags")
    signals.post_save.connect(featured, sender=m.FeaturedStory, dispatch_uid="sideeffects.featured")
