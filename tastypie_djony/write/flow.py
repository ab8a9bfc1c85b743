"""POST, PUT, PATCH and DELETE for ``DjonyResource``: ModelResource's own writes.

A write does what ``ModelResource``'s write does, side effects included: the
objects it edits are Django instances (``get_object_list`` hands writes the
Django ``QuerySet``), Tastypie's ``ModelResource`` code saves and deletes
them, so the model's ``save()`` and ``delete()`` overrides run, Django sends
every signal (``pre_save``/``post_save``, ``pre_delete``/``post_delete``,
``m2m_changed``) in its order with its arguments, and receivers write in the
same transaction.  Reads stay on Pony.

What DjonyResource adds:

* a write request runs in one transaction, settled by its answer
  (:mod:`tastypie_djony.write.outcome`: a 5xx leaves nothing, a 2xx only for rows
  committed, a 4xx keeps what the project's code wrote before the refusal);
* each ORM-facing step (a bundle's :meth:`~DjangoWritesMixin.save`, a delete,
  the replacement of a list by ``PUT``/``PATCH``) runs in ``transaction.atomic()``
  on the model's write database: a savepoint inside the request's transaction, a
  transaction of its own when called outside a request.  A step that fails, or
  whose transaction the database lost to an error project code caught, leaves
  nothing of itself;
* a refusal by the database (unique, not null, a reference, ``PROTECT``) or a
  value Django's field cannot store is a 400 in model terms
  (:mod:`tastypie_djony.write.refusals`), where ``ModelResource`` answers 500;
* a body the parser refuses, a body that is not an object, a to-many value that
  is not a list, a PATCH key naming an attribute of the object that is no field: a
  400 where Tastypie answers 500.

``Meta.writes`` is accepted for projects that set it; writes go through the
Django model whatever it says (``"django"``, the default; ``"pony"``: the Pony
write path of earlier drafts is gone, and system check ``tastypie_djony.W002``
says so).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models, transaction
from tastypie.bundle import Bundle
from tastypie.exceptions import BadRequest

from djony.serving import TransactionWatch, is_django_instance, is_entity_object, write_alias
from tastypie_djony.mode import is_write, writing_objects
from tastypie_djony.write.blame import refused_client_data
from tastypie_djony.write.errors import (
    DJANGO_REFUSED,
    UNSTORABLE,
    WriteLost,
    raised_by_value_conversion,
    refused_by_driver,
)
from tastypie_djony.write.keys import WriteKeysMixin
from tastypie_djony.write.outcome import current_write_request, doom_project_transaction, watching
from tastypie_djony.write.refusals import invalid_data_message, refusal_message


def as_django_instance(obj: Any, model: type[models.Model]) -> Any:
    """``obj`` as the Django instance a write saves or deletes.

    Django instances are kept; an object a read handed out (Tastypie's cache,
    an ``obj_get`` outside a request, an object read before the write) becomes
    an instance of ``model`` with the values it holds, as its row.
    """
    if obj is None or is_django_instance(obj) or not is_entity_object(obj):
        return obj
    names = [field.attname for field in model._meta.concrete_fields]
    return model.from_db(write_alias(model), names, [getattr(obj, name) for name in names])


class DjangoWritesMixin(WriteKeysMixin):
    """The write steps of ``DjonyResource``: Tastypie's ``ModelResource`` code, each step atomic.

    Override any of these as you would on ``ModelResource``; call ``super()``
    to keep the savepoint and the 400 for refusals.
    """

    _meta: Any
    fields: dict

    # -- mode ---------------------------------------------------------------
    def writes_through_django(self, request: Any) -> bool:
        """Whether this request's objects are Django instances: every write's are."""
        return is_write(request)

    def write_atomic(self) -> Any:
        """The ``transaction.atomic()`` each write step runs in (the model's write database)."""
        return transaction.atomic(using=write_alias(self._meta.object_class))

    def _refused(self, exc: BaseException, action: str = "save") -> BadRequest:
        """The 400 for a refusal; a transaction the project opened around the write is doomed.

        Django's own ``save()`` and ``delete()`` mark an enclosing ``atomic()`` for
        rollback when the database refuses them (``ATOMIC_REQUESTS``: ModelResource's
        request is rolled back whole); the refused step was undone by its savepoint,
        and the project's transaction goes the same way as with ModelResource.
        """
        doom_project_transaction(write_alias(self._meta.object_class))
        return BadRequest(refusal_message(self._meta.object_class, exc, action))

    def write_refusal(
        self,
        exc: BaseException,
        action: str = "save",
        deleting: Bundle | None = None,
        watch: TransactionWatch | None = None,
    ) -> BadRequest | None:
        """The 400 a write's error is, when it is the client's; ``None`` for a failure (a 500).

        A refusal by the database of a row the body writes names the model (and the
        object ``deleting`` deletes); a refusal of a row only the project's code writes
        is its bug (:mod:`~tastypie_djony.write.blame`, from the statements ``watch``
        saw); a value a field cannot convert is "Invalid data".  A transaction the
        database lost (:class:`~tastypie_djony.write.errors.WriteLost`) is told by the
        error that lost it.
        """
        if isinstance(exc, WriteLost):
            if exc.__cause__ is None:
                return None
            exc = exc.__cause__
        alias = write_alias(self._meta.object_class)
        if watch is None:
            running = current_write_request(alias)
            watch = running.watch if running is not None else None
        if (isinstance(exc, DJANGO_REFUSED) or refused_by_driver(exc, alias)) and (
            refused_client_data(self, exc, watch)
        ):
            if deleting is not None:
                exc.deleted = deleting.obj  # named in the message
            return self._refused(exc, action)
        if isinstance(exc, UNSTORABLE) and raised_by_value_conversion(exc):
            doom_project_transaction(alias)
            return BadRequest(invalid_data_message(self._meta.object_class, exc))
        return None

    @contextlib.contextmanager
    def write_step(self, action: str = "save", deleting: Bundle | None = None) -> Iterator[None]:
        """One write step: Django instances, ``transaction.atomic()``, the client's errors a 400.

        Before the step commits (its savepoint is released), the database is asked
        whether the transaction is still good: a statement error that project code
        caught in the step may have aborted it (PostgreSQL) or Django doomed it; then
        the step is undone and fails (:class:`~tastypie_djony.write.errors.WriteLost`:
        a 500, or the 400 of the refusal that lost it), never reported as done.
        Refusals (:meth:`write_refusal`) and Django's ``ValidationError`` (Tastypie's
        400) doom a transaction the project opened, as Django's own ``save()`` does.
        """
        alias = write_alias(self._meta.object_class)
        with writing_objects(), watching(alias) as watch:
            try:
                if watch.lost():  # project code before the step lost the request's transaction
                    raise WriteLost.found(watch.cause())
                since = watch.mark()
                with self.write_atomic():
                    yield
                    if watch.lost(since):
                        raise WriteLost.found(watch.cause(since))
            except ValidationError:  # Tastypie's 400
                doom_project_transaction(alias)
                raise
            except Exception as exc:
                refusal = self.write_refusal(exc, action, deleting, watch)
                if refusal is None:
                    raise
                raise refusal from None

    # -- saving -------------------------------------------------------------
    def save(self, bundle: Bundle, skip_errors: bool = False) -> Bundle:
        """``ModelResource.save`` (validation, authorization, related, the object, to-many),
        one write step."""
        bundle.obj = as_django_instance(bundle.obj, self._meta.object_class)
        if hasattr(bundle, "update_fields"):
            bundle.update_fields = self.columns_to_update(bundle.update_fields)
        with self.write_step():
            return super().save(bundle, skip_errors=skip_errors)

    def full_hydrate(self, bundle: Bundle) -> Bundle:
        """Tastypie's; in a PUT or PATCH, a body changing an existing object's key is a 400.

        ModelResource sets the body's key on the object the URI names and saves
        it: the data lands in (or creates) the row of the other key.  Called
        outside a request, a new key saves another row, as ``Model.save()`` does.
        """
        obj = bundle.obj = as_django_instance(bundle.obj, self._meta.object_class)
        in_detail_request = getattr(bundle.request, "method", None) in ("PUT", "PATCH")
        existing = isinstance(obj, models.Model) and not obj._state.adding
        key = obj.pk if existing and in_detail_request else None
        try:
            bundle = super().full_hydrate(bundle)
        except UNSTORABLE as exc:
            if not raised_by_value_conversion(exc):
                raise
            raise BadRequest(invalid_data_message(self._meta.object_class, exc)) from None
        if key is not None and bundle.obj is obj and _key(obj, obj.pk) != key:
            model = self._meta.object_class._meta
            raise BadRequest(
                f"Could not save {model.object_name}: its {model.pk.name} cannot be changed; "
                f"the body gives another {model.pk.name} than the object the URI names."
            )
        return bundle

    def save_related(self, bundle: Bundle) -> None:
        """Tastypie's; a related object that is still unsaved afterwards is a 400.

        Django's ``save()`` refuses it with a ``ValueError`` (a 500): a nested
        object sent without data (``{"country": {}}``) is neither found nor created.
        """
        super().save_related(bundle)
        obj = bundle.obj
        unsaved = [
            field.name
            for field in obj._meta.concrete_fields
            if field.is_relation
            and field.is_cached(obj)
            and getattr(field.get_cached_value(obj), "pk", 0) is None
        ]
        if unsaved:
            raise BadRequest(
                f"{', '.join(unsaved)}: a nested object without data was neither found nor "
                "created; send its URI or its fields."
            )

    def obj_create(self, bundle: Bundle, **kwargs: Any) -> Bundle:
        with writing_objects():
            return super().obj_create(bundle, **kwargs)

    def obj_update(self, bundle: Bundle, skip_errors: bool = False, **kwargs: Any) -> Bundle:
        with writing_objects():
            return super().obj_update(bundle, skip_errors=skip_errors, **kwargs)

    def hydrate_m2m(self, bundle: Bundle) -> Bundle:
        """Tastypie's; a to-many value that is a number is a 400, not a 500."""
        for name, field in self.fields.items():
            value = bundle.data.get(name) if field.is_m2m else None
            # Tastypie iterates the value: a number is a TypeError (a 500).  A string is
            # read letter by letter, each letter a URI that is not found: its 404 stays.
            if isinstance(value, (int, float)):
                raise BadRequest(
                    f"'{name}' needs a list of URIs or objects, got {type(value).__name__}."
                )
        try:
            return super().hydrate_m2m(bundle)
        except TypeError as exc:
            raise BadRequest(f"A to-many field needs a list of URIs or objects: {exc}") from None

    # -- lists replaced whole -------------------------------------------------
    def put_list(self, request: Any, **kwargs: Any) -> Any:
        """Tastypie's ``put_list``, atomic: the list is replaced whole or not at all.

        Tastypie deletes the list, then creates each object, and on a failure
        deletes the ones it created: the rows it deleted first were lost.
        """
        with self.write_step():
            return super().put_list(request, **kwargs)

    def patch_list(self, request: Any, **kwargs: Any) -> Any:
        """Tastypie's ``patch_list``, atomic: every change of the body is made, or none."""
        with self.write_step():
            return super().patch_list(request, **kwargs)

    # -- deleting -----------------------------------------------------------
    def obj_delete(self, bundle: Bundle, **kwargs: Any) -> None:
        """``ModelResource.obj_delete``, one write step; a ``PROTECT``/``RESTRICT`` is a 400."""
        bundle.obj = as_django_instance(bundle.obj, self._meta.object_class)
        with self.write_step("delete", deleting=bundle):
            return super().obj_delete(bundle, **kwargs)

    def obj_delete_list(self, bundle: Bundle, **kwargs: Any) -> None:
        """``ModelResource.obj_delete_list``, one write step; a blocked delete is a 400."""
        with self.write_step("delete"):
            return super().obj_delete_list(bundle, **kwargs)

    def obj_delete_list_for_update(self, bundle: Bundle, **kwargs: Any) -> None:
        """``ModelResource.obj_delete_list_for_update`` (a PUT of the list), one write step."""
        with self.write_step("delete"):
            return super().obj_delete_list_for_update(bundle, **kwargs)

    def rollback(self, bundles: list) -> None:
        for bundle in bundles:
            bundle.obj = as_django_instance(bundle.obj, self._meta.object_class)
        with writing_objects():
            return super().rollback(bundles)


def _key(obj: models.Model, value: Any) -> Any:
    """``value`` as the primary key of ``obj``'s model holds it (a body's ``"3"`` is ``3``)."""
    try:
        return obj._meta.pk.to_python(value)
    except ValidationError:
        return value
