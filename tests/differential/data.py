"""The data set of the differential suite.

:func:`create` writes the same rows on every run and every backend (only
primary keys may differ, so cases refer to rows by name: ``<b7>`` is the
7th book, ``<u3>`` the 3rd user) and returns ``{name: pk}``.  It runs inside
the caller's transaction, which the caller rolls back.

What the rows are for: case variants and non-ASCII text (``Anna``/``anna``/
``ANNA``, ``Straße``/``STRASSE``, ``İlker``/``ılık``), LIKE metacharacters
(``%``, ``_``, ``\\``), nulls in every nullable column, datetimes over six
years, every month and weekday, near midnight UTC and in and out of daylight
saving time in ``Europe/Berlin``, decimals at full precision, and the seed
article's user with 159 permissions among 50 users.
"""

from __future__ import annotations

import datetime
import uuid
from decimal import Decimal

from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import Permission, User
from django.contrib.contenttypes.models import ContentType
from tastypie.models import ApiKey

from tests.testapp.models import (
    AllTypes,
    Author,
    Book,
    BookDetail,
    Club,
    Country,
    Membership,
    Pizzeria,
    Place,
    Publisher,
    Restaurant,
    Tag,
)

UTC = datetime.timezone.utc

PASSWORD = "sesame"
API_KEY = "0123456789abcdef0123456789abcdef01234567"
SEED_USER_PERMISSIONS = 159
USERS = 50

COUNTRIES = [
    ("DE", "Deutschland"),
    ("FR", "France"),
    ("JP", "日本"),
    ("US", "United States"),
    ("ES", "España"),
    ("IS", "Ísland"),
]

TAGS = [
    "sci-fi",
    "fantasy",
    "history",
    "poetry",
    "crime",
    "romance",
    "kids",
    "essay",
    "Ünïcode",
    "100%_real",
]

# name, email, born, country, country_by_code
AUTHORS = [
    ("Anna", "anna@example.com", datetime.date(1970, 1, 1), "DE", "DE"),
    ("anna", "ANNA@Example.COM", datetime.date(1980, 2, 29), "FR", None),
    ("ANNA", "", None, None, None),
    ("Ángel", "angel@example.es", datetime.date(1965, 12, 31), "ES", "ES"),
    ("Åsa", "asa@example.is", datetime.date(1990, 6, 15), "IS", "IS"),
    ("Zoë", "zoe@example.com", datetime.date(1999, 3, 28), "US", "US"),
    ("Øystein", "", datetime.date(1955, 10, 31), None, None),
    ("Łukasz", "lukasz@example.com", datetime.date(2001, 9, 11), "DE", None),
    ("José", "jose@example.es", datetime.date(1975, 7, 4), "ES", "ES"),
    ("Jose", "jose2@example.es", datetime.date(1975, 7, 5), "ES", None),
    ("Müller", "mueller@example.de", datetime.date(1960, 1, 31), "DE", "DE"),
    ("Mueller", "", None, "DE", None),
    ("Straße", "strasse@example.de", datetime.date(1988, 8, 8), "DE", "DE"),
    ("STRASSE", "", datetime.date(1988, 8, 9), "DE", None),
    ("İlker", "ilker@example.com", datetime.date(1983, 4, 23), None, None),
    ("ılık", "", datetime.date(1983, 4, 24), None, None),
    ("李白", "libai@example.jp", datetime.date(1901, 2, 28), "JP", "JP"),
    ("紫式部", "", datetime.date(1973, 12, 1), "JP", None),
    ("Иван", "ivan@example.com", datetime.date(1972, 11, 11), None, None),
    ("Ἀριστοτέλης", "", None, None, None),
    ("O'Brien", "obrien@example.com", datetime.date(1966, 3, 17), "US", "US"),
    ("Back\\slash", "", datetime.date(1999, 12, 31), "US", None),
    ("50% Off", "fifty@example.com", datetime.date(2000, 1, 1), "FR", "FR"),
    ("under_score", "under_score@example.com", datetime.date(2000, 2, 29), "FR", None),
    ("Émile", "emile@example.fr", datetime.date(1944, 6, 6), "FR", "FR"),
    ("emile", "", datetime.date(1944, 6, 7), "FR", None),
    ("Zed", "zed@example.com", datetime.date(1985, 5, 5), "US", None),
    ("none", "none@example.com", datetime.date(1991, 1, 1), None, None),
    ("true", "", datetime.date(1992, 2, 2), "JP", None),
    ("Ana María", "ana.maria@example.es", datetime.date(1978, 10, 12), "ES", "ES"),
]

