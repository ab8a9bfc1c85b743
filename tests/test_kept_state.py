"""Every structure kept between requests is registered, bounded, and shown not to change an answer.

:mod:`djony.objects.kept` and :mod:`tastypie_djony.kept` register each kind of state kept
from one request to the next.  This module

* finds the state that exists: every module-level container and ``functools`` cache
  of ``djony`` and ``tastypie_djony`` (and of their classes), what a resource instance,
  its fields and the models' ``_meta`` gain while serving requests, and every container
  reachable from those; state that grows during a workload of varied requests (users,
  tenants, script prefixes, filter values, formats) and is not registered fails
  :func:`test_state_that_grows_during_requests_is_registered`, and so does a cache
  that grows past ``DJONY_CACHE_SIZE``;
* maps each registered kind to the test that shows it request-independent or keyed by
  what it depends on (:data:`KIND_TESTS`): a kind registered without one fails
  :func:`test_every_kind_has_a_test`.
"""

from __future__ import annotations

import contextlib
import importlib
import pkgutil
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import models
from django.db.models import Count, F, FilteredRelation, OuterRef, Q, Subquery
from django.db.models.functions import ExtractYear
from django.db.models.sql.compiler import PositionRef
from django.test import Client, override_settings
from django.urls import clear_url_caches, set_script_prefix

import djony
import tastypie_djony
import tastypie_djony.kept  # noqa: F401 (registers tastypie_djony's kinds)
from djony.objects.compiled import KeptQueries, OneValueQuery
from djony.objects.independent import request_independent
from djony.objects.kept import KINDS, BoundedCache, cache_size
from tastypie_djony.resources import BUILT_ON_USE
from tests.objects import test_shapes as shapes_tests
from tests.tenants import seed, testing
from tests.tenants.current import CurrentTenant, set_tenant
from tests.tenants.models import Tenant, TenantNote, TenantTag
from tests.testapp.models import AllTypes
from tests.thirdparty import test_kept_relations as kept_relations_tests

transactional_db = testing.db_fixture()
pytestmark = pytest.mark.usefixtures("transactional_db")

SIZE = 8


# =============================================================================
# Finding the state that exists
# =============================================================================
def _modules() -> Iterator[Any]:
    for package in (djony, tastypie_djony):
        yield package
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if ".management.commands." in info.name or info.name.endswith(".migrations"):
                continue
            yield importlib.import_module(info.name)


MUTABLE = (dict, list, set)


def module_state() -> dict[str, Any]:
    """``module.NAME`` (and ``module.Class.NAME``) -> each mutable container or cache."""
    found = {}
    for module in _modules():
        for name, value in vars(module).items():
            where = f"{module.__name__}.{name}"
            if hasattr(value, "cache_info") and getattr(value, "__module__", "") == module.__name__:
                found[where] = value
            elif isinstance(value, MUTABLE) and not name.startswith("__"):
                found[where] = value
            elif isinstance(value, type) and value.__module__ == module.__name__:
                for attr, inner in vars(value).items():
                    if isinstance(inner, MUTABLE) and not attr.startswith("__"):
                        found[f"{where}.{attr}"] = inner
    return found


def size(value: Any) -> int:
    return value.cache_info().currsize if hasattr(value, "cache_info") else len(value)


def _ours(value: Any) -> bool:
    module = type(value).__module__
    return module.startswith(("djony", "tastypie_djony"))


def reachable_containers(root: Any, where: str, depth: int = 4) -> Iterator[tuple[str, Any]]:
    """Containers reachable from ``root`` through djony's own objects, named by their path."""
    seen: set[int] = set()

    def walk(value: Any, name: str, level: int) -> Iterator[tuple[str, Any]]:
        if id(value) in seen or level > depth:
            return
        seen.add(id(value))
        if isinstance(value, dict):
            yield name, value
            for key, item in list(value.items()):
                yield from walk(item, f"{name}[{type(key).__name__}]", level + 1)
        elif isinstance(value, (list, tuple)):
            if isinstance(value, list):
                yield name, value
            for item in value:
                yield from walk(item, f"{name}[]", level + 1)
        elif _ours(value) and hasattr(value, "__dict__"):
            for attr, item in vars(value).items():
                if attr != "resource":  # a plan's back reference
                    yield from walk(item, f"{type(value).__name__}.{attr}", level + 1)

    yield from walk(root, where, 0)


def registered(where: str) -> bool:
    return where in KINDS


# =============================================================================
# A workload of varied requests, on fresh resources
# =============================================================================
def fresh_api(name: str):
    from tests.tenants.fresh_urls import APIS

    return APIS[name], "tests.tenants.fresh_urls"


