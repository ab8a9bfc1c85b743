"""Two tenants, a user of each (and one without a tenant), notes, tags and comments."""

from __future__ import annotations

from django.contrib.auth.models import User

from tests.tenants.models import Tenant, TenantComment, TenantMember, TenantNote, TenantTag

#: username -> tenant name (``None``: a user of no tenant).
USERS = {"ann": "acme", "amy": "acme", "bert": "blue", "nobody": None}


def create() -> None:
    """The rows; keys are 1, 2, ... in this order on every backend (tables empty before)."""
    tenants = {name: Tenant.objects.create(name=name) for name in ("acme", "blue")}
    users = {}
    for username, tenant in USERS.items():
        users[username] = User.objects.create_user(username, f"{username}@example.com", "x")
        if tenant is not None:
            TenantMember.objects.create(user=users[username], tenant=tenants[tenant])
    rows = [
        ("acme", "ann", "acme plan", "acme secret 1"),
        ("blue", "bert", "blue plan", "blue secret 1"),
        ("acme", "amy", "acme memo", "acme secret 2"),
        ("blue", "bert", "blue memo", "blue secret 2"),
    ]
    for index, (tenant, owner, title, secret) in enumerate(rows):
        note = TenantNote.everything.create(
            tenant=tenants[tenant], owner=users[owner], title=title, secret=secret
        )
        tag = TenantTag.everything.create(tenant=tenants[tenant], name=f"{tenant}-tag-{index}")
        note.tags.add(tag)
        TenantComment.everything.create(tenant=tenants[tenant], note=note, text=f"on {title}")
