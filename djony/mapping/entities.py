"""The declarations: every concrete model's entity, in one Pony ``Database``.

:func:`declare_entities` is the mapping's one entry point (see
:mod:`djony.mapping` for what it builds); each model's body is assembled by a
``_Declarer`` from the type table (:mod:`djony.meta.types`), the names
(:mod:`djony.meta.names`) and the attributes, relations, managers and rules of
:mod:`djony.objects`.  To map a custom field, extend the type table with
``DJONY_DATA_TYPES`` rather than this module.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from pony.orm import Optional, PrimaryKey

from djony.bridge import fieldvalues
from djony.mapping.info import DJANGO_SERVED, EntityInfo
from djony.meta.models import instance_names, is_generic_foreign_key, mapped_models
from djony.meta.names import entity_names, hidden_name, reverse_name
from djony.meta.types import DEFAULT_DATA_TYPES, ColumnType, column_type, data_types
from djony.objects import (
    attributes,
    deletion,
    identity,
    inheritance,
    instances,
    managers,
    relations,
    saving,
)


class _Declarer:
    """Builds the class dictionaries of all entities of one database."""

    def __init__(self, database: Any, model_list: list[type[models.Model]]) -> None:
        self.database = database
        self.models = mapped_models(model_list)
        self.names = entity_names(self.models)
        self.types = data_types()
        self.bodies: dict[type[models.Model], dict[str, Any]] = {m: {} for m in self.models}
        self.infos = {m: EntityInfo(m, self.names[m]) for m in self.models}
        #: Per model: to_field relation name -> (raw attribute, target field name).
        self.to_fields: dict[type[models.Model], dict[str, tuple[str, str]]] = {
            m: {} for m in self.models
        }
        #: Per model: (parent link, parent entity name) of a multi-table child.
        self.links: dict[type[models.Model], list[tuple[str, str]]] = {}

    def target(self, field: models.Field) -> type[models.Model] | None:
        model = field.remote_field.model._meta.concrete_model
        return model if model in self.names else None

    def declare(self) -> dict[type[models.Model], Any]:
        for model in self.models:
            self.declare_primary_key(model)
            for field in model._meta.local_concrete_fields:
                if not field.primary_key:
                    self.declare_field(model, field)
            for field in model._meta.local_many_to_many:
                self.declare_many_to_many(model, field)
        for model in self.models:
            self.declare_inherited(model)
        entities = {}
        for model in self.models:
            body = self.bodies[model]
            body["_table_"] = model._meta.db_table
            body["_djony_info_"] = self.infos[model]
            body.update(deletion.delete_hooks(model, self.names))
            body.update(saving.save_hooks(model))
            init = self.constructor(model)
            if init is not None:
                body["__init__"] = init
            body.setdefault("pk", attributes.pk_property)
            # Code written for Django instances (Tastypie's DjangoAuthorization,
            # create_identifier) reads ``obj._meta`` and ``obj.__class__._meta``.
            body.setdefault("_meta", model._meta)
            self.declare_instance_attributes(model)
            behaviour = instances.behaviour_base(model, set(body) | instance_names(model))
            body.update(instances.entity_methods(model, behaviour))
            body["_get_set_wrapper_subclass_"] = classmethod(managers.set_wrapper_class)
            entity = type(self.names[model], (self.database.Entity, behaviour), body)
            attributes.serve_descriptors(entity, model)
            entities[model] = entity
        return entities

    def declare_instance_attributes(self, model: type[models.Model]) -> None:
        """What a Django instance has beyond columns: attnames, generic relations."""
        body = self.bodies[model]
        for field in model._meta.local_concrete_fields:
            if field.is_relation and field.attname != field.name and field.attname not in body:
                if field.name in body and field.name not in self.to_fields[model]:
                    body[field.attname] = relations.attname_property(field.name)
        for field in model._meta.private_fields:
            if field.name in body:
                continue
            if is_generic_foreign_key(field):
                body[field.name] = relations.generic_foreign_key_property(field)
            elif field.is_relation and field.one_to_many and not field.concrete:
                body[field.name] = managers.manager_property(field.name)  # GenericRelation

    def constructor(self, model: type[models.Model]) -> Any:
        """``__init__`` for entities whose constructor must do more than Pony's, else ``None``."""
        links = self.links.get(model, [])
        to_fields = self.to_fields[model]
        unmapped = {k: v for k, v in self.infos[model].unmapped.items() if k not in to_fields}
        if not (links or to_fields or unmapped):
            return None
        return attributes.constructor(model._meta.label, links, to_fields, unmapped)

    def unmapped(self, model: type[models.Model], field: models.Field, reason: str) -> None:
        self.infos[model].unmapped[field.name] = reason
        self.bodies[model][field.name] = attributes.unmapped_property(model, field, reason)

    def scalar(self, field: models.Field) -> ColumnType | None:
        return column_type(field, self.types)

    def declare_primary_key(self, model: type[models.Model]) -> None:
        pk = model._meta.pk
        info = self.infos[model]
        if pk.is_relation:
            target = self.target(pk)
            if target is None:
                raise NotImplementedError(
                    f"{model._meta.label}.{pk.name}: the primary key refers to "
                    f"{pk.remote_field.model._meta.label}, which djony does not map."
                )
            self.bodies[model][pk.name] = PrimaryKey(
                self.names[target], column=pk.column, reverse=reverse_name(pk)
            )
            self.bodies[target][reverse_name(pk)] = Optional(
                self.names[model], reverse=pk.name, cascade_delete=True
            )
            info.paths[pk.name] = (pk.name,)
            return
        kind = self.scalar(pk)
        if kind is None:
            raise NotImplementedError(
                f"{model._meta.label}.{pk.name}: djony cannot map a primary key of type "
                f"{pk.get_internal_type()}; add it to DJONY_DATA_TYPES."
            )
        options = dict(kind.options)
        if isinstance(pk, models.AutoField) or pk.get_internal_type().endswith("AutoField"):
            options["auto"] = True
        elif pk.has_default():
            options["default"] = pk.get_default
        self.bodies[model][pk.name] = PrimaryKey(kind.py_type, column=pk.column, **options)
        info.paths[pk.name] = (pk.name,)

    def declare_field(self, model: type[models.Model], field: models.Field) -> None:
        body, info = self.bodies[model], self.infos[model]
        if field.is_relation:
            self.declare_relation(model, field)
            return
        kind = self.scalar(field)
        if kind is None:
            self.unmapped(
                model,
                field,
                f"djony has no column type for {field.get_internal_type()!r}; map it "
                f"with DJONY_DATA_TYPES = {{{field.get_internal_type()!r}: ...}}",
            )
            return
        options = dict(kind.options)
        py_type = kind.py_type
        internal = field.get_internal_type()
        built_in = self.types.get(internal) is DEFAULT_DATA_TYPES.get(internal, False)
        if built_in and fieldvalues.needs_django_conversion(field):
            py_type = fieldvalues.value_type(field)
            options = {"optimistic": False}
        default = _default(field)
        if default is not None:
            options["default"] = default
        body[field.name] = Optional(
            py_type, column=field.column, nullable=True, unique=field.unique or None, **options
        )
        info.paths[field.name] = (field.name,)

    def declare_relation(self, model: type[models.Model], field: models.Field) -> None:
        body, info = self.bodies[model], self.infos[model]
        target = self.target(field)
        if target is None:
            self.unmapped(
                model,
                field,
                f"it refers to {field.remote_field.model._meta.label}, which has no entity",
            )
            return
        if field.target_field != target._meta.pk:
            self.declare_to_field_relation(model, field, target)
            return
        rev = reverse_name(field)
        kind = relations.RelatedOptional if field.null else relations.RelatedRequired
        options: dict[str, Any] = {"column": field.column, "reverse": rev}
        if field.null:
            options["nullable"] = True
        body[field.name] = kind(self.names[target], **options)
        info.paths[field.name] = (field.name,)
        cascade = field.remote_field.on_delete is models.CASCADE
        if field.one_to_one:
            self.bodies[target][rev] = relations.RelatedOptional(
                self.names[model], reverse=field.name, cascade_delete=cascade
            )
        else:
            self.bodies[target][rev] = relations.RelatedSet(
                self.names[model], reverse=field.name, cascade_delete=cascade
            )

    def declare_to_field_relation(
        self, model: type[models.Model], field: models.Field, target: type[models.Model]
    ) -> None:
        kind = self.scalar(field.target_field)
        if kind is None:
            self.unmapped(model, field, "its to_field has a type djony cannot map")
            return
        self.bodies[model][field.attname] = Optional(
            kind.py_type, column=field.column, nullable=True, **kind.options
        )
        self.bodies[model][field.name] = relations.to_field_property(
            field.attname, self.names[target], field.target_field.name
        )
        self.to_fields[model][field.name] = (field.attname, field.target_field.name)
        self.infos[model].paths[field.name] = (field.attname,)
        self.infos[model].unmapped[field.name] = (
            f"to_field={field.target_field.name!r}: a property on objects; "
            f"in queries use {field.attname}"
        )

    def declare_many_to_many(
        self, model: type[models.Model], field: models.ManyToManyField
    ) -> None:
        if not isinstance(field, models.ManyToManyField):
            self.served_by_django(model, field, "is not a ManyToManyField")
            return
        target = self.target(field)
        if target is None:
            self.unmapped(model, field, "its target model has no entity")
            return
        through = field.remote_field.through
        if through._meta.auto_created and len(through._meta.local_concrete_fields) > 3:
            # django-sortedm2m: a column of its own (the order) that Pony's Set cannot fill.
            self.served_by_django(model, field, "has an intermediate table with more columns")
            return
        if not through._meta.auto_created:
            self.declare_through(model, field, target)
            return
        table = field.m2m_db_table()
        if target is model and field.remote_field.symmetrical:
            self.bodies[model][field.name] = relations.RelatedSet(
                self.names[model],
                reverse=field.name,
                table=table,
                column=field.m2m_reverse_name(),
                reverse_column=field.m2m_column_name(),
            )
            self.infos[model].paths[field.name] = (field.name,)
            return
        rev = reverse_name(field)
        self.bodies[model][field.name] = relations.RelatedSet(
            self.names[target], reverse=rev, table=table, column=field.m2m_reverse_name()
        )
        self.bodies[target][rev] = relations.RelatedSet(
            self.names[model], reverse=field.name, table=table, column=field.m2m_column_name()
        )
        self.infos[model].paths[field.name] = (field.name,)

    def served_by_django(self, model: type[models.Model], field: models.Field, why: str) -> None:
        """A to-many field of a third-party class (taggit's ``TaggableManager``, sortedm2m).

        Not a Pony relation: ``obj.<name>`` on objects is the field's own Django
        manager (its queries, ordering and filters), and resources read it through
        that manager, as ModelResource does (system check ``djony.I001``).
        """
        cls = type(field)
        self.bodies[model][field.name] = managers.django_manager_property(field.name)
        self.infos[model].unmapped[field.name] = (
            f"{DJANGO_SERVED}its class {cls.__module__}.{cls.__qualname__} {why}: "
            "objects and resources read it through its own Django manager; it is not an "
            "attribute in Pony queries"
        )

    def declare_through(
        self, model: type[models.Model], field: models.ManyToManyField, target: type[models.Model]
    ) -> None:
        """A many-to-many relation through an explicit model: a query property on each side."""
        through = field.remote_field.through._meta.concrete_model
        if through not in self.names:
            self.unmapped(model, field, f"its through model {through._meta.label} has no entity")
            return
        source_link, target_link = field.m2m_field_name(), field.m2m_reverse_field_name()
        self.bodies[model][field.name] = managers.manager_property(field.name)
        self.infos[model].unmapped[field.name] = (
            f"through={through._meta.label}: a read-only property on objects; "
            f"use the {through._meta.object_name} entity in queries and writes"
        )
        if target is model and field.remote_field.symmetrical:
            return
        rev = reverse_name(field)
        self.bodies[target][rev] = (
            managers.manager_property(rev)
            if rev != hidden_name(field)
            else relations.through_property(self.names[through], target_link, source_link)
        )

    def declare_inherited(self, model: type[models.Model]) -> None:
        """Parent fields on a multi-table child, reached through the parent link."""
        info, body = self.infos[model], self.bodies[model]
        if model in self.links:
            return  # already done (a parent is handled before its children)
        links = []
        for parent, link in model._meta.parents.items():
            if link is None or parent not in self.infos:
                continue
            links.append((link.name, self.names[parent]))
            parent_info = self.infos[parent]
            self.declare_inherited(parent)
            for name, path in parent_info.paths.items():
                if name in info.paths or name in body:
                    continue
                info.paths[name] = (link.name, *path)
                body[name] = inheritance.inherited_property(link.name, path)
        self.links[model] = links


def _default(field: models.Field) -> Any:
    """What Pony should insert when the attribute is not given, as Django would."""
    if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
        return saving.now_for(field)
    if field.has_default():
        return field.get_default
    if field.has_db_default():
        return None  # Pony leaves the column out of the INSERT: the database fills it
    if field.empty_strings_allowed and not field.null:
        return field.get_default  # "" for text columns, as Django saves it
    return None


def declare_entities(
    database: Any, model_list: list[type[models.Model]]
) -> dict[type[models.Model], Any]:
    """Declare one entity per concrete model in ``database``; returns model -> entity."""
    identity.install_instance_check()
    return _Declarer(database, model_list).declare()
