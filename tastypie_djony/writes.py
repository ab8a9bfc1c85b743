"""POST, PUT, PATCH and DELETE for ``DjonyResource``.

Tastypie's write flow (``full_hydrate`` -> ``save`` -> ``save_related`` ->
``hydrate_m2m`` -> ``save_m2m``) is kept; only the steps that talk to the
ORM are replaced:

* new objects are :class:`~tastypie_djony.drafts.Draft` objects until they
  are saved, then Pony entities;
* ``save`` inserts or flushes through Pony right away, so a constraint the
  database refuses (unique, not null, too long) is a 400 for that request;
* ``save_m2m`` replaces a to-many relation through Pony;
* deletes follow Django's ``on_delete`` (djony's entity hooks); a PROTECT or
  RESTRICT that blocks a delete is a 400 naming the rows in the way.

Every write request runs in one ``transaction.atomic()`` (see
``DjonyResource.wrap_view``): if the response is an error, nothing stays.

``Meta.writes = "django"`` sends a resource's writes through the Django
model instead (``Model.save()``, signals, ``ModelResource``'s own code);
reads stay on Pony.  Use it for models whose ``save()``/``delete()`` or
signal receivers must run.
"""

from __future__ import annotations

from typing import Any

from django import db as django_db
from django.db import models, router
from pony.orm import core as pony_core
from tastypie.bundle import Bundle
from tastypie.exceptions import BadRequest, ImmediateHttpResponse, NotFound

from djony import backends
from djony.deletion import update_fields
from tastypie_djony.drafts import DjangoValues, Draft, editing, new_draft, unwrap
from tastypie_djony.related import forget_loaded

#: Pony and driver errors that mean "the database refused this data".
REFUSED = (
    pony_core.IntegrityError,
    pony_core.TransactionIntegrityError,
    pony_core.CacheIndexError,
    pony_core.ConstraintError,
    pony_core.DataError,
    pony_core.ObjectNotFound,  # a related object named by the request is not there
    models.ProtectedError,
    models.RestrictedError,
)


def refused(exc: BaseException, alias: str = django_db.DEFAULT_DB_ALIAS) -> bool:
    """Whether a flush error is the database (or its driver) refusing the data."""
    if isinstance(exc, pony_core.UnexpectedError):
        exc = exc.original_exc
    if isinstance(exc, REFUSED):
        return True
    if not isinstance(exc, pony_core.ProgrammingError):
        return False
    return backends.for_alias(alias).refused_data(exc)


#: What the Django model refuses on save or delete (``Meta.writes = "django"``).
DJANGO_REFUSED = (
    django_db.IntegrityError,
    django_db.DataError,
    models.ProtectedError,
    models.RestrictedError,
)

WRITES_THROUGH_DJANGO = "django"