def workload(api_name: str, urlconf: Any, rounds: int = 3 * SIZE) -> None:
    """Details, lists, ``set/``, schema, filters, formats; users, tenants, script prefixes."""
    with override_settings(ROOT_URLCONF=urlconf):
        clear_url_caches()
        client = Client()
        try:
            for index in range(rounds):
                user = ("ann", "bert", "nobody", None)[index % 4]
                script = f"/mount-{uuid.uuid4().hex[:8]}"
                value = uuid.uuid4().hex
                headers = {"HTTP_X_USER": user} if user else {}
                headers["HTTP_ACCEPT"] = f"text/x-{value[:6]}, application/json;q=0.9"
                for resource in ("note", "hnote", "anote", "unote", "fnote", "tenant", "tag"):
                    for target in (
                        f"{resource}/{index % 4 + 1}/",
                        f"{resource}/",
                        f"{resource}/set/1;{index % 4 + 1}/",
                        f"{resource}/?offset={index}&limit=2",
                        f"{resource}/schema/",
                        f"{resource}/1/?format=xml",
                    ):
                        client.get(f"/{api_name}/{target}", **headers)
                    with script_prefix(script):
                        client.get(f"/{api_name}/{resource}/1/", **headers)
                client.get(f"/{api_name}/note/?title={value}&views__gt={index}", **headers)
        finally:
            clear_url_caches()


@contextlib.contextmanager
def script_prefix(prefix: str) -> Iterator[None]:
    """The script prefix a WSGI server sets from SCRIPT_NAME (the test client does not)."""
    set_script_prefix(prefix + "/")
    try:
        yield
    finally:
        set_script_prefix("/")


@pytest.fixture
def small_caches(settings):
    settings.DJONY_CACHE_SIZE = SIZE
    settings.DJONY_VERIFY_FAST_PATH = False


def _state_of(resource: Any) -> dict[str, set[str]]:
    state = {"DjonyResource": set(vars(resource))}
    for name, field in resource.fields.items():
        state[f"field:{name}"] = set(vars(field))
    return state


def test_state_that_grows_during_requests_is_registered(small_caches):
    before = {where: size(value) for where, value in module_state().items()}
    api, urlconf = fresh_api("tenants/kept")
    resources = list(api._registry.values())
    at_start = {id(r): _state_of(r) for r in resources}
    meta_before = (TenantNote, TenantTag, Tenant, User)

    workload("tenants/kept", urlconf, rounds=4)
    first = {id(value): len(value) for _where, value in kept_containers(resources)}
    workload("tenants/kept", urlconf)

    # Module state.
    after = module_state()
    names: dict[int, set[str]] = {}  # one container imported by several modules
    for where, value in after.items():
        names.setdefault(id(value), set()).add(where)
    grown = [where for where, value in after.items() if size(value) > before.get(where, 0)]
    assert [w for w in grown if not any(map(registered, names[id(after[w])]))] == []
    # What resource instances, their fields and the models' _meta gained.
    for resource in resources:
        for part, names in _state_of(resource).items():
            added = names - at_start[id(resource)][part]
            kind = "DjonyResource" if part == "DjonyResource" else "Field"
            assert [n for n in added if not registered(f"{kind}.{n}")] == [], (resource, part)
            if part == "DjonyResource":
                assert added <= set(BUILT_ON_USE)
    for model in meta_before:  # Django caches its own there; djony's names start _djony
        djonys = {name for name in vars(model._meta) if name.startswith("_djony")}
        assert [n for n in djonys if not registered(f"Options.{n}")] == [], model
    # What is reachable from a resource's kept state and still grows once every path
    # has been served (so it grows with what requests vary) stays within the cache size.
    for where, value in kept_containers(resources):
        if len(value) > first.get(id(value), 0):
            assert len(value) <= SIZE, where


def kept_containers(resources: list) -> Iterator[tuple[str, Any]]:
    """Every container reachable from the resources' kept state and their fields'."""
    for resource in resources:
        for name in BUILT_ON_USE:
            if name in vars(resource):
                yield from reachable_containers(vars(resource)[name], name)
        for field in resource.fields.values():
            source = vars(field).get("_djony_source")
            if source is not None:
                yield from reachable_containers(source, "_djony_source")


def test_every_registered_kind_exists():
    state = module_state()
    for where in KINDS:
        owner = where.split(".")[0]
        if owner in ("djony", "tastypie_djony"):  # module state (pony: checked by its own test)
            assert where in state, f"{where} is registered but is no module state (renamed?)"
        elif owner == "DjonyResource":
            assert where.split(".", 1)[1] in BUILT_ON_USE, where
    names = {where.split(".", 1)[1] for where in KINDS if where.startswith("DjonyResource.")}
    assert names == set(BUILT_ON_USE)


def test_every_functools_cache_is_registered():
    state = module_state()
    caches = [where for where, value in state.items() if hasattr(value, "cache_info")]
    assert caches
    assert [where for where in caches if not registered(where)] == []
    containers = {id(value) for value in state.values() if isinstance(value, MUTABLE)}
    assert containers  # the scan finds module containers (constants among them)