TITLE_WORDS = [
    "Dune",
    "dune",
    "Ödön",
    "naïve",
    "Ça va",
    "東京",
    "Straße",
    "100% pure",
    "under_score",
    "Back\\slash",
    "O'Brien's",
    "Zoë",
    "Война и мир",
    "Ελληνικά",
    "snake 🐍",
    "Anna Karenina",
]

PUBLISHERS = [
    ("00000000-0000-4000-8000-000000000001", "Penguin"),
    ("a1b2c3d4-e5f6-4789-abcd-ef0123456789", "Süddeutscher Verlag"),
    ("ffffffff-ffff-4fff-bfff-ffffffffffff", "講談社"),
]

# Datetimes that sit on an edge in Europe/Berlin (the project's TIME_ZONE).
EDGE_DATETIMES = {
    5: datetime.datetime(2021, 3, 27, 23, 30, tzinfo=UTC),  # Berlin: the DST night
    6: datetime.datetime(2021, 10, 31, 0, 59, 59, tzinfo=UTC),  # the hour that repeats
    7: datetime.datetime(2020, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),  # next year in Berlin
    8: datetime.datetime(2020, 1, 1, 0, 0, tzinfo=UTC),
    9: datetime.datetime(2024, 2, 29, 12, 0, tzinfo=UTC),  # leap day
    10: datetime.datetime(2022, 6, 30, 22, 0, 0, tzinfo=UTC),  # 1 July 00:00 CEST
    11: datetime.datetime(2019, 12, 29, 23, 0, tzinfo=UTC),  # ISO week 1 of 2020 in Berlin
}


def book_datetime(i: int) -> datetime.datetime:
    if i in EDGE_DATETIMES:
        return EDGE_DATETIMES[i]
    return datetime.datetime(2019, 1, 1, tzinfo=UTC) + datetime.timedelta(
        days=i * 29,
        hours=(i * 7) % 24,
        minutes=(i * 13) % 60,
        seconds=(i * 17) % 60,
        microseconds=(i * 123457) % 1000000 if i % 4 == 0 else 0,
    )


def create() -> dict[str, object]:
    """Write the data set; return ``{name: primary key}``."""
    ids: dict[str, object] = {}

    countries = {}
    for code, name in COUNTRIES:
        countries[code] = Country.objects.create(code=code, name=name)
        ids[f"c_{code}"] = countries[code].pk

    tags = [Tag.objects.create(name=name) for name in TAGS]
    for n, tag in enumerate(tags, 1):
        ids[f"t{n}"] = tag.pk

    authors = []
    for n, (name, email, born, country, by_code) in enumerate(AUTHORS, 1):
        author = Author.objects.create(
            name=name,
            email=email,
            born=born,
            country=countries.get(country),
            country_by_code=countries.get(by_code),
            mentor=authors[(n * 7) % len(authors)] if n % 3 == 0 and authors else None,
        )
        authors.append(author)
        ids[f"a{n}"] = author.pk
    for n, author in enumerate(authors):
        if n % 4 == 1:
            author.friends.set([authors[(n + 1) % 30], authors[(n + 5) % 30]])
        if n % 5 == 2:
            author.follows.set([authors[0], authors[(n * 3) % 30]])

    publishers = [
        Publisher.objects.create(uid=uuid.UUID(uid), name=name) for uid, name in PUBLISHERS
    ]
    for n, publisher in enumerate(publishers, 1):
        ids[f"p{n}"] = publisher.pk

    for i in range(80):
        n = i + 1
        price = Decimal("999999.99") if i == 1 else Decimal((i * 123457) % 1000000) / 100
        book = Book.objects.create(
            title=f"{TITLE_WORDS[i % len(TITLE_WORDS)]} {n:02d}",
            isbn=None if i % 4 == 0 else f"978{i:010d}",
            author=authors[(i * 7) % 30],
            editor=authors[(i * 11 + 3) % 30] if i % 3 else None,
            publisher=publishers[i % 4] if i % 4 < 3 else None,
            price=price,
            pages=1 + (i * 37) % 997,
            published=book_datetime(i),
            in_print=i % 3 != 0,
            rating=None if i % 5 == 0 else (i * 123 % 5000) / 1000,
        )
        book.tags.set([tags[j] for j in sorted({i % 10, (i * 3) % 10, (i * 7 + 1) % 10})][: i % 4])
        if i % 6 == 0:
            BookDetail.objects.create(book=book, summary=f"Über {book.title}: « résumé » #{n}")
        ids[f"b{n}"] = book.pk

    readers = Club.objects.create(name="Readers")
    guild = Club.objects.create(name="Writers' Guild")
    for n, author in enumerate(authors):
        if n % 3 == 0:
            Membership.objects.create(
                author=author, club=readers, since=datetime.date(2000 + n % 20, 1, 1)
            )
        if n % 4 == 0:
            Membership.objects.create(author=author, club=guild)
    ids["club1"], ids["club2"] = readers.pk, guild.pk

    create_places(ids)
    create_all_types(ids)
    create_users(ids)
    return ids


