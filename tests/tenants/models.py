"""Tenants, their members and their rows; every row model is scoped by its default manager."""

from django.conf import settings
from django.db import models

from tests.tenants.current import CurrentTenant


class TenantManager(models.Manager):
    """Only the current tenant's rows (none when no tenant is current)."""

    def get_queryset(self):
        return super().get_queryset().filter(tenant_id=CurrentTenant())


class Tenant(models.Model):
    name = models.CharField(max_length=50)

    def __str__(self):
        return self.name


class TenantMember(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tenant_member"
    )
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="members")


class TenantTag(models.Model):
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE)
    name = models.CharField(max_length=50)

    objects = TenantManager()
    everything = models.Manager()

    class Meta:
        base_manager_name = "everything"
        ordering = ["name"]


class TenantNote(models.Model):
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="notes")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        related_name="tenant_notes",
    )
    title = models.CharField(max_length=100)
    secret = models.CharField(max_length=100)
    views = models.IntegerField(default=0)
    score = models.FloatField(default=0.0)
    price = models.DecimalField(max_digits=8, decimal_places=2, null=True, blank=True)
    tags = models.ManyToManyField(TenantTag, blank=True, related_name="notes")

    objects = TenantManager()
    everything = models.Manager()

    class Meta:
        base_manager_name = "everything"

    def __str__(self):
        return self.title


class TenantComment(models.Model):
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE)
    note = models.ForeignKey(TenantNote, on_delete=models.CASCADE, related_name="comments")
    text = models.CharField(max_length=100)

    objects = TenantManager()
    everything = models.Manager()

    class Meta:
        base_manager_name = "everything"
        ordering = ["pk"]


class TenantLabel(models.Model):
    """A model keyed by a CharField (no tenant): a POST may leave the key out."""

    code = models.CharField(max_length=20, primary_key=True)
    name = models.CharField(max_length=50, blank=True)