# =============================================================================
# Each kind: request-independent, or keyed by what it depends on
# =============================================================================
def test_uri_templates_follow_the_script_prefix_and_stay_bounded(small_caches):
    """40 script prefixes: the same URIs as ModelResource, at most SIZE templates kept."""
    target = testing.APIS[1]
    for index in range(40):
        script = f"/site{index}"
        with script_prefix(script):
            reference = testing.answer(testing.REFERENCE, "ann", "note/1/")
            got = testing.answer(target, "ann", "note/1/")
        assert got == reference
        assert f"{script}/API/note/1/" in str(got[2])
    resource = _resource(target, "note")
    assert len(resource._djony_uris._parts) <= SIZE


def test_accept_matches_are_modelresource_s_and_stay_bounded(small_caches):
    """40 Accept headers: the same answers as ModelResource, at most SIZE matches kept."""
    from tastypie_djony import formats

    target = testing.APIS[1]
    for index in range(40):
        accept = f"text/x-{index}, application/xml;q=0.{index % 4 + 6}, application/json;q=0.5"
        reference = testing.answer(testing.REFERENCE, "ann", "note/1/", HTTP_ACCEPT=accept)
        got = testing.answer(target, "ann", "note/1/", HTTP_ACCEPT=accept)
        assert got == reference
        assert got[0] == 200 and "xml" in got[1]
    assert 0 < len(formats._BEST_MATCH) <= SIZE


def _resource(api_name: str, name: str) -> Any:
    from tests.tenants.api import APIS

    return APIS[api_name]._registry[name]


def finished_within(seconds: float, work: Any) -> bool:
    """Whether ``work()`` returned within ``seconds`` (run in a thread, so a deadlock
    fails the test instead of stopping the suite)."""
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    thread.join(seconds)
    return not thread.is_alive()


def test_bounded_cache_keeps_the_most_recently_used(small_caches):
    cache = BoundedCache()
    for key in range(SIZE):
        cache[key] = key
    assert cache[0] == 0  # used: kept
    assert finished_within(10, lambda: cache.__setitem__("new", "new"))  # evicts key 1
    assert 0 in cache and 1 not in cache and len(cache) == SIZE
    assert list(cache)[-2:] == [0, "new"]
    assert finished_within(10, lambda: [cache.__setitem__(n, n) for n in range(100, 140)])
    assert list(cache) == list(range(140 - SIZE, 140))
    import copy

    assert len(copy.deepcopy(cache)) == 0 and isinstance(KeptQueries(), BoundedCache)
    assert cache_size() == SIZE


def test_cache_size_must_be_a_positive_integer(settings):
    from django.core.exceptions import ImproperlyConfigured

    settings.DJONY_CACHE_SIZE = 0
    with pytest.raises(ImproperlyConfigured, match="DJONY_CACHE_SIZE"):
        BoundedCache()["x"] = 1


def test_plans_are_the_same_whoever_asks_first():
    """A plan is made of the resource's class: two instances, warmed by different users."""
    plans = []
    for user, name in (("ann", "tenants/pa"), ("bert", "tenants/pb")):
        api, urlconf = fresh_api(name)
        with override_settings(ROOT_URLCONF=urlconf):
            clear_url_caches()
            Client().get(f"/{name}/note/1/", HTTP_X_USER=user)
            Client().get(f"/{name}/hnote/", HTTP_X_USER=user)
        clear_url_caches()
        described = {}
        for name in ("note", "hnote"):
            for key, plan in api._registry[name]._djony_plans.items():
                described[(name, key)] = None if plan is None else _describe(plan)
        plans.append(described)
    assert plans[0] == plans[1]
    assert plans[0]


def _describe(plan: Any) -> tuple:
    return (
        type(plan).__name__,
        getattr(plan, "reason", None),
        tuple(getattr(plan, "columns", ())),
        tuple((name, type(source).__name__) for name, _, source in getattr(plan, "fields", ())),
    )


def _kept_queries() -> Iterator[tuple[str, Any]]:
    from tests.tenants.api import APIS

    for resource in APIS[testing.TARGET]._registry.values():
        kept = vars(resource).get("_djony_detail_sql")
        for key, _queryset, compiled in kept.entries() if kept is not None else ():
            if key[0] == "row":
                yield type(resource).__name__, compiled
        for field in resource.fields.values():
            source = vars(field).get("_djony_source")
            relation = getattr(source, "relation", None)
            if relation is not None and hasattr(relation, "_compiled"):
                for _key, _target, compiled in relation._compiled.entries():
                    yield f"{type(resource).__name__}.{field.attribute}", compiled


def test_compiled_sql_is_kept_only_for_queries_proved_the_same():
    for user in ("ann", "bert"):
        for resource in ("note", "hnote", "tenant", "tag"):
            testing.answer(testing.TARGET, user, f"{resource}/1/")
    kept = list(_kept_queries())
    assert kept
    for where, compiled in kept:
        assert compiled is None or request_independent(compiled.query), where
    # Every model of the tenant app is scoped by its manager: nothing of theirs is kept,
    # but Tenant (a plain manager) keeps its detail SQL.
    tenants = [c for w, c in kept if w.startswith("TenantResource") and c is not None]
    assert all(c.query.model is Tenant for c in tenants)
    assert tenants
    assert not [w for w, c in kept if c is not None and c.query.model in (TenantNote, TenantTag)]