def create_places(ids: dict) -> None:
    ids["place1"] = Place.objects.create(name="Just a place", address="Nowhere 1").pk
    ids["r1"] = Restaurant.objects.create(name="Trattoria", address="Via Roma 2").pk
    ids["r2"] = Restaurant.objects.create(name="Café Müller", address="", serves_pizza=False).pk
    ids["r3"] = Pizzeria.objects.create(
        name="Pizza Nápoli", address="Spaccanapoli", serves_pizza=True, ovens=2
    ).pk
    ids["r4"] = Pizzeria.objects.create(
        name="PIZZA 50%", address="Main St", serves_pizza=True, ovens=1
    ).pk
    ids["r5"] = Restaurant.objects.create(name="Sushi 東京", address="Ginza", serves_pizza=True).pk


ALL_TYPES = [
    dict(
        char="Anna",
        text="Ein längerer Text\nmit Zeilen",
        slug="anna",
        email="anna@example.com",
        url="https://example.com/ü?q=1",
        file_path="/tmp/a.txt",
        file="uploads/a.txt",
        ip="192.168.0.1",
        integer=-5,
        big=9223372036854775807,
        small=32767,
        positive=2147483647,
        positive_small=32767,
        positive_big=9223372036854775807,
        floating=1.5,
        amount=Decimal("12345678.1234"),
        whole=Decimal("9999999999"),
        flag=True,
        maybe=True,
        day=datetime.date(2000, 2, 29),
        moment=datetime.datetime(2021, 3, 28, 1, 30, 15, 123456, tzinfo=UTC),
        clock=datetime.time(23, 59, 59, 999999),
        span=datetime.timedelta(days=1, seconds=3661),
        uid=uuid.UUID("12345678-1234-5678-1234-567812345678"),
        blob=b"\x00\x01\xff",
        data={"a": 1, "b": [1, 2], "ü": None},
        code="c1",
        custom_column=1,
    ),
    dict(
        char="anna",
        text="",
        slug="anna-2",
        email="ANNA@EXAMPLE.COM",
        url="http://a.b",
        file_path="",
        file="",
        ip="::1",
        integer=0,
        big=-9223372036854775808,
        small=-32768,
        positive=0,
        positive_small=0,
        positive_big=0,
        floating=-0.25,
        amount=Decimal("-0.0001"),
        whole=Decimal("-1"),
        flag=False,
        maybe=False,
        day=datetime.date(1970, 1, 1),
        moment=datetime.datetime(1970, 1, 1, 0, 0, tzinfo=UTC),
        clock=datetime.time(0, 0),
        span=datetime.timedelta(microseconds=1),
        uid=uuid.UUID("00000000-0000-0000-0000-000000000000"),
        blob=b"",
        data=[1, 2, 3],
        code="c2",
        custom_column=-1,
    ),
    dict(
        char="ÀÉÎÕÜ straße",
        text="%_\\",
        slug="a_b",
        email="x@y.z",
        url="ftp://ftp.example.org/",
        file_path="/tmp",
        file="x/ü.png",
        ip="2001:db8::ff00:42:8329",
        integer=7,
        big=1,
        small=1,
        positive=7,
        positive_small=7,
        positive_big=7,
        floating=3.141592653589793,
        amount=Decimal("0.0000"),
        whole=Decimal("0"),
        flag=True,
        maybe=None,
        day=datetime.date(2024, 12, 31),
        moment=datetime.datetime(2024, 12, 31, 23, 59, 59, tzinfo=UTC),
        clock=datetime.time(12, 30, 15),
        span=datetime.timedelta(0),
        uid=uuid.UUID("ffffffff-ffff-ffff-ffff-ffffffffffff"),
        blob=b"abc",
        data="just a string",
        code="c3",
        custom_column=None,
    ),
    dict(
        char="100% pure_",
        text="tab\there",
        slug="pure",
        email="",
        url="",
        file_path="",
        file="",
        ip="10.0.0.1",
        integer=2147483647,
        big=None,
        small=None,
        positive=None,
        positive_small=None,
        positive_big=None,
        floating=1e-10,
        amount=Decimal("99999999.9999"),
        whole=None,
        flag=False,
        maybe=True,
        day=datetime.date(1999, 12, 31),
        moment=datetime.datetime(2019, 12, 29, 23, 0, tzinfo=UTC),
        clock=datetime.time(1, 2, 3),
        span=datetime.timedelta(days=-1, seconds=5),
        uid=None,
        blob=None,
        data=42,
        code="c4",
        custom_column=42,
    ),
    dict(
        char='quote"s',
        text="«»",
        slug="q",
        email="q@q.q",
        url="https://q.q",
        file_path="",
        file="",
        ip=None,
        integer=-2147483648,
        big=0,
        small=0,
        positive=1,
        positive_small=1,
        positive_big=1,
        floating=1e300,
        amount=Decimal("1.5"),
        whole=Decimal("15"),
        flag=True,
        maybe=False,
        day=datetime.date(2021, 10, 31),
        moment=datetime.datetime(2021, 10, 31, 0, 30, tzinfo=UTC),
        clock=datetime.time(2, 30),
        span=datetime.timedelta(weeks=3),
        uid=uuid.UUID(int=7),
        blob=b"\x00",
        data={"nested": {"k": "v"}},
        code="c5",
        custom_column=5,
    ),
    dict(
        char="ANNA",
        text="ANNA",
        slug="anna-3",
        email="anna@example.com",
        url="",
        file_path="",
        file="",
        ip="127.0.0.1",
        integer=3,
        big=3,
        small=3,
        positive=3,
        positive_small=3,
        positive_big=3,
        floating=0.1,
        amount=Decimal("0.1"),
        whole=Decimal("3"),
        flag=False,
        maybe=None,
        day=datetime.date(2022, 1, 3),
        moment=datetime.datetime(2022, 1, 3, 12, 0, tzinfo=UTC),
        clock=datetime.time(23, 0),
        span=datetime.timedelta(hours=5),
        uid=uuid.UUID(int=3),
        blob=b"3",
        data={},
        code="c6",
        custom_column=3,
    ),
]