class PonyWritesMixin:
    """The ORM-facing write steps of ``DjonyResource``, done with Pony."""

    _meta: Any
    fields: dict

    # -- mode ---------------------------------------------------------------
    def writes_through_django(self, request: Any) -> bool:
        """Whether this request's writes use the Django model (``Meta.writes``)."""
        return getattr(request, "_djony_writes_through_django", False)

    # -- objects ------------------------------------------------------------
    def new_object(self) -> Draft:
        """An empty object to hydrate; override to pre-fill values."""
        return new_draft(self._meta.object_class)

    def build_bundle(self, obj=None, data=None, request=None, objects_saved=None, via_uri=None):
        if obj is None and not self.writes_through_django(request):
            obj = self.new_object()
        return super().build_bundle(
            obj=obj, data=data, request=request, objects_saved=objects_saved, via_uri=via_uri
        )

    def full_hydrate(self, bundle: Bundle) -> Bundle:
        if self.writes_through_django(bundle.request):
            return super().full_hydrate(bundle)
        if bundle.obj is None:
            bundle.obj = self.new_object()
        elif hasattr(bundle.obj, "_pkval_") and not isinstance(bundle.obj, DjangoValues):
            bundle.obj = editing(bundle.obj)
        try:
            return super().full_hydrate(bundle)
        except (ValueError, TypeError, *REFUSED) as exc:
            # Pony validates on assignment: a value of the wrong type, a new
            # primary key for an existing row (Django would save another row),
            # a one-to-one already taken.
            raise BadRequest(_refusal_message(self._meta.object_class, exc)) from None

    def obj_create(self, bundle: Bundle, **kwargs: Any) -> Bundle:
        if self.writes_through_django(bundle.request):
            return super().obj_create(bundle, **kwargs)
        bundle.obj = self.new_object()
        for key, value in kwargs.items():
            setattr(bundle.obj, key, value)
        bundle = self.full_hydrate(bundle)
        return self.save(bundle)

    def create_identifier(self, obj: Any) -> str:
        model = (
            self._meta.object_class if isinstance(obj, Draft) or hasattr(obj, "_pkval_") else None
        )
        if model is None:
            return super().create_identifier(obj)
        return f"{model._meta.label_lower}.{obj.pk}"

    # -- saving -------------------------------------------------------------
    def save(self, bundle: Bundle, skip_errors: bool = False) -> Bundle:
        if self.writes_through_django(bundle.request):
            try:
                return super().save(bundle, skip_errors=skip_errors)
            except DJANGO_REFUSED as exc:
                raise BadRequest(_refusal_message(self._meta.object_class, exc)) from None
        if bundle.via_uri:
            return bundle
        self.is_valid(bundle)
        if bundle.errors and not skip_errors:
            raise ImmediateHttpResponse(response=self.error_response(bundle.request, bundle.errors))
        object_list = self.get_object_list(bundle.request)
        if bundle.obj.pk:
            self.authorized_update_detail(object_list, bundle)
        else:
            self.authorized_create_detail(object_list, bundle)
        self.save_related(bundle)
        identifier = self.create_identifier(bundle.obj)
        if identifier not in bundle.objects_saved or isinstance(bundle.obj, Draft):
            if hasattr(bundle, "update_fields"):  # a PATCH: save(update_fields=...)
                with update_fields(bundle.update_fields):
                    bundle.obj = self.persist(bundle.obj)
            else:
                bundle.obj = self.persist(bundle.obj)
            bundle.objects_saved.add(self.create_identifier(bundle.obj))
        self.save_m2m(self.hydrate_m2m(bundle))
        return bundle

    def persist(self, obj: Any) -> Any:
        """Insert a draft or write a changed entity now; refusals become a 400."""
        unsaved = _unsaved_related(obj)
        if unsaved:
            # Django refuses this too ("save() prohibited ... unsaved related object").
            raise BadRequest(
                f"{', '.join(unsaved)}: a nested object without data was neither found nor "
                "created; send its URI or its fields."
            )
        try:
            if isinstance(obj, Draft):
                return obj.save()
            obj = unwrap(obj)
            obj.flush()
            return obj
        except (pony_core.UnexpectedError, pony_core.ProgrammingError, *REFUSED) as exc:
            # Pony wraps what the database refused during a flush.
            if not refused(exc, router.db_for_write(self._meta.object_class)):
                raise
            raise BadRequest(_refusal_message(self._meta.object_class, exc)) from None
        except (ValueError, TypeError) as exc:  # Pony's validation (required attribute, bad value)
            raise BadRequest(
                f"Invalid data for {self._meta.object_class._meta.object_name}: {exc}"
            ) from None

    def hydrate_m2m(self, bundle: Bundle) -> Bundle:
        """Tastypie's; a to-many value that is not a list is a 400, not a 500."""
        for name, field in self.fields.items():
            value = bundle.data.get(name) if field.is_m2m else None
            # Tastypie iterates the value: a string would be read letter by letter.
            if isinstance(value, (int, float)) or (isinstance(value, (str, bytes)) and value):
                raise BadRequest(
                    f"'{name}' needs a list of URIs or objects, got {type(value).__name__}."
                )
        try:
            return super().hydrate_m2m(bundle)
        except TypeError as exc:
            raise BadRequest(f"A to-many field needs a list of URIs or objects: {exc}") from None

    def deserialize(self, request: Any, data: Any, format: str = "application/json") -> Any:
        """Tastypie's; a body nested too deep or not in UTF-8 is a 400, not a 500."""
        try:
            return super().deserialize(request, data, format=format)
        except (RecursionError, UnicodeError) as exc:
            raise BadRequest(f"The request body could not be read: {type(exc).__name__}.") from None

    def patch_detail(self, request: Any, **kwargs: Any) -> Any:
        """Tastypie's; a key that is an attribute but no field of the resource is a 400."""
        try:
            return super().patch_detail(request, **kwargs)
        except KeyError as exc:
            raise BadRequest(f"{exc.args[0]!r} is not a field of this resource.") from None

    def save_m2m(self, bundle: Bundle) -> None:
        if self.writes_through_django(bundle.request):
            return super().save_m2m(bundle)
        for field_name, field in self.fields.items():
            if not field.is_m2m or not isinstance(field.attribute, str) or field.readonly:
                continue
            if hasattr(bundle, "update_fields") and field_name not in bundle.m2m_update_fields:
                continue
            related_objects = []
            related_resource = field.get_related_resource(bundle.obj)
            for related_bundle in bundle.data[field_name]:
                saved = related_resource.build_bundle(
                    obj=related_bundle.obj,
                    data=related_bundle.data,
                    request=bundle.request,
                    objects_saved=bundle.objects_saved,
                    via_uri=related_bundle.via_uri,
                )
                related_resource.save(saved)
                related_objects.append(unwrap(saved.obj))
            self.replace_related(bundle.obj, field.attribute, related_objects)

    def replace_related(self, obj: Any, attribute: str, related_objects: list) -> None:
        """Make ``obj.<attribute>`` exactly ``related_objects`` (as Django's manager would)."""
        obj = unwrap(obj)
        django_field = self._meta.object_class._meta.get_field(attribute)
        try:
            if django_field.one_to_many and not django_field.field.null:
                # A reverse ForeignKey that cannot be cleared: Django only adds.
                for related in related_objects:
                    setattr(related, django_field.field.name, obj)
            else:
                setattr(obj, attribute, related_objects)
            obj.flush()
            forget_loaded(self._meta.object_class)
        except REFUSED as exc:
            raise BadRequest(_refusal_message(self._meta.object_class, exc)) from None

    # -- deleting -----------------------------------------------------------
    def obj_delete(self, bundle: Bundle, **kwargs: Any) -> None:
        if self.writes_through_django(bundle.request):
            try:
                return super().obj_delete(bundle, **kwargs)
            except DJANGO_REFUSED as exc:
                raise BadRequest(_refusal_message(self._meta.object_class, exc)) from None
        if not hasattr(bundle.obj, "_pkval_"):
            try:
                bundle.obj = self.obj_get(bundle=bundle, **kwargs)
            except models.ObjectDoesNotExist:
                raise NotFound(  # noqa: B904 (Tastypie's own answer, without the chain)
                    "A model instance matching the provided arguments could not be found."
                )
        self.authorized_delete_detail(self.get_object_list(bundle.request), bundle)
        self.delete_objects([bundle.obj])

    def obj_delete_list(self, bundle: Bundle, **kwargs: Any) -> None:
        if self.writes_through_django(bundle.request):
            return super().obj_delete_list(bundle, **kwargs)
        objects = self.obj_get_list(bundle=bundle, **kwargs)
        self.delete_objects(list(self.authorized_delete_list(objects, bundle)))

    def obj_delete_list_for_update(self, bundle: Bundle, **kwargs: Any) -> None:
        if self.writes_through_django(bundle.request):
            return super().obj_delete_list_for_update(bundle, **kwargs)
        objects = self.obj_get_list(bundle=bundle, **kwargs)
        self.delete_objects(list(self.authorized_update_list(objects, bundle)))

    def delete_objects(self, objects: list) -> None:
        """Delete through Pony, applying ``on_delete``; a blocked delete is a 400."""
        try:
            for obj in objects:
                unwrap(obj).delete()
            pony_core.flush()
            forget_loaded(self._meta.object_class)
        except REFUSED as exc:
            raise BadRequest(_refusal_message(self._meta.object_class, exc)) from None

    def rollback(self, bundles: list) -> None:
        """Nothing to undo by hand: the request's transaction is rolled back."""


def _unsaved_related(obj: Any) -> list[str]:
    """Names of relations that still hold a new object nobody saved."""
    if isinstance(obj, DjangoValues):
        return [name for name, value in obj.pending.items() if not value.is_saved]
    if isinstance(obj, Draft) and not obj.is_saved:
        return [
            name
            for name, value in obj._relations.items()
            if isinstance(value, Draft) and not value.is_saved
        ]
    return []


def _refusal_message(model: type[models.Model], exc: BaseException) -> str:
    detail = str(exc.args[0] if isinstance(exc, models.ProtectedError) else exc)
    return f"Could not save {model._meta.object_name}: {detail}".strip()