def test_nested_rows_sql_is_kept_only_for_plain_managers():
    """A nested plan's one-row SQL is kept only for a plain default manager: the tenant
    app's models are scoped by theirs, so a nested page of their rows keeps nothing."""
    from tests.tenants.api import APIS

    for user in ("ann", "bert"):
        testing.answer(testing.TARGET, user, "fnote/1/")
    nested = []
    for resource in APIS[testing.TARGET]._registry.values():
        for plan in vars(resource).get("_djony_plans", {}).values():
            for _name, _field, source in getattr(plan, "fields", ()):
                if "_kept" in vars(source):
                    nested.append(source)
    assert nested
    assert [entry for source in nested for entry in source._kept.entries()] == []


def test_copied_filtered_lists_compile_again_for_each_request():
    """The copied list holds the tenant expression, not its value: each request reads its own."""
    for user in ("ann", "bert", "ann"):
        reference, target = testing.twins(user, "note/1/")
        assert target == reference
    resource = _resource(testing.TARGET, "note")
    store = [
        entry for entry in vars(resource)["_djony_detail_sql"].entries() if entry[0][0] == "list"
    ]
    assert store
    for _key, queryset, filtered in store:
        assert queryset is resource._meta.queryset
        set_tenant(None)
        assert list(filtered) == []  # compiled now: no tenant, no rows


def test_structural_tables_hold_one_entry_per_model_or_class():
    from django.apps import apps
    from django.conf import settings

    from djony import registry
    from djony.objects.proxies import _FLAVOURS
    from djony.objects.rows import row_layout
    from tastypie_djony.fields import _MIXED_CLASSES

    models_count = len(apps.get_models(include_auto_created=True))
    assert len(registry._databases) <= len(settings.DATABASES)
    for entities in registry._entities.values():
        assert len(entities) <= models_count
    assert len(_FLAVOURS) <= models_count
    assert row_layout.cache_info().currsize <= len(registry._databases) * models_count
    assert all(isinstance(key[0], type) and isinstance(key[1], type) for key in _MIXED_CLASSES)
    from tastypie_djony import apikey

    assert len(apikey._KEPT) <= len(settings.DATABASES)
    assert all(key[0] is User and key[2] in settings.DATABASES for key in apikey._KEPT)
    from tastypie_djony import permissions

    assert len(permissions._KEPT) <= len(settings.DATABASES) ** 3
    assert all(
        key[0] is User and set(key[1:]) <= set(settings.DATABASES) for key in permissions._KEPT
    )
    assert all(isinstance(key, tuple) for key in permissions._BACKENDS)


PONY_CACHES = ("_insert_cache", "_translator_cache", "_constructed_sql_cache")


def test_pony_s_caches_do_not_grow_with_the_values_requested(small_caches):
    """Pony keeps queries per text: the second workload (new values, prefixes) adds none."""
    api_name, urlconf = "tenants/kept", "tests.tenants.fresh_urls"
    workload(api_name, urlconf, rounds=4)
    database = djony.db()
    sizes = {name: len(getattr(database, name)) for name in PONY_CACHES}
    workload(api_name, urlconf, rounds=8)
    assert {name: len(getattr(database, name)) for name in PONY_CACHES} == sizes


def test_per_user_lists_kept_per_recipe_answer_as_modelresource():
    """Per-user lists keep their filters (and, over a plain manager, their SQL) per recipe:
    names and value types, never values.  ``unote`` filters ``get_object_list`` by the user,
    ``anote`` its ``read_list``, both over the tenant-scoped manager: users of two tenants
    and of none, in turn, each get what ModelResource gives them, and no SQL compiled with
    the thread's tenant in it is kept."""
    from djony.objects import shapes

    shapes._KEPT.clear()
    shapes._FILTERS.clear()
    paths = ("unote/", "unote/1/", "unote/3/", "anote/", "anote/2/", "unote/?title__exact=x")
    for user in ("ann", "bert", "amy", "nobody", "bert", None, "ann"):
        for path in paths:
            reference, target = testing.twins(user, path)
            assert target == reference, (user, path)
    templates = [template for template in shapes._FILTERS.values() if template is not None]
    assert templates  # the per-user filters were made from templates
    for _origin, key, _value in [*shapes._KEPT.items(), *shapes._FILTERS.items()]:
        assert not [part for part in _flat(key) if isinstance(part, User) or part in seed.USERS]
    for _origin, key, kept in shapes._KEPT.items():
        assert kept is None or request_independent(kept.query), key
    assert all(kept is None for kept in shapes._KEPT.values())  # tenant-scoped: compiled


