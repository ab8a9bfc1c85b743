"""Deterministic demo data: users with permissions, as in the article.

``seed(users=1000)`` makes users with ids 1..N, realistic names and a few
permissions each; user 3 gets exactly 159 permissions.  User 1, the demo user
(a superuser, with the API key :func:`demo_api_key` makes), is always named
``demo`` (:data:`DEMO_USERNAME`): ``manage.py djony_verify --user demo`` and
``Authorization: ApiKey demo:<key>`` work on every seeded database.  There are not that
many permissions in a fresh project, so 40 content types of an imaginary
business application ("invoice", "shipment", ...) are created under the
``showcase`` app label, each with Django's four permissions.  Everything comes
from a fixed random seed, so two runs (and two databases) get the same rows.
Rows are written with ``bulk_create`` in batches: 10,000 users take seconds.
"""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from django.contrib.auth.models import Group, Permission, User
from django.contrib.contenttypes.models import ContentType
from django.core.management.color import no_style
from django.db import connections, transaction

from tastypie_djony.verify.progress import Progress

RANDOM_SEED = 2013
SPECIAL_USER_ID = 3
SPECIAL_USER_PERMISSIONS = 159
DEMO_USER_ID = 1  # the superuser: may write every resource of the example
DEMO_USERNAME = "demo"
BATCH_SIZE = 1000
APP_LABEL = "showcase"

DATA_TYPES = [
    "account", "address", "attachment", "bankaccount", "budget", "campaign",
    "category", "comment", "company", "contact", "contract", "country",
    "coupon", "currency", "customer", "delivery", "department", "discount",
    "document", "employee", "expense", "invoice", "invoiceline", "lead",
    "manufacturer", "meeting", "order", "orderline", "payment", "pricelist",
    "product", "project", "purchase", "refund", "shipment", "supplier",
    "task", "taxrate", "ticket", "warehouse",
]  # fmt: skip
ACTIONS = ["add", "change", "delete", "view"]

FIRST_NAMES = [
    "Anna", "Maria", "Olga", "Elena", "Sofia", "Chloé", "Emma", "Zoë", "Ingrid",
    "Aiko", "Priya", "Fatima", "Lucía", "Hannah", "Noor", "Grace", "Irina",
    "Alexey", "Ivan", "Dmitry", "Sergey", "José", "Lukas", "Łukasz", "Jonas",
    "Mateo", "Liam", "Noah", "Omar", "Kenji", "Rahul", "Tomás", "Pierre",
    "Björn", "Mikhail", "David", "Samuel", "Chen", "Wei", "Ahmed", "Nikolai",
]  # fmt: skip
LAST_NAMES = [
    "Ivanova", "Petrov", "Smirnov", "Kuznetsova", "Müller", "Schmidt",
    "García", "Martínez", "Rossi", "Bianchi", "Dubois", "Lefèvre", "Smith",
    "Johnson", "Brown", "Nowak", "Kowalski", "Novák", "Jensen", "Nielsen",
    "Andersson", "Yamamoto", "Tanaka", "Sato", "Kim", "Park", "Nguyen",
    "Singh", "Patel", "Haddad", "O'Brien", "Murphy", "da Silva", "Santos",
    "Öztürk", "Kaya", "Horváth", "Popescu", "Wang", "Li", "Zhang",
]  # fmt: skip
EMAIL_DOMAINS = ["example.com", "example.org", "example.net", "mail.example.com"]
FIRST_JOINED = datetime(2010, 1, 4, 9, 0, tzinfo=timezone.utc)
SPAN_SECONDS = 3 * 365 * 24 * 3600


class SeedError(Exception):
    """The database holds users this command did not expect (use ``--reset``)."""


@dataclass
class SeedResult:
    users: int
    permissions: int
    user_permission_rows: int
    created: bool


