"""POST, PUT, PATCH and DELETE for ``DjonyResource``.

Tastypie's write flow (``full_hydrate`` -> ``save`` -> ``save_related`` ->
``hydrate_m2m`` -> ``save_m2m``) is kept; only the steps that talk to the
ORM are replaced:

* new objects are :class:`~tastypie_djony.drafts.Draft` objects until they
  are saved, then Pony entities; as with ``Model.save()``, a draft whose
  client-chosen key names an existing row updates that row;
* existing objects are edited through :class:`~tastypie_djony.drafts.DjangoValues`:
  assignments are kept and written when saved, a PATCH only the fields it
  sent (``save(update_fields=...)``), so what ``full_dehydrate`` made of
  the other fields is never written back;
* ``save`` inserts or flushes through Pony right away, so a constraint the
  database refuses (unique, not null, too long) is a 400 for that request;
* ``save_related`` links reverse one-to-one objects (``related_name``)
  through Pony; ``save_m2m`` replaces a to-many relation through Pony;
* deletes follow Django's ``on_delete`` (djony's entity hooks); a PROTECT or
  RESTRICT that blocks a delete is a 400 naming the rows in the way (see
  :mod:`tastypie_djony.refusals` for how refusals are worded).

Every write request runs in one ``transaction.atomic()`` (see
``DjonyResource.wrap_view``): if the response is an error, nothing stays;
a refusal at commit (a deferred constraint) is a 400 in Tastypie's format.

``Meta.writes = "django"`` sends a resource's writes through the Django
model instead (``Model.save()``, signals, ``ModelResource``'s own code);
reads stay on Pony.  Use it for models whose ``save()``/``delete()`` or
signal receivers must run.
"""

from __future__ import annotations

import inspect
from collections.abc import Collection
from typing import Any

from django import db as django_db
from django.core.exceptions import MultipleObjectsReturned, ObjectDoesNotExist
from django.db import models, router
from django.http import HttpResponse
from pony.orm import core as pony_core
from tastypie import http
from tastypie.bundle import Bundle
from tastypie.exceptions import BadRequest, ImmediateHttpResponse, NotFound
from tastypie.resources import convert_post_to_patch

from djony import backends
from djony.deletion import update_fields
from djony.instances import is_django_instance
from djony.registry import entity_for, write_alias
from tastypie_djony.bodies import PARSER_ERRORS, unreadable_body
from tastypie_djony.drafts import (
    DjangoValues,
    Draft,
    editing,
    from_instance,
    new_draft,
    settled,
    unwrap,
    writable,
)
from tastypie_djony.refusals import invalid_data_message, refusal_message
from tastypie_djony.related import forget_loaded
from tastypie_djony.sessions import adopt

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