def test_one_owner_s_relations_are_kept_per_relation_never_per_owner():
    """An instance loaded alone reads a relation by SQL kept per relation and type of key:
    no owner or key is in a key, every owner gets its own rows, and a relation whose
    default manager is tenant-scoped keeps nothing (each tenant reads its own)."""
    from djony.objects import relation_sql
    from djony.serving import load_together
    from tests.tenants.models import TenantMember

    relation_sql._KEPT.clear()
    owners = list(Tenant.objects.order_by("pk"))
    assert len(owners) > 1
    tagged = 0
    for tenant in owners:
        set_tenant(tenant.pk)
        try:
            for note in TenantNote.objects.all():
                alone = TenantNote.objects.get(pk=note.pk)
                load_together([alone])
                expected = list(TenantNote.objects.get(pk=note.pk).tags.all())
                assert list(alone.tags.all()) == expected
                tagged += bool(expected)
        finally:
            set_tenant(None)
        alone = Tenant.objects.get(pk=tenant.pk)
        load_together([alone])
        assert list(alone.members.all()) == list(TenantMember.objects.filter(tenant=tenant))
    assert tagged
    kept = {key: value for _owner, key, value in relation_sql._KEPT.items()}
    assert [key[:2] for key, entry in kept.items() if entry is not None] == [(Tenant, "members")]
    for key in kept:
        assert not [p for p in _flat(key) if isinstance(p, models.Model) or type(p) is int]
    relation_sql._KEPT.clear()


def test_a_page_s_relations_are_kept_per_relation_and_size_never_per_owner():
    """A page loads a relation by SQL kept per relation, page size and type of key: no
    owner or key is in a key, every page gets its owners' rows, and a relation whose
    default manager is tenant-scoped keeps nothing (each tenant reads its own)."""
    from djony.objects import page_relations
    from djony.serving import load_together
    from tests.tenants.models import TenantMember

    page_relations._KEPT.clear()
    tenants = list(Tenant.objects.order_by("pk"))
    assert len(tenants) > 1
    tagged = 0
    for tenant in tenants:
        set_tenant(tenant.pk)
        try:
            notes = list(TenantNote.objects.order_by("pk"))
            load_together(notes)
            expected = [list(note.tags.all()) for note in TenantNote.objects.order_by("pk")]
            assert [list(note.tags.all()) for note in notes] == expected
            tagged += any(expected)
        finally:
            set_tenant(None)
    page = list(Tenant.objects.order_by("pk"))
    for _ in range(2):
        assert page_relations.load(page, "members")  # (unordered: no page loads it unasked)
        assert [list(t.members.all()) for t in page] == [
            list(TenantMember.objects.filter(tenant=t)) for t in page
        ]
        page = list(Tenant.objects.order_by("-pk"))
    assert tagged
    kept = {key: value for _owner, key, value in page_relations._KEPT.items()}
    assert [key[:2] for key, entry in kept.items() if entry is not None] == [(Tenant, "members")]
    for owner_model, accessor, alias, size, key_type in kept:  # no owner, no key
        assert (alias, key_type) == ("default", int) and isinstance(accessor, str)
        assert issubclass(owner_model, models.Model) and size in (len(page), len(notes))
    page_relations._KEPT.clear()


def test_each_model_keeps_its_own_page_relations(settings):
    """Each owner model keeps its relations' SQL in a cache of its own (on its
    ``_meta``): with room for one entry each, pages of authors and of books read in turn
    keep both relations (one cache for every model, read in turn, kept neither)."""
    from djony.objects import page_relations
    from tests.testapp.models import Author, Book, Tag

    settings.DJONY_CACHE_SIZE = 1
    author = Author.objects.create(name="Owner")
    tag = Tag.objects.create(name="kept")
    for n in range(2):
        Book.objects.create(title=f"Owned {n}", author=author).tags.add(tag)
    page_relations._KEPT.clear()
    for _ in range(2):
        authors = list(Author.objects.filter(pk=author.pk))
        books = list(Book.objects.filter(author=author).order_by("pk"))
        assert page_relations.load(authors, "books") and page_relations.load(books, "tags")
        assert [list(a.books.all()) for a in authors] == [list(author.books.order_by("pk"))]
        assert [list(b.tags.all()) for b in books] == [[tag], [tag]]
    kept = {(owner, key[:2]) for owner, key, entry in page_relations._KEPT.items() if entry}
    assert kept == {(Author._meta, (Author, "books")), (Book._meta, (Book, "tags"))}
    page_relations._KEPT.clear()


