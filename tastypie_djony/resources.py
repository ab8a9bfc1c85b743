"""``DjonyResource``: Tastypie's ``ModelResource``, served by Pony ORM.

Change the base class and keep everything else::

    class UserResource(DjonyResource):          # was ModelResource
        class Meta:
            queryset = User.objects.all()         # or, 2013 spelling: object_model = User

Fields, filtering, ordering, pagination, authentication, authorization,
serialisation and every error are Tastypie's own code.  What changes is the
object list underneath (:class:`~tastypie_djony.objectlist.DjonyObjectList`:
Django compiles the filters to SQL, the model's Django instances come from its rows,
their relations loaded for the whole page), the related fields
(:class:`~tastypie_djony.fields.SetField`: URIs from the page's related keys), and the
transaction a write request runs in (:mod:`tastypie_djony.write.outcome`).  JSON pages
are built from rows where that gives the same bytes (:mod:`tastypie_djony.serve`): plain
resources without objects, resources with hooks on Tastypie's bundles whose objects are
built only when read.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.db import models
from django.http import HttpResponse
from pony.orm import db_session
from pony.orm import rollback as pony_rollback
from tastypie import http
from tastypie.bundle import Bundle
from tastypie.contrib.contenttypes.fields import GenericForeignKeyField
from tastypie.exceptions import ImmediateHttpResponse
from tastypie.fields import ToManyField, ToOneField
from tastypie.resources import BaseModelResource

from djony.serving import (
    assignments_not_saved,
    letting_go,
    load_together,
    pin_reads,
    watching_writes,
    write_alias,
    writing,
)
from tastypie_djony.afterwrites import forget_after_writes, watching_pages
from tastypie_djony.apikey import is_authenticated as apikey_authenticated
from tastypie_djony.apikey import kept_lookup, kept_multi, multi_authenticated
from tastypie_djony.bodies import BodiesMixin
from tastypie_djony.checks import unservable_reason
from tastypie_djony.clientinput import ClientInputMixin, mismatched_keys_refused
from tastypie_djony.convert import json_response, render_json, simple
from tastypie_djony.declaration import DjonyDeclarativeMetaclass
from tastypie_djony.fields import (
    as_set_field,
    as_to_one_field,
)
from tastypie_djony.objectlist import DjonyObjectList
from tastypie_djony.permissions import PermissionsReadOnceMixin
from tastypie_djony.related import prefetch_loader
from tastypie_djony.schema import bare_schema, build_schema, serve_schema
from tastypie_djony.serve.choice import declined, detail_choice, plan_for, served_by
from tastypie_djony.serve.detail import serve_detail
from tastypie_djony.serve.lists import serve_list
from tastypie_djony.serve.plans import BundlePlan, RowPlan
from tastypie_djony.serve.sets import general_set, serve_set, set_plan
from tastypie_djony.sessions import OutsideRequestMixin, in_session
from tastypie_djony.sources import relation_lookups
from tastypie_djony.stock import inert_throttle, stock_uri_method, writes_stock_json
from tastypie_djony.uris import uris_of
from tastypie_djony.write.flow import DjangoWritesMixin
from tastypie_djony.write.outcome import answer_write

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


#: What a resource instance keeps once built: :func:`~tastypie_djony.uris.uris_of`'s
#: URIs, the fast path's plans, :mod:`~tastypie_djony.serve.detail`'s compiled details,
#: the page loaders, the tables its write bodies write (:mod:`~tastypie_djony.write.blame`).
BUILT_ON_USE = (
    "_djony_uris",
    "_djony_plans",
    "_djony_detail_sql",
    "_djony_loaders",
    "_djony_client_tables",
)


class DjonyResource(
    ClientInputMixin,
    BodiesMixin,
    OutsideRequestMixin,
    DjangoWritesMixin,
    PermissionsReadOnceMixin,
    BaseModelResource,
    metaclass=DjonyDeclarativeMetaclass,
):
    """A ``ModelResource`` whose reads are served from rows, with Pony on Django's connection.

    Writes are ``ModelResource``'s own, on Django instances (the model's
    ``save()``, ``delete()`` and signals run): see :mod:`tastypie_djony.write`.
    """

    def __init__(self, api_name: str | None = None) -> None:
        super().__init__(api_name=api_name)
        if self._meta.object_class is None:
            return  # no model: Tastypie's own fields, as on ModelResource
        for name, field in self.fields.items():
            if isinstance(field, GenericForeignKeyField):
                continue  # Tastypie's own: it finds the related resource by type(obj)
            if isinstance(field, ToManyField):
                self.fields[name] = as_set_field(field)
            elif isinstance(field, ToOneField):
                self.fields[name] = as_to_one_field(field)

    def __getstate__(self) -> dict[str, Any]:
        """The instance without what it builds on first use (URI templates, plans).

        A copy or a pickle builds them again.  Tastypie copies resources: each
        related field keeps the related resource it made, and every new instance
        of a resource deep-copies its class's fields (a URI template holds the
        URLconf's resolver, which cannot be copied).
        """
        state = dict(self.__dict__)
        for name in BUILT_ON_USE:
            state.pop(name, None)
        return state

    @stock_uri_method
    def get_resource_uri(
        self, bundle_or_obj: Any = None, url_name: str = "api_dispatch_list"
    ) -> str:
        """Tastypie's URI; a detail's and the list's come from :func:`~tastypie_djony.uris.uris_of`.

        Overriding this (or ``detail_uri_kwargs``, ``resource_uri_kwargs``,
        ``_build_reverse_url``) keeps working: the URI is then always built by
        your method, from the object.
        """
        uris = uris_of(self)
        if bundle_or_obj is not None:
            if uris.from_key:
                obj = bundle_or_obj.obj if isinstance(bundle_or_obj, Bundle) else bundle_or_obj
                return uris.builder()(getattr(obj, self._meta.detail_uri_name))
        elif url_name == "api_dispatch_list" and uris.from_key:
            return uris.list_uri(
                lambda: super(DjonyResource, self).get_resource_uri(None, url_name)
            )
        return super().get_resource_uri(bundle_or_obj, url_name)

    # -- hooks ------------------------------------------------------------
    def get_object_list(self, request: Any) -> DjonyObjectList:
        """The resource's rows before filters: ``Meta.queryset``, served by Pony.

        Override it, as on ``ModelResource``, to narrow what a request may
        see; chain ``.filter()``/``.exclude()`` with Django lookups.
        """
        if self.writes_through_django(request):
            return pin_reads(self._meta.queryset._clone())
        return DjonyObjectList.made_from(self._meta.queryset, self._page_loaders())

    def as_object_list(self, result: Any, request: Any) -> Any:
        """``get_object_list``'s result as an object list Pony serves.

        A Django ``QuerySet`` (an override's ``Model.objects.filter(...)``) is
        served through Pony with the page loaders; anything else is kept.
        """
        if isinstance(result, models.QuerySet) and not self.writes_through_django(request):
            # values()/values_list() too: their dicts and tuples reach Tastypie as on
            # ModelResource (the row-built paths decline such a list).
            return DjonyObjectList(result, self._page_loaders())
        return result

    def _page_loaders(self) -> tuple:
        """``page_loaders()``, built once per resource when it is DjonyResource's own.

        Its loaders depend on the resource's fields only (a loader reads what it needs
        for each page when called), so they are kept; an override of ``page_loaders``
        is called for every object list, as before.  Last comes
        :func:`djony.serving.load_together`: a relation no field names, that a hook
        iterates (``bundle.obj.tags.all()``), loads for the whole page on first use.
        """
        if type(self).page_loaders is not DjonyResource.page_loaders:
            return (*self.page_loaders(), load_together)
        loaders = self.__dict__.get("_djony_loaders")
        if loaders is None:
            loaders = self.__dict__["_djony_loaders"] = (*self.page_loaders(), load_together)
        return loaders

    def page_loaders(self, depth: int = 0) -> list[Callable[[list], None]]:
        """Loaders that fill the relation caches of a whole page of objects at once.

        One per relation a related field names (a ``ForeignKey`` shown as a URI needs
        none: the row holds its key): the related objects, as ``prefetch_related`` loads
        them, so the field and any hook reading ``bundle.obj.<relation>`` find them
        without a query; below a ``full=True`` field, its related resource's own
        (:func:`~tastypie_djony.sources.relation_lookups`).  Override to add loaders of
        your own (each is called with the page's objects).  Each of these has
        ``djony_field``, the name of its field.
        """
        loaders = []
        for name, field in self.fields.items():
            if not getattr(field, "is_related", False):
                continue
            for lookup in relation_lookups(self, field, depth):
                loader = prefetch_loader(lookup)
                loader.djony_field = name
                loaders.append(loader)
        return loaders

    def prefetch_lookups(self, depth: int = 0) -> list[str]:
        """The ``prefetch_related`` lookups of :meth:`page_loaders`, below ``depth`` levels."""
        return [
            lookup
            for field in self.fields.values()
            if getattr(field, "is_related", False)
            for lookup in relation_lookups(self, field, depth)
        ]

    def throttle_check(self, request: Any) -> None:
        """Tastypie's; skipped where it does nothing (Tastypie's ``BaseThrottle`` and a
        stock authentication's identifier: :func:`~tastypie_djony.stock.inert_throttle`)."""
        if not inert_throttle(self):
            super().throttle_check(request)

    def log_throttled_access(self, request: Any) -> None:
        """Tastypie's; skipped where it records nothing (as :meth:`throttle_check`)."""
        if not inert_throttle(self):
            super().log_throttled_access(request)

    def is_authenticated(self, request: Any) -> None:
        """Tastypie's; a stock ``ApiKeyAuthentication``, alone or among a
        ``MultiAuthentication``'s backends, finds the key's user by SQL compiled once
        (:mod:`tastypie_djony.apikey`: the same user, the same answer)."""
        authentication = self._meta.authentication
        if kept_lookup(authentication):
            auth_result = apikey_authenticated(authentication, request)
        elif kept_multi(authentication):
            auth_result = multi_authenticated(authentication, request)
        else:
            return super().is_authenticated(request)
        if isinstance(auth_result, HttpResponse):
            raise ImmediateHttpResponse(response=auth_result)
        if auth_result is not True:
            raise ImmediateHttpResponse(response=http.HttpUnauthorized())
        return None

    # -- the fast path (tastypie_djony.serve) ---------------------------------
    def list_plan(self, request: Any, for_list: bool = True) -> RowPlan | None:
        """The row-built plan of this request's JSON page (no object built), or ``None``.

        ``None`` (Tastypie's general path) when ``Meta.fast_path = False``, for other
        formats, and whenever the resource has hooks or fields the plan cannot reproduce
        byte for byte (:mod:`tastypie_djony.serve.choice`, :meth:`declined_plans`).
        """
        return plan_for(self, DjonyResource, RowPlan, request, for_list)

    def bundle_plan(self, request: Any, for_list: bool = True) -> BundlePlan | None:
        """The bundle plan of this request's JSON page (rows *and* hooks), or ``None``.

        For resources :meth:`list_plan` declines because of a ``dehydrate()`` or
        ``dehydrate_<field>()`` hook or a field only an object can give: Tastypie's
        ``full_dehydrate`` order on bundles whose values come from the page's rows
        and whose objects are built only when read (:mod:`tastypie_djony.serve.plans`).
        """
        return plan_for(self, DjonyResource, BundlePlan, request, for_list)

    def detail_plan(self, request: Any) -> RowPlan | BundlePlan | None:
        """The plan for a detail, or ``None`` (:mod:`tastypie_djony.serve.choice`)."""
        return detail_choice(self, DjonyResource, request)[0]

    def declined_plans(self) -> dict[str, str]:
        """Why each plan does not serve each page kind of this resource (empty: all do)."""
        return declined(self, DjonyResource)

    def served_by(self) -> dict[str, str]:
        """Which path serves this resource's JSON lists and details, and why where it is
        Tastypie's general path (:func:`~tastypie_djony.serve.choice.served_by`)."""
        return served_by(self, DjonyResource)

    @in_session()
    def get_detail(self, request: Any, **kwargs: Any) -> Any:
        """Tastypie's ``get_detail``; JSON is built from the row (the object only when read)."""
        plan, needs = detail_choice(self, DjonyResource, request)
        general = functools.partial(super().get_detail, request, **kwargs)
        if plan is None:
            return general()
        return serve_detail(self, DjonyResource, plan, request, kwargs, general, needs)

    @in_session()
    def get_list(self, request: Any, **kwargs: Any) -> Any:
        """Tastypie's ``get_list``; JSON pages are built from rows (objects only when read)."""
        plan = self.list_plan(request) or self.bundle_plan(request)
        if plan is None:
            return super().get_list(request, **kwargs)
        return serve_list(
            self, plan, request, kwargs, functools.partial(self._general_list, request)
        )

    @in_session()
    def get_multiple(self, request: Any, **kwargs: Any) -> Any:
        """Tastypie's ``get_multiple`` (``set/1;2/``); JSON is built from the rows as a list
        page's is (:mod:`tastypie_djony.serve.sets`)."""
        plan = set_plan(self, DjonyResource, request)
        if plan is None:
            return super().get_multiple(request, **kwargs)
        general = functools.partial(general_set, self, request)
        with mismatched_keys_refused():
            return serve_set(self, plan, request, kwargs, general)

    def get_schema(self, request: Any, **kwargs: Any) -> HttpResponse:
        """Tastypie's ``get_schema``; where its authorization needs no object, without
        building the empty object and the object list (:mod:`tastypie_djony.schema`)."""
        needs = bare_schema(self, DjonyResource)
        if needs is None:
            return super().get_schema(request, **kwargs)
        return serve_schema(self, request, needs)

    def full_dehydrate(self, bundle: Bundle, for_list: bool = False) -> Bundle:
        """Tastypie's ``full_dehydrate``; after a hook wrote, the pages read before forget
        what they read of their objects' relations first (:mod:`tastypie_djony.afterwrites`)."""
        forget_after_writes()
        return super().full_dehydrate(bundle, for_list=for_list)

    def build_schema(self) -> dict[str, Any]:
        """Tastypie's ``build_schema``; a related field's link to its resource's schema
        without building that resource, reversed once per URLconf, script prefix and
        language (:func:`tastypie_djony.schema.build_schema`)."""
        return build_schema(self, DjonyResource)

    def _general_list(self, request: Any, page: dict) -> HttpResponse:
        """The rest of Tastypie's ``get_list`` for a page of objects."""
        collection = self._meta.collection_name
        page = dict(page)
        page[collection] = [
            self.full_dehydrate(self.build_bundle(obj=obj, request=request), for_list=True)
            for obj in page[collection]
        ]
        page = self.alter_list_data_to_serialize(request, page)
        return self.create_response(request, page)

    def create_response(
        self,
        request: Any,
        data: Any,
        response_class: type[HttpResponse] = HttpResponse,
        **response_kwargs: Any,
    ) -> HttpResponse:
        """Tastypie's ``create_response``; JSON of Tastypie's own serializer is written by
        :mod:`tastypie_djony.convert` (the same bytes, plain values without ``to_simple``'s
        type dispatch), for every answer of the general path (pages, details, ``schema/``,
        ``set/``, writes returning data).  Override it as on ModelResource."""
        if not writes_stock_json(self, request):
            return super().create_response(request, data, response_class, **response_kwargs)
        body = render_json(simple(data, self._meta.serializer, {}))
        return json_response(body, response_class, **response_kwargs)

    # -- request handling -------------------------------------------------
    def wrap_view(self, view: str) -> Callable:
        """Tastypie's view wrapper, in a Pony ``db_session``.

        Reads run in autocommit, as Django's.  A write request runs in one
        transaction on the model's write database (a savepoint inside the project's),
        settled by its answer (:mod:`tastypie_djony.write.outcome`: a 5xx leaves
        nothing, a 2xx only for rows committed); each of its write steps is a
        savepoint inside it.  Its reads come from the database its writes go to.
        """
        wrapped = super().wrap_view(view)
        model = self._meta.object_class
        if model is None:
            return wrapped  # no model: Tastypie's own view, as ModelResource serves it
        try:
            unservable = unservable_reason(type(self).__name__, model)
        except Exception as exc:
            # Tastypie's Resource.__getattr__ would turn an AttributeError raised while
            # its ``urls`` are built into an opaque "AttributeError: urls".
            raise ImproperlyConfigured(
                f"DjonyResource {type(self).__name__}: its view {view!r} cannot be built "
                f"({type(exc).__name__}: {exc})."
            ) from exc

        def wrapper(request: Any, *args: Any, **kwargs: Any) -> Any:
            if unservable:  # tastypie_djony.E002 said so at startup
                raise ImproperlyConfigured(unservable)
            # Pony only reads, in autocommit (optimistic=False would make it open a
            # transaction of its own).
            # Objects are Django instances to the request's code: an assignment to one
            # changes no row until a save (djony.objects.saving.assignments_not_saved).
            # What their pages set on them is let go with the answer (letting_go).
            if request.method in SAFE_METHODS:
                with (
                    letting_go(),
                    assignments_not_saved(),
                    watching_writes(),
                    watching_pages(),
                    db_session,
                ):
                    return self._answer(wrapped, request, *args, **kwargs)
            alias = write_alias(self._meta.object_class)
            with letting_go(), assignments_not_saved(), writing(alias), db_session:
                return answer_write(
                    self, self._answer_view(wrapped), alias, request, *args, **kwargs
                )

        wrapper.csrf_exempt = True
        return wrapper

    def _answer_view(self, view: Callable) -> Callable:
        return functools.partial(self._answer, view)

    @staticmethod
    def _answer(view: Callable, request: Any, *args: Any, **kwargs: Any) -> HttpResponse:
        response = view(request, *args, **kwargs)
        if response.status_code >= 400:
            # A statement the database refused (a bad regex on PostgreSQL) leaves
            # Pony's part of the transaction aborted: roll it back.
            pony_rollback()
        return response