def create_all_types(ids: dict) -> None:
    for n, values in enumerate(ALL_TYPES, 1):
        ids[f"x{n}"] = AllTypes.objects.create(**values).pk
    # The row with every nullable column null and the rest at its default.
    ids[f"x{len(ALL_TYPES) + 1}"] = AllTypes.objects.create(code="c0").pk


def create_users(ids: dict) -> None:
    """50 users; the 3rd has 159 permissions, as in the seed article.

    Django's own apps bring about 100 permissions; 20 extra content types
    with four permissions each make enough.
    """
    for n in range(1, 21):
        content_type = ContentType.objects.create(app_label="zz_extra", model=f"thing{n:02d}")
        for action in ("add", "change", "delete", "view"):
            Permission.objects.create(
                content_type=content_type,
                codename=f"{action}_thing{n:02d}",
                name=f"Can {action} thing №{n}",
            )
    permissions = list(Permission.objects.order_by("pk"))
    assert len(permissions) >= SEED_USER_PERMISSIONS, len(permissions)
    book_perms = list(
        Permission.objects.filter(content_type__app_label="testapp", content_type__model="book")
    )

    password = make_password(PASSWORD, salt="fixedsalt")
    names = ["admin", "editor", "seva", "apiuser", "basicuser", "noperm", "inactive", "sessionuser"]
    firsts = ["Zoë", "Ångström", "Всеволод", "", "José", "Anna", "anna", "李"]
    for n in range(1, USERS + 1):
        username = names[n - 1] if n <= len(names) else f"user{n:02d}"
        user = User.objects.create(
            username=username,
            password=password if n in (4, 5, 6, 7, 8, 9) else f"md5$x${n:032d}",
            first_name=firsts[n % len(firsts)],
            last_name=f"Nachname {n}" if n % 3 else "",
            email=f"{username}@example.com" if n % 4 else "",
            is_staff=n in (1, 2, 3),
            is_superuser=n == 1,
            is_active=n != 7,
            date_joined=datetime.datetime(2012, 1, 1, tzinfo=UTC)
            + datetime.timedelta(days=n * 3, hours=n),
            last_login=None if n % 2 else datetime.datetime(2013, 5, n % 28 + 1, 8, n, tzinfo=UTC),
        )
        ids[f"u{n}"] = user.pk
        if n == 3:
            user.user_permissions.set(permissions[:SEED_USER_PERMISSIONS])
        elif n in (2, 4, 5, 7, 8):
            user.user_permissions.set(book_perms)
        elif n % 5 == 0:
            user.user_permissions.set(permissions[n : n + n // 5])
        if n in (4, 6, 7):
            ApiKey.objects.create(user=user, key=API_KEY)