def test_a_page_s_related_gets_and_counts_are_kept_per_relation_and_size_never_per_owner():
    """A page's related ``get()`` and ``count()`` read the relation by SQL kept per
    relation, kind of read and page size: no owner or key is in a key, and pages of as
    many other owners get their own rows and counts, as Django's queries give them."""
    from djony.bridge.writes import watching
    from djony.objects import page_rows
    from djony.serving import load_together
    from tests.testapp.models import Author, Book, Review

    author = Author.objects.create(name="Kept")
    for n in range(6):
        book = Book.objects.create(title=f"Kept {n}", author=author)
        for stars in range(n % 3 + 1):
            Review.objects.create(book=book, stars=stars + n)
    page_rows._KEPT.clear()
    ordered = list(Book.objects.filter(author=author).order_by("pk"))
    for keys in (ordered[:3], ordered[3:], ordered[1:4]):
        want = [
            (review.stars, book.reviews.count())
            for book in keys
            for review in [Review.objects.filter(book=book).order_by("pk").last()]
        ]
        page = list(Book.objects.filter(pk__in=[book.pk for book in keys]).order_by("pk"))
        load_together(page)
        with watching():
            got = [
                (book.reviews.get(stars=want_stars).stars, book.reviews.count())
                for book, (want_stars, _) in zip(page, want, strict=True)
            ]
        assert got == want
    kept = {key: value for _owner, key, value in page_rows._KEPT.items()}
    assert {key[0][2] for key, entry in kept.items() if entry is not None} == {"rows", "count"}
    for (model, attname, _kind), alias, size, key_type in kept:  # no owner, no key
        assert (model, attname, alias, size, key_type) == (Review, "book_id", "default", 3, int)
    page_rows._KEPT.clear()


def _one_value(name: str, sample: Any) -> OneValueQuery:
    compiled = OneValueQuery.compile(
        lambda: TenantNote.everything.all(), name, sample, lambda qs: qs[:2].values_list("pk")
    )
    assert compiled is not None
    return compiled


def test_prepared_values_are_remembered_only_where_django_prepares_by_the_value(small_caches):
    """A kept one-value query remembers what Django's lookup prepared for a value on
    Django's own integer and text fields: the same parameters as preparing it anew, a
    refused value refused each time, long text never kept, at most SIZE values."""
    by_pk, by_title = _one_value("pk", 1), _one_value("title", "x")
    by_views = _one_value("views", 1)
    assert by_pk._prepared is not None and by_title._prepared is not None
    assert by_views._prepared is not None
    assert _one_value("score", 1.5)._prepared is None  # FloatField: not remembered
    for value in ("7", 7, " 7", 2**63, -(2**63) - 1):
        first = by_pk.params_for(value)
        assert (type(value), value) in by_pk._prepared
        assert by_pk.params_for(value) == first == by_pk._prepare(value)
    assert by_pk.params_for("7") == by_pk.params_for(7)
    assert by_pk.params_for("7")[by_pk.position] == 7
    assert by_pk.params_for(2**63) is None  # out of range: Django's own query decides
    assert by_views.params_for(True) == by_views._prepare(True)  # a bool is not an int here
    assert (bool, True) not in by_views._prepared
    for _ in range(2):
        with pytest.raises(ValueError):
            by_pk.params_for("abc")
    assert (str, "abc") not in by_pk._prepared
    long_title = "t" * 201
    assert by_title.params_for(long_title)[by_title.position] == long_title
    assert (str, long_title) not in by_title._prepared
    for index in range(3 * SIZE):
        assert by_title.params_for(f"title {index}")[by_title.position] == f"title {index}"
    assert len(by_title._prepared) == SIZE


def test_prepared_values_are_remembered_on_a_field_subclass_that_prepares_as_django_s(
    small_caches,
):
    """model_utils' ``StatusField`` (a ``CharField`` that sets its choices) prepares as a
    ``CharField``: remembered; django-countries' ``CountryField`` prepares its values
    itself (``get_prep_value``, ``to_python``): its query is not even kept."""
    from tests.thirdparty.models import Address, Post

    def one_value(model, name, sample):
        return OneValueQuery.compile(
            lambda: model.objects.all(), name, sample, lambda qs: qs[:2].values_list("pk")
        )

    by_status = one_value(Post, "status", "draft")
    assert by_status is not None
    assert by_status._prepared is not None
    assert by_status.params_for("draft") == by_status._prepare("draft")
    assert (str, "draft") in by_status._prepared
    assert one_value(Address, "country", "NZ") is None


def _flat(value: Any) -> Iterator[Any]:
    if isinstance(value, tuple):
        for item in value:
            yield from _flat(item)
    else:
        yield value


STRUCTURAL = test_structural_tables_hold_one_entry_per_model_or_class