def _ascii_slug(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return "".join(ch for ch in plain.lower() if ch.isalnum())


def ensure_permissions(using: str = "default") -> list[Permission]:
    """Create the demo content types and their permissions (once); return all
    permissions, sorted by app label, model and codename."""
    existing = set(
        ContentType.objects.using(using).filter(app_label=APP_LABEL).values_list("model", flat=True)
    )
    ContentType.objects.using(using).bulk_create(
        [
            ContentType(app_label=APP_LABEL, model=name)
            for name in DATA_TYPES
            if name not in existing
        ]
    )
    types = ContentType.objects.using(using).filter(app_label=APP_LABEL, model__in=DATA_TYPES)
    have = set(
        Permission.objects.using(using)
        .filter(content_type__in=types)
        .values_list("content_type_id", "codename")
    )
    Permission.objects.using(using).bulk_create(
        [
            Permission(
                content_type=content_type,
                codename=f"{action}_{content_type.model}",
                name=f"Can {action} {content_type.model}",
            )
            for content_type in types
            for action in ACTIONS
            if (content_type.id, f"{action}_{content_type.model}") not in have
        ]
    )
    return list(
        Permission.objects.using(using)
        .select_related("content_type")
        .order_by("content_type__app_label", "content_type__model", "codename")
    )


def make_users(count: int, rng: random.Random) -> list[User]:
    """``count`` unsaved users with ids 1..count, the same for the same ``rng`` state."""
    users = []
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    for user_id in range(1, count + 1):
        first = rng.choice(FIRST_NAMES)
        last = rng.choice(LAST_NAMES)
        username = f"{_ascii_slug(first)}.{_ascii_slug(last)}{user_id}"
        if user_id == DEMO_USER_ID:
            username = DEMO_USERNAME  # (the same random draws: every other user is unchanged)
        joined = FIRST_JOINED + timedelta(seconds=rng.randrange(SPAN_SECONDS))
        last_login = (
            None
            if rng.random() < 0.2
            else joined + timedelta(seconds=rng.randrange(400 * 24 * 3600))
        )
        users.append(
            User(
                id=user_id,
                username=username,
                first_name=first,
                last_name=last,
                email=f"{username}@{rng.choice(EMAIL_DOMAINS)}",
                # An unusable password, as set_unusable_password() makes:
                # hashing thousands of real passwords would take minutes.
                password="!" + "".join(rng.choice(letters) for _ in range(40)),
                is_superuser=user_id == 1,
                is_staff=user_id == 1 or rng.random() < 0.05,
                is_active=rng.random() < 0.95,
                date_joined=joined,
                last_login=last_login,
            )
        )
    return users


def is_seeded(users: int | None = None, using: str = "default") -> bool:
    """Whether the data ``seed`` makes is there (with ``users`` users, if given)."""
    count = User.objects.using(using).count()
    if count == 0 or (users is not None and count != users):
        return False
    special = User.objects.using(using).filter(pk=SPECIAL_USER_ID).first()
    return special is not None and special.user_permissions.count() == SPECIAL_USER_PERMISSIONS


def _reset_sequences(using: str) -> None:
    connection = connections[using]
    statements = connection.ops.sequence_reset_sql(no_style(), [User])
    if statements:
        with connection.cursor() as cursor:
            for sql in statements:
                cursor.execute(sql)


def clear(using: str = "default") -> None:
    """Delete every user (and with them their permission and group rows)."""
    User.user_permissions.through.objects.using(using).all().delete()
    User.groups.through.objects.using(using).all().delete()
    User.objects.using(using).all().delete()


def seed(
    users: int = 1000,
    reset: bool = False,
    using: str = "default",
    progress: Callable[[str, int], Progress] | None = Progress,
) -> SeedResult:
    """Fill the database with ``users`` users; user 3 gets 159 permissions.

    Does nothing when exactly this data is already there.  Raises
    :class:`SeedError` if other users exist, unless ``reset`` deletes them.
    """
    if users < SPECIAL_USER_ID:
        raise SeedError(
            f"--users must be at least {SPECIAL_USER_ID} (user {SPECIAL_USER_ID} gets "
            f"{SPECIAL_USER_PERMISSIONS} permissions)."
        )
    existing = User.objects.using(using).count()
    if existing and not reset:
        if is_seeded(users, using):
            name_demo_user(using)
            return SeedResult(
                users, Permission.objects.using(using).count(), _rows(using), created=False
            )
        raise SeedError(
            f"The database already has {existing} users (not the {users} this command "
            "would make); run with --reset to delete them and seed again."
        )
    rng = random.Random(RANDOM_SEED)
    with transaction.atomic(using=using):
        if existing:
            clear(using)
        permissions = ensure_permissions(using)
        if len(permissions) < SPECIAL_USER_PERMISSIONS:  # pragma: no cover - 160 are made
            raise SeedError(
                f"Only {len(permissions)} permissions exist; need {SPECIAL_USER_PERMISSIONS}."
            )
        new_users = make_users(users, rng)
        bar = progress("users      ", users) if progress else None
        for start in range(0, users, BATCH_SIZE):
            User.objects.using(using).bulk_create(new_users[start : start + BATCH_SIZE])
            if bar:
                bar.advance(len(new_users[start : start + BATCH_SIZE]))
        if bar:
            bar.close()
        _reset_sequences(using)

        through = User.user_permissions.through
        rows = []
        for user in new_users:
            if user.id == SPECIAL_USER_ID:
                chosen = rng.sample(permissions, SPECIAL_USER_PERMISSIONS)
            else:
                chosen = rng.sample(permissions, rng.randint(0, 4))
            rows.extend(through(user_id=user.id, permission_id=perm.id) for perm in chosen)
        bar = progress("permissions", len(rows)) if progress else None
        for start in range(0, len(rows), BATCH_SIZE):
            through.objects.using(using).bulk_create(rows[start : start + BATCH_SIZE])
            if bar:
                bar.advance(len(rows[start : start + BATCH_SIZE]))
        if bar:
            bar.close()
    return SeedResult(users, Permission.objects.using(using).count(), len(rows), created=True)


def name_demo_user(using: str = "default") -> None:
    """Give user 1 the name :data:`DEMO_USERNAME` on data seeded before it had a fixed
    name (``noah.kuznetsova1``); its e-mail address follows, as a fresh seed writes it."""
    users = User.objects.using(using)
    demo = users.filter(pk=DEMO_USER_ID).first()
    if demo is None or demo.username == DEMO_USERNAME:
        return
    if users.filter(username=DEMO_USERNAME).exists():
        return  # someone else's: the data is not seed's (is_seeded says so on its own terms)
    domain = demo.email.rpartition("@")[2]
    users.filter(pk=DEMO_USER_ID).update(
        username=DEMO_USERNAME, email=f"{DEMO_USERNAME}@{domain}" if domain else demo.email
    )


def demo_api_key(using: str = "default") -> tuple[str, str] | None:
    """``(username, key)`` of the demo user's Tastypie API key (made on first call), or
    ``None`` when there is no user 1."""
    from tastypie.models import ApiKey

    user = User.objects.using(using).filter(pk=DEMO_USER_ID).first()
    if user is None:
        return None
    api_key, _ = ApiKey.objects.using(using).get_or_create(user=user)
    return user.username, api_key.key


#: The group :func:`editor_api_key` puts its user in, and what it holds: the ``change``
#: permissions Tastypie's ``DjangoAuthorization`` reads the tutorial's entries and users with.
EDITORS_GROUP = "tutorial editors"
EDITOR_PERMISSIONS = (("showcase", "change_entry"), ("auth", "change_user"))


def editor_api_key(using: str = "default") -> tuple[str, str] | None:
    """``(username, key)`` of the first active user who is not a superuser, made a member
    of :data:`EDITORS_GROUP` (what ``DjangoAuthorization`` asks Django's permission backend
    about on each of its requests, where the demo superuser passes without a query), with
    its Tastypie API key; made on first call.  ``None`` when there is no such user."""
    from tastypie.models import ApiKey

    users = User.objects.using(using)
    user = users.filter(is_active=True, is_superuser=False).order_by("pk").first()
    if user is None:
        return None
    group, _ = Group.objects.using(using).get_or_create(name=EDITORS_GROUP)
    for app_label, codename in EDITOR_PERMISSIONS:
        permission = Permission.objects.using(using).get(
            content_type__app_label=app_label, codename=codename
        )
        group.permissions.add(permission)
    user.groups.add(group)
    api_key, _ = ApiKey.objects.using(using).get_or_create(user=user)
    return user.username, api_key.key


def _rows(using: str) -> int:
    return User.user_permissions.through.objects.using(using).count()


WORDS = [
    "api", "tastypie", "pony", "django", "query", "page", "row", "cache", "index",
    "schema", "release", "notes", "speed", "bundle", "resource", "detail", "list",
    "review", "design", "test", "deploy", "server", "client", "token", "error",
]  # fmt: skip


def seed_entries(entries: int = 500, authors: int = 50, using: str = "default") -> int:
    """Tastypie's tutorial data: ``entries`` blog entries by users 1..``authors``.

    Saved one by one through ``Entry.save()`` (it fills the slug from the title, as
    the tutorial's model does); the same rows every time.  Existing entries are
    deleted first unless exactly this many are there already.  Returns the count.
    """
    from example_project.showcase.models import Entry

    if (
        Entry.objects.using(using).count() == entries
        and not Entry.objects.using(using).filter(user_id__gt=authors).exists()
    ):
        return entries
    rng = random.Random(RANDOM_SEED + 1)
    with transaction.atomic(using=using):
        Entry.objects.using(using).all().delete()
        for number in range(1, entries + 1):
            title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 6))).capitalize()
            body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 120)))
            Entry(
                id=number,
                user_id=(number - 1) % authors + 1,
                pub_date=FIRST_JOINED + timedelta(hours=7 * number),
                title=f"{title} {number}",
                body=body,
            ).save(using=using)
        connection = connections[using]
        for sql in connection.ops.sequence_reset_sql(no_style(), [Entry]):
            with connection.cursor() as cursor:
                cursor.execute(sql)
    return entries