#: What the end of a write request's transaction may raise (a deferred constraint).
COMMIT_ERRORS = (django_db.DatabaseError, pony_core.OrmError)


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
        elif is_django_instance(bundle.obj):
            bundle.obj = from_instance(bundle.obj)
        elif hasattr(bundle.obj, "_pkval_") and not isinstance(bundle.obj, DjangoValues):
            bundle.obj = editing(bundle.obj)
        try:
            return super().full_hydrate(bundle)
        except (ValueError, TypeError, *REFUSED) as exc:
            # Pony validates on assignment: a value of the wrong type, a new
            # primary key for an existing row (Django would save another row),
            # a one-to-one already taken.
            raise BadRequest(refusal_message(self._meta.object_class, exc)) from None

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
                raise BadRequest(refusal_message(self._meta.object_class, exc)) from None
        if bundle.via_uri:
            return bundle
        if is_django_instance(bundle.obj):  # saved without full_hydrate
            bundle.obj = from_instance(bundle.obj)
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
                    bundle.obj = self.persist(bundle.obj, only=bundle.update_fields)
            else:
                bundle.obj = self.persist(bundle.obj)
            bundle.objects_saved.add(self.create_identifier(bundle.obj))
        self.save_m2m(self.hydrate_m2m(bundle))
        return bundle

    def save_related(self, bundle: Bundle) -> None:
        """Tastypie's ``save_related``, with Pony objects on both ends of a reverse relation.

        For a reverse one-to-one (``related_name``), Tastypie saves the object,
        sets ``related.<related_name> = bundle.obj`` and saves the related
        object; here the related object is a draft or an edited entity, so
        that assignment is kept and written as any other.
        """
        if self.writes_through_django(bundle.request):
            return super().save_related(bundle)
        for field_name, field in self.fields.items():
            if not field.is_related or field.is_m2m or not field.attribute or field.readonly:
                continue
            if field.blank and field_name not in bundle.data:
                continue
            try:
                related_obj = getattr(bundle.obj, field.attribute)
            except models.ObjectDoesNotExist:
                related_obj = None
            if related_obj is None:
                related_obj = bundle.related_objects_to_save.get(field.attribute, None)
            related_obj = writable(related_obj)
            if related_obj and field.related_name:
                # A reverse relation: the object must exist before the related row names it.
                # Tastypie saves it first only without a key; a new object with a key (the
                # client's) is inserted first too, where Tastypie relies on the database
                # checking the reference at commit.
                if not self.get_bundle_detail_data(bundle) or _unsaved_draft(bundle.obj):
                    self.persist(bundle.obj)
                setattr(related_obj, field.related_name, bundle.obj)
            related_resource = field.get_related_resource(related_obj)
            if related_obj and self.create_identifier(related_obj) in bundle.objects_saved:
                continue
            data = bundle.data.get(field_name)
            if data and (hasattr(data, "keys") or field.related_name):
                related_bundle = related_resource.build_bundle(
                    obj=related_obj,
                    data=data if hasattr(data, "keys") else None,
                    request=bundle.request,
                    objects_saved=bundle.objects_saved,
                )
                if hasattr(data, "keys"):  # only build and save with data, not just a URI
                    related_resource.full_hydrate(related_bundle)
                related_resource.save(related_bundle)
                related_obj = related_bundle.obj
            if related_obj:
                setattr(bundle.obj, field.attribute, related_obj)

    def persist(self, obj: Any, only: Collection[str] | None = None) -> Any:
        """Insert a draft or write a changed entity now; refusals become a 400.

        ``only``: the fields to write, as ``save(update_fields=...)`` (a PATCH).
        """
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
            obj = obj.write(only) if isinstance(obj, DjangoValues) else unwrap(obj)
            obj.flush()
            settled(obj)
            forget_loaded(self._meta.object_class)  # relations read earlier may have changed
            return obj
        except (pony_core.UnexpectedError, pony_core.ProgrammingError, *REFUSED) as exc:
            # Pony wraps what the database refused during a flush.
            if not refused(exc, router.db_for_write(self._meta.object_class)):
                raise
            raise BadRequest(refusal_message(self._meta.object_class, exc)) from None
        except (ValueError, TypeError) as exc:  # Pony's validation (required attribute, bad value)
            raise BadRequest(invalid_data_message(self._meta.object_class, exc)) from None

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
        """Tastypie's; a body its parser refuses is a 400 with the parser's reason, never a 500.

        Tastypie lets YAML and plist parser errors through (a 500) and answers
        malformed XML with an empty message.
        """
        try:
            deserialized = super().deserialize(request, data, format=format)
        except BadRequest as exc:
            if exc.args and exc.args[0] or exc.__context__ is None:
                raise
            raise BadRequest(unreadable_body(exc.__context__)) from None
        except (RecursionError, UnicodeError, ValueError, *PARSER_ERRORS) as exc:
            raise BadRequest(unreadable_body(exc)) from None
        if getattr(request, "_djony_needs_object", False) and not isinstance(deserialized, dict):
            raise BadRequest(
                f"The request body must be an object of fields, got {_kind_of(deserialized)}."
            )
        return deserialized

    def patch_detail(self, request: Any, **kwargs: Any) -> Any:
        """Tastypie's ``patch_detail``, step for step, asking the model which keys to save.

        Tastypie saves a body key (``save(update_fields=...)``) when
        ``hasattr(bundle.obj, key)``: on a Django instance that asks the model.  The
        objects here also have Pony's own attributes (``get_pk``, ``to_dict``,
        ``load``), which a Django instance has not: ModelResource ignores such a
        key, and so does this (:func:`django_instance_has`).  A key a Django instance
        has but the resource has no field for is a 400 (Tastypie looks it up among
        the fields: a 500); so is a body that is not an object (Tastypie iterates
        its keys: a 500).  Override it as you would Tastypie's.
        """
        request = convert_post_to_patch(request)
        request._djony_needs_object = True
        basic_bundle = self.build_bundle(request=request)
        try:
            obj = self.cached_obj_get(
                bundle=basic_bundle, **self.remove_api_resource_names(kwargs)
            )
        except ObjectDoesNotExist:
            return http.HttpNotFound()
        except MultipleObjectsReturned:
            return http.HttpMultipleChoices("More than one resource is found at this URI.")
        bundle = self.build_bundle(obj=obj, request=request)
        bundle = self.full_dehydrate(bundle)
        bundle = self.alter_detail_data_to_serialize(request, bundle)
        content_type = request.META.get("CONTENT_TYPE", "application/json")
        deserialized = self.deserialize(request, request.body, format=content_type)
        bundle.update_fields = []
        bundle.m2m_update_fields = []
        for key in deserialized:
            if not django_instance_has(bundle.obj, self._meta.object_class, key):
                continue
            if key not in self.fields:
                raise BadRequest(f"{key!r} is not a field of this resource.")
            if getattr(self.fields[key], "is_m2m", False):
                bundle.m2m_update_fields.append(key)
            elif key not in ("id", "pk"):  # Tastypie never patches the key
                bundle.update_fields.append(key)
        self.update_in_place(request, bundle, deserialized)
        if not self._meta.always_return_data:
            return http.HttpAccepted()
        bundle.obj._prefetched_objects_cache = {}  # as Tastypie does
        bundle = self.full_dehydrate(bundle)
        bundle = self.alter_detail_data_to_serialize(request, bundle)
        return self.create_response(request, bundle, response_class=http.HttpAccepted)

    def update_in_place(self, request: Any, original_bundle: Bundle, new_data: Any) -> Any:
        """Tastypie's; a key naming an attribute of the model that is no field is a 400.

        ModelResource looks such a key (``asave``, a method) up among its fields
        and answers 500; DjonyResource's objects need not have every attribute of
        a Django instance, so the model class decides, and the answer is a 400.
        """
        if isinstance(new_data, dict):
            for key in new_data:
                if key not in self.fields and _instance_attribute(self._meta.object_class, key):
                    raise BadRequest(f"{key!r} is not a field of this resource.")
        return super().update_in_place(request, original_bundle, new_data)

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
            if hasattr(django_field, "object_id_field_name"):  # GenericRelation
                self.replace_generic_related(obj, django_field, related_objects)
            elif django_field.one_to_many and not django_field.field.null:
                # A reverse ForeignKey that cannot be cleared: Django only adds.
                for related in related_objects:
                    setattr(related, django_field.field.name, obj)
            else:
                setattr(obj, attribute, related_objects)
            obj.flush()
            forget_loaded(self._meta.object_class)
        except REFUSED as exc:
            raise BadRequest(refusal_message(self._meta.object_class, exc)) from None

    def replace_generic_related(self, obj: Any, relation: Any, related_objects: list) -> None:
        """A ``GenericRelation`` made ``related_objects``, as Django's ``clear()`` + ``add()``.

        Rows no longer related are deleted (the relation's columns cannot be
        cleared); the others get the owner's content type and key.
        """
        from django.contrib.contenttypes.models import ContentType

        related_objects = [unwrap(related) for related in related_objects]
        types = ContentType.objects.db_manager(write_alias(self._meta.object_class))
        content_type = types.get_for_model(obj, for_concrete_model=relation.for_concrete_model)
        ct_field = relation.related_model._meta.get_field(relation.content_type_field_name)
        ct_attname = ct_field.attname
        for existing in getattr(obj, relation.name).all():
            if existing not in related_objects:
                existing.delete()
        for related in related_objects:
            setattr(related, ct_attname, content_type.pk)
            setattr(related, relation.object_id_field_name, obj.pk)

    def commit_error_response(self, request: Any, exc: BaseException) -> HttpResponse:
        """The answer when the request's transaction could not be committed.

        A constraint the database checks at commit (PostgreSQL's and SQLite's
        deferred foreign keys) refusing the data is a 400 in Tastypie's error
        format; anything else is Tastypie's 500.  Override to word it otherwise.
        """
        alias = router.db_for_write(self._meta.object_class)
        if isinstance(exc, DJANGO_REFUSED) or refused(exc, alias):
            model = self._meta.object_class._meta.object_name
            return self.error_response(
                request,
                {"error": f"Could not save {model}: {commit_refusal(exc)}"},
                response_class=http.HttpBadRequest,
            )
        return self._handle_500(request, exc)

    # -- deleting -----------------------------------------------------------
    def obj_delete(self, bundle: Bundle, **kwargs: Any) -> None:
        if self.writes_through_django(bundle.request):
            try:
                return super().obj_delete(bundle, **kwargs)
            except DJANGO_REFUSED as exc:
                exc.deleted = bundle.obj
                message = refusal_message(self._meta.object_class, exc, "delete")
                raise BadRequest(message) from None
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
        obj = None
        try:
            for obj in objects:
                unwrap(obj).delete()
            pony_core.flush()
            forget_loaded(self._meta.object_class)
        except REFUSED as exc:
            exc.deleted = unwrap(obj)  # named in the message
            raise BadRequest(refusal_message(self._meta.object_class, exc, "delete")) from None

    def rollback(self, bundles: list) -> None:
        """ModelResource's: delete the object of each bundle that has a key (through Pony).

        Tastypie calls it when an object of a PUT list fails; that request's
        transaction is rolled back as well, so nothing of it stays either way.
        """
        requests = {id(b.request): b.request for b in bundles if b.request is not None}
        if any(self.writes_through_django(request) for request in requests.values()):
            return super().rollback(bundles)
        rows = [
            self.row_of(bundle.obj)
            for bundle in bundles
            if bundle.obj and self.get_bundle_detail_data(bundle)
        ]
        self.delete_objects([row for row in rows if row is not None])

    def row_of(self, obj: Any) -> Any:
        """The entity of the row ``obj`` names (entity, draft or Django instance), or ``None``."""
        obj = unwrap(obj)
        if hasattr(obj, "_pkval_"):
            return adopt(obj)
        model = self._meta.object_class
        return entity_for(model, write_alias(model)).get(**{model._meta.pk.name: obj.pk})