#: Each registered kind -> the test above showing it request-independent or keyed by
#: what it depends on (structural tables: one entry per model, class or setting).
KIND_TESTS = {
    "DjonyResource._djony_uris": test_uri_templates_follow_the_script_prefix_and_stay_bounded,
    "DjonyResource._djony_loaders": STRUCTURAL,
    "DjonyResource._djony_plans": test_plans_are_the_same_whoever_asks_first,
    "DjonyResource._djony_detail_sql": test_compiled_sql_is_kept_only_for_queries_proved_the_same,
    "DjonyResource._djony_client_tables": STRUCTURAL,
    "Relation._compiled": test_compiled_sql_is_kept_only_for_queries_proved_the_same,
    "Field._djony_source": test_compiled_sql_is_kept_only_for_queries_proved_the_same,
    "NestedSource._kept": test_nested_rows_sql_is_kept_only_for_plain_managers,
    "OneValueQuery._prepared": (
        test_prepared_values_are_remembered_only_where_django_prepares_by_the_value
    ),
    "djony.registry._databases": STRUCTURAL,
    "djony.registry._entities": STRUCTURAL,
    "djony.objects.proxies._FLAVOURS": STRUCTURAL,
    "djony.objects.rows.row_layout": STRUCTURAL,
    "djony.meta.compat.takes_fetch_mode": STRUCTURAL,
    "djony.objects.peers.to_many_accessors": STRUCTURAL,
    "djony.objects.page_gets.relation": STRUCTURAL,
    "djony.objects.forward.forward": STRUCTURAL,
    "djony.objects.forward.has_forward": STRUCTURAL,
    "djony.objects.independent.django_parent": STRUCTURAL,
    "djony.objects.compiled._adds_only": STRUCTURAL,
    "djony.bridge.backends.postgresql.provider_for": STRUCTURAL,
    "djony.bridge.backends.mysql.mysql_provider": STRUCTURAL,
    "Options._djony_description": STRUCTURAL,
    "tastypie_djony.fields._MIXED_CLASSES": STRUCTURAL,
    "tastypie_djony.apikey._KEPT": STRUCTURAL,
    "tastypie_djony.permissions._KEPT": STRUCTURAL,
    "tastypie_djony.permissions._BACKENDS": STRUCTURAL,
    "tastypie_djony.stock._STOCK_AUTHORIZED": STRUCTURAL,
    "tastypie_djony.convert._ZONE": STRUCTURAL,
    "tastypie_djony.formats._BEST_MATCH": test_accept_matches_are_modelresource_s_and_stay_bounded,
    "tastypie_djony.stock._STOCK_URI_METHODS": STRUCTURAL,
    "tastypie_djony.checks.RESOURCE_CLASSES": STRUCTURAL,
    "tastypie_djony.verify.twins._METACLASSES": STRUCTURAL,
    "pony.Database caches": test_pony_s_caches_do_not_grow_with_the_values_requested,
    "QuerySet._djony_shape_sql": (
        test_per_user_lists_kept_per_recipe_answer_as_modelresource,
        shapes_tests.test_each_origin_keeps_its_own_shapes,
        shapes_tests.test_an_origin_keeps_at_most_the_cache_size,
    ),
    "QuerySet._djony_filter_templates": (
        test_per_user_lists_kept_per_recipe_answer_as_modelresource,
        shapes_tests.test_each_origin_keeps_its_own_shapes,
        shapes_tests.test_an_origin_keeps_at_most_the_cache_size,
    ),
    "Options._djony_relation_sql": (
        test_one_owner_s_relations_are_kept_per_relation_never_per_owner
    ),
    "Options._djony_page_relations": (
        test_a_page_s_relations_are_kept_per_relation_and_size_never_per_owner,
        test_each_model_keeps_its_own_page_relations,
    ),
    "Options._djony_page_rows": (
        test_a_page_s_related_gets_and_counts_are_kept_per_relation_and_size_never_per_owner
    ),
    "Options._djony_manager_keys": (
        kept_relations_tests.test_the_statement_is_django_s_own_compiled_once_per_page_size
    ),
}


def test_every_kind_has_a_test():
    assert set(KIND_TESTS) == set(KINDS)


# =============================================================================
# What proves a query the same for every request
# =============================================================================
def _query(queryset: models.QuerySet):
    return queryset.query


@pytest.mark.parametrize(
    "queryset, independent",
    [
        (lambda: TenantNote.everything.all(), True),
        (lambda: TenantNote.everything.filter(title="x", views__gt=3).exclude(score=1.5), True),
        (
            lambda: TenantNote.everything.filter(tenant__name__in=["a", "b"]).order_by("-views"),
            True,
        ),
        (lambda: TenantNote.everything.filter(owner=None, title__regex="^a"), True),
        (lambda: TenantNote.everything.order_by(F("views").desc(nulls_last=True)), True),
        (lambda: TenantNote.objects.all(), False),  # the thread-local tenant
        (lambda: TenantNote.everything.filter(tenant_id=CurrentTenant()), False),
        (lambda: Tenant.objects.filter(notes__in=Subquery(TenantNote.objects.values("pk"))), False),
        (
            lambda: Tenant.objects.filter(pk__in=Subquery(TenantNote.everything.values("tenant"))),
            True,
        ),
        (lambda: TenantNote.everything.filter(owner__date_joined__year=2020), False),  # time zone
        (lambda: AllTypes.objects.filter(day__year=2020, day__month__gte=3), True),  # a date's
        (lambda: AllTypes.objects.filter(day__iso_week_day=1, clock__hour__lt=12), True),
        (lambda: AllTypes.objects.filter(moment__hour=1), False),  # a datetime's: time zone
        (lambda: AllTypes.objects.filter(moment__year__gt=2020), False),
        (lambda: TenantNote.everything.filter(owner__date_joined__date="2020-01-01"), False),
        (
            lambda: Tenant.objects.annotate(
                acme=FilteredRelation("notes", condition=Q(notes__title="x"))
            ).filter(acme__views=1),
            False,
        ),
        (
            lambda: Tenant.objects.filter(
                pk__in=Subquery(
                    TenantNote.everything.filter(tenant=OuterRef("pk")).values("tenant")
                )
            ),
            True,
        ),
        (
            lambda: TenantNote.everything.values("tenant").annotate(n=Count("*")),
            True,
        ),
        (
            lambda: TenantNote.everything.values("tenant").annotate(
                n=Count("pk", filter=Q(owner__date_joined__year=2020))
            ),
            False,  # the count's condition reads the time zone
        ),
        (lambda: TenantNote.objects.values("tenant").annotate(n=Count("*")), False),
    ],
)
def test_request_independent_is_proved_from_the_query(queryset, independent):
    assert request_independent(_query(queryset())) is independent


@pytest.mark.parametrize(
    "queryset, independent",
    [
        # Meta.ordering ["name"], a selected column: the compiler orders by its position
        (lambda: TenantTag.everything.values_list("pk", "name"), True),
        (lambda: TenantNote.everything.values_list("pk", "views").order_by("-views"), True),
        (lambda: TenantTag.objects.values_list("pk", "name"), False),  # the tenant
        (
            lambda: (
                TenantNote.everything.annotate(year=ExtractYear("owner__date_joined"))
                .values_list("pk", "year")
                .order_by("year")
            ),
            False,  # ordered by a selected value that reads the time zone
        ),
    ],
)
def test_ordering_by_a_selected_column_is_proved_with_the_compiler(queryset, independent):
    query = queryset().query
    compiler = query.get_compiler("default")
    compiler.as_sql()
    assert [type(order.expression) for order, _ in compiler.get_order_by()] == [PositionRef]
    assert request_independent(query, compiler) is independent


def test_a_tenant_scoped_detail_is_not_compiled_once():
    compiled = OneValueQuery.compile(
        lambda: TenantNote.objects.all(), "pk", 1, lambda qs: qs[:2].values_list("pk", "secret")
    )
    assert compiled is None
    plain = OneValueQuery.compile(
        lambda: TenantNote.everything.all(), "pk", 1, lambda qs: qs[:2].values_list("pk", "secret")
    )
    assert plain is not None and request_independent(plain.query)


class FormOnlyDateField(models.DateField):
    """A project's date field that only changes its form field (wger's ``Html5DateField``)."""

    def formfield(self, **kwargs):
        return super().formfield(**kwargs)


class SavingDateField(FormOnlyDateField):
    """A subclass of that which also sets what it saves (model_utils' ``AutoLastModifiedField``)."""

    def pre_save(self, model_instance, add):
        return super().pre_save(model_instance, add)


class KeyedTextField(models.TextField):
    """Prepares its value with the current tenant (an encrypted field's per-request key)."""

    def get_db_prep_value(self, value, connection, prepared=False):
        return f"{CurrentTenant().value}:{value}"


class WrappedTextField(models.TextField):
    """Selects its column through SQL of its own."""

    def select_format(self, compiler, sql, params):
        return f"UPPER({sql})", params


class ParsedTextField(models.TextField):
    """Prepares a value through a ``to_python`` of its own."""

    def to_python(self, value):
        return value.strip() if isinstance(value, str) else value


@pytest.mark.parametrize(
    "field, independent",
    [
        (models.DateField(), True),
        (FormOnlyDateField(), True),
        (SavingDateField(), True),
        (KeyedTextField(), False),
        (WrappedTextField(), False),
        (ParsedTextField(), False),
    ],
)
def test_a_field_subclass_compiles_once_unless_it_makes_sql_or_parameters_itself(
    field, independent
):
    """A column of a field class of the project's (or a third party's) is proved the same in
    every request when every method that makes its SQL or its parameters is Django's own."""
    from django.db.models.expressions import Col
    from django.db.models.lookups import Exact
    from django.db.models.sql.where import AND

    field.set_attributes_from_name("when")
    field.model = TenantNote
    query = TenantNote.everything.all().query.clone()
    column = Col(query.get_initial_alias(), field)
    value = "2020-01-01"
    query.where.add(Exact(column, value), AND)
    assert request_independent(query) is independent
    selected = TenantNote.everything.all().query.clone()
    selected.select = (Col(selected.get_initial_alias(), field),)
    assert request_independent(selected) is independent