def _unsaved_draft(obj: Any) -> bool:
    return isinstance(obj, Draft) and not obj.is_saved


def _unsaved_related(obj: Any) -> list[str]:
    """Names of relations that still hold a new object nobody saved."""
    if isinstance(obj, DjangoValues):
        return [name for name, value in obj.pending.items() if not value.is_saved]
    if isinstance(obj, Draft) and not obj.is_saved:
        # A reverse relation's new object is saved after this one (save_related).
        return [
            name
            for name, value in obj._relations.items()
            if isinstance(value, Draft)
            and not value.is_saved
            and obj._relation_field(name).concrete
        ]
    return []


def commit_refusal(exc: BaseException) -> str:
    """What the database refused at commit, in words that name no table or constraint."""
    if isinstance(exc, pony_core.UnexpectedError):
        exc = exc.original_exc
    if isinstance(exc, (django_db.IntegrityError, pony_core.IntegrityError)):
        return (
            "the database refused the change when it was committed (a constraint it checks "
            "at the end of the transaction, such as a reference to a row that does not exist)."
        )
    return "the database refused the data when the change was committed."


def _kind_of(value: Any) -> str:
    """A JSON-ish name for the type of a deserialized body."""
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return "a list"
    return f"a {type(value).__name__}"


def django_instance_has(obj: Any, model: type[models.Model], name: str) -> bool:
    """``hasattr(instance, name)`` for a Django instance of ``model`` standing for ``obj``.

    What the model class has (its fields, methods, properties, unless the property
    raises on ``obj``), what was set on ``obj`` itself (annotations) and ``_state``;
    not Pony's own attributes.
    """
    if name in getattr(obj, "__dict__", ()) or name == "_state":
        return True
    return _instance_attribute(model, name) and hasattr(obj, name)


def _instance_attribute(model: type[models.Model], name: str) -> bool:
    """Whether a Django instance of ``model`` has ``name`` (``Model.p`` is the class's only)."""
    from djony.descriptor import EntityDescriptor

    return hasattr(model, name) and not isinstance(
        inspect.getattr_static(model, name, None), EntityDescriptor
    )
